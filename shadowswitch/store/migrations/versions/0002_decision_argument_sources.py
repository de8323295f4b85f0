"""decision.argument_sources: where each argument value of a local answer comes from

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-02 10:00:00
"""

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("decision", schema=None) as batch_op:
        batch_op.add_column(sa.Column("argument_sources", sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("decision", schema=None) as batch_op:
        batch_op.drop_column("argument_sources")
