"""Alembic environment: migrations run against the URL given by shadowswitch.store.db."""

from alembic import context
from sqlmodel import SQLModel

from shadowswitch.store import tables  # noqa: F401  (registers the tables on the metadata)
from shadowswitch.store.db import make_engine

config = context.config
target_metadata = SQLModel.metadata


def run_migrations_offline() -> None:
    context.configure(url=config.get_main_option("sqlalchemy.url"), target_metadata=target_metadata)
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    url = config.get_main_option("sqlalchemy.url")
    assert url, "store.db.alembic_config sets sqlalchemy.url"
    engine = make_engine(url)
    with engine.connect() as connection:
        context.configure(
            connection=connection,
            target_metadata=target_metadata,
            render_as_batch=connection.dialect.name == "sqlite",
        )
        with context.begin_transaction():
            context.run_migrations()
    engine.dispose()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
