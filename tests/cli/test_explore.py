"""``posenc explore``: writes the page; bad input (language, config, output folder) exits 2 with one clear line."""

from __future__ import annotations

import json

import pytest

from posenc.cli import main


def test_explore_writes_the_page_with_a_users_config(tmp_path, capsys):
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"model_type": "llama", "hidden_size": 128, "num_attention_heads": 2,
                                  "num_hidden_layers": 2, "max_position_embeddings": 4096, "rope_theta": 20000.0,
                                  "_name_or_path": "my-llama"}))
    assert main(["explore", "--out", str(tmp_path / "site"), "--lang", "en", "--config", str(config)]) == 0
    page = tmp_path / "site" / "explore.html"
    assert f"wrote {page}" in capsys.readouterr().out
    html = page.read_text(encoding="utf-8")
    assert 'data-default-lang="en"' in html and '"name":"my-llama"' in html


@pytest.mark.parametrize("args, message", [
    (["--lang", "fr"], "--lang must be one of zh, en, got 'fr'; e.g. --lang en"),
    (["--config", "{tmp}/missing.json"], "--config {tmp}/missing.json does not exist; pass a model's config.json"),
    (["--config", "{tmp}/bad.json"], "cannot read {tmp}/bad.json as a JSON config"),
    (["--out", "{tmp}/a-file"], "--out {tmp}/a-file is a file, not a folder"),
])
def test_bad_input_exits_2_with_a_clear_message(tmp_path, capsys, args, message):
    (tmp_path / "bad.json").write_text("{not json")
    (tmp_path / "a-file").write_text("")
    args = [a.format(tmp=tmp_path) for a in args]
    if "--out" not in args:
        args += ["--out", str(tmp_path / "out")]
    assert main(["explore", *args]) == 2
    err = capsys.readouterr().err
    assert message.format(tmp=tmp_path) in err and "Traceback" not in err
    assert not (tmp_path / "out").exists()  # refused before anything is written


def test_help_has_an_example(capsys):
    assert main(["explore", "--help"]) == 0
    out = capsys.readouterr().out
    assert "Example: posenc explore --out site --lang en --config" in out
    for option in ("--out", "--lang", "--config"):
        assert option in out
