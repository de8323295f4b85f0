"""exemplar.context: the agent's last text reply's vector, which the trained choice model reads

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-05 18:30:00
"""

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("exemplar", schema=None) as batch_op:
        batch_op.add_column(sa.Column("context", sa.LargeBinary(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("exemplar", schema=None) as batch_op:
        batch_op.drop_column("context")
