"""``--save FILE`` of ``play`` and ``demo``: the session written as its JSON session
record (:meth:`~flowerbridge.session.Session.to_dict`, what ``flowerbridge show`` reads).

The file is written whole each time, to a temporary file beside it that then
replaces it, so that a reader (or a crash part-way) never sees half a record.
Whether it can be written is found out when the command starts, before any
hand is played, and a file that is there already is refused unless the
command has ``--overwrite``; a write that fails later (the folder removed, the disk full)
raises :class:`SaveError`, which the commands report without losing the game.
"""

from __future__ import annotations

import json
import os
import secrets

from . import UsageError


class SaveError(UsageError):
    """The session could not be written (the folder gone, the disk full): the
    session itself is sound, and the command says so and goes on."""


class SessionFile:
    """Where ``--save`` writes the session."""

    def __init__(self, path: str, overwrite: bool = False) -> None:
        if path == "-":
            raise UsageError("--save -: give a file name (standard output shows the game)")
        if not path:
            raise UsageError("--save '': give a file name")
        self.path = path
        if os.path.isdir(path):
            raise UsageError(f"--save {path}: is a directory, not a file")
        if os.path.lexists(path) and not overwrite:     # another session, most likely: kept
            raise UsageError(f"--save {path}: the file exists; give another name, or add --overwrite "
                             "to replace it")
        if os.path.lexists(path) and not os.access(path, os.W_OK):
            raise UsageError(f"--save {path}: the file is read-only")
        try:    # a file can be made beside it (the folder exists and may be written)
            os.unlink(self._open_temporary()[0])
        except OSError as exc:
            raise UsageError(f"--save {path}: cannot write there: {exc.strerror or exc}") from None

    def _open_temporary(self) -> tuple[str, int]:
        folder, name = os.path.split(self.path)
        temporary = os.path.join(folder, f".{name}.{secrets.token_hex(4)}.tmp")
        # 0o666 less the umask, as the file itself would be made
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        return temporary, fd

    def write(self, session) -> None:
        """Replace the file with ``session``'s record."""
        text = json.dumps(session.to_dict(), indent=2, ensure_ascii=False) + "\n"
        temporary = None
        try:
            temporary, fd = self._open_temporary()
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(text)
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(temporary, self.path)
        except OSError as exc:
            if temporary is not None:
                try:
                    os.unlink(temporary)
                except OSError:
                    pass
            raise SaveError(f"--save {self.path}: cannot write the session: {exc.strerror or exc}") from None


def add_save_options(parser, help: str) -> None:
    """``--save FILE`` (``help``) and ``--overwrite``."""
    parser.add_argument("--save", metavar="FILE", help=help)
    parser.add_argument("--overwrite", action="store_true",
                        help="with --save, replace FILE if it exists (without it, an existing FILE is refused)")


def session_file(args):
    """The :class:`SessionFile` of ``--save``, or None; ``--overwrite`` without it is refused."""
    if args.save is None:
        if args.overwrite:
            raise UsageError("--overwrite replaces the file of --save: give --save FILE")
        return None
    return SessionFile(args.save, overwrite=args.overwrite)
