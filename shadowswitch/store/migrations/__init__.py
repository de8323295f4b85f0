"""The alembic migrations: the only source of the schema (`shadowswitch db upgrade`; see store.db)."""
