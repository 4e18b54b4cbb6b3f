"""run_probe on a chosen device and precision: probe.json says where the model ran and in which dtype; a model
handed in loaded stays where and as it is unless a device or dtype is asked for."""

from __future__ import annotations

import json

import pytest
import torch

from posenc.errors import PosencError
from posenc.pretrained import load_model
from posenc.probe.run import run_probe


def test_bfloat16_probe_states_its_setup(tmp_path):
    lm = load_model("minilm")  # its own copy: this test casts it
    result = run_probe(lm, out_dir=tmp_path, quick=True, probes=["heads", "four_terms"], progress=False,
                       device="cpu", dtype="bfloat16")
    assert result["setup"] == {"device": "cpu", "dtype": "bfloat16"}
    assert next(lm.model.parameters()).dtype == torch.bfloat16
    assert json.loads((tmp_path / "probe.json").read_text())["setup"] == result["setup"]
    assert "on cpu in bfloat16" in result["summary"]
    assert result["four_terms"]["relative_error"] < 0.05  # the float64 split still adds up to the bf16 logits


def test_a_loaded_model_is_left_as_it_is_by_default(minilm):
    result = run_probe(minilm, quick=True, probes=["heads"], progress=False)
    assert result["setup"] == {"device": "cpu", "dtype": "float32"}
    assert next(minilm.model.parameters()).dtype == torch.float32


def test_bad_device_fails_before_loading(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)

    def no_load(*args, **kwargs):
        raise AssertionError("the model was loaded before the device was checked")

    monkeypatch.setattr("posenc.probe.run.load_model", no_load)
    with pytest.raises(PosencError, match="device 'cuda': CUDA is not available here"):
        run_probe("minilm", quick=True, progress=False, device="cuda")
    with pytest.raises(PosencError, match="unknown dtype 'int4'"):
        run_probe("minilm", quick=True, progress=False, dtype="int4")
