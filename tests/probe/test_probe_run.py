"""The full probe: probe.json with the documented keys, figures, the CLI, and every bad input."""

import json

import numpy as np
import pytest
import torch
from transformers import LlamaConfig, LlamaForCausalLM

from posenc.cli import main
from posenc.corpora import shakespeare_text
from posenc.errors import PosencError
from posenc.hub import LoadedModel
from posenc.probe import run_probe
from posenc.probe.run import ProbeConfig

PNG = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def minilm_result(minilm, tmp_path_factory):
    out = tmp_path_factory.mktemp("probe-minilm")
    return run_probe(minilm, out_dir=out, quick=True, progress=False), out


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


def test_minilm_figures_are_pngs(minilm_result):
    _, out = minilm_result
    for name in ("geometry.png", "decodability.png", "four_terms.png", "heads.png", "attention_distance.png"):
        assert (out / name).read_bytes()[:8] == PNG, name


@pytest.fixture(scope="module")
def tiny_llama(minilm):
    config = LlamaConfig(vocab_size=minilm.tokenizer.vocab_size, hidden_size=32, intermediate_size=64,
                         num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
                         max_position_embeddings=256, tie_word_embeddings=True)
    torch.manual_seed(0)
    model = LlamaForCausalLM(config).eval()
    return LoadedModel(model=model, tokenizer=minilm.tokenizer, config=config, name="tiny-llama", source="test")


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
