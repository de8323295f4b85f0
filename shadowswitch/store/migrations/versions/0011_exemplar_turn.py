"""exemplar.turn: the conversation's state the trained choice model reads besides the turn

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-05 15:00:00
"""

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("exemplar", schema=None) as batch_op:
        batch_op.add_column(sa.Column("turn", sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("exemplar", schema=None) as batch_op:
        batch_op.drop_column("turn")
