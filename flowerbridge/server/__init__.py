"""The web server: lobby, tables, realtime play in the browser.

``flowerbridge serve`` runs :func:`create_app` on uvicorn. The server is thin:
it authenticates a seat, hands the action to the rules engine, stores it, and
sends each seat its own view (``docs/protocol.md``, ``docs/server.md``).
"""

from .app import create_app
from .config import ServerConfig

__all__ = ["create_app", "ServerConfig"]
