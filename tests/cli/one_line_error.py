"""The check every bad-input table of the command line shares: status 2, no traceback, the message's fragments, one
``error:`` line, and the folder as it was."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from posenc.cli import main


def check_one_line_error(argv: list[str], fragments: list[str], tmp: Path, capsys: Any,
                         snapshot: Callable[[Path], Any]) -> None:
    """Run ``posenc argv`` (``{tmp}`` standing for ``tmp``) and require a usage error of one line holding every
    fragment, with ``snapshot(tmp)`` unchanged: nothing written, no folder made."""
    before = snapshot(tmp)
    argv = [arg.replace("{tmp}", str(tmp)) for arg in argv]
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    message = " ".join(err.split())  # usage errors are framed over a few lines; the message is what counts
    for fragment in fragments:
        assert fragment.replace("{tmp}", str(tmp)) in message, err
    errors = [line for line in err.splitlines() if line.startswith(("error:", "Error:"))]
    assert len(errors) == 1, err  # one line says what was wrong
    assert snapshot(tmp) == before
