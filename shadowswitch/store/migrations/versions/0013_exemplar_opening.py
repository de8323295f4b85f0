"""exemplar.opening: the user's opening words' vector, which the trained choice model reads

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-06 06:40:00
"""

import sqlalchemy as sa
from alembic import op

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("exemplar", schema=None) as batch_op:
        batch_op.add_column(sa.Column("opening", sa.LargeBinary(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("exemplar", schema=None) as batch_op:
        batch_op.drop_column("opening")
