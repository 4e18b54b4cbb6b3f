"""The documentation of a settings dataclass's fields, read from the ``Attributes:`` section of its docstring.

A settings dataclass documents each field once, in its docstring, the Google way::

    Attributes:
        lengths: evaluation lengths in tokens, e.g. 2k,4k,8k (default 2k,4k,8k,16k).
        depths, trials: passkey depths in [0, 1] and trials per depth; a long entry
            goes on, indented, on the next lines.

An entry may name several fields (``depths, trials``); they share its text. That text is the field's API
documentation and the help of its command-line option (:mod:`posenc.cli.settings`), so the two cannot drift apart.
For the command line, reStructuredText markup is taken off: ``x`` and `x` become x, a quoted literal ``"name"``
becomes name, and a cross-reference :mod:`posenc.extend.perplexity` becomes posenc.extend.perplexity (:meth:`~RunConfig.as_dict`
becomes as_dict).
"""

from __future__ import annotations

import inspect
import re

__all__ = ["field_docs", "plain_text"]

_SECTION = "Attributes:"
_ENTRY = re.compile(r"^(\w+(?:\s*,\s*\w+)*)\s*:\s*(.*)$")
_ROLE = re.compile(r":[a-z]+:`(~?)([^`]+)`")
_QUOTED_LITERAL = re.compile(r"``([\"'])([^`\"']*)\1``")
_LITERAL = re.compile(r"``([^`]+)``")
_INTERPRETED = re.compile(r"`([^`]+)`")


def plain_text(text: str) -> str:
    """``text`` without reStructuredText markup and with its whitespace collapsed to single spaces."""
    text = _ROLE.sub(lambda m: m.group(2).rsplit(".", 1)[-1] if m.group(1) else m.group(2), text)
    text = _QUOTED_LITERAL.sub(r"\2", text)
    text = _LITERAL.sub(r"\1", text)
    text = _INTERPRETED.sub(r"\1", text)
    return " ".join(text.split())


def field_docs(cls: type) -> dict[str, str]:
    """Field name -> its documentation (plain text) from the ``Attributes:`` section of ``cls``'s docstring.

    Fields the section does not name are absent; a class without the section gives ``{}``.
    """
    lines = inspect.cleandoc(cls.__doc__ or "").splitlines()
    try:
        start = next(i for i, line in enumerate(lines) if line.strip() == _SECTION)
    except StopIteration:
        return {}
    header_indent = len(lines[start]) - len(lines[start].lstrip())
    entries: list[tuple[list[str], list[str]]] = []
    entry_indent = None
    for line in lines[start + 1:]:
        if not line.strip():
            continue
        indent = len(line) - len(line.lstrip())
        if indent <= header_indent:
            break  # the next section or paragraph
        if entry_indent is None:
            entry_indent = indent
        match = _ENTRY.match(line.strip()) if indent == entry_indent else None
        if match:
            names = [name.strip() for name in match.group(1).split(",")]
            entries.append((names, [match.group(2)]))
        elif entries:
            entries[-1][1].append(line.strip())  # a continuation line
    return {name: plain_text(" ".join(text)) for names, text in entries for name in names}
