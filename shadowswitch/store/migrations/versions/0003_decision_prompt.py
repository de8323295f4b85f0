"""decision.prompt: the request's messages, stored only when SHADOWSWITCH_STORE_PROMPTS is on

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01 18:10:00
"""

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("decision", schema=None) as batch_op:
        batch_op.add_column(sa.Column("prompt", sa.Text(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("decision", schema=None) as batch_op:
        batch_op.drop_column("prompt")
