"""``posenc probe``'s own switches (posenc.cli.probe), with the model's config and the probe itself replaced: the
window against the model's position limit, the window the memory check gets, the default ``--out`` folder, and
``--only`` and ``--text``."""

from pathlib import Path
from types import SimpleNamespace

import pytest
import torch

from posenc.cli import main


class Reached(Exception):
    """Raised by the stand-in for run_probe, carrying its arguments."""


@pytest.fixture
def probe_stub(monkeypatch, tmp_path):
    """A model config whose limit each test sets (``limit``), a memory check that records its window, a probe that
    stops; no CUDA; commands run in an empty folder."""
    seen = {"limit": 512}

    def model_config(spec):
        return SimpleNamespace(max_position_embeddings=seen["limit"])

    def check_probe_fits(config, window, name):
        seen["fits_window"] = window

    def run_probe(model, **kwargs):
        raise Reached(model, kwargs)

    monkeypatch.setattr("posenc.pretrained.model_config", model_config)
    monkeypatch.setattr("posenc.probe.run.check_probe_fits", check_probe_fits)
    monkeypatch.setattr("posenc.probe.run.run_probe", run_probe)
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    monkeypatch.chdir(tmp_path)
    return seen


def _reached(argv):
    with pytest.raises(Reached) as caught:
        main(argv)
    return caught.value.args


@pytest.mark.parametrize("window", ["511", "512"])
def test_a_window_up_to_the_models_limit_is_taken(probe_stub, window):
    _, kwargs = _reached(["probe", "minilm", "--window", window])
    assert kwargs["config"].window == int(window) and probe_stub["fits_window"] == int(window)


def test_a_window_past_the_models_limit_is_refused_with_the_limit(probe_stub, capsys):
    assert main(["probe", "minilm", "--window", "513"]) == 2
    assert capsys.readouterr().err == "error: --window 513 exceeds the model's 512 positions; use --window 512 or less\n"
    assert "fits_window" not in probe_stub  # refused before the memory estimate


@pytest.mark.parametrize("limit, window", [
    (None, 512),  # no limit in the config: 512 tokens
    (4096, 512),  # a long context: still 512
    (512, 512),
    (128, 128),  # a shorter limit: the whole of it
])
def test_without_window_the_memory_check_gets_512_or_the_models_limit(probe_stub, limit, window):
    probe_stub["limit"] = limit
    _, kwargs = _reached(["probe", "minilm"])
    assert kwargs["config"].window is None and probe_stub["fits_window"] == window


def test_quick_starts_from_a_window_of_256(probe_stub):
    _reached(["probe", "minilm", "--quick"])
    assert probe_stub["fits_window"] == 256


@pytest.mark.parametrize("model, folder", [
    ("minilm", "probe-minilm"),
    ("org/name", "probe-name"),  # a hub id: its last part
    ("models/tiny/", "probe-tiny"),
    ("weights/tiny-q8.gguf", "probe-tiny-q8"),  # a .gguf file: its name without the suffix
])
def test_the_default_out_folder_is_named_after_the_model(probe_stub, model, folder):
    _, kwargs = _reached(["probe", model])
    assert kwargs["out_dir"] == Path(folder)


def test_probe_defaults_as_parsed(probe_stub):
    model, kwargs = _reached(["probe", "minilm"])
    assert model == "minilm"
    assert kwargs["text"] is None and kwargs["quick"] is False and kwargs["probes"] is None  # every probe
    assert kwargs["progress"] is True and kwargs["device"] == torch.device("cpu") and kwargs["dtype"] == "float32"


@pytest.mark.parametrize("only, probes", [(["rope"], ["rope"]), (["heads", "geometry"], ["heads", "geometry"])])
def test_only_passes_the_probes_named(probe_stub, only, probes):
    _, kwargs = _reached(["probe", "minilm", *[arg for name in only for arg in ("--only", name)]])
    assert kwargs["probes"] == probes


@pytest.mark.parametrize("name", ["geometry", "decodability", "four_terms", "heads", "rope"])
def test_each_probe_name_is_taken(probe_stub, name):
    _, kwargs = _reached(["probe", "minilm", "--only", name])
    assert kwargs["probes"] == [name]


def test_unknown_probes_are_named_sorted_with_the_valid_ones(probe_stub, capsys):
    assert main(["probe", "minilm", "--only", "rope", "--only", "zeta", "--only", "alpha"]) == 2
    assert capsys.readouterr().err == ("error: unknown probe(s) ['alpha', 'zeta'] for --only; valid probes are: "
                                       "geometry, decodability, four_terms, heads, rope.\n")


def test_text_that_is_a_folder_is_refused(probe_stub, tmp_path, capsys):
    assert main(["probe", "minilm", "--text", str(tmp_path)]) == 2
    assert capsys.readouterr().err == (f"error: --text {tmp_path} is not a file; pass a UTF-8 text file, or leave "
                                       f"--text out for Shakespeare's plays\n")


def test_a_size_given_with_quick_replaces_the_quick_one_only(probe_stub):
    # --quick: window 256, one window, 1000 pairs; --window 300 replaces the window and keeps the rest
    _, kwargs = _reached(["probe", "minilm", "--quick", "--window", "300"])
    config = kwargs["config"]
    assert (config.window, config.windows, config.n_pairs) == (300, 1, 1000) and probe_stub["fits_window"] == 300


def test_download_only_when_asked_and_before_the_config_is_read(probe_stub, monkeypatch):
    fetched = []
    monkeypatch.setattr("posenc.pretrained.download", lambda model: fetched.append((model, "fits_window" in probe_stub)))
    _reached(["probe", "org/model"])
    assert fetched == []
    probe_stub.pop("fits_window")
    _reached(["probe", "org/model", "--download"])
    assert fetched == [("org/model", False)]  # before the config's memory check
