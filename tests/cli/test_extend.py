"""``posenc extend``'s own parsing and switches (posenc.cli.extend): ``--lengths`` token counts with ``k`` for 1024,
and ``--plan``, which checks no ``--out`` folder because it writes none."""

import pytest

from posenc.cli import main
from posenc.cli.extend import token_counts
from posenc.errors import PosencError


@pytest.mark.parametrize("text, counts", [
    ("2048", [2048]),
    ("4k", [4096]),  # 4 x 1024
    ("4K", [4096]),
    ("2k,4k,8k", [2048, 4096, 8192]),
    ("1.5k", [1536]),  # 1.5 x 1024, a whole number of tokens
    ("0.5k, 6144", [512, 6144]),
    ("12k", [12288]),  # 12 x 1024: the quick plan's longest length
])
def test_token_counts_read_k_as_1024(text, counts):
    assert token_counts(text, "--lengths") == counts


GENERIC = "--lengths must be comma-separated token counts such as 2048,4096 or 2k,4k, got "


BAD_COUNTS = [
    ("lots", GENERIC + "'lots'"),
    ("4k,lots", GENERIC + "'4k,lots'"),
    ("2.5", GENERIC + "'2.5'"),  # a count without k is written in whole tokens
    ("k", GENERIC + "'k'"),
    ("nank", GENERIC + "'nank' (nank is not a finite number)"),
    ("infk", GENERIC + "'infk' (infk is not a finite number)"),  # was an OverflowError: a traceback
    ("2k,-infk", GENERIC + "'2k,-infk' (-infk is not a finite number)"),
    ("0.1k", "--lengths 0.1k is 102.4 tokens, not a whole number; write a whole count, e.g. --lengths 102"),  # was 102
    ("4k,1.0001k", "--lengths 1.0001k is 1024.1 tokens, not a whole number; write a whole count, e.g. --lengths 1024"),
]


@pytest.mark.parametrize("text, message", BAD_COUNTS, ids=[text for text, _ in BAD_COUNTS])
def test_text_that_is_no_whole_token_count_is_one_clear_error(text, message):
    with pytest.raises(PosencError) as caught:
        token_counts(text, "--lengths")
    assert str(caught.value) == message


def test_an_infinite_or_fractional_length_exits_2_with_no_traceback(capsys):
    for text, fragment in (("infk", "(infk is not a finite number)"), ("0.1k", "0.1k is 102.4 tokens")):
        assert main(["extend", "--lengths", text, "--plan"]) == 2
        out, err = capsys.readouterr()
        assert "Traceback" not in out + err
        assert err.startswith("error: --lengths") and fragment in err


@pytest.fixture
def stopped_run(monkeypatch, tmp_path):
    """``run_extend`` replaced by a stand-in that records its keyword arguments; commands run in an empty folder."""
    seen = {}

    def run_extend(config, **kwargs):
        seen.update(kwargs, config=config)
        return {}

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("posenc.extend.run_extend", run_extend)
    return seen


def test_plan_checks_no_out_folder_and_a_run_does(stopped_run, tmp_path, capsys):
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    # --plan writes nothing to --out, so a file there is no error ...
    assert main(["extend", "--plan", "--out", str(blocker), "--store", str(tmp_path / "s.sqlite")]) == 0
    assert stopped_run["plan_only"] is True and stopped_run["out_dir"] == blocker
    # ... and the same command line without --plan is refused before any work
    stopped_run.clear()
    assert main(["extend", "--out", str(blocker), "--store", str(tmp_path / "s.sqlite")]) == 2
    assert f"error: --out {blocker} is a file, not a folder; pass a writable folder with --out DIR" in \
        " ".join(capsys.readouterr().err.split())
    assert stopped_run == {}


def test_own_defaults_as_parsed(stopped_run, tmp_path):
    from pathlib import Path

    assert main(["extend", "--plan"]) == 0
    # --store runs/extend.sqlite, --out runs/extend, progress shown, --plan off
    assert stopped_run["store_path"] == Path("runs/extend.sqlite") and stopped_run["out_dir"] == Path("runs/extend")
    assert stopped_run["progress"] is True and stopped_run["plan_only"] is True
    assert list(tmp_path.iterdir()) == []  # the stand-in ran nothing, and no folder was made for it


def test_text_that_is_a_folder_is_refused(stopped_run, tmp_path, capsys):
    assert main(["extend", "--text", str(tmp_path), "--plan"]) == 2
    assert f"error: --text {tmp_path} is not a file; pass a UTF-8 text file, or leave --text out for Shakespeare's " \
           f"plays" in " ".join(capsys.readouterr().err.split())
    assert stopped_run == {}


def test_download_only_when_asked_and_before_the_run(stopped_run, monkeypatch):
    fetched = []
    monkeypatch.setattr("posenc.pretrained.download", lambda model: fetched.append((model, dict(stopped_run))))
    assert main(["extend", "org/model", "--plan"]) == 0
    assert fetched == []  # without --download posenc never uses the network
    stopped_run.clear()
    assert main(["extend", "org/model", "--plan", "--download"]) == 0
    assert fetched == [("org/model", {})]  # fetched before run_extend was called


@pytest.mark.parametrize("threads, set_to", [("0", []), ("1", [1]), ("3", [3])])
def test_threads_zero_leaves_torch_alone(stopped_run, monkeypatch, threads, set_to):
    import torch

    calls = []
    monkeypatch.setattr(torch, "set_num_threads", calls.append)
    assert main(["extend", "--plan", "--threads", threads]) == 0
    assert calls == set_to
