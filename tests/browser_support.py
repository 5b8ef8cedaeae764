"""Helpers for the browser tests: a real ``flowerbridge serve`` on a free
loopback port with a temporary SQLite file and no bot pause, Debian's
Chromium driven by Playwright, and screenshots kept under ``artifacts/``.

The server runs without double-dummy analysis: the solver's work would only
compete with the browser for the CPU, and the review's double-dummy marks are
tested on the protocol's own data.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Sequence

import httpx

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
ARTIFACTS = Path(__file__).resolve().parent.parent / "artifacts" / "browser"

DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 360, "height": 740}


# The text an element shows (without what is there for screen readers only), for
# Playwright's evaluate; SHOWN_ALL, for evaluate_all, each element's.
SHOWN = """e => { const c = e.cloneNode(true); c.querySelectorAll('.visually-hidden').forEach((h) => h.remove());
  return c.textContent.replace(/\\s+/g, ' ').trim(); }"""
SHOWN_ALL = "es => es.map(" + SHOWN + ")"


# Every text a live region is given, in order (the text nodes each update adds).
LIVE_RECORDER = """() => {
  window.__live = [];
  for (const node of document.querySelectorAll('[aria-live], [role=status], [role=alert]')) {
    new MutationObserver((records) => {
      for (const record of records) {
        const text = [...record.addedNodes].map((n) => n.textContent).join('');
        if (text) window.__live.push([node.id, text]);
      }
    }).observe(node, {childList: true, characterData: true, subtree: true});
  }
}"""

def free_port() -> int:
    """A TCP port on loopback that nobody listens on now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Server:
    """``flowerbridge serve`` as a subprocess, for one test module.

    >>> with Server(tmp_path) as server:          # doctest: +SKIP
    ...     server.create_table({"S": "human", "N": "random", ...})
    """

    def __init__(self, directory: Path, *, startup_timeout: float = 30.0,
                 options: Sequence[str] = ()) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = directory / "server.log"
        self.command = [sys.executable, "-m", "flowerbridge.cli", "serve", "--host", "127.0.0.1",
                        "--port", str(self.port), "--database", str(directory / "tables.sqlite"),
                        "--bot-delay", "0", "--no-analysis",
                        # a module's tests create their tables seconds apart, from one address,
                        # hundreds of them
                        "--tables-per-minute", "10000", "--tables-per-address", "10000", *options]
        self.startup_timeout = startup_timeout
        self.process: subprocess.Popen | None = None

    def __enter__(self) -> "Server":
        self.start()
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.stop()

    def start(self) -> None:
        """Start the server (again, on the same port and database) and wait until it answers.

        Started again while a page retries, the port can be held a moment by one of
        the page's own attempts to connect (a socket whose free source port the
        kernel picked was the very port): the server is then started once more."""
        deadline = time.monotonic() + self.startup_timeout
        tries, since = 1, self._launch()
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                said = self.log.read_bytes()[since:].decode(errors="replace")
                if "Address already in use" in said and tries < 3:
                    time.sleep(0.5)
                    tries, since = tries + 1, self._launch()
                    continue
                raise RuntimeError(f"flowerbridge serve exited with {self.process.returncode}:\n"
                                   f"{self.log.read_text(errors='replace')}")
            try:
                httpx.get(f"{self.url}/api/meta", timeout=1).raise_for_status()
                return
            except httpx.HTTPError:
                time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"flowerbridge serve did not answer within {self.startup_timeout} s")

    def _launch(self) -> int:
        """Start the process; where its lines begin in the log."""
        with open(self.log, "ab") as log:
            since = log.tell()
            self.process = subprocess.Popen(self.command, stdout=log, stderr=subprocess.STDOUT,
                                            env={**os.environ, "PYTHONUNBUFFERED": "1"})
        return since

    def stop(self, *, kill: bool = False) -> None:
        """Stop the server: politely, or with SIGKILL as a crash would."""
        if self.process is None or self.process.poll() is not None:
            return
        if kill:
            self.process.kill()
        else:
            self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()

    def api(self, method: str, path: str, **kwargs: Any) -> Any:
        """Call the HTTP API; raises on an error status."""
        response = httpx.request(method, f"{self.url}{path}", timeout=10, **kwargs)
        response.raise_for_status()
        return response.json()

    def create_table(self, seats: dict[str, str], **request: Any) -> dict[str, Any]:
        """Create a table; ``seats`` maps N/E/S/W to ``human`` or a bot level."""
        request["seats"] = {seat: {"player": "human"} if who == "human" else {"player": "bot", "level": who}
                            for seat, who in seats.items()}
        return self.api("POST", "/api/tables", json=request)


def launch_chromium(playwright):
    """Debian's Chromium, headless, with nothing that reaches the network."""
    return playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)


def screenshot(page, name: str) -> Path:
    """Save a full-page screenshot as a test artifact (git-ignored)."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path


def closing_settled(page, dialog: str, close) -> None:
    """Close a window with ``close()`` and wait until the client has done with its
    closing: the browser gives focus back to the opener at once, and the client's own
    ``close`` handler moves it on (or back) a moment later, on a timer. A listener
    added here after the client's own, with a timer of its own, runs after it."""
    page.evaluate("""d => { window.__closed = false;
      document.querySelector(d).addEventListener(
        'close', () => setTimeout(() => { window.__closed = true; }, 0), { once: true }); }""", dialog)
    close()
    page.wait_for_function("window.__closed === true", timeout=10_000)
