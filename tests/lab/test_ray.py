"""The Ray executor against a one-CPU Ray head that the test starts (``ray start --head --block``) and stops
(tests/ray_cluster.py)."""

import time

import pytest

from posenc.errors import PosencError
from posenc.lab import run_sweep, summarize
from ray_cluster import free_port, ray_cluster

pytest.importorskip("ray")

#: one Ray cluster at a time on this machine: two starting at once share /tmp/ray and find each other's nodes
pytestmark = [pytest.mark.xdist_group("ray"), pytest.mark.ray]

TINY = {"task": "copy", "train_len": 3, "eval_lengths": [3, 6], "d_model": 16, "n_layers": 1, "n_heads": 2,
        "batch_size": 8, "eval_samples": 16, "steps": 3}


@pytest.fixture
def ray_head():
    with ray_cluster() as address:
        yield address


@pytest.mark.slow  # starts a Ray cluster (about 20 s with its teardown)
def test_ray_executor_runs_and_stores(ray_head, tmp_path):
    store = tmp_path / "runs.sqlite"
    spec = {"base": TINY, "grid": {"encoding": ["nope", "learned"]}}
    results = run_sweep(spec, store, executor="ray", address=ray_head, progress=False)
    assert [r.status for r in results] == ["done", "done"], [r.error for r in results]
    summary = summarize(store, spec)
    assert summary["missing"] == 0
    assert summary["series"]["copy"]["learned"]["6"]["cannot_run"] == 1
    again = run_sweep(spec, store, executor="ray", address=ray_head, progress=False)
    assert all(r.skipped for r in again)  # nothing pending: Ray is not even contacted


def test_unreachable_ray_address_fails_fast(tmp_path):
    port = free_port()  # nothing listens here
    started = time.perf_counter()
    with pytest.raises(PosencError, match="cannot reach a Ray head"):
        run_sweep({"base": TINY, "grid": {"encoding": ["nope"]}}, tmp_path / "s.sqlite", executor="ray",
                  address=f"127.0.0.1:{port}", progress=False)
    assert time.perf_counter() - started < 30
    with pytest.raises(PosencError, match="HOST:PORT"):
        run_sweep({"base": TINY, "grid": {"encoding": ["nope"]}}, tmp_path / "s.sqlite", executor="ray",
                  address="not-an-address", progress=False)


@pytest.mark.slow  # starts a Ray cluster (about 20 s with its teardown)
def test_a_run_that_fails_on_a_ray_worker_is_stored_with_its_error(ray_head, tmp_path):
    # float16 cannot train on the CPU: with device auto the driver leaves the precision to the worker (it may have a
    # GPU; with device cpu the driver refuses at once), this machine's worker's run fails, and the sweep records the
    # failure with its message instead of stopping
    from posenc.lab import KIND
    from posenc.store import ResultStore

    store = tmp_path / "runs.sqlite"
    results = run_sweep({"base": TINY, "grid": {"encoding": ["nope"]}}, store, executor="ray", address=ray_head,
                        progress=False, device="auto", dtype="float16")
    assert [r.status for r in results] == ["error"]
    assert "dtype 'float16' cannot train on the CPU" in results[0].error
    assert [(r.status, r.error) for r in ResultStore(store).runs(KIND)] == [("error", results[0].error)]
