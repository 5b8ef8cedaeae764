"""Files written whole: what ``play``/``demo --save`` and the lab write.

A file is written to a temporary file beside it, flushed to disk, and renamed
over it, so that a reader (or a crash part-way) sees the old file or the new
one, never half of one. The new file keeps the old one's permissions (a
session saved over a private ``0600`` file stays private); a new file gets
``0666`` less the umask, as ``open`` would give it.
"""

from __future__ import annotations

import os
import secrets
import stat
from pathlib import Path
from typing import IO, Callable


class NoHomeError(ValueError):
    """A path's ``~`` or ``~user`` that stands for no home folder (see :func:`expand_home`):
    ``str()`` is the path and ``why``."""

    def __init__(self, path: str, why: str) -> None:
        super().__init__(f"{path}: {why}")
        self.why = why


def expand_home(path: str) -> Path:
    """``Path(path).expanduser()``, but a ``~user`` naming no user of this system (or a
    ``~`` where the system names no home) is a :class:`NoHomeError` that says so, not
    the ``RuntimeError`` of pathlib ('Could not determine home directory.'), which
    reached users as a traceback."""
    try:
        return Path(path).expanduser()
    except RuntimeError:
        head = path.replace(os.sep, "/").split("/", 1)[0]
        if head == "~":
            raise NoHomeError(path, "'~' stands for your home folder, and this system names "
                                    "none (HOME is not set)") from None
        raise NoHomeError(path, f"there is no user {head[1:]!r} whose home folder {head} could "
                                f"stand for (for a folder of that name, write ./{head})") from None


def unreachable(path: str | os.PathLike[str]) -> OSError | None:
    """The error that looking ``path`` up meets — a loop of symbolic links (ELOOP), a
    folder on the way that may not be searched (EACCES), a file where a folder should be
    (ENOTDIR) — or None where it is there or simply missing. (``Path.exists`` says False
    to all of these alike, and Python 3.11's ``Path.resolve`` raises RuntimeError on a loop.)"""
    try:
        os.stat(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        return exc
    return None


def name_max(folder: str | os.PathLike[str]) -> int:
    """The longest file name, in bytes, that ``folder`` takes (255 where the system
    does not say: no ``pathconf`` on Windows, or a limit it calls indeterminate)."""
    try:
        limit = os.pathconf(os.fspath(folder) or ".", "PC_NAME_MAX")
    except (AttributeError, OSError, ValueError):
        return 255
    return limit if limit > 0 else 255


def open_beside(target: str | os.PathLike[str]) -> tuple[str, IO[bytes]]:
    """A new temporary file in ``target``'s folder, named after it (``.NAME.XXXXXXXX.tmp``,
    NAME cut short where the whole would be too long a name for the folder), open for
    writing bytes: its path and the open file. OSError if the folder cannot be written."""
    folder, name = os.path.split(os.fspath(target))
    tail = f".{secrets.token_hex(4)}.tmp"
    room = max(1, name_max(folder) - 1 - len(tail))
    while name and len(os.fsencode(name)) > room:
        name = name[:-1]
    temporary = os.path.join(folder, f".{name}{tail}")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    return temporary, os.fdopen(fd, "wb")


def replace_whole(target: str | os.PathLike[str], fill: Callable[[IO[bytes]], object],
                  check: Callable[[], object] | None = None) -> None:
    """Replace ``target`` by the file ``fill`` writes (it is given the open temporary
    file), atomically: ``check``, if given, is called last before the rename and may
    raise to stop it. Whatever fails (``fill``, the disk, ``check``, Ctrl-C) removes
    the temporary file and is raised again; ``target`` is then as it was."""
    try:
        temporary, fh = open_beside(target)
    except OSError as exc:      # named after the file it would have replaced, not the hidden one
        exc.filename = os.fspath(target)
        raise
    try:
        with fh:
            fill(fh)
            fh.flush()
            try:
                mode = stat.S_IMODE(os.stat(target).st_mode)
            except FileNotFoundError:
                pass
            else:
                os.fchmod(fh.fileno(), mode)
            os.fsync(fh.fileno())
        if check is not None:
            check()
        os.replace(temporary, target)
    except BaseException as exc:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        if isinstance(exc, OSError) and exc.filename == temporary:
            exc.filename = os.fspath(target)    # (the disk full, the rename refused)
        raise
