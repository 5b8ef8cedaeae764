"""Security headers on every HTTP answer (docs/server.md, *Limits*).

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


class SecurityHeaders:
    """ASGI middleware: :data:`HEADERS` added to every HTTP response."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        # FastAPI's own API docs page loads its scripts from a CDN, inline too
        headers = HEADERS[1:] if scope["path"].startswith("/api/docs") else HEADERS

        async def with_headers(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                present = {name.lower() for name, _ in message.get("headers", [])}
                message = {**message, "headers": [*message.get("headers", []),
                                                  *(h for h in headers if h[0] not in present)]}
            await send(message)

        await self.app(scope, receive, with_headers)
