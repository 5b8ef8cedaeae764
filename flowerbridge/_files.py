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
from typing import IO, Callable


def open_beside(target: str | os.PathLike[str]) -> tuple[str, IO[bytes]]:
    """A new temporary file in ``target``'s folder, named after it (``.NAME.XXXXXXXX.tmp``),
    open for writing bytes: its path and the open file. OSError if the folder cannot be
    written."""
    folder, name = os.path.split(os.fspath(target))
    temporary = os.path.join(folder, f".{name}.{secrets.token_hex(4)}.tmp")
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
