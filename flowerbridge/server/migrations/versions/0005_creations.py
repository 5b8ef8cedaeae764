"""The creations asked with an ``Idempotency-Key``, kept for 10 minutes, so that a
repeat of the request after a restart is answered with the table it made (its seat
tokens given again) rather than making a second one.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-06
"""

from typing import Sequence, Union

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: Union[str, Sequence[str], None] = "0004"
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    op.create_table(
        "creations",
        sa.Column("key_hash", sa.String(length=64), nullable=False),
        sa.Column("table_id", sa.String(length=16), nullable=False),
        sa.Column("request_hash", sa.String(length=64), nullable=False),
        sa.Column("salt", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["table_id"], ["tables.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("key_hash"),
    )
    op.create_index(op.f("ix_creations_table_id"), "creations", ["table_id"])


def downgrade() -> None:
    op.drop_index(op.f("ix_creations_table_id"), table_name="creations")
    op.drop_table("creations")
