"""Output in a pipe or a log, and ``--json`` (posenc.cli.output): no colour or cursor codes, no sentence wrapped at 80
columns, and every command that prints a table can give it as JSON (``-`` for standard output)."""

import io
import json
import subprocess
import sys

import pytest

import posenc
from posenc.cli import main
from posenc.cli.output import STDOUT, json_target, write_json
from posenc.errors import PosencError

#: every registered encoding, in the order `posenc list` gives them (by name)
NAMES = posenc.available()

CLI = [sys.executable, "-c", "import sys; from posenc.cli import main; sys.exit(main())"]
TINY_TRAIN = ["train", "--steps", "3", "--warmup", "1", "--train-len", "4", "--eval-lengths", "4", "--d-model", "16",
              "--n-heads", "2", "--n-layers", "1", "--eval-samples", "4"]


def test_piped_output_has_no_codes_and_no_wrapped_lines(tmp_path, capsys):
    done = subprocess.run(CLI + [*TINY_TRAIN, "--store", str(tmp_path / "runs.sqlite")], capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    for stream in (done.stdout, done.stderr):
        assert "\x1b[" not in stream and "\r" not in stream
    wall = [line for line in done.stdout.splitlines() if line.startswith("wall time")]
    assert len(wall) == 1 and "final training loss" in wall[0]  # was broken before "0.5472" at 80 columns
    # the same in this process, where standard output is captured (not a terminal, as a pipe)
    assert main(["check", "rope", "--length", "16", "--d-model", "8"]) == 0
    out = capsys.readouterr().out
    assert "\x1b[" not in out
    row = next(line for line in out.splitlines() if "bounded" in line)
    assert "a rotation keeps norms: the gain is 1 at every position (the attention factor)" in row


def test_list_as_json(capsys):
    assert main(["list", "--json", "-"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [row["name"] for row in rows] == NAMES
    assert set(rows[0]) == {"name", "family", "hooks", "paper"}
    assert {row["name"]: row["hooks"] for row in rows}["rope"] == ["rotate"]


def test_list_json_to_a_file(tmp_path, capsys):
    assert main(["list", "--json", str(tmp_path / "list.json")]) == 0
    assert [row["name"] for row in json.loads((tmp_path / "list.json").read_text())] == NAMES
    out = capsys.readouterr().out
    assert "posenc encodings" in out  # the table is printed too
    assert out.splitlines()[-1] == f"wrote {tmp_path / 'list.json'}"


def test_json_to_standard_output_prints_nothing_else(capsys):
    # with --json -, standard output is the JSON alone (the table would break a reader of it)
    assert main(["list", "--json", "-"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("[") and "posenc encodings" not in out and "wrote" not in out
    json.loads(out)


def test_json_target_and_write_json(tmp_path, capsys):
    assert json_target(None) is None and json_target("-") == STDOUT
    assert json_target(tmp_path / "x.json") == tmp_path / "x.json"
    with pytest.raises(PosencError, match=r"^--json must end in .json, got 'x.txt'"):
        json_target(tmp_path / "x.txt")
    assert write_json({"a": 1}, None) is None and capsys.readouterr().out == ""
    assert write_json({"a": 1}, STDOUT) is None and capsys.readouterr().out == '{\n "a": 1\n}\n'
    assert write_json({"a": 1}, tmp_path / "x.json") == str(tmp_path / "x.json")
    assert (tmp_path / "x.json").read_text() == '{\n "a": 1\n}\n'  # indented by one, a final newline


def test_show_as_json(tmp_path, capsys):
    assert main(["show", "alibi", "--length", "16", "--out", str(tmp_path / "a.png"), "--json", "-"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["name"] == "alibi" and summary["family"] == "bias" and summary["value range"] == "[-7.5, -0]"


def test_train_as_json(capsys):
    assert main([*TINY_TRAIN, "--json", "-"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["config"]["steps"] == 3 and result["seed"] == 0 and set(result["metrics"]["by_length"]) == {"4"}


def test_threads_zero_means_torchs_choice_in_train(monkeypatch, capsys):
    # --threads 0 leaves torch's thread count alone; --threads 2 sets it (check's own: tests/cli/test_check.py)
    import torch

    class Trained(Exception):
        pass

    def train_run(*args, **kwargs):
        raise Trained  # the threads are set just before: stop here

    calls = []
    monkeypatch.setattr(torch, "set_num_threads", calls.append)
    monkeypatch.setattr("posenc.lab.train_run", train_run)
    for threads, set_to in (("0", []), ("1", [1]), ("2", [2])):
        calls.clear()
        with pytest.raises(Trained):
            main([*TINY_TRAIN, "--threads", threads])
        assert calls == set_to


def test_a_bias_heatmap_past_a_thousand_positions_is_sampled(tmp_path, capsys):
    # at 15 000 positions the bias took 15 GB and 50 s; it is drawn at 1024 evenly spaced positions instead
    assert main(["show", "alibi", "--length", "1000000", "--out", str(tmp_path / "a.png")]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "bias of head 0 (1024 of 1000000 positions)" in out and "shape [1024, 1024]" in out
    assert (tmp_path / "a.png").read_bytes()[:4] == b"\x89PNG"


class _Terminal(io.StringIO):
    def isatty(self):
        return True


def test_the_printer_suits_the_stream_at_each_call(monkeypatch):
    from posenc.cli.output import Printer

    printer = Printer(width=20)
    sentence = " ".join(["word"] * 10)  # 49 characters
    pipe, terminal, err = io.StringIO(), _Terminal(), io.StringIO()
    monkeypatch.setattr(sys, "stdout", pipe)
    printer.print(f"[bold]{sentence}[/bold]")
    assert pipe.getvalue() == sentence + "\n"  # a pipe: one line, no codes
    monkeypatch.setattr(sys, "stdout", terminal)
    printer.print(sentence)
    lines = terminal.getvalue().splitlines()
    assert len(lines) == 3 and all(len(line) <= 20 for line in lines)  # a terminal: its width (here 20)
    monkeypatch.setattr(sys, "stderr", err)
    Printer(stderr=True).print("to standard error")
    assert err.getvalue() == "to standard error\n" and terminal.getvalue().count("\n") == 3


def test_help_on_a_terminal_is_typers_and_in_a_pipe_plain(monkeypatch, capsys):
    assert main(["check", "--help"]) == 0
    plain = capsys.readouterr().out
    assert "╭" not in plain and "Options:" in plain
    monkeypatch.setattr("posenc.cli.command.is_terminal", lambda stream: True)
    assert main(["check", "--help"]) == 0
    assert "╭" in capsys.readouterr().out  # typer's boxes, as a terminal shows them
