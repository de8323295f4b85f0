"""exemplar.optional: whether the engine and the upstream set each optional parameter

Revision ID: 0015
Revises: 0014
Create Date: 2026-12-07 22:30:00
"""

import sqlalchemy as sa
from alembic import op

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("exemplar", schema=None) as batch_op:
        batch_op.add_column(sa.Column("optional", sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("exemplar", schema=None) as batch_op:
        batch_op.drop_column("optional")
