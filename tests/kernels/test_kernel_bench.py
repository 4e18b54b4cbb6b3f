"""``posenc bench`` on a tiny problem: every provider passes the gate and gets a time; JSON is written."""

import json

import pytest

from posenc.cli import main
from posenc.errors import PosencError
from posenc.kernels.bench import BenchConfig, run_benchmark

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
    assert all(r.get("gate", "pass") == "pass" for r in data["rows"])


def test_bad_config_is_a_clear_error():
    with pytest.raises(PosencError, match="dtype"):
        BenchConfig(dtype="float8")
    assert main(["bench", "--q-heads", "6", "--kv-heads", "4"]) == 2
