"""``--save FILE`` of ``play`` and ``demo``: the session written as its JSON session
record (:meth:`~flowerbridge.session.Session.to_dict`, what ``flowerbridge show`` reads).

The file is written whole each time, to a temporary file beside it that then
replaces it (:func:`flowerbridge._files.replace_whole`), so that a reader (or a crash
part-way) never sees half a record, and the file keeps its permissions.
A FILE that is a symbolic link is written where the link leads (the link stays a
link), and only a regular file is ever replaced: a directory, a FIFO or a device
(``/dev/full``, ``/dev/stdout``) is refused, since a file renamed over it would
destroy it. Whether it can be written is found out when the command starts, before any
hand is played, and a file that is there already is refused unless the
command has ``--overwrite``; a write that fails later (the folder removed, the disk full,
FILE no longer a regular file) raises :class:`SaveError`, which the commands report
without losing the game.
"""

from __future__ import annotations

import json
import os
import stat

from .._files import open_beside, replace_whole
from . import UsageError


#: the key of a session record that holds the hand ``play`` was playing, as it stands
UNFINISHED = "unfinished"


class SaveError(UsageError):
    """The session could not be written (the folder gone, the disk full): the
    session itself is sound, and the command says so and goes on."""


class _NotAFile(Exception):
    """What ``--save`` names (or where its links lead) is there and may not be replaced:
    it is not a regular file, or it is one of the command's standard streams."""

    KINDS = [(stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
             (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket")]

    def __init__(self, target: str | None, mode: int, stream: str | None = None) -> None:
        self.kind = next((kind for test, kind in self.KINDS if test(mode)), "a special file")
        self.stream = stream
        # where a link leads is named: the file the user sees is not the one refused
        self.through = f"leads to {target}, which " if target else ""

    def what(self, now: bool = False) -> str:
        """Why it is refused: ``is not a regular file (a FIFO)``, say, or with ``now`` (it
        was one when the command started) ``is now a FIFO, not a regular file``."""
        if self.stream:
            return f"is{' now' if now else ''} the command's standard {self.stream}"
        if now:
            return f"{self.through}is now {self.kind}, not a regular file"
        return f"{self.through}is not a regular file ({self.kind})"


class SessionFile:
    """Where ``--save`` writes the session."""

    def __init__(self, path: str, overwrite: bool = False, option: str = "--save",
                 read: bool = False) -> None:
        self.option = option    # how errors name it: --save, or play's --resume (``read``: it is read first)
        if path == "-":
            raise UsageError(f"{option} -: give a file name (standard output shows the game)")
        if not path:
            raise UsageError(f"{option} '': give a file name")
        self.path = path
        self.written = False    # whether a session was written to it (a file there before is kept till then)
        try:
            target = self._target()
        except _NotAFile as exc:
            if exc.kind == "a directory" and not exc.stream:
                raise UsageError(f"{option} {path}: {exc.through}is a directory, not a file") from None
            raise UsageError(f"{option} {path}: {exc.what()}: choose a file name") from None
        except OSError as exc:      # (a loop of symbolic links, a file where a folder should be)
            raise UsageError(f"{option} {path}: cannot write there: {exc.strerror or exc}") from None
        if os.path.lexists(path) and not overwrite:     # another session, most likely: kept
            raise UsageError(f"{option} {path}: the file exists; give another name, or add --overwrite "
                             "to replace it")
        if read and os.path.exists(target) and not os.access(target, os.R_OK):
            raise UsageError(f"{option} {path}: cannot read it: permission denied")
        if os.path.exists(target) and not os.access(target, os.W_OK):
            raise UsageError(f"{option} {path}: the file is read-only")
        try:    # a file can be made beside it (the folder exists and may be written)
            temporary, fh = open_beside(target)
            fh.close()
            os.unlink(temporary)
        except OSError as exc:
            raise UsageError(f"{option} {path}: cannot write there: {exc.strerror or exc}") from None

    def _target(self) -> str:
        """The file a save replaces: FILE, or where its symbolic links lead, as it is now.
        :class:`_NotAFile` if that is there and is not a regular file (a file renamed over a
        directory, a FIFO or a device destroys it) or is a standard stream of the command
        (``/dev/stdout`` where the output goes to a file); OSError if it cannot be looked at."""
        target = os.path.realpath(self.path)
        try:
            # FILE as the system follows its links: /dev/stdout's /proc/self/fd/1 leads to
            # a pipe or a terminal that realpath cannot name
            found = os.stat(self.path)
        except FileNotFoundError:       # made by the first save (a link: where it leads)
            return target
        if not stat.S_ISREG(found.st_mode):
            raise _NotAFile(target if self._names(target, found) else None, found.st_mode)
        for fd, stream in ((0, "input"), (1, "output"), (2, "error")):
            try:
                same = os.path.samestat(found, os.fstat(fd))
            except OSError:             # (closed)
                same = False
            if same:
                raise _NotAFile(None, found.st_mode, stream)
        return target

    def _names(self, target: str, found: os.stat_result) -> bool:
        """Whether FILE is a link and ``target`` the file it leads to (not so for a pipe's
        /proc/self/fd link, which realpath cannot name)."""
        try:
            return os.path.islink(self.path) and os.path.samestat(found, os.stat(target))
        except OSError:
            return False

    def write(self, session, unfinished=None) -> None:
        """Replace the file with ``session``'s record (keeping the file's permissions); with
        ``unfinished``, a hand being played, that hand as it stands too, as the record's
        ``"unfinished"`` (which ``play --resume`` goes on with)."""
        record = session.to_dict()
        if unfinished is not None:
            from ..records import to_dict

            record[UNFINISHED] = to_dict(unfinished)
        text = json.dumps(record, indent=2, ensure_ascii=False) + "\n"
        try:
            # the link may lead elsewhere now, or FILE be a FIFO: looked at again, and once
            # more as near the replace as can be
            replace_whole(self._target(), lambda fh: fh.write(text.encode("utf-8")), check=self._target)
        except (OSError, _NotAFile) as exc:
            reason = f"it {exc.what(now=True)}" if isinstance(exc, _NotAFile) else exc.strerror or exc
            raise SaveError(f"{self.option} {self.path}: cannot write the session: {reason}") from None
        self.written = True


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

