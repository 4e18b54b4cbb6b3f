"""What the Chinese page's tests read: the committed reports, and where an English sentence is left in a text.

An English sentence, for the page in Chinese, is a run of at least three words of Latin letters, each of two or
more letters and not in capitals after its first (``the probe reads``, ``The claim is``), one space apart, outside
what stays as written in both languages: code between backticks, a quoted word or sentence between single quotes
(``'king'``, ``'The sequence length was limited to 128 tokens'``), and ``et al.`` after an author. So names
(``RoPE``, ``all-MiniLM-L6-v2``, ``SmolLM2-135M``, ``FFN``), statistics (``max_abs``), numbers, formulas
(``N(0, 1/d) x sqrt(d)``) and two-word terms kept beside their Chinese (``token accuracy（词元准确率）``) are not
sentences, while any three English words in a row are.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

REPORTS = Path(__file__).parents[2] / "docs" / "reports"
#: the three committed reports every reason and scope of which must read in Chinese
COMMITTED = ("quick", "full", "extended")

_KEPT = re.compile(r"`[^`]*`|'[^']*'|\bet al\.")
_SENTENCE = re.compile(r"(?<![\w-])[A-Za-z][a-z]+(?: [A-Za-z][a-z]+){2,}(?![\w-])")


def english_sentences(text: str) -> list[str]:
    """The English sentences left in ``text`` (module docstring)."""
    return _SENTENCE.findall(_KEPT.sub(" ", text))


def committed_claims(names: tuple[str, ...] = COMMITTED) -> list[tuple[str, dict[str, Any]]]:
    """``(report name, claim record)`` of every claim of the committed reports ``names``."""
    return [(name, claim) for name in names
            for claim in json.loads((REPORTS / f"{name}.json").read_text(encoding="utf-8"))["claims"]]


def committed_text() -> str:
    """Every string of every committed report (its records' words and its reasons among them), one a line, to tell
    a wording of an earlier ledger that a report still shows from one no report holds."""
    found: set[str] = set()

    def walk(value: Any) -> None:
        if isinstance(value, str):
            found.add(value)
        elif isinstance(value, dict):
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    for path in sorted(REPORTS.glob("*.json")):
        walk(json.loads(path.read_text(encoding="utf-8")))
    return "\n".join(sorted(found))
