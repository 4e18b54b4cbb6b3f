"""Progress on a terminal is a bar; in a log or a pipe it is plain lines, without carriage returns or cursor codes."""

import io

from posenc.cli import main
from posenc.progress import PlainProgress, is_terminal, progress


class _Terminal(io.StringIO):
    def isatty(self):
        return True


def test_plain_lines_off_a_terminal():
    log = io.StringIO()
    bar = progress(total=4, desc="work", file=log)
    assert isinstance(bar, PlainProgress)
    bar.interval = 0.0  # a line at every update
    for _ in range(4):
        bar.update()
        bar.set_postfix(loss="0.5")
    bar.close()
    lines = log.getvalue().splitlines()
    assert lines[0].startswith("work: 1/4 (25%)") and lines[-1].startswith("work: 4/4 (100%)")
    assert lines[-1].endswith("elapsed, loss=0.5")
    assert "\r" not in log.getvalue() and "\x1b" not in log.getvalue()


def test_a_bar_on_a_terminal_and_nothing_when_disabled():
    from tqdm.auto import tqdm

    term = _Terminal()
    assert is_terminal(term) and not is_terminal(io.StringIO()) and not is_terminal(object())
    bar = progress(range(3), desc="t", file=term)
    assert isinstance(bar, tqdm)
    list(bar)
    quiet = io.StringIO()
    list(progress(range(3), desc="q", file=quiet, disable=True))
    assert quiet.getvalue() == ""


def test_commands_write_plain_progress_to_a_pipe(capsys):
    assert main(["train", "--task", "copy", "--train-len", "3", "--steps", "4", "--d-model", "16", "--n-heads", "2",
                 "--eval-lengths", "3"]) == 0
    err = capsys.readouterr().err
    assert "copy/rope s0: 4/4 (100%)" in err and "\r" not in err and "\x1b[" not in err
    rc = main(["check", "--all", "--d-model", "16", "--length", "64"])
    out, err = capsys.readouterr()
    assert rc == 0, err  # 1 would mean a property hit an internal error
    assert "posenc check: " in err and "(100%)" in err
    assert "\r" not in err + out
