"""Helpers for the lab's tests: what a report plot draws, read back from its axes."""

from __future__ import annotations


def error_bars(axes) -> list[list[tuple[float, float]]]:
    """Each error-bar series of ``axes``: its bars' (low, high) ends, in order (along y
    for a vertical bar, along x for a horizontal one)."""
    from matplotlib.container import ErrorbarContainer
    out = []
    for container in axes.containers:
        if isinstance(container, ErrorbarContainer):
            segments = container.lines[2][0].get_segments()
            out.append([(float(min(s[:, 1 if s[0, 0] == s[1, 0] else 0])),
                         float(max(s[:, 1 if s[0, 0] == s[1, 0] else 0]))) for s in segments])
    return out


def stopped_by(proc, signum: int, timeout: float = 60) -> str:
    """Send ``signum`` to the lab command ``proc`` (the driver alone) and wait for it to
    end: its standard error. Killed if it has not ended by then (the test then fails on
    its status)."""
    proc.send_signal(signum)
    try:
        return proc.communicate(timeout=timeout)[1]
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
