"""Offline by default: LiteLLM and transformers must not reach for the network (set once, at start-up).

LiteLLM fetches its model cost map at import unless told otherwise (and waits when there is no
network); transformers asks the hub about models unless HF_HUB_OFFLINE is set. Both read these
variables when imported, so they are set before either is, by `serve` and by `create_app`.
A value already in the environment wins.
"""

from __future__ import annotations

import os

OFFLINE_ENV = {"LITELLM_LOCAL_MODEL_COST_MAP": "True", "HF_HUB_OFFLINE": "1"}


def stay_offline() -> None:
    for name, value in OFFLINE_ENV.items():
        os.environ.setdefault(name, value)
