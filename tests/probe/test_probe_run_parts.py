"""The probe's parts on small inputs: the default config, skips, the head count of GPT-2-style configs, the terminal
summary, the progress bar's unit, and what ``_write`` puts on disk."""

import json
import re
from dataclasses import asdict
from types import SimpleNamespace

import numpy as np
import pytest
import torch

from posenc.probe import run_probe
from posenc.probe.heads import HeadAccumulator
from posenc.probe.run import ProbeConfig, _n_heads, _write, format_summary


def test_without_quick_or_a_config_the_probe_reads_the_full_default_text(tiny_llama):
    # ProbeConfig(): 4 windows of 512 tokens, cut to the model's 256 positions; quick would read 1 window of 256
    result = run_probe(tiny_llama, probes=["heads"], progress=False)
    assert result["config"] == asdict(ProbeConfig()) and result["config"]["windows"] == 4
    assert result["text"]["windows"] == 4 and result["text"]["window_tokens"] == 256


def test_a_rope_probe_left_out_of_the_named_probes_is_skipped_as_not_requested(tiny_llama):
    result = run_probe(tiny_llama, config=ProbeConfig(window=32, windows=1), probes=["heads"], progress=False)
    assert result["rope"] == {"skipped": "not requested"}
    assert result["summary"].split("\n")[-3] == "[rope] skipped: not requested"


def test_a_gpt2_style_config_gives_its_heads_as_n_head():
    # layers h.0.attn and h.1.attn (GPT-2 naming), a config with n_head only
    model = torch.nn.Module()
    model.h = torch.nn.ModuleList()
    for _ in range(2):
        block = torch.nn.Module()
        block.attn = torch.nn.Identity()
        model.h.append(block)
    model.config = SimpleNamespace(n_head=3)
    assert _n_heads(model) == (2, 3)


def _skipped_result() -> dict:
    skip = {"skipped": "not requested"}
    return {"model": {"name": "m", "type": "bert", "class": "BertModel", "layers": 2, "heads": 4, "parameters": 2.5e6,
                      "source": "test"},
            "text": {"source": "string", "windows": 1, "window_tokens": 64},
            "geometry": skip, "decodability": skip, "four_terms": skip, "heads": skip, "rope": skip,
            "timing": {"load_s": 1.25, "total_s": 3.0}}


def test_summary_of_a_result_whose_probes_were_all_skipped_line_by_line():
    assert format_summary(_skipped_result()).split("\n") == [
        "model m (bert, BertModel, 2 layers x 4 heads, 2.5M parameters) from test",
        "text: string, 1 window(s) of 64 tokens", "",
        "[geometry] skipped: not requested", "",
        "[decodability] skipped: not requested", "",
        "[four-term split] skipped: not requested", "",
        "[heads] skipped: not requested", "",
        "[rope] skipped: not requested",
        "", "time: load 1.2s, total 3.0s"]  # 1.25 rounds half to even


def test_on_a_terminal_the_probe_bar_counts_probes(tiny_llama, capsys, monkeypatch):
    import posenc.progress

    monkeypatch.setattr(posenc.progress, "is_terminal", lambda stream: True)  # a tqdm bar, as on a terminal
    run_probe(tiny_llama, config=ProbeConfig(window=32, windows=1), probes=["heads"], progress=True)
    err = capsys.readouterr().err
    assert re.search(r"probe tiny-llama: .*5/5 \[[^\]]*(probe/s|s/probe)\]", err)


def test_write_saves_figures_at_110_dpi_and_numpy_numbers_as_json(tmp_path):
    from PIL import Image

    acc = HeadAccumulator(n_layers=1, n_heads=2, max_len=16)
    gen = torch.Generator().manual_seed(0)
    for _ in range(3):
        acc.add(0, torch.randn(2, 16, 16, generator=gen).softmax(-1))
    skip = {"skipped": "not requested"}
    result = {"decodability": skip, "rope": skip, "heads": acc.summary(), "extra": np.float32(0.5),
              "count": np.float64(2.0)}
    files = _write(result, {}, tmp_path)
    assert files == ["heads.png", "attention_distance.png", "probe.json"]
    for name in files[:2]:
        with Image.open(tmp_path / name) as image:
            assert image.info["dpi"] == pytest.approx((110, 110), abs=0.01), name
    stored = json.loads((tmp_path / "probe.json").read_text())
    assert stored["extra"] == 0.5 and stored["count"] == 2.0 and stored["files"] == files
