"""``flowerbridge serve``: the web server — lobby, tables and play in the browser."""

from __future__ import annotations

import argparse
import ipaddress
import re
import sys
from typing import TYPE_CHECKING, Callable

from . import whole_number

if TYPE_CHECKING:
    from ..server.store import Store


# Connections open at once (uvicorn's limit_concurrency): far above a full
# server's people (--max-tables 1,000 of four seats, some with two tabs, and
# spectators), below what one process can hold.
MAX_CONNECTIONS = 10_000

# Seconds a SIGTERM outside uvicorn's handlers gives the clean-up before the process
# ends all the same (by SIGALRM).
STOP_PATIENCE = 10

# Seconds a stop waits for requests in progress and connections still open (a client
# still sending its body, or not reading its answers) before uvicorn cuts them short
# and the server shuts down: without it, one slow or stalled client held the stop for
# as long as it kept its connection open.
GRACE_SECONDS = 5


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "serve", help="serve the game in the browser (lobby, tables, bots)",
        description="Run the Flower Bridge web server: create tables in the lobby, invite "
                    "people with secret seat links, play with bots or friends, watch as a "
                    "spectator. Prints the URL to open.")
    p.add_argument("--host", type=_host, default="127.0.0.1",
                   help="address to listen on (default 127.0.0.1; 0.0.0.0 for every interface)")
    p.add_argument("--port", type=_port, default=8000,
                   help="port to listen on (default 8000; 0 picks a free one)")
    p.add_argument("--database", metavar="URL", type=_database,
                   help="postgresql://user@host/db, sqlite:///file.db or a file path "
                        "(default: flowerbridge.db in the user's data directory)")
    p.add_argument("--bot-delay", type=_seconds, default=0.6, metavar="SECONDS",
                   help="pause before each bot action, 0 to 86400 seconds (default 0.6)")
    p.add_argument("--replace-after", type=_replace_after, default=60.0, metavar="SECONDS",
                   help="a stand-in bot takes the seat of a person who has been away this long; "
                        "'never' to wait for them (default 60)")
    p.add_argument("--no-analysis", action="store_true",
                   help="skip the double-dummy values in the reviews of finished hands")
    p.add_argument("--max-tables", type=_count, default=1000, metavar="N",
                   help="tables open at once, at most (default 1000)")
    p.add_argument("--idle-close", type=_idle_close, default=3600.0, metavar="MINUTES",
                   help="when --max-tables are open, the table idle longest (nobody connected, "
                        "no call or card) is closed to make room for a new one if it has been "
                        "idle this long: minutes, or 90m, 2h, 1d (default 60)")
    p.add_argument("--tables-per-minute", type=_count, default=30, metavar="N",
                   help="tables one address may create a minute (default 30)")
    p.add_argument("--tables-per-address", type=_count, default=100, metavar="N",
                   help="open tables one address may hold, made by this server since it started "
                        "(default 100)")
    p.add_argument("--connections-per-address", type=_count, default=200, metavar="N",
                   help="websockets one address may hold open at once (default 200)")
    p.add_argument("--forwarded-allow-ips", type=_forwarded_allow_ips, metavar="IPS",
                   help="behind a reverse proxy: the proxy's addresses or networks, comma-separated "
                        "(10.0.0.2,10.1.0.0/16; * for any), whose X-Forwarded-For and "
                        "X-Forwarded-Proto are believed (default: none is; every limit per address "
                        "counts the connecting address)")
    p.add_argument("--max-connections", type=_count, default=MAX_CONNECTIONS, metavar="N",
                   help="connections open at once, HTTP and websockets together: past it a new "
                        f"HTTP request is answered 503 (default {MAX_CONNECTIONS:,})")
    p.add_argument("--allowed-hosts", type=_allowed_hosts, metavar="HOSTS",
                   help="the host names requests may be addressed to, comma-separated "
                        "(bridge.example.org, *.example.org for its subdomains, addresses; * for "
                        "any), besides localhost, 127.x.x.x and [::1], always allowed (default: on "
                        "a loopback --host only these, against DNS rebinding; else any)")
    p.set_defaults(func=run)


def run(args) -> int:
    import signal

    from .._signals import Terminated, handling

    # A SIGTERM before uvicorn has put in its own handlers (while the database is opened,
    # locked and migrated, the app made) stops the server as one while it serves does:
    # what was opened is closed, the lock let go, and the process ends by the signal.
    # (In another thread than the main one uvicorn takes no signals either.)
    opened: list[Store] = []
    try:
        with handling((signal.SIGTERM,), lambda signum, frame: _sigterm(opened)):
            return _open_and_serve(args, opened)
    except Terminated:
        _end_by_sigterm()
        raise   # (where the signal could not end the process: "terminated", exit 143)


def _sigterm(opened: list[Store]) -> None:
    """SIGTERM outside uvicorn's own handlers. Before the event loop runs (start-up), a
    stop that start-up cleans up after. From inside it, uvicorn passing a SIGTERM on once
    it has shut down (or once a second Ctrl-C cut its shutdown short): the store is let go
    if the app's shutdown did not, and the process ends by the signal at once, as under
    uvicorn's own ``run`` (unwinding the loop there cancelled the app's shutdown, with
    a traceback)."""
    import asyncio
    import signal

    from .._signals import Terminated

    # Whatever the clean-up meets, the process is gone soon: SIGALRM's own action ends
    # it if it is still here then (a stop must stop).
    if hasattr(signal, "alarm"):
        signal.signal(signal.SIGALRM, signal.SIG_DFL)
        signal.alarm(STOP_PATIENCE)
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        raise Terminated() from None
    for store in opened:
        try:
            store.close()
        except Exception:   # ending now: the operating system lets the lock go anyway
            pass
    _end_by_sigterm()


def _end_by_sigterm() -> None:
    """End this process by SIGTERM's own action, as uvicorn ends a server it stopped
    on SIGTERM (what a service manager counts as a clean stop)."""
    import os
    import signal
    import sys

    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    os.kill(os.getpid(), signal.SIGTERM)


def _log_to_stderr() -> Callable[[], None]:
    """The server's own messages (loggers ``flowerbridge.*``: a table closed to make room,
    a refused Host, a database failure, a migration) on standard error, from INFO up, each
    with its level as uvicorn writes its own (they went to Python's last resort: WARNING
    and up only, bare, without a level)."""
    import logging
    import sys

    from uvicorn.logging import DefaultFormatter

    class Stderr(logging.StreamHandler):
        """Standard error as it is when a message comes (not when the server began)."""

        @property
        def stream(self):
            return sys.stderr

        @stream.setter
        def stream(self, value) -> None:
            pass

    logger = logging.getLogger("flowerbridge")
    handler = Stderr()
    handler.setFormatter(DefaultFormatter("%(levelprefix)s %(message)s", use_colors=False))
    level = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)

    def undo() -> None:     # (serve run inside another program: its logging as it was)
        logger.removeHandler(handler)
        logger.setLevel(level)

    return undo


def _open_and_serve(args, opened: list[Store]) -> int:
    import errno
    import socket

    from ..server.store import Store, default_database

    # The port first: a port in use is one error line, and leaves no database behind.
    family = socket.AF_INET6 if ":" in args.host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((args.host, args.port))
        # Listening now, clients that come before start-up ends wait instead of being refused.
        sock.listen(2048)
    except OSError as exc:
        sock.close()
        # (a port in use is likely: 8000 is many tools' default; what to do said)
        other = (" (another port: --port N, or --port 0 for any free one; make run PORT=N)"
                 if exc.errno == errno.EADDRINUSE else "")
        raise OSError(f"cannot listen on {args.host}:{args.port}: {exc.strerror}{other}") from None
    unlog = _log_to_stderr()
    store = None
    try:
        database = args.database if args.database is not None else default_database()
        store = Store(database)
        opened.append(store)
        # One server per database (it keeps its tables in memory): taken before the
        # migration, so that a second server is refused without changing anything.
        store.lock()
        store.migrate()  # here, so that a bad database is one error line, not a startup trace
        store.limit_waits()
        return _serve(args, sock, family, database, store)
    except BaseException:
        sock.close()
        raise
    finally:
        if store is not None:   # (the app's shutdown closed it already, unless it never started)
            from .._signals import signals_held

            with signals_held():    # a second stop waits until the lock is let go
                store.close()
        unlog()


def _serve(args, sock, family: int, database: str, store: Store) -> int:
    """Serve on ``sock`` until stopped, ``store`` locked and migrated."""
    import socket

    import uvicorn

    from ..server import ServerConfig, create_app
    from ..server.limits import MAX_FRAME_BYTES
    from ..server.store import shown_url

    # on every address (by the socket: a name such as 0 may mean it too), the machine's
    # own on its network: printed, and answered beside a host list
    bound, port = sock.getsockname()[:2]
    every = bound in EVERY_ADDRESS
    own = network_address() if every else None
    config = ServerConfig(database=database, bot_delay=args.bot_delay,
                          replace_after=args.replace_after, analysis=not args.no_analysis,
                          max_tables=args.max_tables, idle_close=args.idle_close,
                          tables_per_minute=args.tables_per_minute, tables_per_address=args.tables_per_address,
                          connections_per_address=args.connections_per_address,
                          allowed_hosts=allowed_hosts(bound if every else args.host, args.allowed_hosts,
                                                      own, bound),
                          site_names=tuple(h for h in args.allowed_hosts or () if h != "*"))
    host = f"[{args.host}]" if family == socket.AF_INET6 else args.host
    where = ""
    if every:
        # the lobby must be opened at an address the others can reach, since the
        # invitation links are made from the address it was opened at (not 0.0.0.0)
        host = own or "127.0.0.1"
        where = ("; on every address of this machine: open the lobby at the one the others "
                 "reach, the invitation links are made from it")
    print(f"Flower Bridge is at http://{host}:{port}/  (database: {shown_url(database)}{where}; "
          "Ctrl+C stops)", flush=True)
    from ..server.headers import is_loopback
    if not is_loopback(bound.split("%")[0]) and args.forwarded_allow_ips is None:
        # (slow clients are timed out by nothing here: a few hundred half-sent requests
        # shut everyone else out; docs/server.md, Beyond this machine)
        print("note: other machines can reach this server: on a network you do not trust, put it "
              "behind a reverse proxy that times out slow clients (docs/server.md, Beyond this machine)",
              file=sys.stderr, flush=True)
    # X-Forwarded-For is believed only from a proxy named by --forwarded-allow-ips (uvicorn
    # would believe it from 127.0.0.1 by default, so that any client of a proxy or other
    # program on this machine that passes the header on could choose its own address)
    forwarded = args.forwarded_allow_ips
    _allow_files(args.max_connections)
    server = _Server(uvicorn.Config(create_app(config, store), log_level="warning",
                                           ws_max_size=MAX_FRAME_BYTES,
                                           # (no compression: 1 KB on the wire unpacked to a
                                           # 1 MiB frame before the app could refuse it, and a
                                           # stream of them held a core; messages are 4 KiB at most)
                                           ws_per_message_deflate=False,
                                           proxy_headers=forwarded is not None,
                                           forwarded_allow_ips=forwarded,
                                           # (uvicorn counts the arriving connection
                                           # itself: N took N - 1, and 1 refused all)
                                           limit_concurrency=args.max_connections + 1,
                                           timeout_graceful_shutdown=GRACE_SECONDS))
    _run_server(server, sock)
    return 0


def _server_class():
    import asyncio
    import logging

    import uvicorn

    class Server(uvicorn.Server):
        """uvicorn's server, each stop signal raised again once as it returns, and quiet
        about the tasks a forced stop cancels. It raised every signal it caught: a second
        Ctrl+C while the first one's stop ran (an impatient operator; `timeout -s INT` sends
        two) was raised inside the event loop, as a KeyboardInterrupt there; and that second
        Ctrl+C forces the stop, skipping the app's shutdown (the store is closed after the
        loop all the same), whose task, and those of connections still open, the loop then
        cancels: uvicorn logged each with its traceback (127 lines with a socket open)."""

        def __init__(self, config) -> None:
            super().__init__(config)
            logging.getLogger("uvicorn.error").addFilter(self._cancelled_by_the_stop)

        def _cancelled_by_the_stop(self, record: logging.LogRecord) -> bool:
            if not self.should_exit:
                return True
            kind = record.exc_info[0] if record.exc_info else None
            if kind is not None:
                return not issubclass(kind, (asyncio.CancelledError, KeyboardInterrupt))
            # (Starlette hands uvicorn its lifespan's traceback as the message's text)
            text = str(record.msg)
            return not (text.startswith("Traceback") and text.rstrip().rsplit("\n", 1)[-1] in (
                "asyncio.exceptions.CancelledError", "KeyboardInterrupt"))

        def handle_exit(self, sig, frame) -> None:
            super().handle_exit(sig, frame)
            caught = getattr(self, "_captured_signals", None)
            if isinstance(caught, list):
                caught[:] = list(dict.fromkeys(caught))

    return Server


def _Server(config):   # noqa: N802 -- named as the class it makes
    return _server_class()(config)


def _run_server(server, sock) -> None:
    """``server.run(sockets=[sock])``, but the coroutine is ours to close: a Ctrl-C
    before it starts (as the event loop is made) otherwise leaves Python's "coroutine
    'Server.serve' was never awaited" warning under ``interrupted``."""
    import asyncio

    serving = None
    try:
        loop_factory = server.config.get_loop_factory()
        serving = server.serve(sockets=[sock])
        with asyncio.Runner(loop_factory=loop_factory) as runner:
            runner.run(serving)
    finally:
        if serving is not None:
            serving.close()     # (a finished coroutine: nothing to do)
        import logging

        quiet = getattr(server, "_cancelled_by_the_stop", None)     # (for the next server in this process)
        if quiet is not None:
            logging.getLogger("uvicorn.error").removeFilter(quiet)


FILES_BESIDE = 64
"""Files a server holds open beside its connections (the database and its journal, the
listening socket, the event loop's, the solver's threads): a connection is one more each.
99 connections at once held 117 files."""


def _allow_files(connections: int) -> None:
    """Raise the process's limit on open files (a connection is one) towards what
    ``connections`` at once need, as far as the system lets it (1,024 is a common soft
    limit; macOS refuses more than 10,240 whatever the hard limit says), and warn where
    it stays below."""
    try:
        import resource
    except ImportError:     # (Windows)
        return
    wanted = connections + FILES_BESIDE
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and soft < wanted:
        for target in (wanted, 10240):
            target = target if hard == resource.RLIM_INFINITY else min(target, hard)
            try:
                resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            except (ValueError, OSError):
                continue
            soft = max(soft, target)
            break
    if soft != resource.RLIM_INFINITY and soft < wanted:
        # (under `ulimit -n 64` connections past the limit failed their handshakes, and
        # requests got empty answers, without a word in the log)
        import logging

        logging.getLogger("flowerbridge.server").warning(
            "this process may have only %d files open (ulimit -n), and each connection is one: "
            "about %d connections at once, not the %d of --max-connections; raise the limit or "
            "lower --max-connections", soft, max(soft - FILES_BESIDE, 0), connections)


def _database(text: str) -> str:
    if not text.strip():    # an unset "$DB": not the default database unasked
        raise argparse.ArgumentTypeError("give a database (leave the option out for the default)")
    return text


def _host(text: str) -> str:
    """An IP address or a host name, checked: a name of other characters reached
    the socket, which raised on it."""
    if not text.strip():
        raise argparse.ArgumentTypeError("give an address (0.0.0.0 listens on every interface)")
    if _is_address(text):
        return text
    # a name as the socket resolves it: its ASCII (IDNA) form, underscores allowed
    # (container names); a Unicode name must not be an address in other digits
    try:
        name = text.encode("idna").decode("ascii")
    except UnicodeError:
        name = ""
    if name != text and _is_address(name):
        name = ""
    if name and _BIND_NAME.fullmatch(name.lower()) and len(name) <= 253:
        return text
    raise argparse.ArgumentTypeError(
        f"{text!r} is not an IP address or host name: give one such as 127.0.0.1, ::1 or "
        "bridge.example.org (0.0.0.0 listens on every interface)")


_BIND_NAME = re.compile(r"([a-z0-9_]([a-z0-9_-]*[a-z0-9_])?\.)*[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?\.?")


def _is_address(text: str) -> bool:
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return True


def _forwarded_allow_ips(text: str) -> list[str]:
    """The addresses and networks of trusted proxies (``*``: any), checked."""
    items = [item.strip() for item in text.split(",")]
    if items == ["*"]:
        return items
    for item in items:
        try:
            if "/" in item:
                ipaddress.ip_network(item)
            else:
                ipaddress.ip_address(item)
        except ValueError as exc:
            why = f" ({exc})" if "/" in item and "host bits" in str(exc) else ""
            raise argparse.ArgumentTypeError(
                f"{item!r} is not an IP address or network{why}: give the proxy's addresses, "
                "comma-separated (127.0.0.1,10.0.0.0/8), or * for any") from None
    return items


EVERY_ADDRESS = ("0.0.0.0", "::")
"""The ``--host`` values that listen on every address of the machine."""


def allowed_hosts(host: str, given: list[str] | None, own: str | None = None,
                  bound: str | None = None) -> tuple[str, ...] | None:
    """The Host names a server listening on ``host`` answers to (``None``: any):
    on a loopback address, the loopback names and ``given``; on another,
    those and ``given`` when ``given``, else any; ``*`` in ``given``, any. Where
    the socket is ``bound`` tells whether it is loopback (``--host vm``, a name of
    127.0.0.1, is: answering any Host there let a DNS-rebinding page in). Beside a
    list, the machine's own addresses are answered too: ``host`` as given (a name
    of this machine: how its people reach it), the one it is bound to, and ``own``,
    the network address it prints for every address."""
    from ..server.headers import LOOPBACK_HOSTS, is_loopback

    if given is not None and "*" in given:
        return None
    loopback = is_loopback(bound if bound is not None else host)
    if given is None and not loopback:
        return None
    mine = [a for a in (host, bound, own) if a and a not in EVERY_ADDRESS and not is_loopback(a)]
    return tuple(dict.fromkeys((*LOOPBACK_HOSTS, *(given or ()), *mine)))


_HOST_NAME = re.compile(r"(\*\.)?([a-z0-9]([a-z0-9-]*[a-z0-9])?\.)*[a-z0-9]([a-z0-9-]*[a-z0-9])?\.?")


def _allowed_hosts(text: str) -> list[str]:
    """Host names, ``*.`` domains, IP addresses or networks, or ``*``, checked."""
    items = [item.strip().lower() for item in text.split(",")]
    if items == ["*"]:
        return items
    for item in items:
        try:
            ipaddress.ip_network(item.strip("[]"))
        except ValueError:
            if not _HOST_NAME.fullmatch(item) or len(item) > 253:
                raise argparse.ArgumentTypeError(
                    f"{item!r} is not a host name or address: give names (bridge.example.org, "
                    "*.example.org), addresses or networks, comma-separated, or * for any") from None
    return items


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not 0 <= value <= 86400:
        raise argparse.ArgumentTypeError(f"{text!r}: give 0 to 86400 seconds")
    return value


def _replace_after(text: str) -> float | None:
    return None if text.strip().lower() == "never" else _seconds(text)


_DURATION = re.compile(r"(\d+(?:\.\d+)?) *([smhd]?)")
_UNIT_SECONDS = {"s": 1, "": 60, "m": 60, "h": 3600, "d": 86400}


def _idle_close(text: str) -> float:
    """Seconds, from minutes (``90``) or a duration (``90m``, ``2h``, ``1d``)."""
    found = _DURATION.fullmatch(text.strip().lower())
    seconds = float(found[1]) * _UNIT_SECONDS[found[2]] if found else -1.0
    if not 60 <= seconds <= 365 * 86400:
        raise argparse.ArgumentTypeError(f"{text!r}: give minutes (60) or a duration (90m, 2h, "
                                         "1d), from 1 minute to 365 days")
    return seconds


_port = whole_number(0, 65535)


_count = whole_number(1, 1_000_000)


def network_address() -> str | None:
    """This machine's address on its network (the one a route out leaves by), or None
    where there is none. A UDP socket's connect sends nothing; it only picks the route."""
    import socket

    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.connect(("192.0.2.1", 9))     # TEST-NET-1: never reached
            address = probe.getsockname()[0]
    except OSError:
        return None
    return None if address.startswith("127.") or address == "0.0.0.0" else address
