"""``posenc bench`` on a tiny problem: every provider passes the gate and gets a time; JSON is written."""

import json

import pytest

from posenc.cli import main
from posenc.errors import PosencError
from posenc.kernels.bench import BenchConfig, resolve_device, run_benchmark

TINY = dict(batch=1, q_heads=4, kv_heads=2, seq_len=16, head_dim=16, repeats=2, warmup=1, compile=False)


def _quiet(iterable, **_):
    return iterable


def test_every_provider_is_gated_and_timed(cpp_kernel):
    result = run_benchmark(BenchConfig(**TINY, modes=("out-of-place", "in-place", "backward")), progress=_quiet)
    rows = {(r["provider"], r["mode"]): r for r in result["rows"]}
    for key in [("posenc:cpp", "out-of-place"), ("posenc:cpp", "in-place"), ("posenc:cpp", "backward"),
                ("posenc:reference", "out-of-place"), ("hf-eager", "out-of-place"), ("hf-eager", "backward")]:
        assert rows[key]["gate"] == "pass" and rows[key]["gate_error"] <= 1.0
        assert rows[key]["median_ms"] > 0 and rows[key]["gbps"] > 0
    assert rows[("copy", "baseline")]["pct_of_copy"] == pytest.approx(100.0)
    # bytes moved: read and write q [1, 4, 16, 16] and k [1, 2, 16, 16] in float32
    assert result["traffic_bytes"] == 2 * (4 + 2) * 16 * 16 * 4
    assert any(note.startswith("liger") for note in result["skipped"])


def test_interleaved_skips_hugging_face():
    result = run_benchmark(BenchConfig(**TINY, pairing="interleaved", modes=("out-of-place",)), progress=_quiet)
    assert not any(r["provider"] == "hf-eager" for r in result["rows"])
    assert any("half pairing" in note for note in result["skipped"])


def test_cli_writes_json(tmp_path):
    out = tmp_path / "bench.json"
    code = main(["bench", "--q-heads", "4", "--kv-heads", "2", "--seq-len", "8", "--head-dim", "8", "--repeats",
                 "2", "--no-compile", "--dtype", "bfloat16", "--json", str(out)])
    assert code == 0
    data = json.loads(out.read_text())
    assert data["config"]["dtype"] == "bfloat16"
    assert all(r.get("gate", "pass") == "pass" for r in data["rows"] if "median_ms" in r)
    # Liger and flash-attn are not installed here: the table lists them and says so
    assert {r["provider"]: r["gate"] for r in data["rows"] if "median_ms" not in r} == \
        {"liger": "not installed", "flash-attn": "not installed"}


def test_bad_config_is_a_clear_error():
    with pytest.raises(PosencError, match="dtype"):
        BenchConfig(dtype="float8")
    assert main(["bench", "--q-heads", "6", "--kv-heads", "4"]) == 2


@pytest.fixture
def no_cuda(monkeypatch):
    import torch

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 0)


@pytest.fixture
def two_gpus(monkeypatch):
    import torch

    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 2)


def test_auto_picks_cuda_only_when_present(no_cuda):
    assert BenchConfig(device="auto").device == "cpu"
    assert resolve_device("CPU") == "cpu"


def test_auto_and_cuda_indices_with_gpus(two_gpus):
    assert resolve_device("auto") == "cuda"
    assert resolve_device("cuda:1") == "cuda:1"
    with pytest.raises(PosencError, match=r"'cuda:2': this machine has 2 CUDA device\(s\), cuda:0..cuda:1; use one "
                                          r"of them, cuda, cpu or auto"):
        resolve_device("cuda:2")


@pytest.mark.parametrize("device, match", [
    ("cuda", r"device 'cuda': CUDA is not available here \(torch .*\); use --device cpu or auto$"),
    ("cuda:0", r"device 'cuda:0': CUDA is not available here"),
    ("gpu", r"unknown device 'gpu'; use one of: auto, cpu, cuda or cuda:N \(N a GPU index\)$"),
    ("mps", r"device 'mps' is not supported by this command; use one of: auto, cpu, cuda or cuda:N"),
    ("cuda:x", r"unknown device 'cuda:x'"),
])
def test_device_errors_name_what_was_given_and_what_fits(no_cuda, device, match):
    with pytest.raises(PosencError, match=match):
        BenchConfig(device=device)


@pytest.mark.parametrize("device", ["cuda", "tpu"])
def test_cli_device_error_comes_before_any_work(no_cuda, device, monkeypatch, capsys):
    from posenc.kernels import bench as bench_module

    def no_work(*args, **kwargs):
        raise AssertionError("the benchmark started before the device was checked")

    monkeypatch.setattr(bench_module, "run_benchmark", no_work)
    monkeypatch.setattr(bench_module, "make_inputs", no_work)
    assert main(["bench", "--device", device, "--seq-len", "8"]) == 2
    err = capsys.readouterr().err
    assert f"device '{device}'" in err and ("auto, cpu" in err or "use --device cpu or auto" in err)
