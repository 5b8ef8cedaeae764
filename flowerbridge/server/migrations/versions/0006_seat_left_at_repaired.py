"""``seats.left_at`` where revision 0004's first version left it out.

Revision 0004 first added ``seats.replaced_seq`` alone; within half an hour it
was changed, under the same revision, to add ``seats.left_at`` too. A database
that the first version brought to 0004 was then taken as up to date past it:
it lacked ``left_at``, and no table could be read or made. This adds the column
where it is missing and does nothing where it is there (every database that
0004 as it now stands made).

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-06
"""

from typing import Sequence, Union

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: Union[str, Sequence[str], None] = "0005"
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    present = {column["name"] for column in sa.inspect(op.get_bind()).get_columns("seats")}
    if "left_at" not in present:
        # as 0004 adds it: null, a person away has a whole clock after the restart
        with op.batch_alter_table("seats") as batch:
            batch.add_column(sa.Column("left_at", sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    # the column is 0004's, and goes with 0004's downgrade
    pass
