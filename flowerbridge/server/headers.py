"""Headers on every HTTP answer, and HEAD (docs/server.md, *Limits*).

Caching: pages and static files are ``Cache-Control: no-cache`` (a browser
keeps them but asks again each time, with their ETag or Last-Modified, so a
page never runs an old client's modules against a new server), API answers
``no-store`` (they say what a table is now).

Security headers:
The client is this server's own files: scripts, styles, images and
connections all come from it, so the Content-Security-Policy allows only
``'self'`` (and ``data:`` images), no page may frame a table (a seat's page
holds its secret link), the browser must not guess content types, and no
address leaves in a Referer.
"""

from __future__ import annotations

from typing import Any

from .limits import Receive, Scope, Send

CONTENT_SECURITY_POLICY = ("default-src 'self'; img-src 'self' data:; object-src 'none'; "
                           "base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
HEADERS = [
    (b"content-security-policy", CONTENT_SECURITY_POLICY.encode()),
    (b"x-frame-options", b"DENY"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
]


def cache_control(path: str) -> bytes:
    """The ``Cache-Control`` of an answer at ``path`` that sets none itself."""
    return b"no-store" if path.startswith("/api/") else b"no-cache"


class SecurityHeaders:
    """ASGI middleware: :data:`HEADERS`, and :func:`cache_control`, added to
    every HTTP response that does not have them."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        # FastAPI's own API docs page loads its scripts from a CDN, inline too
        headers = HEADERS[1:] if scope["path"].startswith("/api/docs") else HEADERS
        headers = [*headers, (b"cache-control", cache_control(scope["path"]))]

        async def with_headers(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                present = {name.lower() for name, _ in message.get("headers", [])}
                message = {**message, "headers": [*message.get("headers", []),
                                                  *(h for h in headers if h[0] not in present)]}
            await send(message)

        await self.app(scope, receive, with_headers)


HEAD = "flowerbridge.head"
"""The scope's key saying that a request came as HEAD (its method is GET by then)."""


class HeadAsGet:
    """ASGI middleware: HEAD is answered wherever GET is (RFC 9110): the
    request goes on as a GET, marked with :data:`HEAD`, and its answer is
    sent with its headers (its Content-Length included) and no body."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "HEAD":
            await self.app(scope, receive, send)
            return

        async def headers_only(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.body":
                message = {**message, "body": b""}
            await send(message)

        await self.app({**scope, "method": "GET", HEAD: True}, receive, headers_only)
