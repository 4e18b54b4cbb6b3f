"""The report's device and dtype: checked before anything runs, handed to the lab and extend experiments, stated in
report.json, on the page's header line and in every stored row's setup; float32 keeps the claims' store keys."""

from __future__ import annotations

import json

import pytest
import torch

from posenc.device import device_label, resolve_device
from posenc.errors import PosencError
from posenc.report.experiments import extension, training
from posenc.report.experiments.base import Context, get_experiment
from posenc.report.ledger import get_claim
from posenc.report.render import _where
from posenc.report.result import ReportResult
from posenc.report.run import run_report, store_config
from posenc.store import ResultStore

CLAIMS = ["unit-interval-positions", "sin-bounded"]


def test_report_json_and_page_carry_device_and_dtype(tmp_path):
    result = run_report(tmp_path / "r", quick=True, progress=False, claims=CLAIMS, device="cpu")
    data = json.loads(result.report_json.read_text(encoding="utf-8"))
    assert data["device"] == "cpu" and data["dtype"] == "float32"
    assert data["setup"] == {"device": "cpu", "dtype": "float32"}
    page = result.index_html.read_text(encoding="utf-8")
    assert "device cpu, float32</p>" in page
    rows = list(ResultStore(tmp_path / "r" / "results.sqlite").runs())
    assert len(rows) == 2 and all(r.setup == {"device": "cpu", "dtype": "float32"} for r in rows)


def test_the_default_device_is_auto(tmp_path):
    result = run_report(tmp_path / "r", quick=True, progress=False, claims=CLAIMS[:1])
    assert json.loads(result.report_json.read_text())["device"] == device_label(resolve_device("auto"))


def test_bad_device_or_dtype_fails_before_anything_is_written(tmp_path, monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    with pytest.raises(PosencError, match="CUDA is not available here"):
        run_report(tmp_path / "a", progress=False, claims=CLAIMS, device="cuda")
    with pytest.raises(PosencError, match="float16' cannot train on the CPU"):
        run_report(tmp_path / "b", progress=False, claims=CLAIMS, device="cpu", dtype="float16")
    with pytest.raises(PosencError, match="unknown dtype 'double'"):
        run_report(tmp_path / "c", progress=False, claims=CLAIMS, dtype="double")
    assert list(tmp_path.iterdir()) == []


def test_store_keys_keep_float32_and_separate_other_dtypes_where_they_apply():
    lab, small = get_claim("learned-beats-fixed"), get_claim("sin-bounded")
    assert get_experiment("lab_learned_vs_fixed").device and get_experiment("extend_pi_yarn").device
    assert not get_experiment("sinusoid_bounded").device
    assert store_config(lab, True) == store_config(lab, True, dtype="float32")
    assert "dtype" not in store_config(lab, True)
    assert store_config(lab, True, dtype="bfloat16")["dtype"] == "bfloat16"
    assert store_config(small, True, dtype="bfloat16") == store_config(small, True)  # computed in float32 anyway


def test_the_lab_and_extend_experiments_get_the_device(monkeypatch, tmp_path):
    seen = {}

    def fake_sweep(sweep, store, **kwargs):
        seen["sweep"] = kwargs
        return [type("R", (), {"status": "done"})()]

    def fake_extend(model, **kwargs):
        seen["extend"] = kwargs
        return {}

    monkeypatch.setattr("posenc.lab.sweep.run_sweep", fake_sweep)
    monkeypatch.setattr("posenc.extend.run.run_extend", fake_extend)
    ctx = Context(quick=True, store_path=tmp_path / "s.sqlite", device="cuda:1", dtype="bfloat16")
    training.run_lab({"name": "x"}, ctx)
    extension._run("smollm2", ctx)
    assert seen["sweep"]["device"] == "cuda:1" and seen["sweep"]["dtype"] == "bfloat16"
    assert seen["extend"]["device"] == "cuda:1" and seen["extend"]["dtype"] == "bfloat16"


def test_header_names_the_device_the_lab_and_extend_used(tmp_path):
    report = ReportResult(tmp_path, tmp_path / "index.html", tmp_path / "report.json", [], True, None,
                          setup={"device": "cuda:0", "dtype": "bfloat16", "gpu": "NVIDIA H100"})
    assert _where(report) == ("lab and extend experiments on cuda:0 (NVIDIA H100) in bfloat16, the others on cpu "
                              "in float32")
    assert _where(ReportResult(tmp_path, tmp_path, tmp_path, [], True, None)) == "device cpu, float32"


@pytest.mark.parametrize("setup", [None, {}])
def test_a_report_without_a_setup_computed_on_the_cpu_in_float32(tmp_path, setup):
    """A result that records no setup (``None``, or an empty one) is read as the default: everything on the CPU in
    float32, the header's short form."""
    report = ReportResult(tmp_path, tmp_path, tmp_path, [], True, None, setup=setup)
    assert _where(report) == "device cpu, float32"


@pytest.mark.parametrize(("device", "dtype", "expected"), [
    # "auto" on a cluster: each worker resolves it, so the header cannot name one device
    ("auto", "float32", "lab and extend experiments on each Ray worker's own device (auto) in float32"),
    # a device named on the command line is the device every worker used: the header names it
    ("cuda", "bfloat16", "lab and extend experiments on cuda in bfloat16"),
    ("cuda:1", "float32", "lab and extend experiments on cuda:1 in float32")])
def test_on_ray_the_header_names_the_device_asked_for_unless_it_is_auto(tmp_path, device, dtype, expected):
    report = ReportResult(tmp_path, tmp_path, tmp_path, [], True, None,
                          setup={"device": device, "dtype": dtype, "executor": "ray", "address": "10.0.0.5:6379"})
    assert _where(report) == (expected + ", the others on cpu in float32; every experiment and lab run a task on "
                              "the Ray cluster at 10.0.0.5:6379")


@pytest.mark.parametrize(("device", "dtype", "taken"), [("cuda", "float16", True), ("cuda:1", "bfloat16", True),
                                                        ("cpu", "bfloat16", True), ("cpu", "float16", False)])
def test_on_ray_the_dtype_is_checked_for_the_device_named_not_this_machines(device, dtype, taken):
    # the workers resolve the device; this machine (without a GPU) checks the dtype against the device asked for:
    # float16 trains on a GPU, never on the CPU
    from posenc.report.run import check_setup

    if taken:
        got = check_setup(device, dtype, "ray", "local")
        assert got == {"device": device, "dtype": dtype, "executor": "ray", "address": "local"}
    else:
        with pytest.raises(PosencError, match="float16' cannot train on the CPU"):
            check_setup(device, dtype, "ray", "local")
