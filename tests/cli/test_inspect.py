"""``posenc inspect``: the schedule table, the warnings, ``--json`` and ``--strict``, and bad input."""

import json

from posenc.cli import main


def _config(tmp_path, **fields):
    path = tmp_path / "config.json"
    path.write_text(json.dumps({"model_type": "llama", "hidden_size": 64, "num_attention_heads": 4,
                                "num_hidden_layers": 4, "no_rope_layer_interval": 2, **fields}))
    return path


def test_inspect_prints_the_schedule_and_each_warning(tmp_path, capsys):
    path = _config(tmp_path, rope_parameters={"rope_type": "dynamic", "rope_theta": 10000.0, "factor": 2.0})
    assert main(["inspect", str(path)]) == 0
    out = capsys.readouterr().out
    assert "0, 2" in out and "1, 3" in out and "nope" in out and "base=10000" in out
    assert "warning [dynamic-cache]" in out


def test_json_and_strict(tmp_path, capsys):
    path = _config(tmp_path, rope_parameters={"rope_type": "default", "rope_theta": 10000.0})
    assert main(["inspect", str(path), "--json", "--strict"]) == 0  # nothing found: status 0
    data = json.loads(capsys.readouterr().out)
    assert [row["layers"] for row in data["layers"]] == ["0, 2", "1, 3"] and data["findings"] == []
    path = _config(tmp_path, rope_parameters={"rope_type": "default", "rope_theta": 500000.0})
    assert main(["inspect", str(path), "--strict"]) == 1
    assert "warning [rope-theta]" in capsys.readouterr().out


def test_a_missing_model_is_a_clear_error(tmp_path, capsys):
    assert main(["inspect", str(tmp_path / "nothing.json")]) == 2
    err = capsys.readouterr().err
    assert "does not exist" in err and "Traceback" not in err


def test_in_a_pipe_each_warning_is_one_line(tmp_path, capsys):
    # a rich Console of its own wrapped every warning at 80 columns, mid-sentence, in a pipe or a log
    path = _config(tmp_path, rope_parameters={"rope_type": "dynamic", "rope_theta": 10000.0, "factor": 2.0})
    assert main(["inspect", str(path), "--json"]) == 0
    (finding,) = json.loads(capsys.readouterr().out)["findings"]
    assert len(finding["message"]) > 80  # long enough to be wrapped
    assert main(["inspect", str(path)]) == 0
    out = capsys.readouterr().out
    assert "\x1b[" not in out
    assert f"warning [dynamic-cache]: {finding['message']}" in out.splitlines()


def test_no_finding_says_no_warnings(tmp_path, capsys):
    path = _config(tmp_path, rope_parameters={"rope_type": "default", "rope_theta": 10000.0})
    assert main(["inspect", str(path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[-1] == "no warnings" and not any(line.startswith("warning") for line in lines)


def test_json_with_strict_prints_the_findings_and_exits_1(tmp_path, capsys):
    # --json and --strict together: the JSON is printed whole, and the status still says something was found
    path = _config(tmp_path, rope_parameters={"rope_type": "default", "rope_theta": 500000.0})
    assert main(["inspect", str(path), "--json", "--strict"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert [f["code"] for f in data["findings"]] == ["rope-theta"]
    assert main(["inspect", str(path), "--json"]) == 0  # without --strict: status 0 whatever is found


def test_flags_default_off(tmp_path, capsys):
    assert main(["inspect", "--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "--json print the schedule and findings as JSON" in text and "--strict exit with status 1" in text
    # off by default: a table (not JSON), and status 0 though something is found
    path = _config(tmp_path, rope_parameters={"rope_type": "default", "rope_theta": 500000.0})
    assert main(["inspect", str(path)]) == 0
    out = capsys.readouterr().out
    assert "┃ layers ┃ encoding · span" in out and "warning [rope-theta]" in out
    assert not out.lstrip().startswith("{")


def test_a_config_without_rope_theta_is_not_no_warnings(tmp_path, capsys):
    # the help promises a warning for a base left at its default: a config.json with no base at all has one
    path = tmp_path / "config.json"
    path.write_text(json.dumps({"model_type": "llama", "hidden_size": 64, "num_attention_heads": 4,
                                "num_hidden_layers": 2}))
    assert main(["inspect", str(path)]) == 0
    out = capsys.readouterr().out
    assert "no warnings" not in out and "warning [rope-theta]: the config has no rope_theta" in out


def test_a_malformed_field_exits_2_with_one_line(tmp_path, capsys):
    path = _config(tmp_path, rope_parameters={"rope_type": "default", "rope_theta": 10000.0}, head_dim="16")
    assert main(["inspect", str(path), "--json"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and "Traceback" not in captured.err
    assert captured.err.strip().endswith('config.json field "head_dim" = "16" (a string): expected an integer >= 0 '
                                         "(the width of each attention head; 0 where the model derives it); fix: "
                                         "write 16 without quotes")


def test_json_names_the_source_and_the_model_type(tmp_path, capsys):
    # the JSON's four keys, and where the schedule came from: the config file as given, and its model_type
    path = _config(tmp_path, rope_parameters={"rope_type": "default", "rope_theta": 10000.0})
    assert main(["inspect", str(path), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert list(data) == ["source", "model_type", "layers", "findings"]
    assert data["source"] == str(path) and data["model_type"] == "llama"
