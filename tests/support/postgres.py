"""The PostgreSQL server the tests use (trust auth; SHADOWSWITCH_TEST_PG names another)."""

from __future__ import annotations

import os

PG_ADMIN = os.environ.get("SHADOWSWITCH_TEST_PG", "postgresql://postgres@127.0.0.1:5432/test")
