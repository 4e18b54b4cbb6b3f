"""Sweeps: grid expansion, skipping finished runs, surviving SIGKILL, concurrent writers, bad stores via the CLI."""

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time

import pytest

from posenc.cli import main
from posenc.errors import PosencError
from posenc.lab import KIND, Sweep, get_preset, run_sweep, summarize
from posenc.store import ResultStore

TINY = {"task": "copy", "train_len": 3, "eval_lengths": [3, 6], "d_model": 16, "n_layers": 1, "n_heads": 2,
        "batch_size": 8, "eval_samples": 16, "steps": 4}
CLI = [sys.executable, "-c", "import sys; from posenc.cli import main; sys.exit(main())"]


def _grid_file(tmp_path, name, encodings, steps, seeds=(0,)):
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps({"base": {**TINY, "steps": steps}, "grid": {"encoding": list(encodings)},
                                "seeds": list(seeds)}))
    return path


def _done(store_path):
    if not store_path.exists():
        return {}
    con = sqlite3.connect(store_path, timeout=30)
    try:
        rows = con.execute("SELECT config_hash, seed, created_at FROM runs WHERE status='done'").fetchall()
    except sqlite3.OperationalError:  # the store is being created
        return {}
    finally:
        con.close()  # a connection left open here would lose its locks when another opener closes the file
    return {(h, s): t for h, s, t in rows}


def test_grid_expansion_product_variants_and_seeds():
    sweep = Sweep("s", base=TINY, grid={"task": ["copy", "reverse"],
                                         "variant": [{"encoding": "nope"},
                                                     {"encoding": "learned",
                                                      "encoding_options": {"combine": "concat", "dim": 8}}]},
                  seeds=[0, 1, 2])
    runs = sweep.runs()
    assert len(runs) == 2 * 2 * 3
    assert {(c.task, c.label, s) for c, s in runs} == {
        (t, label, s) for t in ("copy", "reverse") for label in ("nope", "learned-concat") for s in (0, 1, 2)}


def test_presets_expand():
    quick = get_preset("quick")
    labels = {c.label for c, _ in quick.runs()}
    import posenc

    constant = {"integer", "normalized"}  # NoPE when added in a pre-norm model: they run concatenated
    concat = {f"{name}-concat" for name in ("sinusoidal", "learned", *constant)}
    assert set(posenc.available()) - constant | concat == labels
    assert {c.task for c, _ in quick.runs()} == {"copy", "reverse"} and quick.seeds == [0]
    alibi = get_preset("alibi-table").runs()
    assert len(alibi) == 18 and {c.eval_lengths[-1] // c.train_len for c, _ in alibi} == {8}
    nope = get_preset("nope-tasks").runs()
    assert {c.train_len for c, _ in nope} == {20} and min(max(c.eval_lengths) for c, _ in nope) >= 40


def test_sweep_skips_finished_runs(tmp_path):
    store = tmp_path / "runs.sqlite"
    spec = {"base": TINY, "grid": {"encoding": ["nope", "alibi"]}, "seeds": [0, 1]}
    first = run_sweep(spec, store, progress=False)
    assert len(first) == 4 and not any(r.skipped for r in first) and all(r.status == "done" for r in first)
    before = _done(store)
    second = run_sweep(spec, store, progress=False)
    assert all(r.skipped for r in second)
    assert _done(store) == before  # nothing rewritten
    assert [r.metrics for r in second] == [r.metrics for r in first]
    bigger = run_sweep({**spec, "seeds": [0, 1, 2]}, store, progress=False)
    assert sum(not r.skipped for r in bigger) == 2 and len(_done(store)) == 6
    summary = summarize(store, {**spec, "seeds": [0, 1, 2]})
    assert summary["missing"] == 0 and summary["series"]["copy"]["nope"]["3"]["n"] == 3


def test_runs_stored_by_another_version_of_the_lab_code_are_run_again(tmp_path):
    import json
    import sqlite3

    from posenc.lab.train import CODE_VERSION

    store = tmp_path / "runs.sqlite"
    spec = {"base": TINY, "grid": {"encoding": ["nope"]}, "seeds": [0, 1]}
    run_sweep(spec, store, progress=False)
    con = sqlite3.connect(store)
    row_id, versions = con.execute("SELECT id, versions FROM runs ORDER BY id").fetchone()
    assert json.loads(versions)["code"] == CODE_VERSION
    con.execute("UPDATE runs SET versions=? WHERE id=?", (json.dumps({**json.loads(versions), "code": -1}), row_id))
    con.commit()
    con.close()
    assert summarize(store, spec)["missing"] == 1  # the table leaves it out
    assert {cell["n"] for cell in summarize(store)["series"]["copy"]["nope"].values()} == {1}  # all rows: current only
    again = run_sweep(spec, store, progress=False)
    assert [r.skipped for r in again] == [False, True]


def test_limit_leaves_the_rest_for_later(tmp_path):
    store = tmp_path / "runs.sqlite"
    spec = {"base": TINY, "grid": {"encoding": ["nope", "rope", "t5"]}}
    assert len(run_sweep(spec, store, progress=False, limit=1)) == 1
    assert summarize(store, spec)["missing"] == 2


@pytest.mark.slow  # two posenc sweeps in fresh processes, one killed (15 s or more of CPU)
def test_killed_sweep_loses_nothing_and_resumes(tmp_path):
    store = tmp_path / "runs.sqlite"
    grid = _grid_file(tmp_path, "kill", ["nope", "rope", "alibi"], steps=200)
    cmd = CLI + ["sweep", "--grid", str(grid), "--store", str(store), "--no-progress"]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 90
    while not _done(store) and time.time() < deadline and proc.poll() is None:
        time.sleep(0.1)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    finished = _done(store)
    assert 1 <= len(finished) < 3, "the sweep should be killed with some but not all runs done"
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    after = _done(store)
    assert len(after) == 3
    assert {k: after[k] for k in finished} == finished  # finished runs kept, not re-run


@pytest.mark.slow  # two posenc sweeps at once in fresh processes (15 s or more of CPU)
def test_concurrent_sweeps_write_safely(tmp_path):
    store = tmp_path / "runs.sqlite"
    ResultStore(store)
    a = _grid_file(tmp_path, "a", ["nope", "rope", "alibi"], steps=5)
    b = _grid_file(tmp_path, "b", ["t5", "sinusoidal", "alibi"], steps=5)
    procs = [subprocess.Popen(CLI + ["sweep", "--grid", str(g), "--store", str(store), "--no-progress"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True) for g in (a, b)]
    for p in procs:
        assert p.wait(timeout=120) == 0, p.stderr.read()
    assert len(_done(store)) == 5  # alibi is in both grids: one row (the key is config + seed)


@pytest.mark.slow  # a sweep of three runs on two fresh worker processes (about 6 s, 15 s of CPU)
def test_process_pool_workers(tmp_path):
    store = tmp_path / "runs.sqlite"
    results = run_sweep({"base": TINY, "grid": {"encoding": ["nope", "rope", "xpos"]}}, store, workers=2,
                        progress=False)
    assert [r.config["model"]["encoding"] for r in results] == ["nope", "rope", "xpos"]
    assert all(r.status == "done" for r in results) and len(_done(store)) == 3


@pytest.mark.parametrize("content", [b"this is a text file, not a store\n" * 4, "foreign"])
def test_bad_store_is_an_error_and_left_untouched(tmp_path, content, capsys):
    store = tmp_path / "runs.sqlite"
    if content == "foreign":
        con = sqlite3.connect(store)
        con.execute("CREATE TABLE songs (title TEXT)")
        con.execute("INSERT INTO songs VALUES ('x')")
        con.commit()
        con.close()
    else:
        store.write_bytes(content)
    before = store.read_bytes()
    grid = _grid_file(tmp_path, "g", ["nope"], steps=2)
    assert main(["sweep", "--grid", str(grid), "--store", str(store), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "error:" in err and "left untouched" in err
    assert store.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g.json", "runs.sqlite"]  # no -wal / -shm beside it


def test_bad_sweep_input():
    with pytest.raises(PosencError, match="presets are"):
        run_sweep("alibi-tabel", "unused.sqlite")
    with pytest.raises(PosencError, match="executor"):
        run_sweep("quick", "unused.sqlite", executor="slurm")
    with pytest.raises(PosencError, match="non-empty list"):
        Sweep("s", grid={"encoding": []})
    with pytest.raises(PosencError, match="unknown sweep key"):
        run_sweep({"base": TINY, "grids": {}}, "unused.sqlite")


def test_cli_train_and_sweep_outputs(tmp_path, capsys):
    store = tmp_path / "runs.sqlite"
    code = main(["train", "--task", "parity", "-e", "alibi", "--train-len", "4", "--steps", "3", "--d-model", "16",
                 "--n-heads", "2", "--eval-lengths", "4,8", "--store", str(store)])
    assert code == 0 and "| alibi |" in capsys.readouterr().out
    assert len(list(ResultStore(store).runs(KIND))) == 1
    assert main(["train", "--task", "parityy"]) == 2 and "valid tasks are" in capsys.readouterr().err
    assert main(["train", "--eval-lengths", "4,x"]) == 2 and "comma-separated" in capsys.readouterr().err
    assert main(["sweep", "--preset", "quick", "--grid", "x.json"]) == 2 and "exactly one" in capsys.readouterr().err
    grid = _grid_file(tmp_path, "g", ["nope", "learned"], steps=2)
    folder = tmp_path / "out"
    assert main(["sweep", "--grid", str(grid), "--store", str(store), "--no-progress", "--out", str(folder)]) == 0
    assert "cannot run" in (folder / "table.md").read_text()  # the learned table at size 6 > 3
    assert (folder / "metric_vs_length.png").stat().st_size > 0
    assert json.loads((folder / "summary.json").read_text())["series"]["copy"]["learned"]["6"]["cannot_run"] == 1


def test_with_settings_replaces_base_but_never_a_grid_axis(tmp_path, capsys):
    sweep = Sweep("s", base=TINY, grid={"encoding": ["nope"]})
    wider = sweep.with_settings({"d_model": 32})
    assert wider.base["d_model"] == 32 and sweep.base["d_model"] == 16  # a copy; the original is untouched
    assert {c.model.d_model for c, _ in wider.runs()} == {32}
    with pytest.raises(PosencError, match=r"varies \['encoding'\]"):
        sweep.with_settings({"encoding": "rope"})
    with pytest.raises(PosencError, match="varies"):
        get_preset("quick").with_settings({"encoding_options": {}})  # set inside the quick preset's variants
    store = tmp_path / "runs.sqlite"
    grid = _grid_file(tmp_path, "g", ["nope"], steps=2)
    assert main(["sweep", "--grid", str(grid), "--store", str(store), "--no-progress", "--set", "steps=3"]) == 0
    assert [r.config["steps"] for r in ResultStore(store).runs(KIND)] == [3]
    assert main(["sweep", "--grid", str(grid), "--store", str(store), "--set", "encoding=rope"]) == 2
    assert "grid axis" in capsys.readouterr().err


def test_the_estimate_of_a_sweep_shares_the_runs_among_the_workers_and_adds_their_start():
    from posenc.lab import RunConfig
    from posenc.lab.sweep import WORKER_START_OPERATIONS, estimate_sweep
    from posenc.lab.train import call_seconds

    # two equal runs: one process runs them one after the other (nothing to start); two run them side by side,
    # half the time, plus the pool's start; one run on two workers leaves one idle (nothing to start either)
    configs = [RunConfig.from_dict(TINY), RunConfig.from_dict(TINY)]
    alone = estimate_sweep(configs, workers=1)
    start = WORKER_START_OPERATIONS * call_seconds()
    assert estimate_sweep(configs, workers=2) == pytest.approx(alone / 2 + start, rel=1e-12)
    assert estimate_sweep(configs[:1], workers=2) == pytest.approx(alone / 2, rel=1e-12)
    assert estimate_sweep(configs, workers=2, executor="ray") == pytest.approx(alone / 2, rel=1e-12)


def test_threads_0_leaves_the_threads_to_torch(tmp_path):
    import torch

    before = torch.get_num_threads()
    results = run_sweep({"base": TINY, "grid": {"encoding": ["nope"]}}, tmp_path / "runs.sqlite", threads=0,
                        progress=False)
    assert [r.status for r in results] == ["done"] and torch.get_num_threads() == before


def test_each_run_of_a_sweep_draws_its_bar_below_the_sweeps_and_clears_it(tmp_path, monkeypatch):
    import posenc.lab.train as train

    bars = []  # the options of each run's bar: the real bar is drawn (plain lines, as stderr is no terminal here)

    def recording(*args, **options):
        bars.append((options["desc"], options.get("position"), options.get("leave")))
        return real(*args, **options)

    real = train.progress_bar
    monkeypatch.setattr(train, "progress_bar", recording)
    run_sweep({"base": TINY, "grid": {"encoding": ["nope"]}}, tmp_path / "runs.sqlite", progress=True)
    assert bars == [("copy/nope s0", 1, False)]  # line 1 (the sweep's bar is on line 0), not left behind


def test_a_worker_that_dies_is_an_error_that_says_what_was_kept_and_how_to_resume(tmp_path, monkeypatch):
    from concurrent.futures.process import BrokenProcessPool

    import posenc.lab.sweep as sweep_module

    def dies(*args, **kwargs):  # what a pool whose worker was killed raises, before any run finished
        raise BrokenProcessPool("a process in the process pool was terminated abruptly")

    monkeypatch.setattr(sweep_module, "_run_pool", dies)
    store = tmp_path / "runs.sqlite"
    with pytest.raises(PosencError) as caught:
        run_sweep({"name": "pair", "base": TINY, "grid": {"encoding": ["nope", "rope"]}}, store, workers=2,
                  progress=False)
    assert str(caught.value) == (
        f"a worker process of sweep pair died (killed from outside, or out of memory); 0 of its 2 runs to run "
        f"finished and are kept in {store} (beside the 0 stored before); run the same command again to run the 2 "
        f"still missing (stored runs are skipped)")


def test_ray_leaves_the_precision_to_its_workers_where_a_local_sweep_checks_it_first(tmp_path):
    import torch

    # float16 cannot train on the CPU: a local sweep on a machine without a GPU refuses before any run; a Ray
    # worker resolves "auto" on its own machine (which may have a GPU), so the driver does not refuse
    spec = {"base": TINY, "grid": {"encoding": ["nope"]}}
    if not torch.cuda.is_available():
        with pytest.raises(PosencError, match="dtype 'float16' cannot train on the CPU"):
            run_sweep(spec, tmp_path / "local.sqlite", dtype="float16", progress=False, limit=0)
    assert run_sweep(spec, tmp_path / "ray.sqlite", executor="ray", dtype="float16", progress=False, limit=0) == []
    # a Ray sweep told to train on the CPU: no worker could, so the driver refuses before any run, like a local one
    with pytest.raises(PosencError, match="dtype 'float16' cannot train on the CPU"):
        run_sweep(spec, tmp_path / "ray-cpu.sqlite", executor="ray", device="cpu", dtype="float16", progress=False,
                  limit=0)
    assert run_sweep(spec, tmp_path / "ray-cpu.sqlite", executor="ray", device="cpu", dtype="bfloat16",
                     progress=False, limit=0) == []


@pytest.mark.parametrize("device, gpus", [("cuda", 1), ("cuda:1", 1), ("cpu", 0), ("auto", 0), ("mps", 0)])
def test_a_ray_task_asks_for_one_cpu_and_a_gpu_only_on_cuda(device, gpus):
    from posenc.lab.sweep import ray_resources

    assert ray_resources(device) == {"num_cpus": 1, "num_gpus": gpus}


def test_every_executor_stores_a_result_with_its_error_setup_and_the_lab_code_version(tmp_path):
    """What the Ray executor's caller and the local processes write: the run's own seed, status, error and setup,
    under the lab's kind and code version (a row without it would be recomputed by every later sweep)."""
    from posenc.lab.sweep import store_result
    from posenc.lab.train import CODE_VERSION, RunResult

    store = ResultStore(tmp_path / "runs.sqlite")
    failed = RunResult({"task": "copy"}, 7, {}, 1.5, status="error", error="RuntimeError: boom",
                       setup={"device": "cpu", "dtype": "float32"})
    store_result(store, failed)
    record = store.get(KIND, {"task": "copy"}, 7, code=CODE_VERSION)
    assert (record.seed, record.status, record.error, record.setup, record.wall_s) == (
        7, "error", "RuntimeError: boom", {"device": "cpu", "dtype": "float32"}, 1.5)
    assert store.get(KIND, {"task": "copy"}, 7, code=CODE_VERSION + 1) is None  # stored under this version only
    assert store.get(KIND, {"task": "copy"}, 0, code=CODE_VERSION) is None  # under its own seed


def test_each_distinct_model_is_checked_once_before_any_training(monkeypatch):
    """The seeds of a configuration share its model: three runs of two configurations are two checks."""
    import posenc.lab.sweep as sweep
    from posenc.lab.train import ModelConfig, RunConfig

    checked = []
    real = sweep.check_run
    monkeypatch.setattr(sweep, "check_run",
                        lambda config, **kw: checked.append(config.model.encoding) or real(config, **kw))
    rope = RunConfig(task="copy", model=ModelConfig(encoding="rope", d_model=16, n_heads=2), train_len=3, steps=2)
    nope = RunConfig(task="copy", model=ModelConfig(encoding="nope", d_model=16, n_heads=2), train_len=3, steps=2)
    sweep._validate_models([(rope, 0), (rope, 1), (nope, 0)])
    assert checked == ["rope", "nope"]


def test_a_sweeps_estimate_counts_the_threads_of_each_run():
    from posenc.lab.sweep import estimate_sweep
    from posenc.lab.train import ModelConfig, RunConfig, estimate_run

    config = RunConfig(task="copy", model=ModelConfig(encoding="rope", d_model=64), train_len=8, steps=100)
    # one run, one worker: nothing shared, no pool to start; the run's own estimate at its thread count
    assert estimate_sweep([config], threads=2) == estimate_run(config, threads=2).seconds
    assert estimate_sweep([config], threads=2) < estimate_sweep([config], threads=1)


def test_a_run_found_in_the_store_is_returned_as_stored(tmp_path):
    """A finished row is read back whole: its metrics, time, setup and any note in its error column."""
    from posenc.lab.train import CODE_VERSION, RunConfig

    config = RunConfig.from_dict({**TINY, "encoding": "nope"})
    store = ResultStore(tmp_path / "runs.sqlite")
    store.put(KIND, config.as_dict(), 0, {"by_length": {}}, 2.5, "done", "a note", setup={"device": "cpu"},
              code=CODE_VERSION)
    [result] = run_sweep({"base": TINY, "grid": {"encoding": ["nope"]}}, tmp_path / "runs.sqlite", progress=False)
    assert result.skipped and (result.metrics, result.wall_s, result.error, result.setup) == (
        {"by_length": {}}, 2.5, "a note", {"device": "cpu"})


def test_a_one_worker_sweep_shows_each_runs_progress_when_asked(tmp_path, capsys):
    run_sweep({"base": TINY, "grid": {"encoding": ["nope"]}}, tmp_path / "runs.sqlite", progress=True)
    assert "copy/nope s0" in capsys.readouterr().err  # the run's own bar, below the sweep's
    run_sweep({"base": TINY, "grid": {"encoding": ["rope"]}}, tmp_path / "runs.sqlite", progress=False)
    assert capsys.readouterr().err == ""


def test_a_ray_sweep_counts_its_runs_one_at_a_time_on_this_machine(tmp_path):
    """Ray places the runs on its cluster: the estimate and the memory check count one run here, whatever
    ``workers`` says (nothing listens at the address, so the sweep stops after saying so, before any Ray starts)."""
    from ray_cluster import free_port

    said = []
    with pytest.raises(PosencError, match="cannot reach a Ray head"):
        run_sweep({"base": TINY, "grid": {"encoding": ["nope", "rope"]}}, tmp_path / "s.sqlite", executor="ray",
                  workers=2, address=f"127.0.0.1:{free_port()}", progress=False, echo=said.append)
    assert len(said) == 1 and said[0].startswith("sweep custom: 2 of 2 runs to run, estimated ")
    assert said[0].endswith(" (Ray: depends on the cluster)") and "workers" not in said[0]
