"""``flowerbridge prune --older-than DAYS``: remove a server's old tables from its database."""

from __future__ import annotations

from . import whole_number

# Days, at most: about 270 years, past any table's age
MAX_DAYS = 99_999


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "prune", help="remove a server's old tables from its database",
        description="Remove from the server's database the tables last played more than DAYS "
                    "days ago whose session is over (finished, or closed), with their seats, "
                    "hands and double-dummy values, in one transaction, and give the space back "
                    "(SQLite). The server must be stopped: it holds the database while it runs.")
    p.add_argument("--older-than", type=whole_number(0, MAX_DAYS), required=True, metavar="DAYS",
                   help="remove tables whose last event (deal, call, card or close) is more than DAYS days old")
    p.add_argument("--database", metavar="URL", type=_database,
                   help="the server's database, as 'serve --database' takes it (default: the "
                        "SQLite file 'serve' uses by default)")
    p.add_argument("--unfinished", action="store_true",
                   help="remove tables still open too (sessions left unfinished that long)")
    p.add_argument("--dry-run", action="store_true", help="say what would be removed, remove nothing")
    p.set_defaults(func=run)


def run(args) -> int:
    from datetime import datetime, timedelta, timezone
    from pathlib import Path

    from ..render import count_text
    from ..server.store import Store, StoreError, default_database, shown_url

    database = args.database if args.database is not None else default_database(make_folder=False)
    if args.database is None and not Path(database).exists():     # (its folder is not made either)
        raise StoreError(f"there is no database {shown_url(database)}: no server has kept its tables "
                         "in the default one; give the one the server uses (--database, as serve takes it)")
    before = datetime.now(timezone.utc) - timedelta(days=args.older_than)
    store = Store(database)
    try:
        # A database no server has made is none to prune (a mistyped file was made anew)
        store.check_made()
        # A server keeps its open tables in memory: none may run on the database meanwhile,
        # and the schema is brought up to date as serve brings it.
        store.lock()
        if not args.dry_run:
            store.migrate()
        elif not store.is_current():    # (a dry run changes nothing, its schema neither)
            raise StoreError(f"database {store.shown} has the schema of an earlier flowerbridge: a dry "
                             "run does not bring it up to date (serve, or prune without --dry-run, does)")
        path = Path(store.engine.url.database or "") if store.is_sqlite else None
        size = path.stat().st_size if path is not None else None
        pruned = store.prune(before, unfinished=args.unfinished, dry_run=args.dry_run)
        # said before the space is given back: the removal is committed whatever that meets
        # (a full disk, when people prune: it said only "cannot compact", the tables gone)
        which = "finished, closed or unfinished" if args.unfinished else "finished or closed"
        done = "would remove" if args.dry_run else "removed"
        print(f"{shown_url(database)}: {done} {count_text(pruned.tables, 'table')} ({which}) last played "
              f"before {before:%Y-%m-%d %H:%M} UTC: {count_text(pruned.hands, 'hand')}, "
              f"{count_text(pruned.events, 'event')}", flush=True)
        if pruned.stray:
            print(f"{done} {count_text(pruned.stray, 'row')} of tables removed before, which "
                  "outlived them (a deletion made with foreign keys off, as sqlite3's are)", flush=True)
        if not args.dry_run and path is not None and size is not None:
            store.compact()     # (each time: one that failed before is done now)
            print(f"database file: {size / 1e6:,.1f} MB, now {path.stat().st_size / 1e6:,.1f} MB")
    finally:
        store.close()
    return 0


def _database(text: str) -> str:
    from .serve import _database as serve_database

    return serve_database(text)
