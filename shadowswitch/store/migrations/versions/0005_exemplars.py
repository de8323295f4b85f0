"""exemplar and engine_state: what per-task-type learning keeps

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-01 20:30:00
"""

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "exemplar",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("task_type", sa.String(length=64), nullable=False),
        sa.Column("decision_id", sa.String(length=32), nullable=False),
        sa.Column("encoder", sa.String(length=200), nullable=False),
        sa.Column("vector", sa.LargeBinary(), nullable=False),
        sa.Column("label", sa.String(length=200), nullable=False),
        sa.Column("tools_key", sa.String(length=64), nullable=False),
        sa.Column("zero_shot", sa.JSON(), nullable=True),
        sa.Column("local_tool", sa.String(length=200), nullable=True),
        sa.Column("args_status", sa.String(length=16), nullable=False),
        sa.Column("arguments", sa.JSON(), nullable=True),
        sa.Column("excluded", sa.Boolean(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_exemplar_created_at", "exemplar", ["created_at"])
    op.create_index("ix_exemplar_task_type", "exemplar", ["task_type"])
    op.create_index("ix_exemplar_decision_id", "exemplar", ["decision_id"])
    op.create_table(
        "engine_state",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("task_type", sa.String(length=64), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("encoder", sa.String(length=200), nullable=False),
        sa.Column("exemplar_max_id", sa.Integer(), nullable=False),
        sa.Column("memory_weight", sa.Float(), nullable=False),
        sa.Column("min_confidence", sa.Float(), nullable=False),
        sa.Column("figures", sa.JSON(), nullable=True),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("task_type", "version"),
    )
    op.create_index("ix_engine_state_task_type", "engine_state", ["task_type"])


def downgrade() -> None:
    op.drop_table("engine_state")
    op.drop_table("exemplar")
