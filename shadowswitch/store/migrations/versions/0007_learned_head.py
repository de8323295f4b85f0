"""exemplar state (last tool, its error, step) and engine_state.head (the trained choice model)

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-03 15:00:00
"""

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("exemplar", schema=None) as batch_op:
        batch_op.add_column(sa.Column("last_tool", sa.String(length=200), nullable=True))
        batch_op.add_column(sa.Column("last_error", sa.Boolean(), nullable=False, server_default=sa.false()))
        batch_op.add_column(sa.Column("step", sa.Integer(), nullable=False, server_default="0"))
    with op.batch_alter_table("engine_state", schema=None) as batch_op:
        batch_op.add_column(sa.Column("head", sa.LargeBinary(), nullable=True))
        batch_op.add_column(sa.Column("head_sha256", sa.String(length=64), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("engine_state", schema=None) as batch_op:
        batch_op.drop_column("head_sha256")
        batch_op.drop_column("head")
    with op.batch_alter_table("exemplar", schema=None) as batch_op:
        batch_op.drop_column("step")
        batch_op.drop_column("last_error")
        batch_op.drop_column("last_tool")
