"""decision.state_version: the learned engine state the local engine decided under (0: none)

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-03 18:20:00
"""

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("decision", schema=None) as batch_op:
        batch_op.add_column(sa.Column("state_version", sa.Integer(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("decision", schema=None) as batch_op:
        batch_op.drop_column("state_version")
