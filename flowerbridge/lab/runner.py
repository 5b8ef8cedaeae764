"""Running analyses over many deals: chunks, workers, Ray, resume, merge.

The deals ``0..n-1`` of each analysis are cut into chunks at fixed multiples
of the analysis' chunk size. A chunk is computed by a pure function of
``(analysis, seed, start, stop, params)`` and comes back as CSV text, which
the driving process alone writes, atomically, to
``OUT/chunks/<analysis>/<start>-<stop>.csv``. A chunk file that exists is
finished: an interrupted run (Ctrl-C, a kill, a lost machine) resumes by
computing only the missing chunks. The merged results are the chunk files
concatenated in deal order, so they are byte-for-byte the same with one
worker, many, or a Ray cluster.

``OUT/lab.json`` records the seed and each analysis' parameters, chunk
size and the fingerprint of the source its rows depend on; a later run in
the same folder must agree with it (a larger ``n`` adds chunks), so that
chunks of other code or settings are never merged with this one's.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import shutil
import signal
import socket
import sys
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generator, Iterable, Literal, Mapping, Sequence

from .._signals import signals_held
from ..bots.base import ctrl_c_is_not_the_persons
from ..dealing import seed_value
from ..errors import DealError, FlowerBridgeError
from .base import Analysis, ColumnReader, LabError, Params, Table, rows_to_csv, write_atomic
from ..render import count_text

MANIFEST = "lab.json"
LOCK = ".lab.lock"
"""The file a run holds locked while it uses its folder (:class:`FolderLock`)."""
MAX_DEALS = 100_000_000
"""A run's most deals: past any study (a billion deals of ``deals`` alone is
days of work), and its plan of chunks always fits in memory."""
FORMAT = "flowerbridge-lab"


def analyses() -> dict[str, Analysis]:
    """Every analysis by name; ``dd`` only when the compiled solver can be imported."""
    from . import deals, play, variants
    found = [deals.ANALYSIS, play.ANALYSIS, variants.ANALYSIS]
    try:
        from .. import solver  # noqa: F401 -- the dd analysis needs it in every worker
    except ImportError:
        pass
    else:
        from . import dd
        found.insert(1, dd.ANALYSIS)
    return {a.name: a for a in found}


DEFAULT_ANALYSES = ("deals", "play", "variants")
"""What a run computes when no analysis is named: ``dd`` costs far more
(a full search per deal), so it is run only when asked for."""


@dataclass(frozen=True)
class Chunk:
    """Deals ``start..stop-1`` of one analysis."""

    analysis: str
    start: int
    stop: int

    @property
    def size(self) -> int:
        return self.stop - self.start

    def path(self, out: Path) -> Path:
        return out / "chunks" / self.analysis / f"{self.start:07d}-{self.stop:07d}.csv"


def plan(name: str, n: int, chunk_size: int) -> list[Chunk]:
    """The chunks covering deals ``0..n-1``, cut at multiples of ``chunk_size``."""
    return [Chunk(name, start, min(start + chunk_size, n)) for start in range(0, n, chunk_size)]


def compute_chunk(name: str, seed: Any, start: int, stop: int, params: Params) -> str:
    """The CSV text of one chunk: what a worker runs.

    Any failure comes back as a :class:`LabError` naming the chunk, so that a
    bug in a bot loaded by path never shows the user a traceback.
    """
    analysis = analyses()[name]
    try:
        rows = analysis.rows(seed, start, stop, params)
    except FlowerBridgeError as exc:
        raise LabError(f"{name}, deals {start}-{stop - 1}: {exc}") from None
    except Exception as exc:  # noqa: BLE001 -- a worker's failure must reach the user as one line
        raise LabError(f"{name}, deals {start}-{stop - 1}: {type(exc).__name__}: {exc}") from None
    return rows_to_csv(analysis.columns, rows)


def compute_chunk_as(code: dict[str, str], name: str, seed: Any, start: int, stop: int,
                     params: Params) -> str:
    """:func:`compute_chunk` on a Ray worker, whose flowerbridge is the one installed on
    its node, not necessarily the driver's: the chunk is computed only where the
    fingerprint of the source its rows depend on is ``code``, the driver's (which its
    ``lab.json`` records). A cluster running other code gave other figures under the
    driver's fingerprint, silently, and a later run resumed them."""
    here = _code(analyses()[name], params)
    changed = sorted(k for k in {*code, *here} if code.get(k) != here.get(k))
    # A bot module (given as module:attribute) that the node lacks is left for the bot's
    # loading to name ("cannot load bot 'mybot:Bot': No module named 'mybot'"); one there
    # but other than this machine's is refused as flowerbridge's own files are.
    ours = [k for k in changed if not k.startswith("module ")]
    theirs = [k for k in changed if k.startswith("module ") and here.get(k) != "unknown"]

    def listed(keys: list[str]) -> str:
        return ", ".join(keys[:3]) + (f" and {len(keys) - 3} more" if len(keys) > 3 else "")

    if ours:
        raise LabError(f"{name}, deals {start}-{stop - 1}: the Ray cluster's flowerbridge differs from "
                       f"this machine's ({listed(ours)}), and would give other results: install the same "
                       "flowerbridge on every node of the cluster (on a cluster of this machine alone: "
                       "its flowerbridge changed since the run began)")
    if theirs:
        raise LabError(f"{name}, deals {start}-{stop - 1}: the Ray cluster's bot code differs from this "
                       f"machine's ({listed(theirs)}), and would give other results: put the same module "
                       "on every node of the cluster")
    return compute_chunk(name, seed, start, stop, params)


# ---------------------------------------------------------------- backends


# Bounds on a slip: each worker is a Python process (a thousand would start a
# thousand interpreters), and a chunk is held whole in memory.
MAX_WORKERS = 256
MAX_CHUNK_SIZE = 100_000


def usable_cpus() -> int:
    """The CPUs this process may run on (its affinity, where the system says)."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except (AttributeError, OSError):
        return os.cpu_count() or 1


# What each local worker is computing, for the error when one of them dies: its slot
# of a shared array holds its process id and 1 + the index of its job (0: none).
_slot: tuple[Any, int] | None = None

# The exit status of a worker process that was asked to run the lab while it imported
# the main script, as each "spawn" worker does as it starts (a script that calls the
# lab without an ``if __name__ == "__main__":`` guard): it ends quietly with this
# status, and the driver says what to do (:func:`_lost_worker`).
_IMPORTING_MAIN = 87
_GUARD = 'call run_lab under `if __name__ == "__main__":` when using workers > 1'


def _importing_main() -> bool:
    """Whether this process is a worker still starting up, importing the main script
    again ("spawn"): ``_inheriting`` is the flag multiprocessing itself sets for that
    stage, and checks before refusing to start a process from it. (Not
    ``parent_process()``: a worker learns its parent only after this stage.)"""
    import multiprocessing

    return bool(getattr(multiprocessing.current_process(), "_inheriting", False))


def _main_not_importable() -> str | None:
    """The main script's name where "spawn" workers could not import it again (one read
    from standard input, ``<stdin>``): each would stop as it starts, with a traceback.
    As :mod:`multiprocessing.spawn` does, a main module imported by name, or without a
    file, is not read again."""
    import multiprocessing.process

    main = sys.modules.get("__main__")
    if getattr(getattr(main, "__spec__", None), "name", None) is not None:
        return None
    path = getattr(main, "__file__", None)
    if not isinstance(path, str):
        return None
    full = os.path.join(getattr(multiprocessing.process, "ORIGINAL_DIR", None) or "", path)
    return None if os.path.isfile(full) else path


def _main_thread() -> bool:
    """Whether this is the main thread, the one signal handlers are set from."""
    return threading.current_thread() is threading.main_thread()


def _worker_start(slots: Any = None, taken: Any = None, driver: int | None = None) -> None:
    global _slot
    # Ctrl-C is the driver's to handle: workers just stop when it shuts them down.
    # (They start with it blocked, :func:`_sigint_held`; ignored, a Ctrl-C pending since
    # is dropped, and it can be unblocked.)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    ctrl_c_is_not_the_persons()     # (a bot's own KeyboardInterrupt is then its failure)
    if hasattr(signal, "pthread_sigmask"):
        # (SIGTERM too, held with it: the pool ends its workers with it)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _HELD)
    if slots is not None:
        with taken.get_lock():
            index = taken.value
            taken.value += 1
        slots[2 * index] = os.getpid()
        _slot = (slots, index)
    # A driver killed (SIGTERM, SIGKILL) cannot shut them down: each worker
    # watches for its parent to go, and ends itself then. The parent is the
    # driver named: one killed before this ran has left the worker to init
    # already, which a watch of the parent found then would take for the driver.
    parent = os.getppid() if driver is None else driver
    if os.getppid() != parent:
        os._exit(1)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(1)

    threading.Thread(target=watch, name="flowerbridge-parent-watch", daemon=True).start()


Results = Generator[tuple[Chunk, str], None, None]
"""Each chunk with its computed text, as the chunks are done; closed when abandoned."""


_HELD = {signal.SIGINT, signal.SIGTERM}
"""What :func:`_sigint_held` holds back: Ctrl-C, and SIGTERM, which the ``lab``
command turns into a stop of the same kind (:class:`flowerbridge._signals.Terminated`)."""


@contextmanager
def _sigint_held() -> Generator[None, None, None]:
    """Ctrl-C held back in this thread (delivered once this ends), where that can
    be done: while worker processes are started from it, and while a run's
    result files are put in place together.

    A process inherits its parent's blocked signals: a worker starts with Ctrl-C
    blocked, so that one pressed while its interpreter starts up (before its
    initializer can ignore it) does not break that start-up ("Fatal Python error:
    init_import_site", a traceback). The pool's own thread, started meanwhile,
    keeps it blocked too, for any worker it starts. Here a Ctrl-C is only held
    back, not lost: it is delivered once unblocked (or at once through another
    thread)."""
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    before = signal.pthread_sigmask(signal.SIG_BLOCK, _HELD)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)


def _compute_job(job: int, *args: Any) -> str:
    """:func:`compute_chunk` in a local worker, its job recorded in the worker's slot meanwhile."""
    if _slot is None:
        return compute_chunk(*args)
    slots, index = _slot
    slots[2 * index + 1] = job + 1
    try:
        return compute_chunk(*args)
    finally:
        slots[2 * index + 1] = 0


class WorkerLost(LabError):
    """A local worker process died (killed, out of memory, or ended by a bot's code):
    ``chunks`` are those it was computing (all those in flight where it cannot be told
    which), ``how`` says how it ended where that is known. :func:`run` words the error,
    with what the run kept."""

    def __init__(self, chunks: Sequence[Chunk], how: str, *, starting: str | None = None) -> None:
        super().__init__("a worker process stopped unexpectedly")
        self.chunks, self.how, self.starting = list(chunks), how, starting

    def explain(self, kept: str) -> str:
        if self.starting is not None:   # none got as far as computing: why, in its place
            return f"{self.starting}; {kept}"
        names = [f"{c.analysis}, deals {c.start}-{c.stop - 1}" for c in self.chunks]
        computing = ("" if not names else " computing " + names[0] if len(names) == 1
                     else " while computing " + ", ".join(names[:-1]) + " or " + names[-1])
        return f"a worker process stopped unexpectedly{computing} ({self.how}); {kept}"


def _lost_worker(pool, slots: Any, taken: Any, chunks: Sequence[Chunk]) -> WorkerLost:
    """The error for a broken pool: the chunk(s) the workers were computing, and of
    those the dead worker's where its end tells it from the others (the pool ends
    them with SIGTERM once one has died); where no worker got as far as its
    initializer, why none could start."""
    processes = dict(getattr(pool, "_processes", None) or {})
    pool.shutdown(wait=True)        # every worker ended: their exit codes are final
    if not taken.value:
        ended = [p.exitcode for p in processes.values() if p.exitcode not in (None, -signal.SIGTERM)]
        if _IMPORTING_MAIN in ended:
            return WorkerLost([], "", starting=(
                "the worker processes stopped as they started: each imports the main script "
                "again, and this one starts the lab whenever it is imported; " + _GUARD))
        status = next((code for code in ended if code > 0), None)
        if status is not None:
            return WorkerLost([], "", starting=(
                f"a worker process stopped as it started, before computing anything (it exited "
                f"with status {status}; its error is above: a worker imports the main script "
                f"again as it starts)"))
    in_flight = {int(slots[i]): chunks[int(slots[i + 1]) - 1]
                 for i in range(0, len(slots), 2) if slots[i] and slots[i + 1]}
    codes = {pid: getattr(processes.get(pid), "exitcode", None) for pid in in_flight}
    dead = [pid for pid, code in codes.items() if code is not None and code != -signal.SIGTERM]
    if len(dead) != 1:
        return WorkerLost(sorted(in_flight.values(), key=lambda c: (c.analysis, c.start)),
                          "killed, or out of memory")
    code = codes[dead[0]]
    assert code is not None
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        how = f"killed by {name}" + (", as when memory runs out" if -code == signal.SIGKILL else "")
    else:
        how = f"it exited with status {code}"
    return WorkerLost([in_flight[dead[0]]], how)


def _serial(jobs: Sequence[tuple[Chunk, tuple]]) -> Results:
    for chunk, args in jobs:
        yield chunk, compute_chunk(*args)


def _processes(jobs: Sequence[tuple[Chunk, tuple]], workers: int) -> Results:
    import multiprocessing
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
    from concurrent.futures.process import BrokenProcessPool

    # "spawn": a fresh interpreter per worker, safe beside the progress bar's thread.
    script = _main_not_importable()
    if script is not None:
        raise LabError(f"worker processes import the main script again as they start, and "
                       f"{script} is not a file they can read: save the script to a file and "
                       f"run that ({_GUARD}), or use workers=1")
    context = multiprocessing.get_context("spawn")
    slots, taken = context.RawArray("q", 2 * workers), context.Value("i", 0)
    pool = ProcessPoolExecutor(max_workers=workers, mp_context=context,
                               initializer=_worker_start, initargs=(slots, taken, os.getpid()))
    finished = broken = False
    try:
        pending = {}
        for job, (chunk, args) in enumerate(jobs):
            # (a pool starts its workers as jobs are handed to it, while it has fewer)
            starting = job < workers or len(getattr(pool, "_processes", None) or ()) < workers
            with _sigint_held() if starting else contextlib.nullcontext():
                pending[pool.submit(_compute_job, job, *args)] = chunk
        while pending:
            # A timeout, so that Ctrl-C is noticed while long chunks run.
            done, _ = wait(pending, timeout=0.2, return_when=FIRST_COMPLETED)
            for future in sorted(done, key=lambda f: pending[f].start):
                try:
                    text = future.result()
                except BrokenProcessPool:
                    broken = True
                    raise _lost_worker(pool, slots, taken, [chunk for chunk, _ in jobs]) from None
                yield pending.pop(future), text
        finished = True
    finally:
        # A broken pool has ended its workers itself: wait for its threads too, or
        # one may wake another through a pipe already closed as the program exits
        # (a traceback after our one error line, now and then).
        manager = getattr(pool, "_executor_manager_thread", None)
        try:
            if not (finished or broken):
                _stop_workers(pool)     # before shutdown, which forgets them
        finally:    # (also when a second Ctrl-C cuts the workers' stop short)
            try:
                pool.shutdown(wait=finished or broken, cancel_futures=True)
            finally:
                if manager is not None and not (finished or broken):
                    _join_through_ctrl_c(manager, _STOP_PATIENCE * 5)


def _join_through_ctrl_c(thread, seconds: float) -> None:
    """Wait (at most ``seconds``) for the pool's own thread of an abandoned run to end,
    a further Ctrl-C or not: it closes its wake-up pipe as it ends, and the interpreter's
    exit writes to that pipe without its lock (Python 3.11, and 3.12 and 3.13 before
    CPython's gh-125451), so the two met now and then and a traceback ("Bad file
    descriptor") followed our one line. Its workers are ended already, so it ends at once."""
    deadline = time.monotonic() + seconds
    while thread.is_alive() and time.monotonic() < deadline:
        try:
            thread.join(max(0.0, deadline - time.monotonic()))
        except KeyboardInterrupt:   # (the run ends as interrupted all the same)
            pass


def _stop_workers(pool) -> None:
    """End the workers of an abandoned run now, and wait until they have: their
    unfinished chunks would be lost anyway, and a chunk can take minutes (double
    dummy). (Only before the pool's ``shutdown``: before Python 3.14 it drops its
    list of processes, and the interpreter's exit then waited for every running
    chunk.)

    A worker still starting up holds SIGTERM back (:func:`_sigint_held`), so one
    that has not ended a moment after it was asked to is killed: left to finish
    its start-up after this program had exited, it found the pool's shared
    counter gone and printed a traceback under our one line."""
    processes = list((getattr(pool, "_processes", None) or {}).values())
    if not processes:
        stop = getattr(pool, "kill_workers", None)    # (a pool without that private list: 3.14+ has this)
        if stop is not None:
            stop()
        return
    try:
        for process in processes:
            process.terminate()
        patience = time.monotonic() + _STOP_PATIENCE
        for process in processes:
            process.join(max(0.0, patience - time.monotonic()))
    finally:    # also when a second Ctrl-C cuts the wait short
        for process in processes:
            if process.is_alive():
                process.kill()
    for process in processes:
        process.join(5)


_STOP_PATIENCE = 1.0
"""Seconds an abandoned run's workers are given to end on SIGTERM before they are killed."""


# An HTTP/2 client's first words (the connection preface and an empty SETTINGS
# frame): a gRPC server, as Ray's are, answers with a SETTINGS frame of its own
_H2_PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + bytes([0, 0, 0, 4, 0, 0, 0, 0, 0])


def _check_address(address: str) -> tuple[str, int] | None:
    """The Ray package must be installed, and the address well formed: its
    host and port, or None for ``local`` and for ``auto`` without ``RAY_ADDRESS``
    (``auto`` stands for the address that names)."""
    try:
        import ray  # noqa: F401 -- only whether it is there
    except ImportError:
        raise LabError("--ray needs the ray package: pip install 'flowerbridge[ray]'") from None
    given = f"--ray {address!r}"
    if address == "auto":
        address = os.environ.get("RAY_ADDRESS", "").strip() or "auto"
        given = f"RAY_ADDRESS {address!r} (which --ray auto stands for)"
    if address in ("auto", "local"):
        return None
    host, sep, port = address.removeprefix("ray://").rpartition(":")
    if not sep or not host.strip("[]") or not (port.isascii() and port.isdecimal() and len(port) <= 5) \
            or not 0 < int(port) < 65536 or any(ch.isspace() or ch == "/" for ch in host):
        # (http://HOST:6379 was looked up as the host "//HOST": "Name or service not known")
        raise LabError(f"{given}: expected HOST:PORT (or ray://HOST:PORT, auto, local)")
    return host.strip("[]"), int(port)


def _check_reachable(address: str, timeout: float = 5.0) -> None:
    """A well-formed address (:func:`_check_address`) answered by a gRPC
    server, as Ray's are: Ray itself keeps retrying an unreachable address,
    or one where something else listens, for minutes, printing its own
    warnings."""
    where = _check_address(address)
    if where is None:
        return
    if address == "auto":
        address = os.environ["RAY_ADDRESS"].strip()
    try:
        with socket.create_connection(where, timeout=timeout) as probe:
            if os.environ.get("RAY_USE_TLS", "0").lower() in ("0", "", "false"):
                probe.sendall(_H2_PREFACE)
                answer = probe.recv(9)
                if len(answer) < 4 or answer[3] != 4:     # no SETTINGS frame: no gRPC server
                    raise LabError(f"cannot join the Ray cluster at {address}: what answers there "
                                   "is no Ray cluster (it does not speak gRPC)")
    except LabError:
        raise
    except (OSError, ValueError) as exc:
        raise LabError(f"cannot reach the Ray cluster at {address}: "
                       f"{getattr(exc, 'strerror', None) or exc}") from None
    if os.environ.get("RAY_USE_TLS", "0").lower() in ("0", "", "false"):
        _check_port_kind(address, where, timeout)


# A method each of Ray's two ports serves and the other does not: the cluster's own
# (its GCS, `ray start --port`, 6379 by default) and the Ray Client server's (10001)
_GCS_METHOD = "/ray.rpc.NodeInfoGcsService/GetClusterId"
_CLIENT_METHOD = "/ray.rpc.RayletDriver/ClusterInfo"


# What _serves says of a method that a Ray cluster with token authentication serves, to
# a caller without its token ("unauthenticated": it has the method, as a method it lacks
# is "unimplemented" there too)
_TOKEN: Literal["token"] = "token"


def _serves(target: str, method: str, timeout: float) -> bool | None | Literal["token"]:
    """Whether the gRPC server at ``target`` has ``method`` (any answer but
    "unimplemented" says it has; :data:`_TOKEN` where it has it behind a token);
    None where that cannot be told."""
    try:
        import grpc
    except ImportError:     # (Ray brings it; without it, Ray's own words will do)
        return None
    with grpc.insecure_channel(target) as channel:
        call = channel.unary_unary(method, request_serializer=bytes, response_deserializer=bytes)
        try:
            call(b"", timeout=timeout)
        except grpc.RpcError as exc:
            code = exc.code() if callable(getattr(exc, "code", None)) else None
            if code == grpc.StatusCode.UNIMPLEMENTED:
                return False
            if code == grpc.StatusCode.UNAUTHENTICATED:
                return _TOKEN
            if code in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED, None):
                return None
    return True


def _check_port_kind(address: str, where: tuple[str, int], timeout: float) -> None:
    """Ray's two ports mixed up, a Ray Client port given as HOST:PORT or the
    cluster's own port as ray://HOST:PORT: Ray took 20 to 30 seconds to fail,
    printing its own log lines, and its error named neither port."""
    host, port = where
    target = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    client = address.startswith("ray://")
    wanted = _serves(target, _CLIENT_METHOD if client else _GCS_METHOD, timeout)
    if wanted == _TOKEN and os.environ.get("RAY_AUTH_MODE", "").strip().lower() != "token":
        # without RAY_AUTH_MODE=token Ray took 20 to 30 seconds to fail, printing a line a
        # second ("InvalidAuthToken"), or over ray:// blamed a timeout (with it, the token
        # is Ray's to send)
        raise LabError(f"cannot join the Ray cluster at {address}: it asks for a token (token "
                       "authentication): set RAY_AUTH_MODE=token here, with the cluster's token in "
                       "RAY_AUTH_TOKEN or in ~/.ray/auth_token (copied from its head node)")
    if wanted is not False:
        return
    other = _serves(target, _GCS_METHOD if client else _CLIENT_METHOD, timeout)
    if other is False:
        # another of Ray's gRPC ports (a node's raylet, its object manager): Ray took 20 to
        # 30 seconds, and its error came with hints of other failures
        raise LabError(f"cannot join the Ray cluster at {address}: that port answers gRPC, but neither as "
                       "the cluster's own port (`ray start --port`, 6379 unless set otherwise: give it as "
                       "HOST:PORT) nor as its Ray Client server's (10001 unless set otherwise: give it as "
                       "ray://HOST:PORT); another of Ray's ports, a node's own, is neither")
    if other is None:
        return
    if client:
        raise LabError(f"cannot join the Ray cluster at {address}: that port is the cluster's own "
                       f"(`ray start --port`), not its Ray Client server's: on a node of the cluster "
                       f"give it as {target}; from elsewhere, the Ray Client port (ray://{target.rpartition(':')[0]}"
                       ":10001 unless set otherwise)")
    raise LabError(f"cannot join the Ray cluster at {address}: that port is a Ray Client server's, not "
                   f"the cluster's own: give it as ray://{target}")


# What a Ray task's failure says where the worker could not load this function: its
# node has no flowerbridge, or one without the lab's entry point (an older version).
_NOT_LOADED = ("failed to import on the worker", "No module named 'flowerbridge", "compute_chunk_as")


def _ray_failure(exc: BaseException) -> str:
    """One line for a Ray task that failed: the lab's own error as it is (a bot's
    failure, a chunk refused); Ray's own words cut to their first line (they held
    the workers' whole ``sys.path`` and a traceback), with what to do where the
    workers could not load flowerbridge."""
    cause = getattr(exc, "as_instanceof_cause", lambda: exc)()
    cause = getattr(cause, "cause", None) or cause
    if isinstance(cause, LabError):
        return str(cause)
    text = str(cause).strip()
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    first = lines[0] if lines else type(cause).__name__
    if any(mark in text for mark in _NOT_LOADED):
        # the error the worker met is the traceback's last "...Error: ..." line
        met = [line for line in lines if re.match(r"[\w.]+(Error|Exception): ", line)]
        reason = met[-1] if met else first.split(". ")[0]
        return (f"the Ray cluster's workers cannot run the lab ({reason.rstrip('.')}): install this "
                "flowerbridge, the same version, on every node of the cluster")
    return first


def _version_mismatch(text: str) -> str | None:
    """Ray's refusal of a machine whose Ray or Python is not the cluster's, said in one
    line with both versions (its first line was "Version mismatch: The cluster was started
    with:", the versions on the lines after it); None for any other failure."""
    if not text.startswith("Version mismatch"):
        return None
    ray_versions = re.findall(r"^\s*Ray: (\S+)", text, re.M)
    pythons = re.findall(r"^\s*Python: (\S+)", text, re.M)
    if len(ray_versions) != 2 or len(pythons) != 2:
        return None
    return (f"the cluster runs Ray {ray_versions[0]} on Python {pythons[0]}, this machine Ray "
            f"{ray_versions[1]} on Python {pythons[1]}: the same versions are needed on both")


def _ray(jobs: Sequence[tuple[Chunk, tuple]], address: str, code: dict[str, dict[str, str]]) -> Results:
    try:
        import ray
    except ImportError:
        raise LabError("--ray needs the ray package: pip install 'flowerbridge[ray]'") from None
    import logging

    _check_reachable(address)
    # auto stands for RAY_ADDRESS where it is set (messages said "at auto")
    target = (os.environ.get("RAY_ADDRESS", "").strip() if address == "auto" else "") or address
    connected_here = not ray.is_initialized()
    if connected_here:
        # bot modules found through PYTHONPATH here are looked for at the same
        # paths on the cluster's nodes (docs/lab.md)
        path = os.environ.get("PYTHONPATH")
        # ray.init puts in its own SIGTERM handler (exit with status 15, a crash
        # banner): the one in place, the lab's stop that saves and says so, is put back
        on_term = signal.getsignal(signal.SIGTERM) if _main_thread() else None
        try:
            ray.init(address=address, logging_level=logging.ERROR, log_to_driver=False,
                     runtime_env={"env_vars": {"PYTHONPATH": path}} if path else None)
        except Exception as exc:  # noqa: BLE001 -- ray raises many kinds; the user needs one line
            direct = target not in ("auto", "local") and not target.startswith("ray://")
            hint = ("; a cluster started with token authentication (`ray start`'s default in "
                    "recent Ray) needs RAY_AUTH_MODE=token here too, or --ray auto on one of "
                    "its nodes" if target not in ("auto", "local") and not os.environ.get("RAY_AUTH_MODE") else "")
            if direct:  # (HOST:6379 joins through a Ray of this machine's, as a node does)
                host = target.rpartition(":")[0]
                hint += (f"; from a machine outside the cluster, give its Ray Client address: ray://{host}:10001 "
                         "unless set otherwise")
            # (the first line; "!r" on the whole condition quoted it: "at HOST:6379: 'Failed ...'")
            said = str(exc).strip().splitlines()[0] if str(exc).strip() else repr(exc)
            versions = _version_mismatch(str(exc))
            if versions:    # (its first line named no version, and the hints were of other failures)
                said, hint = versions, ""
            if target == "auto" and "Could not find any running Ray instance" in said:
                # (Ray's own words sent the user to an `--address` flag the lab does not have)
                said = ("no Ray cluster runs on this machine: start one (ray start --head), "
                        "or give its address, --ray HOST:PORT or RAY_ADDRESS")
            raise LabError(f"cannot join the Ray cluster at {target}: {said}{hint}") from None
        finally:
            if on_term is not None:
                signal.signal(signal.SIGTERM, on_term)
    try:
        cpus = ray.cluster_resources().get("CPU", 0)
    except Exception:  # noqa: BLE001 -- only a courtesy: the run says more if the cluster is gone
        cpus = None
    if cpus == 0:   # (a head started with --num-cpus 0 waits for worker nodes: the run hung, silent)
        print(f"note: the Ray cluster at {target} has no CPUs yet: the run waits for nodes to join "
              "(Ctrl-C stops it)", file=sys.stderr, flush=True)
    remote = ray.remote(num_cpus=1)(compute_chunk_as)
    pending = {}
    try:
        pending = {remote.remote(code[chunk.analysis], *args): chunk for chunk, args in jobs}
        while pending:
            chunk = None
            try:
                done, _ = ray.wait(list(pending), num_returns=1)
                chunk = pending.pop(done[0])
                text = ray.get(done[0])
            except ray.exceptions.RayTaskError as exc:
                raise LabError(_ray_failure(exc)) from None
            # (worded by run() with what the run kept, as a local worker's loss is: it said
            # "run the same command to resume" where nothing was saved and the folder was gone)
            except ray.exceptions.RayError as exc:  # a worker or node lost, out of memory
                first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
                # a chunk's own worker crashed or out of memory: that chunk is named; a node
                # or the head gone fails every task alike, and the first to come back named a
                # chunk that had not begun
                own = isinstance(exc, (ray.exceptions.WorkerCrashedError, ray.exceptions.OutOfMemoryError))
                where = f"{chunk.analysis}, deals {chunk.start}-{chunk.stop - 1}: " if chunk and own else ""
                raise WorkerLost([], "", starting=f"{where}the Ray cluster lost its work "
                                                  f"({type(exc).__name__}: {first})") from None
            except ConnectionError as exc:  # (a ray:// client's cluster gone: "Client is shutting down.")
                first = str(exc).strip().splitlines()[0].rstrip(".") if str(exc).strip() else type(exc).__name__
                raise WorkerLost([], "", starting=f"the connection to the Ray cluster at {target} was lost "
                                                  f"({first})") from None
            yield chunk, text
    finally:
        if connected_here:
            # the driver's going ends its tasks; cancelling them first raced with
            # their replies: a reply for a task cancelled just then failed a check
            # in Ray's core worker, which aborted the process (Ctrl-C, Ray 2.60)
            with signals_held():    # a stop meanwhile is taken once Ray is down
                ray.shutdown()
                # ray.shutdown sets SIGTERM back to the system's default (the process
                # ended at once, silent, its folder left with staged files), while
                # signal.getsignal still names the handler: each is put in again
                for signum in (signal.SIGINT, signal.SIGTERM):
                    if _main_thread():
                        signal.signal(signum, signal.getsignal(signum))
        else:   # a Ray the caller joined goes on: the run's tasks are cancelled
            for ref in pending:
                ray.cancel(ref)


# ---------------------------------------------------------------- progress


# From how many deals a run says it is merging and summing up them (the merged files, the
# summaries and the report: 1.5 CPU-minutes for 300,000 deals of the default analyses,
# said by nothing else).
SUMMING_UP_SAID_FROM = 50_000

# How often, at most, a line of progress is written where standard error is no terminal.
PROGRESS_LINE_SECONDS = 30.0


def _progress_lines(totals: Mapping[str, tuple[int, int]], every: float = PROGRESS_LINE_SECONDS):
    """``advance(name, deals)`` for a log rather than a terminal: a plain line
    per analysis on standard error when it finishes, and for the one under
    way at most every ``every`` seconds (deals done, rate, time left)."""
    done = {name: d for name, (d, _) in totals.items()}
    start = {name: d for name, (d, _) in totals.items()}
    # The work is handed out in order, analysis after analysis, so one is
    # timed from the last chunk any other finished before its first (or from
    # the start): its rate is its own, not diluted by the analyses before it.
    began: dict[str, float] = {}
    last_chunk = last_line = time.monotonic()

    def line(name: str, now: float) -> None:
        total = totals[name][1]
        rate = (done[name] - start[name]) / max(now - began[name], 1e-9)
        left = f", about {_duration((total - done[name]) / rate)} left" if rate and done[name] < total else ""
        print(f"lab: {name} {done[name]:,} of {count_text(total, 'deal')} ({100 * done[name] // total}%), "
              f"{rate:,.1f} deals/s{left}", file=sys.stderr, flush=True)

    def advance(name: str, deals: int) -> None:
        nonlocal last_chunk, last_line
        now = time.monotonic()
        began.setdefault(name, last_chunk)
        last_chunk = now
        done[name] += deals
        if done[name] >= totals[name][1] or now - last_line >= every:
            last_line = now
            line(name, now)

    return advance


def _duration(seconds: float) -> str:
    seconds = max(1, int(round(seconds)))
    if seconds < 90:
        return f"{seconds} s"
    if seconds < 90 * 60:
        return f"{round(seconds / 60)} min"
    return f"{seconds / 3600:.1f} h"


@contextmanager
def _progress(enabled: bool | str, totals: Mapping[str, tuple[int, int]]):
    """A rich progress bar per analysis (deals done, rate, time left) on
    standard error; with ``enabled="lines"``, plain lines for a log
    (:func:`_progress_lines`).

    Yields ``advance(name, deals)``; a no-op when disabled.
    """
    if not enabled:
        yield lambda name, deals: None
        return
    if enabled == "lines":
        yield _progress_lines(totals)
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, ProgressColumn, \
        TextColumn, TimeElapsedColumn, TimeRemainingColumn
    from rich.text import Text

    class Rate(ProgressColumn):
        def render(self, task) -> Text:
            speed = task.finished_speed or task.speed
            return Text(f"{speed:,.1f} deals/s" if speed else "… deals/s")

    progress = Progress(TextColumn("{task.description:>9}"), BarColumn(), MofNCompleteColumn(),
                        Rate(), TimeElapsedColumn(), TextColumn("left"), TimeRemainingColumn(),
                        console=Console(stderr=True))
    ids = {name: progress.add_task(name, total=total, completed=done)
           for name, (done, total) in totals.items()}
    with progress:
        yield lambda name, deals: progress.advance(ids[name], deals)


# ------------------------------------------------------------------ memory


MEMORY_BASE = 100 * 2**20
"""The driving process before it holds any row (Python, numpy, matplotlib, the
report): 84 MB measured for a run of 100 deals."""
MEMORY_PER_VALUE = 12
"""Bytes the driving process takes for each value of a row while it merges a run and
sums it up: 8 in its column, and a margin for the masks and copies the summaries make."""


def memory_needed(params: Mapping[str, Params], n: int) -> int:
    """About how many bytes the driving process needs for ``n`` deals of the
    analyses ``params`` names (each with its parameters): every row is held in
    memory, as numpy columns, from the merge to the report, and while an
    analysis' columns are joined its chunks' are held too (so the largest
    analysis counts twice). Measured peaks: 0.61 KB a deal for ``deals``; 5.4 KB
    for ``deals``, ``play`` and ``variants`` of the seven rule sets of the default
    list at 300,000 deals (4.9 at 30,000); this says 0.8 and 6.1."""
    values = []
    for name, p in params.items():
        analysis = analyses()[name]
        values.append(len(analysis.columns) * analysis.deal_rows(p))
    return MEMORY_BASE + MEMORY_PER_VALUE * (sum(values) + max(values, default=0)) * n


def available_memory() -> int | None:
    """Bytes of memory this process may still take: the machine's available memory
    (Linux's MemAvailable, else the free pages), less where a control group's limit
    leaves less; None where neither can be read."""
    found: int | None = None
    with contextlib.suppress(OSError, ValueError, IndexError):
        with open("/proc/meminfo", encoding="ascii") as fh:
            found = next((int(line.split()[1]) * 1024 for line in fh if line.startswith("MemAvailable:")), None)
    if found is None:
        with contextlib.suppress(OSError, ValueError, AttributeError):
            found = os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    with contextlib.suppress(OSError, ValueError):     # a container's limit (cgroup v2)
        limit = Path("/sys/fs/cgroup/memory.max").read_text(encoding="ascii").strip()
        if limit != "max":
            room = int(limit) - int(Path("/sys/fs/cgroup/memory.current").read_text(encoding="ascii"))
            found = room if found is None else min(found, room)
    return found


def _size(count: int) -> str:
    return f"{count / 2**30:.1f} GB" if count >= 2**30 else f"{max(1, round(count / 2**20))} MB"


def check_memory(needed: int, what: str) -> None:
    """Refuse, before any work, a run whose rows would not fit in the memory available
    (it would fail in the merge, after all the computing)."""
    available = available_memory()
    if available is not None and needed > available:
        raise LabError(f"{what} need about {_size(needed)} of memory in this process, which holds "
                       f"every row to merge them and sum them up, and {_size(available)} is "
                       "available: run fewer deals (--n) or analyses, or on a machine with more "
                       "memory")


# -------------------------------------------------------------------- runs


@dataclass
class LabResult:
    """A finished run: where it is, what was computed now and what was reused."""

    out: Path
    n: int
    seed: Any
    params: dict[str, dict[str, Any]]
    tables: dict[str, Table]
    computed: int
    reused: int


def _manifest(out: Path, seed: Any, chosen: Mapping[str, tuple[dict, int | None]],
              defaults: Mapping[str, int], code: Mapping[str, dict[str, str]]) -> dict[str, tuple[dict, int]]:
    """Check the folder's earlier runs agree with this one, then record this one.

    ``chosen`` maps each analysis to its parameters and the chunk size asked
    for (None: none). An analysis the folder already holds keeps the chunk
    size it was begun with unless another is asked for, so that a folder
    begun before a default changed still resumes; else it gets its default.
    ``code`` is each analysis' fingerprint of the source its rows depend on
    (:attr:`Analysis.code`): a folder whose saved chunks were computed by other
    code, or by a version that recorded none, is refused, as its chunks would
    be merged with this code's. Returns each analysis' parameters and chunk size."""
    path = out / MANIFEST
    recorded: dict[str, Any] = {"format": FORMAT, "seed": seed, "analyses": {}}
    if path.exists():
        try:
            recorded = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise LabError(f"{path}: not a lab manifest ({exc})") from None
        if not isinstance(recorded, dict) or recorded.get("format") != FORMAT \
                or not isinstance(recorded.get("analyses"), dict):
            raise LabError(f"{path}: not a lab manifest")
        if recorded.get("seed") != seed:
            raise LabError(f"{out} holds a run with seed {recorded.get('seed')!r}, not {seed!r}: "
                           "use another output folder")
    resolved = {}
    for name, (params, chunk_size) in chosen.items():
        before = recorded["analyses"].get(name)
        kept = before.get("chunk_size") if isinstance(before, dict) else None
        if isinstance(before, dict) and "chunk_size" in before and not (
                isinstance(kept, int) and not isinstance(kept, bool) and 1 <= kept <= MAX_CHUNK_SIZE):
            # (an edited manifest: no --chunk-size could resume it, whatever the clash said)
            raise LabError(f"{path}: not a lab manifest (its {name} run's chunk_size is "
                           f"{json.dumps(kept)}, not a whole number from 1 to {MAX_CHUNK_SIZE:,})")
        if chunk_size is None:
            chunk_size = kept if isinstance(kept, int) else defaults[name]
        entry: dict[str, Any] = {"params": params, "chunk_size": chunk_size}
        settings = {k: v for k, v in before.items() if k != "code"} if isinstance(before, dict) else before
        if before is not None and settings != entry:
            raise LabError(_clash(out, name, settings, entry))
        fingerprint = code[name]
        if before is not None:
            _check_code(out, name, before.get("code"), fingerprint)
        recorded["analyses"][name] = {**entry, "code": fingerprint}
        resolved[name] = (params, chunk_size)
    write_atomic(path, json.dumps(recorded, indent=2) + "\n")
    return resolved


def _clash(out: Path, name: str, before: Any, now: dict[str, Any]) -> str:
    """The error for a folder whose ``name`` run was begun with settings ``before``
    (parameters and chunk size) other than this run's ``now``: which settings differ, how,
    and what resumes it."""
    if not isinstance(before, dict) or not isinstance(before.get("params"), dict):
        return f"{out} holds a {name} run with other settings ({json.dumps(before)}): use another output folder"
    what, fixes = [], []
    old_params, new_params = before["params"], now["params"]
    for key in sorted({*old_params, *new_params}):
        old, new = old_params.get(key), new_params.get(key)
        if old == new:
            continue
        if key == "bots":
            what.append(f"bots {old!r}, not {new!r}")
            fixes.append(f"--bots {old} resumes it" if isinstance(old, str) else "")
        elif key == "variants":
            what.append(_variants_clash(old, new))
            fixes.append("the same --variant options resume it")
        else:
            what.append(f"{key} {json.dumps(old)}, not {json.dumps(new)}")
    if before.get("chunk_size") != now["chunk_size"]:
        what.append(f"chunk size {before.get('chunk_size')!r}, not {now['chunk_size']!r}")
        fixes.append("dropping --chunk-size resumes it (the folder keeps the size it was begun with)")
    fix = "; ".join(f for f in fixes if f)
    return (f"{out} holds a {name} run with {'; '.join(what)}: "
            + (f"{fix}, or use another output folder" if fix else "use another output folder"))


def _variants_clash(old: Any, new: Any) -> str:
    """How two lists of rule variants ``[[name, options], ...]`` differ, in words."""
    def named(variants: Any) -> dict[str, Any]:
        return {v[0]: v[1] for v in variants if isinstance(v, (list, tuple)) and len(v) == 2} \
            if isinstance(variants, (list, tuple)) else {}
    before, now = named(old), named(new)
    if list(before) != list(now):
        return (f"the rule variants {', '.join(before) or 'none'}, not "
                f"{', '.join(now) or 'none'}")
    changed = next((n for n in before if before[n] != now[n]), None)
    if changed is None:
        return f"the rule variants {json.dumps(old)}, not {json.dumps(new)}"
    return (f"the rule variant {changed!r} as {json.dumps(before[changed])}, not "
            f"{json.dumps(now[changed])}")


def _code(analysis: Analysis, params: Params) -> dict[str, str]:
    """The fingerprint of the source ``analysis``' rows depend on (none where it names none)."""
    return analysis.code(params) if analysis.code is not None else {}


def _check_code(out: Path, name: str, before: Any, now: dict[str, str]) -> None:
    """Refuse to resume ``name`` in ``out`` where its saved chunks were computed by
    other code than ``now`` (or by a version of the lab that recorded none)."""
    fix = (f"its saved chunks would be merged with this code's results: use a new --out folder, "
           f"or delete {out} to compute it all again")
    if not isinstance(before, dict):
        raise LabError(f"{out} holds a {name} run begun by an earlier version of flowerbridge, "
                       "which did not record the code behind its results; " + fix)
    changed = sorted(k for k in {*before, *now} if before.get(k) != now.get(k))
    if changed:
        shown = ", ".join(changed[:4]) + (f" and {len(changed) - 4} more" if len(changed) > 4 else "")
        raise LabError(f"{out} holds a {name} run computed by other code ({shown} changed since "
                       f"it was begun); " + fix)


class FolderLock:
    """A lab folder taken by one run at a time: the run holds ``OUT/.lab.lock`` locked
    (``flock``, which the system lets go of when the process ends, however it ends)
    from before it reads the folder until its result files are in place. Two runs in one
    folder would otherwise record their settings over each other's and merge, stage and
    undo beside each other; the second is refused, naming the first's process, and
    changes nothing. The run removes the file as it lets go (a run that takes a file
    removed meanwhile takes the lock again, on the file now of that name); a run killed
    outright leaves it, unlocked, for the next to take.

    Where the file system has no locks (``flock`` fails otherwise than because another
    holds it), the run goes on unlocked, as it would have before there was a lock."""

    def __init__(self, out: Path, fd: int | None) -> None:
        self.out = out
        self.fd = fd

    @classmethod
    def take(cls, out: Path) -> FolderLock:
        """Lock ``out`` (an existing folder) for this process, or raise :class:`LabError`."""
        path = out / LOCK
        while True:
            try:
                fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
            except OSError as exc:
                raise LabError(f"{path}: cannot make the run's lock file ({exc.strerror or exc})") from None
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                holder = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
                os.close(fd)
                process = f" (process {holder})" if holder.isdigit() else ""
                raise LabError(f"{out} is in use by another lab run{process}: wait for it to end, "
                               "or give another output folder") from None
            except OSError:     # a file system without locks
                os.close(fd)
                with contextlib.suppress(OSError):
                    path.unlink()
                return cls(out, None)
            try:    # still the file of that name? (one that left its folder as it found it removed it)
                same = os.stat(path).st_ino == os.fstat(fd).st_ino
            except FileNotFoundError:
                same = False
            if same:
                break
            os.close(fd)
        lock = cls(out, fd)
        try:
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{os.getpid()}\n".encode("ascii"), 0)
        except OSError as exc:      # (a full disk): let go, and say so
            lock.release()
            raise LabError(f"{path}: cannot write the run's lock file ({exc.strerror or exc})") from None
        return lock

    def release(self) -> None:
        """Remove the lock file and let go of the lock (once; later calls do nothing)."""
        if self.fd is None:
            return
        fd, self.fd = self.fd, None
        with contextlib.suppress(OSError):
            path = self.out / LOCK
            if os.stat(path).st_ino == os.fstat(fd).st_ino:     # (still this run's file)
                path.unlink()
        # (unlocked outright: a worker process given a copy of the descriptor must not keep it)
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)


class Staged:
    """Result files of a run written under temporary names in its folder, put in place
    together by :meth:`commit` (or removed by :meth:`discard`): a run stopped before then
    leaves every result file as the run before left it, never some new and some old.
    It holds the run's :class:`FolderLock`, let go of by :meth:`discard`."""

    def __init__(self, out: Path, lock: FolderLock | None = None) -> None:
        self.out = out
        self.lock = lock
        self.files: list[tuple[Path, Path]] = []

    def write(self, name: str, text: str | bytes | Iterable[str]) -> None:
        """Write the result file ``name`` (:func:`write_atomic`'s ``text``), under a
        temporary name until :meth:`commit`. As with :func:`write_atomic`, a result file
        that is a symbolic link is written where it leads, and one replaced keeps its
        permissions."""
        final = Path(os.path.realpath(self.out / name))
        if final.is_dir():  # refused now, while every result file is still the run before's
            raise LabError(f"{self.out / name} is a directory: the lab writes its {name} there "
                           "(move the directory away)")
        temporary = final.with_name(f".{final.name}.{os.getpid()}.staged")
        try:
            write_atomic(temporary, text)
        except OSError as exc:      # (a full disk) said of the result file, not the hidden one
            if exc.filename in (None, str(temporary)):
                exc.filename = str(self.out / name)
            raise
        if final.exists():
            shutil.copymode(final, temporary)
        self.files.append((temporary, final))

    def commit(self, remove: Sequence[str] = ()) -> None:
        """Remove the result files ``remove`` (which would describe other results), then
        put every staged file in place, with Ctrl-C held back meanwhile."""
        with _sigint_held():
            for name in remove:
                (self.out / name).unlink(missing_ok=True)
            for temporary, final in self.files:
                os.replace(temporary, final)
            self.files.clear()

    def discard(self) -> None:
        """Remove what was staged and not put in place, and let go of the folder's lock."""
        for temporary, _ in self.files:
            temporary.unlink(missing_ok=True)
        self.files.clear()
        if self.lock is not None:
            self.lock.release()

    @staticmethod
    def remove_stale(out: Path) -> None:
        """Remove the files staged in ``out`` by runs that are no longer running (killed
        with SIGKILL, or the machine stopped, while they wrote their results): each a
        whole copy of a merged CSV, never put in place. A run's staged files carry its
        process number; those of a process still running on this machine are left."""
        for path in out.glob(".*.staged*"):
            found = _STAGED.fullmatch(path.name)
            if found is None or _running(int(found[1])):
                continue
            with contextlib.suppress(OSError):
                path.unlink()


_STAGED = re.compile(r"\..+\.([0-9]+)\.staged(?:\.[0-9a-f]{8}\.tmp)?")
"""A staged result file's name (``.NAME.PID.staged``), or that of the temporary file
it was being written to (``..NAME.PID.staged.XXXXXXXX.tmp``): the group is the PID."""


_UNFINISHED_CHUNK = re.compile(r"\.[0-9]{7,}-[0-9]{7,}\.csv\.[0-9a-f]{8}\.tmp")
"""The temporary file a chunk was being written to (``write_atomic``), left by a run
killed as it wrote it (SIGKILL, the machine stopped)."""


def _remove_unfinished_chunks(folder: Path) -> None:
    """Remove from an analysis' chunk folder the temporary files of chunks a killed run
    was writing: only the run holding the folder's lock writes chunks, so none is in use."""
    for path in folder.glob(".*.tmp"):
        if _UNFINISHED_CHUNK.fullmatch(path.name):
            with contextlib.suppress(OSError):
                path.unlink()


def _running(pid: int) -> bool:
    """Whether process ``pid`` is running on this machine (this one's own included)."""
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except (ProcessLookupError, OverflowError):     # (a number no process can have)
        return False
    except PermissionError:     # another user's: running
        return True
    return True


def _merge(out: Path, chunks: Mapping[str, Sequence[Chunk]], known: Mapping[str, Analysis],
           params: Mapping[str, Params], staged: Staged) -> dict[str, Table]:
    """Every analysis' table, read from its chunks in deal order, and its
    merged CSV (one header, then every chunk's rows), staged in ``staged``.

    All the chunks are read and checked before any merged file is written, so
    a damaged chunk leaves every file as it was; the merged files are then
    written chunk by chunk, one chunk's text in memory at a time.
    """
    tables = {}
    for name, cs in chunks.items():
        reader = ColumnReader(known[name].columns, known[name].row_key, known[name].deal_rows(params[name]))
        for c in cs:
            reader.add_file(c.path(out), range(c.start, c.stop))
        tables[name] = reader.table()

    for name, cs in chunks.items():
        def parts(cs=cs):
            for i, c in enumerate(cs):
                with open(c.path(out), encoding="utf-8", newline="") as fh:
                    text = fh.read()
                yield text if i == 0 else text.split("\n", 1)[1]
        staged.write(f"{name}.csv", parts())
    return tables


def _remove_empty(folders: Sequence[Path]) -> None:
    """Remove ``folders`` (made by this run, the highest first) where they are empty."""
    for folder in reversed(folders):
        with contextlib.suppress(OSError):
            folder.rmdir()


def _whole_in(value: Any, least: int, most: int) -> bool:
    return not isinstance(value, bool) and isinstance(value, int) and least <= value <= most


def _number(value: Any) -> str:
    """A setting as an error shows it: a whole number with its thousands marked, else as
    Python writes it (``'2'``: a string where a number belongs)."""
    return f"{value:,}" if isinstance(value, int) and not isinstance(value, bool) else repr(value)


def run(out: str | os.PathLike, names: Sequence[str], *, n: int, seed: Any = 0,
        params: Mapping[str, Mapping[str, Any]] | None = None, workers: int | None = None,
        ray_address: str | None = None, chunk_size: int | None = None,
        progress: bool | str = False) -> LabResult:
    """Compute (or resume) analyses ``names`` over deals ``0..n-1`` into ``out``
    (:func:`run_staged`, its merged CSV files put in place at once)."""
    result, staged = run_staged(out, names, n=n, seed=seed, params=params, workers=workers,
                                ray_address=ray_address, chunk_size=chunk_size, progress=progress)
    try:
        staged.commit()
    finally:
        staged.discard()
    return result


def _checked_run(known: Mapping[str, Any], names: Sequence[str], *, n: int, seed: Any,
                 params: Mapping[str, Mapping[str, Any]] | None, workers: int | None,
                 ray_address: str | None, chunk_size: int | None) -> tuple[Any, dict[str, tuple[Any, int | None]]]:
    """:func:`run_staged`'s arguments checked before anything is touched: the seed as deals
    are made from it, and each analysis asked for (once, in order) with its parameters and
    the chunk size asked for. A :class:`LabError` names the first that is wrong."""
    if isinstance(names, str):      # one analysis named alone (not read as its letters)
        names = [names] if names else []
    if not names:
        raise LabError("no analysis chosen: use " + ", ".join(known))
    try:    # (checked now: a seed no deal can be made from failed in the first chunk)
        seed = seed_value(seed)
    except DealError as exc:
        raise LabError(str(exc)) from None
    for name in names:
        if name not in known:
            hint = " (the double-dummy solver is not available)" if name == "dd" else ""
            raise LabError(f"unknown analysis {name!r}{hint}: use " + ", ".join(known))
    if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= MAX_DEALS:
        raise LabError(f"the number of deals must be between 1 and {MAX_DEALS:,}, not {n!r}")
    if chunk_size is not None and not _whole_in(chunk_size, 1, MAX_CHUNK_SIZE):
        raise LabError(f"chunk size must be from 1 to {MAX_CHUNK_SIZE:,}, not {_number(chunk_size)}")
    if workers is not None and not _whole_in(workers, 1, MAX_WORKERS):
        raise LabError(f"workers must be from 1 to {MAX_WORKERS}, not {_number(workers)}")
    if ray_address is not None and not ray_address.strip():
        raise LabError("--ray: give the cluster's address (HOST:PORT, ray://HOST:PORT, auto or local)")
    if workers is not None and ray_address:
        raise LabError("workers are local processes: with a Ray cluster the cluster's own workers "
                       "do the work, so give one or the other")
    params = params or {}
    return seed, {name: (known[name].params(params.get(name)), chunk_size) for name in dict.fromkeys(names)}


def _make_output_folder(out: Path) -> list[Path]:
    """Make the output folder ``out`` and the folders above it that are missing, the
    highest first; returns those this run made. One at a time, so that a folder another
    run makes meanwhile is never taken for this run's, nor removed with them."""
    # a file where the folder (or a folder above it) should be: said so, not "File exists"
    blocked = next((p for p in (out, *out.parents) if p.exists() and not p.is_dir()), None)
    if blocked is not None:
        where = "" if blocked == out else f"{out}: "
        raise LabError(f"{where}{blocked} exists and is not a folder: give another output folder")
    made_here: list[Path] = []
    try:
        for folder in reversed((out, *out.parents)):
            if not folder.exists():
                with contextlib.suppress(FileExistsError):
                    folder.mkdir()
                    made_here.append(folder)
    except OSError as exc:
        _remove_empty(made_here)
        raise LabError(f"{out}: cannot make the output folder ({exc.strerror or exc})") from None
    return made_here


def run_staged(out: str | os.PathLike, names: Sequence[str], *, n: int, seed: Any = 0,
               params: Mapping[str, Mapping[str, Any]] | None = None, workers: int | None = None,
               ray_address: str | None = None, chunk_size: int | None = None,
               progress: bool | str = False) -> tuple[LabResult, Staged]:
    """Compute (or resume) analyses ``names`` over deals ``0..n-1`` into ``out``.

    ``params`` maps an analysis name to its parameters; ``workers`` local
    processes (default: one a CPU; 1 runs in this process) or a Ray cluster
    at ``ray_address`` do the work; ``chunk_size`` overrides each analysis'
    own (an analysis the folder already holds keeps the size it was begun
    with); ``progress`` is a bar on standard error (``True``), plain lines
    for a log (``"lines"``) or nothing. A run whose rows would not fit in the
    memory available (:func:`memory_needed`) is refused before any work.
    Returns the merged tables, and their merged CSV files staged: the caller
    stages its other result files beside them (a summary, a report) and commits
    them all at once, so that a run stopped at any point leaves result files
    that agree with each other (the chunks computed are saved whatever happens).
    """
    if _importing_main():
        # A worker starting up, running a script without its ``__main__`` guard: it
        # ends now, quietly and before touching the folder; the driver says why.
        raise SystemExit(_IMPORTING_MAIN)
    known = analyses()
    seed, asked = _checked_run(known, names, n=n, seed=seed, params=params, workers=workers,
                               ray_address=ray_address, chunk_size=chunk_size)
    out = Path(out)
    if ray_address:
        _check_address(ray_address)  # before anything is written (reached once there is work)
    check_memory(memory_needed({name: p for name, (p, _) in asked.items()}, n),
                 f"{n:,} deals of {', '.join(asked)}")
    made_here = _make_output_folder(out)
    created = out in made_here
    try:
        lock = FolderLock.take(out)     # refused: nothing changed
    except BaseException:
        _remove_empty(made_here)        # (as a run that saved nothing leaves no folder it made)
        raise
    try:
        if not created and not (out / MANIFEST).exists():
            # a run killed as it wrote its first manifest left its temporary file: not another's
            for leftover in out.glob(f".{MANIFEST}.*.tmp"):
                with contextlib.suppress(OSError):
                    leftover.unlink()
            if any(p.name != LOCK for p in out.iterdir()):
                raise LabError(f"{out} holds files but no lab run (no {MANIFEST}): its files would "
                               "be overwritten; use another output folder")
        # what the folder's manifest said before: put back if this run saves nothing
        try:
            before = (out / MANIFEST).read_bytes() if (out / MANIFEST).exists() else None
        except OSError as exc:
            raise LabError(f"{out / MANIFEST}: cannot read the lab manifest ({exc.strerror or exc})") from None
        code = {name: _code(known[name], p) for name, (p, _) in asked.items()}
        made: list[Path] = []
        manifested = False      # (a manifest refused is left as it was)
        written = 0
        results: Results | None = None

        def undo() -> None:
            """A run that saved nothing changes nothing: no folder it made, no
            settings recorded to refuse the next run with."""
            if created:     # (this run holds it: nothing in it is another's)
                shutil.rmtree(out, ignore_errors=True)
                _remove_empty(made_here)
                return
            for folder in [*made, out / "chunks"]:  # made by this run, empty: nothing written
                with contextlib.suppress(OSError):
                    folder.rmdir()
            if before is None:
                (out / MANIFEST).unlink(missing_ok=True)
            else:
                write_atomic(out / MANIFEST, before)

        # From the manifest on, whatever stops the run (Ctrl-C included) before a chunk
        # is saved undoes what it did: a Ctrl-C as the progress bar started once left
        # the folder with its settings, though the run said nothing was saved.
        try:
            chosen = _manifest(out, seed, asked, {name: known[name].chunk_size for name in asked}, code)
            manifested = True
            Staged.remove_stale(out)
            chunks = {name: plan(name, n, size) for name, (_, size) in chosen.items()}
            missing = [c for cs in chunks.values() for c in cs if not c.path(out).exists()]
            for name in chosen:
                folder = out / "chunks" / name
                if not folder.exists():
                    folder.mkdir(parents=True, exist_ok=True)   # (another run may have just made it)
                    made.append(folder)
                _remove_unfinished_chunks(folder)
            jobs = [(c, (c.analysis, seed, c.start, c.stop, chosen[c.analysis][0])) for c in missing]
            to_do = set(missing)
            totals = {name: (sum(c.size for c in cs if c not in to_do), n) for name, cs in chunks.items()}
            workers = workers or usable_cpus()
            if ray_address and jobs:    # (a finished folder needs no cluster)
                results = _ray(jobs, ray_address, code)
            elif workers == 1 or len(jobs) <= 1:
                results = _serial(jobs)
            else:
                results = _processes(jobs, min(workers, len(jobs)))
            with _progress(progress, totals) as advance:
                for chunk, text in results:
                    write_atomic(chunk.path(out), text)
                    written += 1
                    advance(chunk.analysis, chunk.size)
        except BaseException as exc:
            if not written and (manifested or created):
                undo()
            if isinstance(exc, WorkerLost):     # said now that what was kept is known
                chunks_word = "chunk" if written == 1 else "chunks"
                kept = (f"{written} {chunks_word} finished by this run {'is' if written == 1 else 'are'} "
                        f"saved in {out}: run the same command to resume" if written
                        else "nothing was saved" if created
                        else f"this run saved nothing, and {out} is as it was")
                raise LabError(exc.explain(kept)) from None
            raise
        finally:
            if results is not None:
                results.close()

        staged = Staged(out, lock)
        if progress and n >= SUMMING_UP_SAID_FROM:     # (minutes where nothing else is said)
            print(f"lab: merging and summing up {count_text(n, 'deal')}", file=sys.stderr, flush=True)
        try:
            tables = _merge(out, chunks, known, {name: p for name, (p, _) in chosen.items()}, staged)
        except BaseException:
            staged.discard()
            raise
        return LabResult(out, n, seed, {k: v[0] for k, v in chosen.items()}, tables,
                         computed=len(missing),
                         reused=sum(len(cs) for cs in chunks.values()) - len(missing)), staged
    except BaseException:
        lock.release()     # (the lock goes with every way this run can fail)
        raise
