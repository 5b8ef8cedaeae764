"""Headers on every HTTP answer, and HEAD (docs/server.md, *How it is built*, **Limits**).

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

import ipaddress
import json
import logging
import re
from typing import Any, Iterable
from urllib.parse import urlsplit

from .limits import Receive, Scope, Send, Sparing

log = logging.getLogger("flowerbridge.server")

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
    return b"no-store" if path.startswith(("/api/", "/ws/")) else b"no-cache"


class SecurityHeaders:
    """ASGI middleware: :data:`HEADERS`, and :func:`cache_control`, added to
    every HTTP response that does not have them, a websocket handshake's refusal
    included."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return

        headers = [*HEADERS, (b"cache-control", cache_control(scope["path"]))]
        # a websocket's handshake refused with an HTTP answer (the denial-response
        # extension) is an HTTP answer too: its refusals went without them
        start = "http.response.start" if scope["type"] == "http" else "websocket.http.response.start"

        async def with_headers(message: dict[str, Any]) -> None:
            if message["type"] == start:
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


LOOPBACK_HOSTS = ("localhost", "127.0.0.0/8", "::1")
"""The Host names a server listening on a loopback address answers to."""


def is_loopback(host: str) -> bool:
    """Whether listening on ``host`` (``serve --host``) serves this machine only."""
    if host.strip().lower().rstrip(".") == "localhost":
        return True
    try:
        return _unmapped(ipaddress.ip_address(host.strip().strip("[]"))).is_loopback
    except ValueError:
        return False


def _unmapped(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> ipaddress.IPv4Address | ipaddress.IPv6Address:
    """An IPv4 address written as IPv6 (``::ffff:127.0.0.1``) as the IPv4 address it is
    (Python 3.11 does not call it loopback: a server listening there took any Host)."""
    return getattr(address, "ipv4_mapped", None) or address


_PORT = re.compile(r":[0-9]*")


def host_name(header: str) -> str:
    """The host a Host header names, without its port, lower case:
    ``[::1]:8000`` is ``::1``, ``LocalHost.:80`` is ``localhost``. A header that is no
    host and port (``[::1]evil.example``, ``localhost:x``) is returned whole, lower
    case, so that it matches no allowed name (a security review's finding)."""
    header = header.strip().lower()
    if header.startswith("["):
        end = header.find("]")
        if end < 0 or not (end == len(header) - 1 or _PORT.fullmatch(header, end + 1)):
            return header
        return header[1:end]
    if header.count(":") == 1:
        name, port = header.split(":")
        if not _PORT.fullmatch(":" + port):
            return header
        header = name
    return header.rstrip(".")


_DEFAULT_PORTS = {"http": 80, "https": 443}


def _host_port(header: str) -> int | None:
    """The port a Host header gives (``[::1]:8000``, ``x:443``), or ``None``."""
    rest = header.rsplit("]", 1)[-1] if header.startswith("[") else header
    if rest.count(":") != 1:
        return None
    digits = rest.split(":")[1]
    return int(digits) if digits.isdigit() else None


def same_origin(origin: str | None, host: str | None, named: HostNames | None = None) -> bool:
    """Whether a websocket handshake comes from a page of this server's own site.

    Yes without an ``Origin`` (a program, not a browser). Otherwise the Origin must be
    http or https, and either name the host of the ``Host`` header on its port (the
    scheme's default where the Origin gives none; any, where the Host gives none, as a
    proxy that passes the host on without its port does: nginx's ``$host``), or be a
    site ``named`` names (:meth:`HostNames.names_site`: a name ``--allowed-hosts``
    gives, for a proxy that passes its own address as the Host). A page of another
    site opening a websocket here (cross-site websocket hijacking) gets no."""
    if origin is None:
        return True
    try:
        where = urlsplit(origin.strip().lower())
        name = (where.hostname or "").rstrip(".")
        port = where.port or _DEFAULT_PORTS.get(where.scheme)
    except ValueError:      # a malformed [address] or port
        return False
    if where.scheme not in _DEFAULT_PORTS or not name:
        return False
    if named is not None and named.names_site(name):
        return True
    host = (host or "").strip().lower()
    if not host or name != host_name(host):
        return False
    given = _host_port(host)
    return given is None or given == port


class HostNames:
    """A list of hosts, as ``--allowed-hosts`` gives them: names (``bridge.example.org``),
    ``*.`` and a domain (its subdomains), IP addresses and networks (``127.0.0.0/8``)."""

    def __init__(self, allowed: Iterable[str]) -> None:
        self.allowed = tuple(allowed)
        self.names: set[str] = set()
        self.suffixes: list[str] = []
        self.networks: list[ipaddress.IPv4Network | ipaddress.IPv6Network] = []
        for entry in self.allowed:
            entry = entry.strip().lower().rstrip(".")
            if entry.startswith("*."):
                self.suffixes.append(entry[1:])
                continue
            try:
                self.networks.append(ipaddress.ip_network(entry.strip("[]")))
            except ValueError:
                self.names.add(entry)

    def names_site(self, host: str) -> bool:
        """Whether ``host`` (lower case, no port) is a site these name by its name, on
        any port: a name or ``*.`` domain, never an address or network (a server's
        own address, which it answers to, is no site of its own) nor ``localhost``."""
        if host == "localhost":
            return False
        try:
            ipaddress.ip_address(host)
        except ValueError:
            return self.allows(host)
        return False

    def allows(self, host: str) -> bool:
        """Whether ``host`` (lower case, no port: :func:`host_name`) is one of these."""
        try:
            address = ipaddress.ip_address(host)
        except ValueError:
            return host in self.names or any(host.endswith(s) for s in self.suffixes)
        return any(a in network for a in {address, _unmapped(address)} for network in self.networks)


class HostCheck:
    """ASGI middleware: a request (or websocket handshake) whose Host header
    names a host not in ``allowed`` (:class:`HostNames`) is answered 400
    ``bad_host``, unread. A server on a loopback address answers only
    :data:`LOOPBACK_HOSTS`: a page on any other site whose name is made to
    resolve to 127.0.0.1 (DNS rebinding) sends its own name, and is refused."""

    def __init__(self, app: Any, allowed: Iterable[str]) -> None:
        self.app = app
        self.hosts = HostNames(allowed)
        self.allowed = self.hosts.allowed
        self.allows = self.hosts.allows
        self.told = Sparing()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        hosts = [value.decode("latin-1") for name, value in scope.get("headers") or [] if name == b"host"]
        # two Host headers: refused (RFC 9112, 3.2), not taken by the first (a proxy
        # and this server could each read another)
        header = hosts[0] if len(hosts) == 1 else None
        if header is not None and self.allows(host_name(header)):
            await self.app(scope, receive, send)
            return
        said = (f"the request has {len(hosts)} Host headers" if len(hosts) > 1
                else f"the Host header names {json.dumps(header)}" if header else "the request has no Host header")
        message = (f"{said}: this server answers only to " + ", ".join(self.allowed)
                   + " (flowerbridge serve --allowed-hosts adds names)")
        if self.told.first(str(header and host_name(header))):
            # (a proxy that passes on a name the server was not given is met here first)
            log.warning("refused a request: %s; if it is this server's name behind a proxy, "
                        "name it with --allowed-hosts", message.split(" (flowerbridge serve")[0])
        body = json.dumps({"error": {"code": "bad_host", "message": message}}).encode()
        start = {"status": 400, "headers": [(b"content-type", b"application/json"),
                                             (b"content-length", str(len(body)).encode())]}
        if scope["type"] == "http":
            await send({"type": "http.response.start", **start})
            await send({"type": "http.response.body", "body": body})
        elif "websocket.http.response" in (scope.get("extensions") or {}):
            await send({"type": "websocket.http.response.start", **start})
            await send({"type": "websocket.http.response.body", "body": body})
        else:   # a server without the denial response: the handshake is refused (403)
            await send({"type": "websocket.close", "code": 1008})
