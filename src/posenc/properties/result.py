"""What a property check returns: a verdict with the numbers behind it.

Every property answers one claim about an encoding (e.g. "values stay in [-1, 1]", tutorial 001 §3.1) with

- ``numbers``: the measured values (JSON-able: floats, ints, strings, short lists, ``None``),
- ``verdict``: ``"holds"``, ``"fails"``, ``"n.a."`` (the claim does not apply to this encoding, ``reason`` says why)
  or ``"error"`` (an internal error; the CLI exits non-zero),
- ``reason``: one sentence a reader can check against the numbers.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from posenc.stats import jsonable

__all__ = ["HOLDS", "FAILS", "NA", "ERROR", "VERDICTS", "PropertyResult", "CheckReport", "NotApplicable", "jsonable"]

HOLDS, FAILS, NA, ERROR = "holds", "fails", "n.a.", "error"
VERDICTS = (HOLDS, FAILS, NA, ERROR)


class NotApplicable(Exception):  # noqa: N818  (a verdict, not a failure)
    """Raised inside a property when its claim does not apply to the encoding; the message is the reason."""


@dataclass
class PropertyResult:
    """One property of one encoding: ``name``, ``verdict``, ``numbers``, ``reason``, and the claim it tests."""

    name: str
    verdict: str
    numbers: dict[str, Any] = field(default_factory=dict)
    reason: str = ""
    claim: str = ""
    source: str = ""

    def __post_init__(self) -> None:
        if self.verdict not in VERDICTS:
            raise ValueError(f"verdict must be one of {VERDICTS}, got {self.verdict!r}")

    @property
    def headline(self) -> str:
        """The first number, formatted for a table cell."""
        if not self.numbers:
            return ""
        key, value = next(iter(self.numbers.items()))
        return f"{key} = {format_number(value)}"

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "verdict": self.verdict, "numbers": jsonable(self.numbers), "reason": self.reason,
                "claim": self.claim, "source": self.source}


def format_number(value: Any) -> str:
    """Short human form: 4 significant digits for floats, lists abbreviated."""
    if isinstance(value, bool) or value is None:
        return str(value)
    if isinstance(value, float):
        return f"{value:.4g}"
    if isinstance(value, (list, tuple)):
        items = [format_number(v) for v in value[:6]]
        return "[" + ", ".join(items) + (", ..." if len(value) > 6 else "") + "]"
    return str(value)


@dataclass
class CheckReport:
    """All properties of one encoding at one ``(d_model, length)``."""

    encoding: str
    options: dict[str, Any]
    d_model: int
    length: int
    family: str
    hooks: tuple[str, ...]
    results: list[PropertyResult]
    wall_s: float = 0.0
    label: str = ""
    notes: list[str] = field(default_factory=list)

    def __getitem__(self, name: str) -> PropertyResult:
        for result in self.results:
            if result.name == name:
                return result
        raise KeyError(f"no property {name!r}; properties are: {', '.join(r.name for r in self.results)}")

    @property
    def ok(self) -> bool:
        """``True`` when no property hit an internal error."""
        return all(r.verdict != ERROR for r in self.results)

    def to_dict(self) -> dict[str, Any]:
        return {"encoding": self.encoding, "label": self.label or self.encoding, "options": jsonable(self.options),
                "d_model": self.d_model, "length": self.length, "family": self.family, "hooks": list(self.hooks),
                "wall_s": round(self.wall_s, 4), "notes": list(self.notes),
                "properties": [r.to_dict() for r in self.results]}
