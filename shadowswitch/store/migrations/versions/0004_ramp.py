"""rollout.ramp_*: the ramp's state beside the rollout; audit_event.figures: the evidence it acted on

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-01 20:10:00
"""

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("rollout", schema=None) as batch_op:
        batch_op.add_column(sa.Column("policy_ramp", sa.JSON(), nullable=True))
        batch_op.add_column(sa.Column("ramp_state", sqlmodel.sql.sqltypes.AutoString(length=16), nullable=True))
        batch_op.add_column(sa.Column("ramp_since", sa.DateTime(timezone=True), nullable=True))
        batch_op.add_column(sa.Column("ramp_note", sa.Text(), nullable=True))
    with op.batch_alter_table("audit_event", schema=None) as batch_op:
        batch_op.add_column(sa.Column("figures", sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("audit_event", schema=None) as batch_op:
        batch_op.drop_column("figures")
    with op.batch_alter_table("rollout", schema=None) as batch_op:
        batch_op.drop_column("ramp_note")
        batch_op.drop_column("ramp_since")
        batch_op.drop_column("ramp_state")
        batch_op.drop_column("policy_ramp")
