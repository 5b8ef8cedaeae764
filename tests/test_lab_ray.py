"""The lab on a Ray cluster gives the same results as local workers (issue #6, scale)."""

from __future__ import annotations

import contextlib
import os
import re
import subprocess
import sys

import pytest

from flowerbridge.lab import run
from lab_support import stopped_by

ray = pytest.importorskip("ray")


@pytest.fixture(scope="module")
def ray_address():
    """A local Ray instance started by this test, and its address: a new one
    ("local") even where a Ray cluster already runs on this machine, which
    ray.init() would join instead (and refuse num_cpus for)."""
    ray.init(address="local", num_cpus=2, include_dashboard=False, logging_level="ERROR",
             log_to_driver=False)
    try:
        yield ray.get_runtime_context().gcs_address
    finally:
        ray.shutdown()


def test_lab_on_ray_matches_local_workers(ray_address, tmp_path):
    out = tmp_path / "ray"
    command = [sys.executable, "-m", "flowerbridge.cli", "lab", "deals", "play", "variants",
               "--n", "40", "--seed", "11", "--bots", "random", "--chunk-size", "10",
               "--ray", ray_address, "--out", str(out), "--quiet"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "12 chunks computed" in done.stdout
    local = run(tmp_path / "local", ["deals", "play", "variants"], n=40, seed=11,
                params={"play": {"bots": "random"}, "variants": {"bots": "random"}},
                chunk_size=10, workers=1)
    for name in ("deals", "play", "variants"):
        assert (out / f"{name}.csv").read_bytes() == (local.out / f"{name}.csv").read_bytes()


def test_lab_ray_address_that_does_not_answer_is_one_error_at_once(tmp_path):
    # (Ray alone would keep retrying for minutes, printing warnings of its own)
    import socket
    from flowerbridge.lab import LabError
    with socket.socket() as probe:      # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(LabError, match=f"cannot reach the Ray cluster at 127.0.0.1:{port}"):
        run(tmp_path / "lab", ["deals"], n=4, seed=1, ray_address=f"127.0.0.1:{port}")
    assert not (tmp_path / "lab").exists()  # nothing written: the next run may use other settings


@pytest.mark.parametrize("address", [":", "host:", ":6379", "host:port", "host:70000", "a b:1",
                                     "host:" + "9" * 5000, "host:000006379"])    # (int() refused the first)
def test_lab_malformed_ray_address_is_one_error_and_writes_nothing(tmp_path, address):
    from flowerbridge.lab import LabError
    with pytest.raises(LabError, match="expected HOST:PORT"):
        run(tmp_path / "lab", ["deals"], n=4, seed=1, ray_address=address)
    assert not (tmp_path / "lab").exists()


def _refused(jobs, address, code):
    """The Ray backend, failing as ray.init does for a cluster that refuses this driver."""
    from flowerbridge.lab import LabError
    raise LabError(f"cannot join the Ray cluster at {address}: not a Ray cluster")
    yield  # a generator, as the real one


def test_lab_run_that_fails_before_any_chunk_leaves_no_folder_behind(tmp_path, monkeypatch):
    # e.g. an address that answers but is no Ray cluster: ray.init fails inside the run
    from flowerbridge.lab import LabError, runner
    monkeypatch.setattr(runner, "_check_reachable", lambda address: None)
    monkeypatch.setattr(runner, "_ray", _refused)
    with pytest.raises(LabError, match="cannot join"):
        run(tmp_path / "lab", ["deals"], n=4, seed=1, ray_address="127.0.0.1:9")
    assert not (tmp_path / "lab").exists()
    assert run(tmp_path / "lab", ["deals"], n=4, seed=2, workers=1).computed == 1


BOTS = '''
import os


class FirstLegal:
    def act(self, observation):
        return observation.legal[0]


class Crash:
    def act(self, observation):
        os._exit(1)     # the worker process dies, every time Ray retries it


class Slow:
    """Says it has begun (a file beside its module), then takes its time over each card."""
    def act(self, observation):
        import time
        open(os.path.join(os.path.dirname(__file__), "begun"), "w").close()
        time.sleep(0.5)
        return observation.legal[0]
'''


def _lab_on_ray(ray_address, tmp_path, bots, *more):
    (tmp_path / "mods").mkdir(exist_ok=True)
    (tmp_path / "mods" / "labbots.py").write_text(BOTS)
    command = [sys.executable, "-m", "flowerbridge.cli", "lab", "play", "--n", "8", "--seed", "2",
               "--bots", bots, "--ray", ray_address, "--out", str(tmp_path / "out"), "--quiet", *more]
    env = {**os.environ, "PYTHONPATH": str(tmp_path / "mods")}
    return subprocess.run(command, capture_output=True, text=True, timeout=240, env=env)


def test_lab_on_ray_finds_a_bot_module_on_pythonpath_as_local_workers_do(ray_address, tmp_path):
    # docs/bots.md: a bot module on PYTHONPATH; the cluster's workers are given it too
    done = _lab_on_ray(ray_address, tmp_path, "labbots:FirstLegal")
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "out" / "play.csv").exists()


def test_lab_on_ray_a_worker_that_keeps_dying_is_one_error_line_to_resume(ray_address, tmp_path):
    # (Ray's WorkerCrashedError escaped as a traceback; local workers say the same in one line)
    done = _lab_on_ray(ray_address, tmp_path, "labbots:Crash")
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    [line] = [line for line in done.stderr.splitlines() if line.startswith("error:")]
    # what was kept said as a local worker's loss says it (it said "run the same command to
    # resume" where nothing was saved and the folder was gone)
    assert "the Ray cluster lost its work" in line and line.endswith("; nothing was saved"), line
    assert re.search(r"^error: play, deals \d+-\d+: the Ray cluster lost its work \(WorkerCrashedError", line), line
    assert not (tmp_path / "out").exists()


def test_lab_ray_address_where_something_else_answers_is_one_error_at_once(tmp_path):
    # an open port that is no Ray cluster (here an HTTP server): Ray alone retried for minutes
    import http.server
    import threading

    from flowerbridge.lab import LabError
    server = http.server.HTTPServer(("127.0.0.1", 0), http.server.BaseHTTPRequestHandler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        address = f"127.0.0.1:{server.server_address[1]}"
        with pytest.raises(LabError, match=f"^cannot join the Ray cluster at {address}: what answers "
                                           "there is no Ray cluster"):
            run(tmp_path / "lab", ["deals"], n=4, seed=1, ray_address=address)
    finally:
        server.shutdown()
        server.server_close()
    assert not (tmp_path / "lab").exists()


def test_lab_ray_clusters_own_port_given_as_a_ray_client_address_is_one_error_at_once(ray_address, tmp_path):
    # docs/lab.md: HOST:6379 on a node, ray://HOST:10001 from elsewhere. The cluster's own port
    # given as ray://: Ray's client timed out after 30 s, with a warning, blaming token authentication
    import time

    from flowerbridge.lab import LabError
    began = time.monotonic()
    with pytest.raises(LabError) as refused:
        run(tmp_path / "lab", ["deals"], n=4, seed=1, ray_address=f"ray://{ray_address}")
    host = ray_address.rpartition(":")[0]
    assert str(refused.value) == (
        f"cannot join the Ray cluster at ray://{ray_address}: that port is the cluster's own (`ray start "
        f"--port`), not its Ray Client server's: on a node of the cluster give it as {ray_address}; from "
        f"elsewhere, the Ray Client port (ray://{host}:10001 unless set otherwise)")
    assert time.monotonic() - began < 15 and not (tmp_path / "lab").exists()


@contextlib.contextmanager
def _grpc_server(serves: str | None, *, token: bool = False):
    """A gRPC server on a port of this machine (yielded) that serves the method ``serves``
    alone (or none); with ``token``, behind a token, as a Ray cluster with token
    authentication does: "unauthenticated" to a caller without it, and "unimplemented"
    for a method it lacks."""
    import grpc
    from concurrent import futures

    def unauthenticated(request, context):
        context.abort(grpc.StatusCode.UNAUTHENTICATED, "InvalidAuthToken: no token")

    class Serving(grpc.GenericRpcHandler):
        def service(self, details):
            if details.method != serves:
                return None     # (grpc answers "unimplemented")
            return grpc.unary_unary_rpc_method_handler(unauthenticated if token else lambda request, context: b"")

    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2), handlers=[Serving()])
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    try:
        yield port
    finally:
        server.stop(None)


def _refused_by_a_grpc_server(tmp_path, serves: str | None, scheme: str, *, token: bool = False):
    """A lab run given, as its Ray address (after ``scheme``), a :func:`_grpc_server`:
    its port, and the refusal's ExceptionInfo."""
    from flowerbridge.lab import LabError

    with _grpc_server(serves, token=token) as port, pytest.raises(LabError) as refused:
        run(tmp_path / "lab", ["deals"], n=4, seed=1, ray_address=f"{scheme}127.0.0.1:{port}")
    return port, refused


@pytest.mark.parametrize("mode", [None, "token"])
def test_lab_ray_clusters_own_port_behind_a_token_given_as_ray_client_address_names_the_port(
        tmp_path, monkeypatch, mode):
    # a cluster with token authentication (Ray 2.60's, once ~/.ray/auth_token exists) answered
    # the port check "unauthenticated", which escaped as an exception of the lab's own
    if mode:
        monkeypatch.setenv("RAY_AUTH_MODE", mode)
    else:
        monkeypatch.delenv("RAY_AUTH_MODE", raising=False)
    port, refused = _refused_by_a_grpc_server(tmp_path, _SERVED[""], "ray://", token=True)
    assert str(refused.value).startswith(f"cannot join the Ray cluster at ray://127.0.0.1:{port}: that port is "
                                         "the cluster's own (`ray start --port`), not its Ray Client server's")


def test_lab_ray_client_port_given_as_the_clusters_address_is_one_error_at_once(tmp_path):
    # A Ray Client server's port given as HOST:PORT: Ray logged a line a second for 20 s
    # ("Failed to get cluster ID from GCS server: ... Method not found!"). Here a gRPC server
    # that serves the Ray Client's method alone, as that port does
    port, refused = _refused_by_a_grpc_server(tmp_path, "/ray.rpc.RayletDriver/ClusterInfo", "")
    assert str(refused.value) == (f"cannot join the Ray cluster at 127.0.0.1:{port}: that port is a Ray "
                                  f"Client server's, not the cluster's own: give it as ray://127.0.0.1:{port}")
    assert not (tmp_path / "lab").exists()


# the method each of Ray's two ports serves, by the address's scheme
_SERVED = {"": "/ray.rpc.NodeInfoGcsService/GetClusterId", "ray://": "/ray.rpc.RayletDriver/ClusterInfo"}


@pytest.mark.parametrize("scheme", ["", "ray://"])
def test_lab_ray_cluster_that_asks_for_a_token_is_one_error_at_once_naming_it(tmp_path, monkeypatch, scheme):
    # without RAY_AUTH_MODE=token, Ray took 20 to 30 seconds, a line a second ("InvalidAuthToken"),
    # or over ray:// a warning and a timeout that named no token
    monkeypatch.delenv("RAY_AUTH_MODE", raising=False)
    port, refused = _refused_by_a_grpc_server(tmp_path, _SERVED[scheme], scheme, token=True)
    assert str(refused.value) == (
        f"cannot join the Ray cluster at {scheme}127.0.0.1:{port}: it asks for a token (token authentication): "
        "set RAY_AUTH_MODE=token here, with the cluster's token in RAY_AUTH_TOKEN or in ~/.ray/auth_token "
        "(copied from its head node)")
    assert not (tmp_path / "lab").exists()


@pytest.mark.parametrize("scheme", ["", "ray://"])
def test_lab_ray_cluster_that_asks_for_a_token_is_left_to_ray_where_token_mode_is_set(monkeypatch, scheme):
    # the check sends no token: with RAY_AUTH_MODE=token, joining is Ray's
    from flowerbridge.lab import LabError, runner
    with _grpc_server(_SERVED[scheme], token=True) as port:
        address = f"{scheme}127.0.0.1:{port}"
        monkeypatch.delenv("RAY_AUTH_MODE", raising=False)
        with pytest.raises(LabError, match="asks for a token"):
            runner._check_reachable(address)
        monkeypatch.setenv("RAY_AUTH_MODE", "token")
        assert runner._check_reachable(address) is None


@pytest.mark.parametrize("scheme", ["", "ray://"])
def test_lab_ray_port_that_is_neither_of_the_two_is_one_error_at_once(tmp_path, scheme):
    # a node's raylet or object-manager port: gRPC that serves neither method. Ray took 20 to
    # 30 seconds, printing its own lines, and its error came with hints of other failures
    port, refused = _refused_by_a_grpc_server(tmp_path, None, scheme)
    assert str(refused.value).startswith(f"cannot join the Ray cluster at {scheme}127.0.0.1:{port}: that port "
                                         "answers gRPC, but neither as the cluster's own port")
    assert not (tmp_path / "lab").exists()


def test_lab_ray_auto_checks_the_address_ray_address_names(tmp_path, monkeypatch):
    import socket

    from flowerbridge.lab import LabError
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    monkeypatch.setenv("RAY_ADDRESS", f"127.0.0.1:{port}")
    with pytest.raises(LabError, match=f"cannot reach the Ray cluster at 127.0.0.1:{port}"):
        run(tmp_path / "lab", ["deals"], n=4, seed=1, ray_address="auto")


def test_lab_ray_auto_with_no_cluster_on_this_machine_says_how_to_name_one(tmp_path, monkeypatch):
    # Ray's words sent the user to an `--address` flag the lab does not have. They are
    # what ray.init(address="auto") raises where no Ray runs on the machine; a Ray runs
    # here while this module's tests do (the fixture's, which "auto" finds by its process),
    # so the call is made to raise them.
    from flowerbridge.lab import LabError

    def no_cluster(*args, **kwargs):
        raise ConnectionError("Could not find any running Ray instance. Please specify the one to connect "
                              "to by setting `--address` flag or `RAY_ADDRESS` environment variable.")

    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    monkeypatch.setattr(ray, "is_initialized", lambda: False)    # (this process joined the fixture's)
    monkeypatch.setattr(ray, "init", no_cluster)
    with pytest.raises(LabError) as refused:
        run(tmp_path / "lab", ["deals"], n=4, seed=1, ray_address="auto")
    assert str(refused.value) == ("cannot join the Ray cluster at auto: no Ray cluster runs on this machine: "
                                  "start one (ray start --head), or give its address, --ray HOST:PORT or "
                                  "RAY_ADDRESS")
    assert not (tmp_path / "lab").exists()


@pytest.mark.parametrize("address", ["", " "])
def test_lab_an_empty_ray_address_is_refused_not_taken_as_local(tmp_path, address):
    from flowerbridge.lab import LabError
    with pytest.raises(LabError, match="--ray: give the cluster's address"):
        run(tmp_path / "lab", ["deals"], n=4, seed=1, ray_address=address, workers=2)
    assert not (tmp_path / "lab").exists()


def _closed_port() -> int:
    import socket
    with socket.socket() as probe:      # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_lab_a_finished_folder_needs_no_cluster_to_merge_again(tmp_path):
    # every chunk is there: nothing for Ray to do, so the cluster is not joined
    first = run(tmp_path / "lab", ["deals"], n=40, seed=1, chunk_size=10, workers=1)
    again = run(tmp_path / "lab", ["deals"], n=40, seed=1, ray_address=f"127.0.0.1:{_closed_port()}")
    assert (again.computed, again.reused) == (0, 4)
    assert (again.out / "deals.csv").read_bytes() == (first.out / "deals.csv").read_bytes()


def test_lab_a_ray_run_that_fails_leaves_an_earlier_folder_as_it_was(tmp_path, monkeypatch):
    # its settings and no empty chunk folder of the analysis it could not run
    # (ray.init failing inside the run, as for a cluster that refuses this driver)
    from flowerbridge.lab import LabError, runner
    run(tmp_path / "lab", ["deals"], n=40, seed=1, chunk_size=10, workers=1)
    manifest = (tmp_path / "lab" / "lab.json").read_bytes()
    monkeypatch.setattr(runner, "_ray", _refused)
    with pytest.raises(LabError, match="cannot join the Ray cluster"):
        run(tmp_path / "lab", ["deals", "play"], n=40, seed=1, ray_address="127.0.0.1:9")
    assert (tmp_path / "lab" / "lab.json").read_bytes() == manifest
    assert sorted(p.name for p in (tmp_path / "lab" / "chunks").iterdir()) == ["deals"]


def test_lab_on_ray_sigterm_is_a_stop_that_saves_as_with_local_workers(ray_address, tmp_path):
    # ray.init put in Ray's own SIGTERM handler: status 15 and its crash banner, where
    # local workers say what was saved, with status 143
    import signal
    import time
    out = tmp_path / "out"
    command = [sys.executable, "-m", "flowerbridge.cli", "lab", "play", "--n", "2000", "--seed", "3",
               "--bots", "basic", "--chunk-size", "5", "--ray", ray_address, "--out", str(out), "--quiet"]
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while not list(out.glob("chunks/play/*.csv")):     # a chunk saved: the run is under way
        assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
        time.sleep(0.1)
    err = stopped_by(proc, signal.SIGTERM)
    assert proc.returncode == 143, err
    # (Ray's core may log a line of its own as the driver goes: "Failed to push error to driver")
    assert err.splitlines()[-1].startswith("terminated: ") and "run the same command to resume" in err
    assert "SIGTERM" not in err, err


# (on the driver's PYTHONPATH alone: the run then waits as it puts its results together)
SLOW_MERGE = '''
import os
import time

if os.environ.get("FB_TEST_MERGING"):
    import flowerbridge.lab.runner as runner

    merge = runner._merge

    def slow(*args, **kwargs):
        open(os.environ["FB_TEST_MERGING"], "w").close()
        time.sleep(120)
        return merge(*args, **kwargs)

    runner._merge = slow
'''


def test_lab_on_ray_sigterm_once_every_chunk_is_done_is_still_a_stop_that_saves(ray_address, tmp_path):
    # ray.shutdown() set SIGTERM back to the system's default (signal.getsignal still
    # named the lab's handler): a stop while the results were put together killed the
    # run at once, silent, its folder left with its lock and staged files
    import signal
    import time
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "sitecustomize.py").write_text(SLOW_MERGE)
    out = tmp_path / "out"
    command = [sys.executable, "-m", "flowerbridge.cli", "lab", "deals", "--n", "20", "--seed", "3",
               "--ray", ray_address, "--out", str(out), "--quiet"]
    env = {**os.environ, "PYTHONPATH": str(tmp_path / "site"), "FB_TEST_MERGING": str(tmp_path / "merging")}
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    deadline = time.monotonic() + 120
    while not (tmp_path / "merging").exists():     # every chunk done, Ray shut down
        assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
        time.sleep(0.1)
    err = stopped_by(proc, signal.SIGTERM)
    assert proc.returncode == 143, err
    assert err.splitlines()[-1] == (f"terminated: finished work is saved in {out}; "
                                    "run the same command to resume"), err
    assert sorted(p.name for p in out.iterdir() if p.name.startswith(".")) == []     # no lock, nothing staged


def test_lab_on_ray_refuses_a_cluster_whose_flowerbridge_differs_from_this_machines(ray_address, tmp_path,
                                                                                     monkeypatch):
    # The workers compute with the flowerbridge of their node: one with another options.py
    # scored other figures under this machine's fingerprint in lab.json, and a later run
    # resumed them. Here this machine's fingerprint is made to differ from the workers'.
    from flowerbridge.lab import LabError, runner
    real = runner._code

    def other(analysis, params):
        return {**real(analysis, params), "flowerbridge/options.py": "0" * 16}

    monkeypatch.setattr(runner, "_code", other)
    with pytest.raises(LabError, match=r"deals 0-9: the Ray cluster's flowerbridge differs from this "
                                       r"machine's \(flowerbridge/options\.py\), and would give other results: "
                                       r"install the same flowerbridge on every node of the cluster \(on a "
                                       r"cluster of this machine alone: its flowerbridge changed since the run "
                                       r"began\)$"):
        run(tmp_path / "lab", ["deals"], n=10, seed=1, chunk_size=10, ray_address=ray_address)
    assert not (tmp_path / "lab").exists()     # nothing saved, nothing left
    monkeypatch.setattr(runner, "_code", real)
    assert run(tmp_path / "lab", ["deals"], n=10, seed=1, chunk_size=10, ray_address=ray_address).computed == 1


BLOCK_FLOWERBRIDGE = '''
import os
import sys


class _Absent:
    """flowerbridge is not installed here (a cluster node without it); the driver has it."""
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] == "flowerbridge" and not os.environ.get("LAB_DRIVER"):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)


sys.meta_path.insert(0, _Absent())
'''


BLOCK_LABBOTS = BLOCK_FLOWERBRIDGE.replace('"flowerbridge"', '"labbots"')


def _refused_by_the_nodes(ray_address, tmp_path, sitecustomize, *lab):
    """Run ``flowerbridge lab *lab`` on the cluster with ``labbots`` beside it and a
    ``sitecustomize`` that changes what the cluster's workers alone find (the driver runs
    with LAB_DRIVER set): the one error line of a run that must fail, having saved nothing."""
    (tmp_path / "mods").mkdir()
    (tmp_path / "mods" / "labbots.py").write_text(BOTS)
    (tmp_path / "mods" / "sitecustomize.py").write_text(sitecustomize)
    command = [sys.executable, "-m", "flowerbridge.cli", "lab", *lab, "--seed", "2", "--ray", ray_address,
               "--out", str(tmp_path / "out"), "--quiet"]
    env = {**os.environ, "PYTHONPATH": str(tmp_path / "mods"), "LAB_DRIVER": "1"}
    done = subprocess.run(command, capture_output=True, text=True, timeout=240, env=env)
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert not (tmp_path / "out").exists()
    [line] = [line for line in done.stderr.splitlines() if line.startswith("error:")]
    return line


def test_lab_on_ray_a_bot_module_the_nodes_lack_is_named_as_missing(ray_address, tmp_path):
    # the fingerprint check took a bot module absent on the nodes ("unknown") for another
    # flowerbridge, and said to reinstall it; the bot's loading names what is missing
    line = _refused_by_the_nodes(ray_address, tmp_path, BLOCK_LABBOTS,
                                 "play", "--n", "4", "--bots", "labbots:FirstLegal")
    assert line.startswith("error: play, deals 0-3: ") and "No module named 'labbots'" in line, line
    assert "flowerbridge differs" not in line, line


def test_lab_on_ray_a_bot_module_other_than_this_machines_is_refused(ray_address, tmp_path):
    # the nodes find another file under the bot module's name (here through a sitecustomize that
    # puts a folder of their own first on their path): their rows would be another bot's
    (tmp_path / "nodes").mkdir()
    (tmp_path / "nodes" / "labbots.py").write_text(BOTS + "\n# the nodes' own version\n")
    nodes_first = f"import os, sys\nif not os.environ.get('LAB_DRIVER'):\n    sys.path.insert(0, {str(tmp_path / 'nodes')!r})\n"
    line = _refused_by_the_nodes(ray_address, tmp_path, nodes_first, "play", "--n", "4", "--bots", "labbots:FirstLegal")
    assert line == ("error: play, deals 0-3: the Ray cluster's bot code differs from this machine's (module "
                    "labbots), and would give other results: put the same module on every node of the cluster")


def test_lab_on_ray_workers_without_flowerbridge_are_one_line_saying_to_install_it(ray_address, tmp_path):
    # Ray's words were one line of 1,100 characters: the workers' whole sys.path and a
    # traceback, never that the cluster needs flowerbridge installed
    line = _refused_by_the_nodes(ray_address, tmp_path, BLOCK_FLOWERBRIDGE, "deals", "--n", "8")
    assert line.startswith("error: the Ray cluster's workers cannot run the lab (") and len(line) < 400, line
    assert line.endswith("install this flowerbridge, the same version, on every node of the cluster"), line


@pytest.mark.parametrize("address", ["10.0.0.5:6379", "ray://10.0.0.5:10001", "auto"])
def test_lab_ray_cluster_port_that_does_not_take_this_driver_names_the_client_address(tmp_path, monkeypatch,
                                                                                      address):
    # HOST:6379 joins through a Ray of this machine's, as one of the cluster's nodes does: from a
    # laptop it fails ("Failed to connect to Ray cluster"), where ray://HOST:10001 would work
    from flowerbridge.lab import LabError, runner

    def refuse(**kwargs):
        raise ConnectionError(f"Failed to connect to Ray cluster at {address}.\nNo node info found")

    monkeypatch.setattr(runner, "_check_reachable", lambda address: None)
    monkeypatch.setattr(ray, "is_initialized", lambda: False)
    monkeypatch.setattr(ray, "init", refuse)
    monkeypatch.setenv("RAY_AUTH_MODE", "token")
    monkeypatch.setenv("RAY_ADDRESS", "10.0.0.5:6379")   # what auto stands for (it said "at auto")
    with pytest.raises(LabError) as refused:
        run(tmp_path / "lab", ["deals"], n=4, seed=1, ray_address=address)
    named = "10.0.0.5:6379" if address == "auto" else address
    said = f"cannot join the Ray cluster at {named}: Failed to connect to Ray cluster at {address}."
    if address.startswith("ray://"):
        assert str(refused.value) == said
    else:
        assert str(refused.value) == (f"{said}; from a machine outside the cluster, give its Ray Client "
                                      "address: ray://10.0.0.5:10001 unless set otherwise")
    assert not (tmp_path / "lab").exists()


@pytest.mark.parametrize("address", ["10.0.0.5:6379", "ray://10.0.0.5:10001"])
def test_lab_ray_cluster_of_another_ray_version_names_both_versions(tmp_path, monkeypatch, address):
    # Ray's first line alone was said ("Version mismatch: The cluster was started with:"),
    # no version, and then the hints of other failures (token authentication, Ray Client)
    from flowerbridge.lab import LabError, runner

    def refuse(**kwargs):
        raise RuntimeError("Version mismatch: The cluster was started with:\n    Ray: 2.60.0\n"
                           "    Python: 3.11.7\nThis process on node 10.0.0.9 was started with:\n"
                           "    Ray: 2.59.0\n    Python: 3.11.7\n")

    monkeypatch.setattr(runner, "_check_reachable", lambda address: None)
    monkeypatch.setattr(ray, "is_initialized", lambda: False)
    monkeypatch.setattr(ray, "init", refuse)
    monkeypatch.delenv("RAY_AUTH_MODE", raising=False)
    with pytest.raises(LabError) as refused:
        run(tmp_path / "lab", ["deals"], n=4, seed=1, ray_address=address)
    assert str(refused.value) == (f"cannot join the Ray cluster at {address}: the cluster runs Ray 2.60.0 on "
                                  "Python 3.11.7, this machine Ray 2.59.0 on Python 3.11.7: the same versions "
                                  "are needed on both")


def test_lab_on_ray_a_client_connection_lost_is_one_error_line_to_resume(ray_address, tmp_path, monkeypatch):
    # A ray:// run whose cluster goes away: Ray Client raises ConnectionError("Client is shutting
    # down."), which reached the user as that alone, with no word of what was kept
    from flowerbridge.lab import LabError

    real_wait, waits = ray.wait, []

    def gone(*args, **kwargs):
        waits.append(1)
        if len(waits) > 1:      # the first chunk comes back; then the cluster is gone
            raise ConnectionError("Client is shutting down.")
        return real_wait(*args, **kwargs)

    monkeypatch.setattr(ray, "wait", gone)
    with pytest.raises(LabError) as lost:
        run(tmp_path / "lab", ["deals"], n=20, seed=1, chunk_size=10, ray_address=ray_address)
    assert str(lost.value) == (f"the connection to the Ray cluster at {ray_address} was lost (Client is "
                               f"shutting down); 1 chunk finished by this run is saved in {tmp_path / 'lab'}: "
                               "run the same command to resume")
    waits.clear()
    monkeypatch.setattr(ray, "wait", lambda *a, **k: (_ for _ in ()).throw(ConnectionError("Client is shutting down.")))
    with pytest.raises(LabError) as lost:
        run(tmp_path / "new", ["deals"], n=10, seed=1, chunk_size=10, ray_address=ray_address)
    assert str(lost.value).endswith("was lost (Client is shutting down); nothing was saved")


@pytest.mark.parametrize("given", ["address", "auto"])
def test_lab_on_ray_a_cluster_with_no_cpus_says_the_run_waits_for_nodes(ray_address, tmp_path, monkeypatch,
                                                                        capsys, given):
    # a head started with --num-cpus 0 (worker nodes yet to join): the run waited, saying nothing;
    # auto is named by the address RAY_ADDRESS gives it (it said "at auto")
    monkeypatch.setattr(ray, "cluster_resources", lambda: {"memory": 1e9})
    monkeypatch.setenv("RAY_ADDRESS", ray_address)
    address = ray_address if given == "address" else "auto"
    assert run(tmp_path / "lab", ["deals"], n=10, seed=1, chunk_size=10, ray_address=address).computed == 1
    assert capsys.readouterr().err == (f"note: the Ray cluster at {ray_address} has no CPUs yet: the run "
                                       "waits for nodes to join (Ctrl-C stops it)\n")


def test_lab_on_ray_sigterm_while_the_run_waits_on_the_cluster_is_still_terminated(ray_address, tmp_path):
    # SIGTERM that came while the driver waited in Ray's core (one long chunk) reached the
    # lab as Ray's own KeyboardInterrupt: "interrupted", status 130, not "terminated", 143
    import signal
    import time
    (tmp_path / "mods").mkdir()
    (tmp_path / "mods" / "labbots.py").write_text(BOTS)
    command = [sys.executable, "-m", "flowerbridge.cli", "lab", "play", "--n", "8", "--seed", "2",
               "--bots", "labbots:Slow", "--chunk-size", "8", "--ray", ray_address,
               "--out", str(tmp_path / "out"), "--quiet"]
    env = {**os.environ, "PYTHONPATH": str(tmp_path / "mods")}
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    deadline = time.monotonic() + 120
    while not (tmp_path / "mods" / "begun").exists():   # the chunk is under way on the cluster
        assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
        time.sleep(0.1)
    err = stopped_by(proc, signal.SIGTERM)
    assert proc.returncode == 143, err
    assert err.splitlines()[-1] == "terminated before any chunk was finished: nothing was saved", err


@pytest.mark.parametrize(("address", "ray_address", "named"), [
    ("http://10.0.0.5:6379", None, "--ray 'http://10.0.0.5:6379'"),
    ("auto", "bogus", "RAY_ADDRESS 'bogus' (which --ray auto stands for)")])
def test_lab_ray_address_is_named_as_it_was_given(tmp_path, monkeypatch, address, ray_address, named):
    # http://HOST:6379 was looked up as a host "//10.0.0.5" ("Name or service not known"), and a
    # bad RAY_ADDRESS behind --ray auto was called "--ray 'bogus'"
    from flowerbridge.lab import LabError
    if ray_address is None:
        monkeypatch.delenv("RAY_ADDRESS", raising=False)
    else:
        monkeypatch.setenv("RAY_ADDRESS", ray_address)
    with pytest.raises(LabError) as refused:
        run(tmp_path / "lab", ["deals"], n=4, seed=1, ray_address=address)
    assert str(refused.value) == f"{named}: expected HOST:PORT (or ray://HOST:PORT, auto, local)"
    assert not (tmp_path / "lab").exists()
