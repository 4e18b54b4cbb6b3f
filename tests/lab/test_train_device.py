"""Lab runs on a chosen device and precision: bfloat16 trains on the CPU (the loss falls), every result and stored row
says where it ran and in which dtype, and float32 runs keep the store keys they always had."""

from __future__ import annotations

import json
import sqlite3

import pytest

from posenc.cli import main
from posenc.device import Placement, device_label, resolve_device
from posenc.errors import PosencError
from posenc.lab import KIND, RunConfig, run_sweep, train_run
from posenc.store import ResultStore, config_hash

TINY = {"task": "copy", "encoding": "rope", "train_len": 4, "steps": 60, "d_model": 32, "n_layers": 1,
        "eval_samples": 32, "lr": 3e-3, "warmup": 5}


def test_bfloat16_on_the_cpu_trains_and_says_so():
    result = train_run(RunConfig.from_dict({**TINY, "dtype": "bfloat16"}), seed=0, progress=False, device="cpu")
    curve = [loss for _, loss in result.metrics["loss_curve"]]
    assert curve[-1] < 0.9 * curve[0]  # it learns: the loss falls by more than a tenth
    assert result.setup == {"device": "cpu", "dtype": "bfloat16"}
    assert result.config["dtype"] == "bfloat16"
    assert all(isinstance(v, dict) for v in result.metrics["by_length"].values())


def test_cli_train_records_device_and_dtype_in_the_store(tmp_path, capsys):
    store = tmp_path / "runs.sqlite"
    args = ["train", "--task", "copy", "--encoding", "rope", "--train-len", "4", "--steps", "60", "--d-model", "32",
            "--n-layers", "1", "--set", "eval_samples=32", "--set", "lr=3e-3", "--set", "warmup=5", "--store",
            str(store)]
    assert main([*args, "--device", "cpu", "--dtype", "bfloat16"]) == 0
    assert "on cpu in bfloat16" in capsys.readouterr().out
    assert main(args) == 0  # the default: auto (the CPU here), float32
    rows = {r.config.get("dtype", "float32"): r for r in ResultStore(store).runs(KIND)}
    assert rows["bfloat16"].setup == {"device": "cpu", "dtype": "bfloat16"}
    assert rows["float32"].setup["dtype"] == "float32"
    assert rows["float32"].setup["device"] == device_label(resolve_device("auto"))
    curve = [loss for _, loss in rows["bfloat16"].metrics["loss_curve"]]
    assert curve[-1] < 0.9 * curve[0]


def test_float32_keeps_its_store_key_and_bfloat16_is_stored_apart():
    plain = RunConfig.from_dict(TINY)
    assert plain.as_dict()["dtype"] == "float32"  # every setting is in the key (since schema 2)
    assert "dtype" not in plain.earlier_keys()[-1]  # the schema-1 key every float32 run had before dtypes existed
    assert RunConfig.from_dict({**TINY, "dtype": "float32"}).as_dict() == plain.as_dict()
    low = RunConfig.from_dict({**TINY, "dtype": "bf16"})
    assert low.dtype == "bfloat16" and config_hash(low.as_dict()) != config_hash(plain.as_dict())
    assert RunConfig.from_dict(low.as_dict()) == low


def test_a_changed_encoding_gets_a_new_store_key_and_the_others_keep_theirs():
    """CoPE's revision 2 (its gates read the scaled logits) joins its runs' key, so runs stored before are computed
    again; an encoding at revision 1 keeps the key it always had; the key reads back as the same config."""
    import posenc

    assert posenc.registry.get_class("cope").revision == 2 and posenc.registry.get_class("rope").revision == 1
    cope = RunConfig.from_dict({**TINY, "encoding": "cope"})
    assert cope.as_dict()["encoding_revision"] == 2 and cope.earlier_keys()[-1]["encoding_revision"] == 2
    assert RunConfig.from_dict(TINY).as_dict()["encoding_revision"] == 1
    assert "encoding_revision" not in RunConfig.from_dict(TINY).earlier_keys()[-1]  # schema 1 left revision 1 out
    before = {**cope.as_dict(), "encoding_revision": 1}  # the key of a revision-1 run
    assert config_hash(before) != config_hash(cope.as_dict())
    assert RunConfig.from_dict(cope.as_dict()) == cope
    wrapped = RunConfig.from_dict({**TINY, "encoding": "randomized", "encoding_options": {"encoding": "cope"}})
    assert wrapped.as_dict()["encoding_revision"] == 2  # the encoding that acts on the positions decides


def test_a_local_sweep_resolves_the_device_once_and_its_runs_resolve_nothing(tmp_path, monkeypatch):
    import posenc.device as device_module

    spec = {"name": "tiny", "base": {**TINY, "steps": 5}, "grid": {"dtype": ["float32", "bfloat16"]}, "seeds": [0]}
    monkeypatch.setattr(device_module, "resolve_device", lambda *a, **k: pytest.fail("a run resolved the device"))
    results = run_sweep(spec, tmp_path / "lab.sqlite", progress=False, device="cpu")
    assert [r.setup for r in results] == [{"device": "cpu", "dtype": "float32"}, {"device": "cpu", "dtype": "bfloat16"}]
    assert all(r.status == "done" for r in results)


def test_sweep_records_the_device_and_reads_it_back(tmp_path):
    store = tmp_path / "lab.sqlite"
    spec = {"name": "tiny", "base": {**TINY, "steps": 20}, "grid": {"encoding": ["nope"]}, "seeds": [0]}
    first = run_sweep(spec, store, progress=False, device="cpu", dtype="bfloat16")
    assert first[0].status == "done" and first[0].setup == {"device": "cpu", "dtype": "bfloat16"}
    again = run_sweep(spec, store, progress=False, device="cpu", dtype="bfloat16")
    assert again[0].skipped and again[0].setup == {"device": "cpu", "dtype": "bfloat16"}
    assert run_sweep(spec, store, progress=False, limit=0) == []  # float32 is another run: missing, not run
    with sqlite3.connect(store) as con:
        (setup,) = con.execute("SELECT setup FROM runs").fetchone()
    assert json.loads(setup) == {"device": "cpu", "dtype": "bfloat16"}


def test_bad_devices_and_dtypes_fail_before_any_run(tmp_path):
    spec = {"name": "tiny", "base": TINY, "grid": {"encoding": ["nope"]}, "seeds": [0]}
    with pytest.raises(PosencError, match="unknown device 'gpu'"):
        run_sweep(spec, tmp_path / "a.sqlite", progress=False, device="gpu")
    with pytest.raises(PosencError, match="float16' cannot train on the CPU"):
        run_sweep(spec, tmp_path / "b.sqlite", progress=False, device="cpu", dtype="float16")
    with pytest.raises(PosencError, match="unknown dtype 'float8'"):
        RunConfig.from_dict({**TINY, "dtype": "float8"})
    with pytest.raises(PosencError, match="float16' cannot train on the CPU"):
        train_run(RunConfig.from_dict({**TINY, "dtype": "float16"}), progress=False, device="cpu")
    assert not (tmp_path / "a.sqlite").exists() and not (tmp_path / "b.sqlite").exists()


def test_posenc_train_resolves_the_device_once_and_checks_no_string_per_step(monkeypatch, capsys):
    # every check of a device or dtype string, counted: the command resolves the device once and hands it down;
    # a run of three times the steps checks no more strings (nothing is checked inside the training loop)
    import posenc.device as device_module

    calls = []
    for name in ("resolve_device", "resolve_dtype"):
        real = getattr(device_module, name)

        def counting(*args, _real=real, _name=name, **kwargs):
            calls.append(_name)
            return _real(*args, **kwargs)

        monkeypatch.setattr(device_module, name, counting)
    counts = []
    for steps in ("3", "9"):
        calls.clear()
        assert main(["train", "--task", "copy", "--encoding", "rope", "--train-len", "2", "--steps", steps,
                     "--d-model", "16", "--n-layers", "1", "--set", "eval_samples=4", "--set", "warmup=1",
                     "--device", "cpu", "--dtype", "bfloat16"]) == 0
        counts.append(len(calls))
        assert calls.count("resolve_device") == 1
    assert counts[0] == counts[1]


def test_a_placement_is_taken_as_given_and_must_carry_the_configs_dtype(monkeypatch):
    import posenc.device as device_module

    placement = Placement.resolve("cpu", "bfloat16", training=True)
    monkeypatch.setattr(device_module, "resolve_device", lambda *a, **k: pytest.fail("resolved again"))
    result = train_run(RunConfig.from_dict({**TINY, "steps": 5, "dtype": "bfloat16"}), progress=False, device=placement)
    assert result.setup == {"device": "cpu", "dtype": "bfloat16"}
    with pytest.raises(PosencError, match="placement in bfloat16 for a config in float32"):
        train_run(RunConfig.from_dict({**TINY, "steps": 5}), progress=False, device=placement)
