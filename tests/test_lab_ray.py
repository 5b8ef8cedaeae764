"""The lab on a Ray cluster gives the same results as local workers (issue #6, scale)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from flowerbridge.lab import run

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


@pytest.mark.parametrize("address", [":", "host:", ":6379", "host:port", "host:70000", "a b:1"])
def test_lab_malformed_ray_address_is_one_error_and_writes_nothing(tmp_path, address):
    from flowerbridge.lab import LabError
    with pytest.raises(LabError, match="expected HOST:PORT"):
        run(tmp_path / "lab", ["deals"], n=4, seed=1, ray_address=address)
    assert not (tmp_path / "lab").exists()


def test_lab_run_that_fails_before_any_chunk_leaves_no_folder_behind(tmp_path, monkeypatch):
    # e.g. an address that answers but is no Ray cluster: ray.init fails inside the run
    from flowerbridge.lab import LabError, runner

    def refused(jobs, address):
        raise LabError(f"cannot join the Ray cluster at {address}: not a Ray cluster")
        yield  # a generator, as the real one

    monkeypatch.setattr(runner, "_check_reachable", lambda address: None)
    monkeypatch.setattr(runner, "_ray", refused)
    with pytest.raises(LabError, match="cannot join"):
        run(tmp_path / "lab", ["deals"], n=4, seed=1, ray_address="127.0.0.1:9")
    assert not (tmp_path / "lab").exists()
    assert run(tmp_path / "lab", ["deals"], n=4, seed=2, workers=1).computed == 1
