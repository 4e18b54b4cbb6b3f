"""The full probe: probe.json with the documented keys, figures, the CLI, and every bad input."""

import json
import re
from types import SimpleNamespace

import numpy as np
import pytest

from posenc.cli import main
from posenc.corpora import shakespeare_text
from posenc.errors import PosencError
from posenc.probe import run_probe
from posenc.probe.geometry import format_tutorial_layout
from posenc.probe.run import ProbeConfig, estimate_probe_memory
from posenc.resources import GB

PNG = b"\x89PNG\r\n\x1a\n"
#: the tests reading one MiniLM probe run share a worker, so that its module fixture runs once
MINILM_RUN = pytest.mark.xdist_group("probe-minilm-run")


@pytest.fixture(scope="module")
def minilm_result(minilm, tmp_path_factory):
    out = tmp_path_factory.mktemp("probe-minilm")
    return run_probe(minilm, out_dir=out, quick=True, progress=False), out


@MINILM_RUN
def test_minilm_probe_json(minilm_result):
    result, out = minilm_result
    stored = json.loads((out / "probe.json").read_text())
    raw = stored["geometry"]["raw"]
    assert set(raw) == {"cos_mean", "cos_std", "cos_abs_mean", "angle_mean", "angle_std", "angle_min", "angle_max"}
    for key in ("baseline", "centred", "subspace"):
        assert key in stored["geometry"]
    assert raw["cos_mean"] == pytest.approx(result["geometry"]["raw"]["cos_mean"])
    assert stored["four_terms"]["relative_error"] <= 1e-4
    assert len(stored["four_terms"]["shares_within_rows"]) == 12
    heads = stored["heads"]
    assert np.asarray(heads["previous"]).shape == (6, 12)
    assert np.asarray(heads["mass_by_distance"]).shape[:2] == (6, 12)
    np.testing.assert_allclose(np.asarray(heads["mass_by_distance"]).sum(-1), 1.0, atol=1e-4)
    assert "skipped" in stored["rope"]
    assert set(stored["decodability"]) >= {"model", "sinusoid", "random"}
    assert "verdict" in stored["geometry"] and "[geometry]" in result["summary"]


@MINILM_RUN
def test_minilm_figures_are_pngs(minilm_result):
    _, out = minilm_result
    for name in ("geometry.png", "decodability.png", "four_terms.png", "heads.png", "attention_distance.png"):
        assert (out / name).read_bytes()[:8] == PNG, name


def test_rope_model_probe(tiny_llama, tmp_path):
    result = run_probe(tiny_llama, out_dir=tmp_path, config=ProbeConfig(window=64, windows=2), progress=False)
    assert "skipped" in result["geometry"] and "skipped" in result["four_terms"]
    assert result["rope"]["check_max_abs_error"] < 1e-5
    assert np.asarray(result["rope"]["q_pair_share"]).shape == (2, 4, 4)
    assert result["text"]["windows"] == 2 and result["text"]["window_tokens"] == 64
    assert result["heads"]["perplexity"] > 1
    for name in ("rope_frequencies.png", "rope_logit_distance.png", "heads.png"):
        assert (tmp_path / name).read_bytes()[:8] == PNG


def test_geometry_on_a_rope_model_is_an_error(tiny_llama):
    with pytest.raises(PosencError, match="geometry probe does not apply.*attention heads"):
        run_probe(tiny_llama, probes=["geometry"], quick=True, progress=False)


def test_short_text_is_an_error(minilm):
    with pytest.raises(PosencError, match="at least 32"):
        run_probe(minilm, text="To be, or not to be.", quick=True, progress=False)


def test_bad_probe_name_and_window(minilm):
    with pytest.raises(PosencError, match="unknown probe"):
        run_probe(minilm, probes=["angles"], progress=False)
    with pytest.raises(PosencError, match="exceeds the model's 512 positions"):
        run_probe(minilm, config=ProbeConfig(window=1024), progress=False)


def test_cli_probe(tmp_path, capsys):
    text = tmp_path / "hamlet.txt"
    text.write_text(shakespeare_text(6000), encoding="utf-8")
    out = tmp_path / "out"
    code = main(["probe", "minilm", "--text", str(text), "--out", str(out), "--quick", "--only", "heads",
                 "--no-progress"])
    assert code == 0
    printed = capsys.readouterr().out
    assert "[heads] Voita rule" in printed and "[geometry] skipped: not requested" in printed
    assert json.loads((out / "probe.json").read_text())["text"]["source"] == "file"


def test_cli_bad_inputs(tmp_path, capsys):
    assert main(["probe", str(tmp_path / "no-such-folder")]) == 2
    assert "does not exist" in capsys.readouterr().err
    assert main(["probe", "minilm", "--text", str(tmp_path / "missing.txt")]) == 2
    assert "does not exist" in capsys.readouterr().err


@MINILM_RUN
def test_minilm_result_model_entry_and_summary_layout(minilm_result):
    result, _ = minilm_result
    assert result["model"] == {"name": result["model"]["name"], "source": result["model"]["source"], "type": "bert",
                               "class": "BertModel", "layers": 6, "heads": 12, "hidden": 384, "max_positions": 512,
                               "parameters": result["model"]["parameters"]}
    lines = result["summary"].split("\n")
    at = next(i for i, line in enumerate(lines) if line.startswith("verdict: "))
    layout = format_tutorial_layout(result["geometry"]).split("\n")
    assert lines[at - 1 - len(layout):at] == layout + [""]  # the tutorial's layout, one blank line, the verdict
    assert lines[at] == "verdict: " + result["geometry"]["verdict"] and lines[at + 1] == ""


@MINILM_RUN
def test_minilm_figures_are_written_at_110_dpi(minilm_result):
    from PIL import Image

    result, out = minilm_result
    for name in result["files"]:
        if name.endswith(".png"):
            with Image.open(out / name) as image:
                assert image.info["dpi"] == pytest.approx((110, 110), abs=0.01), name


def test_probe_memory_estimate_by_hand():
    """weights 4 * (2 V d + L (4 d^2 + 3 d I)) + 64 H T^2 + 32 T^2 + 1 GB runtime, from BERT- or GPT-2-style names."""
    bert = SimpleNamespace(num_attention_heads=12, hidden_size=384, num_hidden_layers=6, intermediate_size=1536,
                           vocab_size=30522)
    weights = 4 * (2 * 30522 * 384 + 6 * (4 * 384 ** 2 + 3 * 384 * 1536))
    assert estimate_probe_memory(bert, 256)[0] == weights + 64 * 12 * 256 ** 2 + 32 * 256 ** 2 + GB
    gpt2 = SimpleNamespace(n_head=12, n_embd=768, n_layer=12, vocab_size=50257)  # no intermediate size: 4 d
    weights = 4 * (2 * 50257 * 768 + 12 * (4 * 768 ** 2 + 3 * 768 * 4 * 768))
    total, detail = estimate_probe_memory(gpt2, 128)
    assert total == weights + 64 * 12 * 128 ** 2 + 32 * 128 ** 2 + GB
    assert "one layer's attention of 12 heads x 128 x 128 tokens" in detail


def test_progress_bars_name_the_windows(tiny_llama, capsys):
    run_probe(tiny_llama, config=ProbeConfig(window=32, windows=1), probes=["heads"], progress=True)
    err = capsys.readouterr().err  # not a terminal: plain lines, no carriage returns (posenc.progress)
    assert re.search(r"^windows: 1/1 ", err, re.M) and re.search(r"^probe tiny-llama: 5/5 ", err, re.M)
    assert "\r" not in err
