"""exemplar.blocked: the tools the engine would not serve on that request by rule

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-02 13:30:00
"""

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("exemplar", schema=None) as batch_op:
        batch_op.add_column(sa.Column("blocked", sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("exemplar", schema=None) as batch_op:
        batch_op.drop_column("blocked")
