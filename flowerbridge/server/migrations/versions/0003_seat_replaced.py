"""Whether a stand-in bot plays for a seat's person, kept across restarts.

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-06
"""

from typing import Sequence, Union

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: Union[str, Sequence[str], None] = "0002"
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    # every seat stored before has no stand-in recorded: false
    with op.batch_alter_table("seats") as batch:
        batch.add_column(sa.Column("replaced", sa.Boolean(), nullable=False,
                                   server_default=sa.false()))


def downgrade() -> None:
    with op.batch_alter_table("seats") as batch:
        batch.drop_column("replaced")
