"""The FastAPI application: lobby API, pages, static client files, the websocket.

Routes only translate between HTTP and the :class:`TableManager`; see
``docs/protocol.md`` for every route and message.
"""

from __future__ import annotations

import gzip
import json
import math
import re
from collections import Counter
from contextlib import asynccontextmanager
from typing import Annotated, Any, AsyncIterator, Callable, Coroutine, Mapping

from fastapi import FastAPI, Header, Request, WebSocket
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.routing import APIRoute
from fastapi.staticfiles import StaticFiles
from starlette.datastructures import Headers
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.responses import MalformedRangeHeader
from starlette.staticfiles import NotModifiedResponse
from starlette.routing import Match

from .. import __version__
from ..errors import FlowerBridgeError
from ..options import RuleOptions
from ..render import count_text
from ..seats import Seat
from . import analysis
from .config import ServerConfig
from .botplay import bot_levels, default_bot
from .headers import HEAD, HeadAsGet, HostCheck, HostNames, SecurityHeaders
from .limits import MAX_BODY_BYTES, BodyLimit, SlidingWindow, client_key
from .manager import LiveTable, TableManager
from .repeats import KeptAnswers, Repeatable, idempotency_key
from .realtime import quiet_client_frame_errors, table_socket
from .schemas import CreateTable, MessageError, ProtocolError, describe, error_code, read_json
from .store import Store, said_to_clients
from .table import PROTOCOL_VERSION, TableError
from .views import card_catalogue

# The HTTP status of each TableError code an endpoint answers with.
_STATUS = {"no_table": 404, "no_hand": 409, "conflict": 409, "busy": 503, "full": 503, "too_many": 429}


def create_app(config: ServerConfig | None = None, store: Store | None = None) -> FastAPI:
    """The web application for ``config`` (defaults: SQLite in the user's data directory).

    ``store``, when given, is an already locked and migrated database for
    ``config.database``; the app closes it when it stops.
    """
    config = config or ServerConfig()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        nonlocal store
        quiet_client_frame_errors()     # (the server's logging is set up by now)
        if store is None:
            store = Store(config.database)
            try:
                store.lock()    # one server per database (docs/server.md, Storage)
                store.migrate()
                store.limit_waits()
            except BaseException:
                store.close()
                raise
        manager = TableManager(store, config)
        app.state.manager = manager
        await manager.start()
        try:
            yield
        finally:
            await manager.stop()
            store.close()

    app = _App(title="Flower Bridge", version=__version__, lifespan=lifespan,
                  # no docs pages: FastAPI's load their scripts from a CDN, which would run
                  # beside the lobby's kept seat links with no Content-Security-Policy
                  docs_url=None, redoc_url=None, openapi_url="/api/openapi.json",
                  # /api/tables/ is no route (a 404 as documented), not a redirect to an
                  # address made from the request's Host and scheme
                  redirect_slashes=False)
    app.router.route_class = _StrictJSONRoute
    app.state.config = config
    app.state.connections = Counter()   # open websockets by client address (realtime.py)
    app.add_middleware(BodyLimit, limit=MAX_BODY_BYTES)
    if config.allowed_hosts is not None:
        app.add_middleware(HostCheck, allowed=config.allowed_hosts)
    # the site's names, whose pages' websockets are welcome whatever Host a proxy passes
    # on (realtime.py; HostNames.names_site takes names alone, no address)
    app.state.public_hosts = HostNames(config.site_names) if config.site_names else None
    creations = SlidingWindow(limit=config.tables_per_minute, period=60.0)
    answered = KeptAnswers()    # creations asked with an Idempotency-Key (repeats.py)

    @app.exception_handler(FlowerBridgeError)
    async def _refused(request: Request, exc: FlowerBridgeError) -> JSONResponse:
        code = error_code(exc, "bad_request")
        retry_after = exc.retry_after if isinstance(exc, ProtocolError) else None
        headers = {"Retry-After": f"{retry_after:d}"} if retry_after is not None else None
        return _error(_STATUS.get(code, 400), code, said_to_clients(exc), headers)

    @app.exception_handler(Exception)
    async def _failed(request: Request, exc: Exception) -> JSONResponse:
        # (Starlette logs the error with its traceback, then sends this)
        return _error(500, "internal", "the server failed on this request (a bug, logged)")

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        return _error(400, "bad_request", describe(list(exc.errors())))

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> Response:
        if exc.status_code == 404 and _wants_page(request):
            return FileResponse(config.web_dir / "404.html", status_code=404)
        if exc.status_code == 405:
            method = "HEAD" if request.scope.get(HEAD) else request.method
            return _error(405, "method_not_allowed", f"{method} is not allowed on {request.url.path}",
                          {**(exc.headers or {}), "Allow": _allowed(request, exc)})
        if exc.status_code == 400:  # a body that is not JSON (_StrictJSONRequest says why)
            message = exc.detail if isinstance(exc, _BadBody) else "the body is not JSON this server can read"
            return _error(400, "bad_request", message, exc.headers)
        return _error(exc.status_code, {404: "not_found", 413: "too_large"}.get(exc.status_code, "http"),
                      str(exc.detail), exc.headers)

    # ------------------------------------------------------------ pages

    # Pages and files answer a request that has their ETag (or is not older
    # than their Last-Modified) with 304: browsers check them each time (headers.py).
    files = _Files(directory=config.web_dir, check_dir=False)

    @app.get("/", include_in_schema=False)
    async def lobby_page(request: Request) -> Response:
        return await files.get_response("index.html", request.scope)

    @app.get("/t/{table_id}", include_in_schema=False)
    async def table_page(table_id: str, request: Request) -> Response:
        return await files.get_response("table.html", request.scope)

    # (StaticFiles took a websocket handshake to /static too: an empty 403)
    app.add_api_websocket_route("/static/{path:path}", _no_websocket_here)
    app.mount("/static", files, name="static")

    # -------------------------------------------------------------- API

    @app.get("/api/meta")
    async def meta() -> dict[str, Any]:
        """Versions, bot levels, default options and the server's timing."""
        return {"version": __version__, "protocol": PROTOCOL_VERSION, "bots": list(bot_levels()),
                "default_bot": default_bot(), "default_options": RuleOptions().to_dict(),
                "bot_delay": config.bot_delay, "replace_after": config.replace_after,
                "analysis": config.analysis and analysis.available()}

    @app.get("/api/health")
    async def health(request: Request) -> dict[str, str]:
        """``{"status": "ok"}`` while the server reaches its database, else ``503 busy``:
        for a load balancer's or a service manager's probe (``/api/meta`` answers without
        the database)."""
        await _manager(request).check_database()
        return {"status": "ok"}

    @app.get("/api/cards")
    async def cards() -> list[dict[str, Any]]:
        """The catalogue of the 30 distinct cards."""
        return card_catalogue()

    @app.post("/api/tables", status_code=201)
    async def create_table(body: CreateTable, request: Request,
                           idempotency_key_: Annotated[str | None, Header(
                               alias="Idempotency-Key", description=(
                                   "16 to 200 visible ASCII characters, chosen at random: the same "
                                   "request sent again with it gets its first answer again"))] = None,
                           ) -> dict[str, Any]:
        """A new table; each person's secret seat token is in the answer, and only there
        (and, asked with an ``Idempotency-Key``, in the answer to a repeat: repeats.py)."""
        address = _address(request)
        asked = _as_read(body)
        repeat = memo = None
        if idempotency_key_ is not None:
            key = idempotency_key(idempotency_key_)
            repeat, memo = Repeatable.of(address, key, asked), (address, key)
            if (again := answered.look(memo, asked)) is not None:
                return again
            answered.begin(memo, asked)     # (before any wait: a repeat meanwhile is refused)
        answer = made = None
        try:
            # made before this server's answers in memory began (a restart since), or
            # made and not answered (a fault after it was stored): answered again, from
            # the database each time (its ten minutes are from the table's making)
            before = None if repeat is None else await _manager(request).made_before(repeat)
            if before is not None:
                answer = _creation_answer(*before)
                return answer
            if not creations.allow(address):
                # a table too many this minute: when the next may be made
                raise TableError("too_many", f"more than {count_text(config.tables_per_minute, 'table')} "
                                             "a minute from this address: wait a little",
                                 retry_after=math.ceil(creations.wait(address)))
            try:
                made = await _manager(request).create(body, repeat, address)
            except BaseException:   # refused, or failed: only tables made count against the rate
                creations.refund(address)
                raise
            answer = _creation_answer(*made)
        finally:
            # not answered: a repeat asks afresh, and finds in the database a table made
            if memo is not None:
                if answer is not None and made is not None:
                    answered.done(memo, answer)
                else:
                    answered.failed(memo)
        return answer

    @app.get("/api/tables")
    async def open_tables(request: Request) -> Response:
        """Tables whose session is not over, newest first (made at most once a
        second while none opens or ends: TableManager.lobby_json). A browser
        keeps it and asks again with its ETag: an unchanged list is a 304, no
        body; a list sent is gzip-compressed where the client takes gzip."""
        lobby = await _manager(request).lobby_json()
        headers = {"ETag": lobby.etag, "Cache-Control": "no-cache", "Vary": "Accept-Encoding"}
        if _etag_matches(request.headers.get("if-none-match"), lobby.etag):
            return Response(status_code=304, headers=headers)
        if _takes_gzip(request.headers.get("accept-encoding")):
            return Response(lobby.gzipped, media_type="application/json",
                            headers={**headers, "Content-Encoding": "gzip"})
        return Response(lobby.body, media_type="application/json", headers=headers)

    @app.get("/api/tables/{table_id}")
    async def table(table_id: str, request: Request) -> dict[str, Any]:
        await _table(request, table_id)
        return await _manager(request).info(table_id)

    @app.get("/api/tables/{table_id}/hands/{hand}")
    async def hand_review(table_id: str, hand: str, request: Request) -> Response:
        """The review of a finished hand: all hands, undealt cards, tricks, DD values."""
        number = _hand_number(hand)
        await _table(request, table_id)
        return _json_response(request, await _manager(request).review(table_id, number))

    @app.get("/api/tables/{table_id}/session")
    async def session(table_id: str, request: Request) -> Response:
        """The session record of the finished hands, and the scoresheet (it grows
        with the session: 420 KB at 419 hands, about 58 KB gzip-compressed)."""
        await _table(request, table_id)
        return _json_response(request, await _manager(request).session(table_id))

    app.add_api_websocket_route("/ws/tables/{table_id}", table_socket)
    app.add_api_websocket_route("/{path:path}", _no_websocket_here)
    return app


class _WholeFileOnBadRange(FileResponse):
    """A file that a Range header it cannot read leaves whole (RFC 9110, 14.2: a
    server may ignore Range, and ignores a unit it does not know): Starlette's
    answered it with a plain-text 400, "Malformed range header.". A range past
    the end is still 416."""

    @classmethod
    def _parse_range_header(cls, http_range: str, file_size: int) -> list[tuple[int, int]]:
        try:
            return super()._parse_range_header(http_range, file_size)
        except MalformedRangeHeader:
            return []       # (no ranges: the whole file, 200)


class _Files(StaticFiles):
    """The web client's files, each a :class:`_WholeFileOnBadRange`."""

    def file_response(self, full_path: Any, stat_result: Any, scope: Any, status_code: int = 200) -> Response:
        response = _WholeFileOnBadRange(full_path, status_code=status_code, stat_result=stat_result)
        if self.is_not_modified(response.headers, Headers(scope=scope)):
            return NotModifiedResponse(response.headers)
        return response


class _App(FastAPI):
    """The application, its every HTTP answer — a 500 too — with the security and cache
    headers and HEAD answered as GET: the two middlewares wrap the whole stack, outside
    Starlette's own error middleware (added as middleware, they were inside it, and the
    500 it sends passed neither)."""

    def build_middleware_stack(self) -> Any:
        return HeadAsGet(SecurityHeaders(super().build_middleware_stack()))


async def _no_websocket_here(websocket: WebSocket, path: str) -> None:
    """A websocket asked for where there is none: 404 ``not_found``, as an HTTP request
    to an unknown route (Starlette refused it with an empty 403)."""
    answer = _error(404, "not_found",
                    f"no websocket at {websocket.url.path}: a table's is /ws/tables/{{id}}")
    try:
        await websocket.send_denial_response(answer)
    except RuntimeError:    # a server without the denial-response extension: its 403
        await websocket.close()


class _BadBody(StarletteHTTPException):
    """A request body that is not JSON; ``detail`` says what is wrong."""


class _StrictJSONRequest(Request):
    """A request whose JSON body is read as strictly as a websocket message
    (:func:`~flowerbridge.server.schemas.read_json`): UTF-8 only, no byte
    order mark, no ``NaN``, no name given twice in one object."""

    async def json(self) -> Any:
        if not hasattr(self, "_json"):
            # a compressed body was read as JSON ("byte 1 is not UTF-8 text"), and a body
            # said to be compressed but plain was taken: the API reads plain JSON only
            encoding = self.headers.get("content-encoding", "").strip()
            if encoding.lower() not in ("", "identity"):
                shown = encoding if len(encoding) <= 40 else encoding[:37] + "..."
                raise _BadBody(400, f"the body is sent with Content-Encoding {shown!r}: the API "
                                    "takes plain JSON, not compressed")
            try:
                self._json = read_json(await self.body())
            except MessageError as exc:
                raise _BadBody(400, str(exc)) from None
        return self._json


class _StrictJSONRoute(APIRoute):
    """The API's routes, their bodies read by :class:`_StrictJSONRequest`."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()

        async def strict(request: Request) -> Response:
            return await handler(_StrictJSONRequest(request.scope, request.receive))

        return strict


def _etag_matches(header: str | None, etag: str) -> bool:
    """Whether an ``If-None-Match`` header names ``etag`` (weakly compared, as
    RFC 9110 asks for this header), or is ``*``."""
    if header is None:
        return False
    tags = [tag.strip().removeprefix("W/") for tag in header.split(",")]
    return "*" in tags or etag.removeprefix("W/") in tags


_GZIP_FROM = 1400
"""Bytes from which a JSON answer is gzip-compressed for a client that takes gzip
(below, about one packet, compressing gains nothing)."""


def _json_response(request: Request, payload: Any) -> Response:
    """``payload`` as JSON, as FastAPI would write it, gzip-compressed where it is
    long enough and the client takes gzip."""
    body = json.dumps(payload, ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode("utf-8")
    headers = {"Vary": "Accept-Encoding"}
    if len(body) >= _GZIP_FROM and _takes_gzip(request.headers.get("accept-encoding")):
        return Response(gzip.compress(body, compresslevel=6, mtime=0), media_type="application/json",
                        headers={**headers, "Content-Encoding": "gzip"})
    return Response(body, media_type="application/json", headers=headers)


def _takes_gzip(header: str | None) -> bool:
    """Whether an ``Accept-Encoding`` header takes gzip: named with a quality
    above 0 (``gzip;q=0`` refuses it), or not named and ``*`` is. A quality that
    cannot be read counts as 0."""
    qualities: dict[str, float] = {}
    for part in (header or "").split(","):
        coding, *params = [piece.strip() for piece in part.split(";")]
        quality = 1.0
        for param in params:
            name, _, value = param.partition("=")
            if name.strip().lower() == "q":
                try:
                    quality = float(value)
                except ValueError:
                    quality = 0.0
        qualities[coding.lower()] = quality
    named = qualities.get("gzip", qualities.get("x-gzip"))
    return (named if named is not None else qualities.get("*", 0.0)) > 0


_HAND = re.compile(r"[0-9]{1,30}")


def _hand_number(segment: str) -> int:
    """A hand's number in a path: decimal digits only (Python's int() would
    also take ``1_0``, ``+1``, `` 1``; pydantic ``1.0`` too)."""
    if not _HAND.fullmatch(segment):
        shown = segment if len(segment) <= 40 else segment[:40] + "…"
        raise TableError("bad_request", f"hands/{shown}: a hand's number is written in decimal "
                                        "digits (1, 2, ...), at most 30 of them")
    return int(segment)


def _creation_answer(live: LiveTable, tokens: dict[Seat, str]) -> dict[str, Any]:
    """The answer to a table's creation: the table, each person's invitation (its secret
    token, and the page's address with it), and the address spectators use."""
    table_id = live.table.id
    return {"table": live.info(),
            "invitations": {seat.name: {"token": token, "url": f"/t/{table_id}#token={token}"}
                            for seat, token in tokens.items()},
            "spectate_url": f"/t/{table_id}"}


def _as_read(body: CreateTable) -> dict[str, Any]:
    """A table's request as the server reads it, to tell a repeat (``Idempotency-Key``) from
    another request: a field left out, or given as null, counts as its default (``stand_in``
    the default bot, ``options`` the default rules: ``{}``, the defaults written out and
    ``null`` are one request)."""
    asked = body.model_dump(mode="json")
    if asked.get("stand_in") is None:
        asked["stand_in"] = default_bot()
    try:
        asked["options"] = RuleOptions.from_dict(asked.get("options")).to_dict()
    except FlowerBridgeError:   # (refused when the table is made: kept as sent meanwhile)
        pass
    return asked


def _address(request: Request) -> str | None:
    """The client as the limits per address count it (``limits.client_key``)."""
    return client_key(request.client.host if request.client else None)


def _manager(request: Request) -> TableManager:
    return request.app.state.manager


async def _table(request: Request, table_id: str):
    return await _manager(request).get(table_id)


def _wants_page(request: Request) -> bool:
    """A browser asking for a page (not the API, not a file a page loads)."""
    path = request.url.path
    accepts = _accepted(request.headers.get("accept", ""))
    return (request.method == "GET" and accepts.get("text/html", 0.0) > 0.0
            and accepts["text/html"] >= accepts.get("application/json", 0.0)
            and not path.startswith(("/api/", "/static/", "/ws/")))


def _accepted(header: str) -> dict[str, float]:
    """The media types an ``Accept`` header names, with their weights (``q``, 1 unless
    given; one that cannot be read counts as 0: ``text/html;q=0`` is a refusal)."""
    weights: dict[str, float] = {}
    for part in header.split(","):
        kind, *params = (p.strip() for p in part.split(";"))
        q = 1.0
        for param in params:
            name, _, value = param.partition("=")
            if name.strip().lower() == "q":
                try:
                    q = min(1.0, max(0.0, float(value)))
                except ValueError:
                    q = 0.0
                if q != q:      # NaN
                    q = 0.0
        if kind:
            weights[kind.lower()] = q
    return weights


def _allowed(request: Request, exc: StarletteHTTPException) -> str:
    """The ``Allow`` header of a 405: the methods of every route at the
    request's path (the exception names only the first route's), HEAD with GET."""
    methods: set[str] = set()
    for route in request.app.router.routes:
        if isinstance(route, APIRoute) and route.matches(request.scope)[0] is not Match.NONE:
            methods |= route.methods or set()
    if not methods:     # (a mount: its own)
        methods = {m.strip() for m in (exc.headers or {}).get("Allow", "").split(",") if m.strip()}
    if "GET" in methods:
        methods.add("HEAD")
    return ", ".join(sorted(methods))


def _error(status: int, code: str, message: str,
           headers: Mapping[str, str] | None = None) -> JSONResponse:
    return JSONResponse({"error": {"code": code, "message": message}}, status_code=status,
                        headers=dict(headers) if headers else None)
