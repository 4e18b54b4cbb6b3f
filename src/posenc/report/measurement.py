"""What the report stores of one experiment, and what a page shows of it.

A :class:`Measurement` is one experiment's result as the results store and ``report.json`` keep it: what the
experiment measured (its estimates, variants, numbers; :class:`~posenc.report.experiments.base.Measured`) joined with
what its page shows (:class:`Shown`, built by :mod:`posenc.report.present`):

- ``rows``: the small table the page shows, each measured value (an ``Estimate`` where sampled) beside its baseline
  or published anchor (:class:`Row`);
- ``figure``: an optional matplotlib ``Figure`` (stored as a PNG);
- ``setup``: one sentence saying what ran, with its sizes (quick and full mode differ here);
- ``scope``: what the numbers rest on, in a few words the verdict line repeats ("all-MiniLM-L6-v2, 128-token
  windows, 64 windows"; "2-layer lab models of width 64, 3 seeds, trained at 32 tokens").
"""

from __future__ import annotations

import base64
import io
from dataclasses import dataclass, field
from typing import Any

from matplotlib.figure import Figure

from posenc.stats import Estimate, jsonable

__all__ = ["Row", "Measurement", "Shown", "figure_to_png"]


@dataclass
class Row:
    """One line of a claim's numbers table: the measured value beside its anchor (baseline, published, expected)."""

    quantity: str
    measured: Any
    anchor: Any = None
    anchor_label: str = ""

    def as_dict(self) -> dict[str, Any]:
        return {"quantity": self.quantity, "measured": jsonable(self.measured), "anchor": jsonable(self.anchor),
                "anchor_label": self.anchor_label}


@dataclass
class Measurement:
    """One experiment's stored result (see the module docstring)."""

    numbers: dict[str, Any]
    rows: list[Row] = field(default_factory=list)
    figure: Figure | None = None
    setup: str = ""
    estimates: dict[str, Estimate] = field(default_factory=dict)
    variants: dict[str, dict[str, Estimate]] = field(default_factory=dict)
    missing: str | None = None
    missing_status: str | None = None
    command: str | None = None
    figure_png: str | None = None  # base64 PNG: filled from ``figure`` when stored, or read back from the store
    scope: str = ""

    def to_json(self) -> dict[str, Any]:
        """A JSON-serialisable dict (the figure as base64 PNG) for the results store."""
        png = self.figure_png
        if png is None and self.figure is not None:
            png = figure_to_png(self.figure)
        return {"estimates": {k: e.as_dict() for k, e in self.estimates.items()},
                "variants": {o: {k: e.as_dict() for k, e in v.items()} for o, v in self.variants.items()},
                "missing": self.missing, "missing_status": self.missing_status, "command": self.command,
                "numbers": jsonable(self.numbers), "rows": [r.as_dict() for r in self.rows], "setup": self.setup,
                "scope": self.scope, "figure_png": png}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Measurement:
        rows = [Row(r["quantity"], _estimate_back(r["measured"]), _estimate_back(r["anchor"]), r["anchor_label"])
                for r in data.get("rows", [])]
        return cls(numbers=data["numbers"], rows=rows, setup=data.get("setup", ""), figure_png=data.get("figure_png"),
                   estimates={k: Estimate.from_dict(e) for k, e in data.get("estimates", {}).items()},
                   variants={o: {k: Estimate.from_dict(e) for k, e in v.items()}
                             for o, v in data.get("variants", {}).items()},
                   missing=data.get("missing"), missing_status=data.get("missing_status"),
                   command=data.get("command"), scope=data.get("scope", ""))


@dataclass
class Shown:
    """What the page shows of one experiment: its numbers table, one sentence saying what ran with its sizes, what
    the numbers rest on (the verdict line repeats it) and the figure (see the module docstring)."""

    rows: list[Row]
    setup: str
    scope: str = ""
    figure: Figure | None = None


def figure_to_png(figure: Figure, dpi: int = 110) -> str:
    """A ``Figure`` as base64-encoded PNG text (what the page embeds as ``data:image/png;base64,...``)."""
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=dpi)
    return base64.b64encode(buffer.getvalue()).decode("ascii")


def _estimate_back(value: Any) -> Any:
    """A row cell read back from JSON: an estimate's dict becomes an :class:`Estimate` again."""
    if isinstance(value, dict) and {"value", "low", "high", "n", "method"} <= set(value):
        return Estimate.from_dict(value)
    return value
