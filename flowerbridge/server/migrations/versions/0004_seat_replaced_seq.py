"""Where in a table's log a stand-in took a person's seat, kept across restarts.

With the stand-in's own calls and cards marked in the log (``"stand_in": true``
in an event's detail), a person coming back after a restart is told what their
stand-in did for them since it took the seat, as without one.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-06
"""

from typing import Sequence, Union

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: Union[str, Sequence[str], None] = "0003"
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    # a seat stored before has no such point: null (its stand-in's actions, made
    # before the log marked them, are not told)
    with op.batch_alter_table("seats") as batch:
        batch.add_column(sa.Column("replaced_seq", sa.Integer(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("seats") as batch:
        batch.drop_column("replaced_seq")
