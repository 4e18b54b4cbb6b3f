"""What a report run produced: one :class:`ClaimResult` per claim and the :class:`ReportResult` around them.

Both the runner (:mod:`posenc.report.run`) and the page (:mod:`posenc.report.render`) read these; neither imports
the other.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from posenc.report.claim import Claim, Test
from posenc.report.measurement import Measurement
from posenc.report.reference import References
from posenc.report.verdict import STATUSES, Verdict
from posenc.stats import Estimate

__all__ = ["ClaimResult", "ReportResult", "Side"]


@dataclass
class ClaimResult:
    """One claim's outcome: the verdict, the measurement (``None`` when the experiment failed), and how it was got."""

    claim: Claim
    verdict: Verdict
    measurement: Measurement | None
    quick: bool
    wall_s: float = 0.0
    cached: bool = False
    error: str | None = None
    variants: dict[str, Verdict] = field(default_factory=dict)
    #: what computed the numbers and when, ``{"versions": {...}, "computed_at": ...}`` (``None``: not run)
    provenance: dict[str, Any] | None = None

    @property
    def headline_estimates(self) -> dict[str, Estimate]:
        """The estimates the headline verdict was judged on: the choice's headline option for a claim with a
        :class:`~posenc.report.claim.Choice`, else the measurement's (empty without a measurement)."""
        m = self.measurement
        if m is None:
            return {}
        choice = self.claim.choice
        if choice is not None and choice.headline in m.variants:
            return m.variants[choice.headline]
        return m.estimates

    @property
    def scope(self) -> str:
        """What the numbers rest on (:attr:`Measurement.scope`), ``""`` without a measurement or without numbers."""
        m = self.measurement
        return m.scope if m is not None and not m.missing else ""

    def sides(self) -> list[Side]:
        """Each requirement and test with its measured number beside its null's (headline estimates; ``None``
        where the experiment gave none, as when it did not run)."""
        found = self.headline_estimates
        return [Side(t, kind, found.get(t.statistic), found.get(t.null) if t.null else None)
                for kind, tests in (("requires", self.claim.requires), ("tests", self.claim.tests)) for t in tests]

    def as_dict(self) -> dict[str, Any]:
        """Everything but the figure (report.json)."""
        m = self.measurement.to_json() if self.measurement else None
        c = self.claim
        return {"id": c.id, "source": c.source, "origin": c.origin, "title": c.title, "title_zh": c.title_zh, "claim": c.claim,
                "quote": c.quote, "experiment": c.experiment, "criterion": c.criterion_text,
                "null": c.null, "hedged": c.hedged, "not_hedged": c.not_hedged,
                "tests": [dataclasses.asdict(t) for t in c.tests],
                "requires": [dataclasses.asdict(t) for t in c.requires],
                "sides": [side.as_dict() for side in self.sides()],
                "choice": dataclasses.asdict(c.choice) if c.choice else None,
                "verdict": self.verdict.as_dict(), "variants": {k: v.as_dict() for k, v in self.variants.items()},
                "quick": self.quick, "wall_s": round(self.wall_s, 3), "cached": self.cached, "error": self.error,
                "setup": m["setup"] if m else None, "scope": m["scope"] if m else None,
                "estimates": m["estimates"] if m else None,
                "estimates_by_choice": m["variants"] if m else None, "missing": m["missing"] if m else None,
                "numbers": m["numbers"] if m else None, "rows": m["rows"] if m else None,
                "provenance": self.provenance}


@dataclass(frozen=True)
class Side:
    """One requirement or test of a claim (``kind``: ``"requires"`` or ``"tests"``) with its measured number and its
    null's, side by side (``None``: not measured, or the test names no null; then ``test.no_null`` says why)."""

    test: Test
    kind: str
    measured: Estimate | None
    null: Estimate | None

    def as_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "statistic": self.test.statistic, "role": self.test.role,
                "measured": self.measured.as_dict() if self.measured is not None else None,
                "null_estimate": self.test.null or None,
                "null": self.null.as_dict() if self.null is not None else None, "no_null": self.test.no_null or None}


@dataclass
class ReportResult:
    """What :func:`run_report` wrote and found."""

    out_dir: Path
    index_html: Path
    report_json: Path
    results: list[ClaimResult]
    quick: bool
    store_path: Path | None
    store_note: str | None = None
    wall_s: float = 0.0
    computed: list[str] = field(default_factory=list)
    seeds: int | None = None
    thresholds: str | None = None
    #: where the device-aware experiments (lab, extend) computed: ``{"device": "cpu", "dtype": "float32"}``
    setup: dict[str, str] = field(default_factory=lambda: {"device": "cpu", "dtype": "float32"})
    #: the committed full and extended runs shown beside this one's verdicts (``None``: not looked for)
    references: References | None = None
    #: whether the claims past the report's time budget were run (``--extended``)
    extended: bool = False
    #: the explorer page written beside ``index.html`` (``None``: it could not be written; a warning said why)
    explorer_html: Path | None = None

    @property
    def counts(self) -> dict[str, int]:
        return {s: sum(r.verdict.status == s for r in self.results) for s in STATUSES}
