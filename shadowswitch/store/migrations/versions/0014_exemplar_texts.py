"""exemplar.texts: the user's words the encoder is tuned on; engine_state.tuned: the tuned layers

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-06 20:45:00
"""

import sqlalchemy as sa
from alembic import op

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("exemplar", schema=None) as batch_op:
        batch_op.add_column(sa.Column("texts", sa.JSON(), nullable=True))
    with op.batch_alter_table("engine_state", schema=None) as batch_op:
        batch_op.add_column(sa.Column("tuned", sa.LargeBinary(), nullable=True))
        batch_op.add_column(sa.Column("tuned_sha256", sa.String(length=64), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("engine_state", schema=None) as batch_op:
        batch_op.drop_column("tuned_sha256")
        batch_op.drop_column("tuned")
    with op.batch_alter_table("exemplar", schema=None) as batch_op:
        batch_op.drop_column("texts")
