"""Alembic environment of the server's database.

The server passes an open connection in ``config.attributes["connection"]``;
run by hand, the URL comes from ``-x url=...``.
"""

from alembic import context

from flowerbridge.server.models import Base
from flowerbridge.server.store import engine_url, migration_connection

target_metadata = Base.metadata


def run_migrations(connection) -> None:
    context.configure(connection=connection, target_metadata=target_metadata,
                      render_as_batch=connection.dialect.name == "sqlite")
    with context.begin_transaction():
        context.run_migrations()


connection = context.config.attributes.get("connection")
if connection is not None:
    run_migrations(connection)
else:
    url = context.get_x_argument(as_dictionary=True).get("url")
    if not url:
        raise SystemExit("give the database: alembic -x url=sqlite:///path.db upgrade head")
    # as Store.migrate does: on SQLite, one transaction with foreign keys off
    # (a batch migration drops and makes tables again), checked before the commit
    with migration_connection(engine_url(url)) as conn:
        run_migrations(conn)
