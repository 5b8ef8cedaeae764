"""When a person left their seat, and where in the table's log a stand-in took
it: kept across restarts.

``left_at``: a person away when the server stops is stood in for
``--replace-after`` after they left, not after the restart. ``replaced_seq``:
with the stand-in's own calls and cards marked in the log (``"stand_in": true``
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
    # a seat stored before has neither: null (a person away has a whole clock after
    # the restart, as before; a stand-in's actions made before the log marked them
    # are not told)
    with op.batch_alter_table("seats") as batch:
        batch.add_column(sa.Column("left_at", sa.DateTime(timezone=True), nullable=True))
        batch.add_column(sa.Column("replaced_seq", sa.Integer(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("seats") as batch:
        batch.drop_column("replaced_seq")
        batch.drop_column("left_at")
