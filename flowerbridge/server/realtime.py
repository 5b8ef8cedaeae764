"""The websocket endpoint: one connection per client, ``/ws/tables/{table_id}``.

It only translates: it reads a message, checks its shape, hands it to the
:class:`~flowerbridge.server.manager.TableManager` and turns any refusal into
an ``error`` message for this client alone. Nothing a client sends can end
the connection's loop except closing it (or a wrong token, which is refused).
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections import Counter

from starlette.websockets import WebSocket, WebSocketDisconnect

from ..errors import FlowerBridgeError
from ..render import count_text
from .headers import same_origin
from .limits import Sparing, TokenBucket, client_key
from .manager import Connection, TableManager
from .schemas import (CallMessage, ClaimMessage, CloseMessage, Hello, HintMessage, MessageError, PingMessage,
                      PlayMessage, ProtocolError, UndoMessage, error_code, parse_message)
from .store import said_to_clients
from .table import PROTOCOL_VERSION

log = logging.getLogger("flowerbridge.server")

HELLO_TIMEOUT = 10.0
# Close codes of the protocol (4000-4999 are the application's).
CLOSE_BAD_HELLO, CLOSE_UNAUTHORIZED, CLOSE_NO_TABLE, CLOSE_TOO_MANY = 4400, 4401, 4404, 4429
# A handshake from a page of another site, refused before it is accepted: the client
# is answered HTTP 403 (it sees no close code; a browser reports 1006).
CLOSE_FORBIDDEN = 4403
# The standard "try again later" (RFC 6455 registry): the database could not be
# read or written at hello; the client reconnects as after any drop.
CLOSE_TRY_AGAIN = 1013
# "Service restart": the code uvicorn gives the app for a connection it closes as the
# server stops (it closes every websocket before the app's shutdown runs).
CLOSE_SERVER_STOPPING = 1012


class _ClientFrameErrors(logging.Filter):
    """uvicorn's websocket protocol logs a text frame that is not UTF-8 as an ERROR with
    a traceback, then closes the connection with 1007 as RFC 6455 says: a client's error,
    which any client could send again and again to fill the server's log. Not logged, as
    no other malformed message is."""

    def filter(self, record: logging.LogRecord) -> bool:
        return record.getMessage() != "Invalid UTF-8 sequence received from client."


class _StopsCutShort(logging.Filter):
    """A stop waits a while for the requests in progress and the connections still open
    (``serve``'s grace), then uvicorn cancels the requests: it logged "Cancel 1 running
    task(s), timeout graceful shutdown exceeded" and, for each, "Exception in ASGI
    application" with a traceback of the cancellation, an error of nobody's. Said in a
    line of our own; those tracebacks are not logged."""

    def filter(self, record: logging.LogRecord) -> bool:
        if (record.exc_info and isinstance(record.exc_info[1], asyncio.CancelledError)
                and "graceful shutdown" in str(record.exc_info[1])):
            return False
        if record.getMessage().endswith("timeout graceful shutdown exceeded"):
            count = record.args[0] if isinstance(record.args, tuple) and record.args else None
            record.msg, record.args = (
                ("stopping: %s request(s) still in progress were cut short", (count,)) if count
                else ("stopping: connections still open were cut short", ()))
            record.levelno, record.levelname = logging.WARNING, "WARNING"
        return True


def quiet_client_frame_errors() -> None:
    """Keep uvicorn's error log to the server's own errors (:class:`_ClientFrameErrors`,
    :class:`_StopsCutShort`)."""
    logger = logging.getLogger("uvicorn.error")
    for kind in (_ClientFrameErrors, _StopsCutShort):
        if not any(isinstance(f, kind) for f in logger.filters):
            logger.addFilter(kind())


def error_message(code: str, message: str, message_id: str | None = None) -> dict:
    """The protocol's ``error`` message."""
    out = {"v": PROTOCOL_VERSION, "type": "error", "code": code, "message": message}
    if message_id is not None:
        out["id"] = message_id
    return out


# Refused origins are logged sparingly (Sparing), so that a page sending many cannot fill the log.
_ORIGINS_TOLD = Sparing()


def _tell_refused_origin(origin: str | None, host: str | None) -> None:
    """Log a refused Origin (once an hour each, at most 32 an hour): the operator of a
    proxy that passes its own address as the Host learns what to change."""
    origin = None if origin is None else origin.strip().lower()
    if _ORIGINS_TOLD.first(str(origin)):
        log.warning("refused a websocket opened by a page at %s, not this server's site (Host %s); "
                    "if it is this server's site behind a proxy, pass the visitor's Host on, or name "
                    "the site with --allowed-hosts", json.dumps(origin), json.dumps(host))


async def _refuse_handshake(websocket: WebSocket, code: int, error: str, message: str) -> None:
    """Refuse a handshake before it is answered: HTTP 403 with a JSON error as the HTTP API
    answers (and its headers), where the server takes the denial-response extension; else
    the server's own empty 403. (It was the empty 403 everywhere.)"""
    from starlette.responses import JSONResponse

    answer = JSONResponse({"error": {"code": error, "message": message}}, status_code=403)
    try:
        await websocket.send_denial_response(answer)
    except RuntimeError:
        await websocket.close(code=code)


async def table_socket(websocket: WebSocket, table_id: str) -> None:
    """Serve one client of a table until it disconnects."""
    manager: TableManager = websocket.app.state.manager
    origin = websocket.headers.get("origin")
    if not same_origin(origin, websocket.headers.get("host"), websocket.app.state.public_hosts):
        # a page of another site: refused before the handshake is answered (HTTP 403),
        # so that it takes none of this client's connections
        _tell_refused_origin(origin, websocket.headers.get("host"))
        await _refuse_handshake(websocket, CLOSE_FORBIDDEN, "bad_origin",
                                "a page of another site may not open this server's websockets")
        return
    await websocket.accept()
    # the client's address (behind a proxy that serve's --forwarded-allow-ips
    # names, its X-Forwarded-For names the client; by default no forwarded
    # header is believed), as the limits per address count it: an IPv6 one by its /64
    address = client_key(websocket.client.host if websocket.client else None)
    conn = Connection(address)
    writer = asyncio.create_task(_write(websocket, conn))
    config = websocket.app.state.config
    bucket = TokenBucket(config.message_rate, config.message_burst)
    # connections at once from one address
    open_here: Counter = websocket.app.state.connections
    if open_here[address] >= config.connections_per_address:
        count = open_here[address]
        _refuse(conn, "too_many", f"this address has {count_text(count, 'connection')} "
                                  "open, its most: close one first", CLOSE_TOO_MANY)
        await writer
        return
    open_here[address] += 1
    try:
        if await _handshake(websocket, conn, manager, table_id):
            while (text := await _receive(websocket, conn)) is not None:
                if bucket.allow():
                    await _handle(conn, manager, text)
                else:   # refused unread: a flood costs the server no work
                    rate = config.message_rate
                    conn.send(error_message("too_fast", f"more than {count_text(rate, 'message')} "
                                                        "a second: this one was not read"))
                # let the other clients' tasks run between one client's messages
                await asyncio.sleep(0)
    except WebSocketDisconnect:
        pass
    finally:
        open_here[address] -= 1
        if not open_here[address]:
            del open_here[address]
        # a person still here when the server stops has not left: not stored as away
        manager.leave(conn, stopping=conn.gone_code == CLOSE_SERVER_STOPPING)
        conn.close(conn.close_code)
        await writer


async def _handshake(websocket: WebSocket, conn: Connection, manager: TableManager,
                     table_id: str) -> bool:
    """Read ``hello`` and join the table; on failure say why and close."""
    try:
        text = await asyncio.wait_for(_receive(websocket, conn), HELLO_TIMEOUT)
    except TimeoutError:
        _refuse(conn, "hello_first", f"send hello within {HELLO_TIMEOUT:g} seconds",
                CLOSE_BAD_HELLO)
        return False
    if text is None:
        return False
    try:
        hello = parse_message(text)
        if not isinstance(hello, Hello):
            raise MessageError("hello_first", f"the first message must be hello, not {hello.type}",
                               getattr(hello, "id", None))
        await manager.join(conn, table_id, hello.token, hello.since)
    except FlowerBridgeError as exc:
        code = error_code(exc, "bad_message")
        close = {"unauthorized": CLOSE_UNAUTHORIZED, "no_table": CLOSE_NO_TABLE,
                 "too_many": CLOSE_TOO_MANY, "busy": CLOSE_TRY_AGAIN}.get(code, CLOSE_BAD_HELLO)
        _refuse(conn, code, said_to_clients(exc), close, exc.message_id if isinstance(exc, ProtocolError) else None)
        return False
    except Exception:  # a bug: this client is told, with the close code of a server error
        log.exception("table %s: join failed", table_id)
        _refuse(conn, "internal", "the server failed to bring this table up to date (logged)", 1011)
        return False
    return True


def _refuse(conn: Connection, code: str, message: str, close: int,
            message_id: str | None = None) -> None:
    conn.send(error_message(code, message, message_id))
    conn.close(close)


async def _handle(conn: Connection, manager: TableManager, text: str | bytes) -> None:
    """Carry out one message after the handshake; refusals go back to this client."""
    message_id = None
    try:
        message = parse_message(text)
        message_id = getattr(message, "id", None)
        if isinstance(message, (CallMessage, PlayMessage)):
            action = message.call if isinstance(message, CallMessage) else message.card
            await manager.submit(conn, message.type, action, message.seq)
        elif isinstance(message, CloseMessage):
            await manager.close_table(conn, message.seq)
        elif isinstance(message, HintMessage):
            await manager.hint(conn, message.seq, message_id)
        elif isinstance(message, ClaimMessage):
            await manager.claim(conn, message.seq, message_id)
        elif isinstance(message, UndoMessage):
            await manager.take_back(conn, message.seq)
        elif isinstance(message, PingMessage):
            pong = {"v": PROTOCOL_VERSION, "type": "pong"}
            conn.send(pong if message_id is None else {**pong, "id": message_id})
        elif isinstance(message, Hello):
            raise MessageError("hello_first", "hello is the first message only")
        else:
            await manager.sync(conn, message.since)
    except MessageError as exc:  # unreadable: the id, if any, comes from the raw message
        conn.send(error_message(exc.code, str(exc), exc.message_id))
    except FlowerBridgeError as exc:  # refused by the table, the engine or the database
        conn.send(error_message(error_code(exc, "illegal"), said_to_clients(exc), message_id))
    except Exception:  # a bug: this client hears of it, the table and the server go on
        log.exception("table %s: message %r", conn.live and conn.live.table.id, text[:200])
        conn.send(error_message("internal", "the server failed on this message (logged)",
                                message_id))


async def _receive(websocket: WebSocket, conn: Connection) -> str | bytes | None:
    """The next text or binary message, or ``None`` once the client has gone (the
    close code kept as ``conn.gone_code``)."""
    message = await websocket.receive()
    if message["type"] == "websocket.disconnect":
        conn.gone_code = message.get("code")
        return None
    return message.get("text") if message.get("text") is not None else message.get("bytes", b"")


async def _write(websocket: WebSocket, conn: Connection) -> None:
    """Send the connection's queued messages in order; close on ``None``."""
    try:
        while (text := await conn.queue.get()) is not None:
            conn.sent(text)
            await websocket.send_text(text)
        await websocket.close(conn.close_code)
    except (WebSocketDisconnect, RuntimeError, OSError):
        pass  # the client has gone; the reader notices and cleans up
    finally:
        conn.dropped = True     # nothing more is queued for a client that is gone
