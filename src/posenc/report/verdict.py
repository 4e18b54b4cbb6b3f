"""A verdict on one claim, decided from measured numbers by the claim's criterion (never written by hand).

Four outcomes come from a criterion:

- ``supported``: the numbers show what the claim says;
- ``refuted``: the numbers show the opposite;
- ``qualified``: the claim holds only under a condition, which the verdict names;
- ``not testable``: this machine cannot test it (the reason says why).

A fifth, ``failed``, is set by the runner when the experiment raised: the claim has no numbers, only the error.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from posenc.errors import PosencError

__all__ = ["Verdict", "STATUSES", "supported", "refuted", "qualified", "not_testable", "failed"]

#: every status a verdict can have, in the order the summary counts them
STATUSES = ("supported", "qualified", "refuted", "not testable", "failed")


@dataclass(frozen=True)
class Verdict:
    """``status`` (one of :data:`STATUSES`), ``reason`` (the numbers that decided it), ``condition`` (qualified only)."""

    status: str
    reason: str
    condition: str | None = None

    def __post_init__(self) -> None:
        if self.status not in STATUSES:
            raise PosencError(f"verdict status must be one of {STATUSES}, got {self.status!r}")
        if self.status == "qualified" and not self.condition:
            raise PosencError("a qualified verdict must name its condition (condition='...')")

    @property
    def label(self) -> str:
        """What the summary table shows: the status, and for ``qualified`` its condition."""
        return f"qualified: {self.condition}" if self.status == "qualified" else self.status

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def supported(reason: str) -> Verdict:
    return Verdict("supported", reason)


def refuted(reason: str) -> Verdict:
    return Verdict("refuted", reason)


def qualified(condition: str, reason: str) -> Verdict:
    return Verdict("qualified", reason, condition)


def not_testable(reason: str) -> Verdict:
    return Verdict("not testable", reason)


def failed(error: str) -> Verdict:
    return Verdict("failed", error)
