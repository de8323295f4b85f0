"""certificate: each task type's served state's certified region, and its withdrawals

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-05 15:00:00
"""

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "certificate",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("task_type", sa.String(length=64), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("threshold", sa.Float(), nullable=True),
        sa.Column("since_pair", sa.Integer(), nullable=False),
        sa.Column("figures", sa.JSON(), nullable=True),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_certificate_task_type", "certificate", ["task_type"])


def downgrade() -> None:
    op.drop_index("ix_certificate_task_type", table_name="certificate")
    op.drop_table("certificate")
