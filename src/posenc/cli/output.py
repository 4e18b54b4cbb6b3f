"""Where commands print: a rich console that suits the stream at the moment of printing, and ``--json`` output.

On a terminal, rich draws as usual (colours, the terminal's width). In a pipe or a log, rich would wrap every line
at 80 columns, mid-sentence; :class:`Printer` then prints with no colour codes and no wrapping (lines as long as they
are, tables as wide as their content). It decides at each call, so a command run under a test's captured output or
a redirected stream prints for that stream.

``--json PATH`` writes a command's result as JSON; ``PATH`` ``-`` writes it to standard output instead (and the
command then prints nothing else there). :func:`json_target` checks the path before any work; :func:`write_json`
writes. Every command that prints a table takes ``--json`` (``list``, ``show``, ``check``, ``train``, ``sweep``,
``bench``).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from rich.console import Console

from posenc.progress import is_terminal

__all__ = ["Printer", "JSON_HELP", "json_target", "write_json", "STDOUT"]

#: the ``--json`` value that means standard output
STDOUT = "-"
#: the width a pipe or a log gets: no wrapping short of it
PIPE_WIDTH = 400
JSON_HELP = "write the result as JSON to this file (- for standard output)"


class Printer:
    """``print(...)`` as :meth:`rich.console.Console.print`, on a console made for the stream as it is now
    (standard output, or standard error with ``stderr=True``)."""

    def __init__(self, stderr: bool = False, width: int | None = None):
        self.stderr, self.width = stderr, width

    def console(self) -> Console:
        stream = sys.stderr if self.stderr else sys.stdout
        if is_terminal(stream):
            return Console(file=stream, width=self.width)
        return Console(file=stream, width=PIPE_WIDTH, soft_wrap=True, color_system=None, highlight=False,
                       emoji=False)

    def print(self, *objects: Any, **options: Any) -> None:
        self.console().print(*objects, **options)


def json_target(path: str | Path | None, option: str = "--json") -> Path | str | None:
    """``None``, :data:`STDOUT`, or the checked file path (:func:`posenc.cli.paths.output_file`, ``.json``)."""
    if path is None or str(path) == STDOUT:
        return None if path is None else STDOUT
    from posenc.cli.paths import output_file

    return output_file(path, option, (".json",), existing_folder=True)


def write_json(data: Any, target: Path | str | None) -> str | None:
    """Write ``data`` to ``target`` (from :func:`json_target`); returns the file written, or ``None`` for standard
    output and for no target."""
    if target is None:
        return None
    text = json.dumps(data, indent=1, default=str)
    if target == STDOUT:
        sys.stdout.write(text + "\n")
        return None
    path = Path(target)
    path.write_text(text + "\n")
    return str(path)
