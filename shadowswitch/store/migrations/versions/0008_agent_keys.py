"""agent keys, their usage windows, and the key name on each decision

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-03 18:20:00
"""

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "agent_key",
        sa.Column("name", sa.String(length=64), nullable=False),
        sa.Column("key_hash", sa.String(length=64), nullable=False),
        sa.Column("prefix", sa.String(length=16), nullable=False),
        sa.Column("task_types", sa.JSON(), nullable=True),
        sa.Column("rpm", sa.Integer(), nullable=True),
        sa.Column("budget_usd_per_day", sa.Float(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("created_by", sa.String(length=200), nullable=False),
        sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("revoked_by", sa.String(length=200), nullable=True),
        sa.PrimaryKeyConstraint("name"),
        sa.UniqueConstraint("key_hash"),
    )
    op.create_table(
        "agent_usage",
        sa.Column("key_name", sa.String(length=64), nullable=False),
        sa.Column("bucket", sa.String(length=32), nullable=False),
        sa.Column("requests", sa.Integer(), nullable=False),
        sa.Column("usd", sa.Float(), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("key_name", "bucket"),
    )
    with op.batch_alter_table("decision", schema=None) as batch_op:
        batch_op.add_column(sa.Column("key_name", sa.String(length=64), nullable=True))
        batch_op.create_index(batch_op.f("ix_decision_key_name"), ["key_name"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("decision", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_decision_key_name"))
        batch_op.drop_column("key_name")
    op.drop_table("agent_usage")
    op.drop_table("agent_key")
