"""When two runs of the same report agree: the same verdicts, and every estimate (value and interval ends) equal
up to float32 round-off. Thread count and process layout change the order of float sums, nothing else."""

from __future__ import annotations

import math
from typing import Any

#: numbers may differ by float32 round-off between runs: relative 1e-4 or absolute 1e-6
REL, ABS = 1e-4, 1e-6


def close(a: Any, b: Any) -> bool:
    """Equal up to :data:`REL` / :data:`ABS` (strings and infinities exactly)."""
    if isinstance(a, str) or isinstance(b, str):
        return a == b
    if math.isinf(a) or math.isinf(b):
        return a == b
    return abs(a - b) <= max(ABS, REL * max(abs(a), abs(b)))


def assert_reports_agree(one: list[dict], two: list[dict]) -> None:
    """Two ``report.json`` claim lists: same claims in the same order, same verdicts, close estimates."""
    assert [c["id"] for c in one] == [c["id"] for c in two]
    for a, b in zip(one, two, strict=True):
        assert a["verdict"]["status"] == b["verdict"]["status"], (a["id"], a["verdict"], b["verdict"])
        assert (a["estimates"] or {}).keys() == (b["estimates"] or {}).keys(), a["id"]
        for name, ea in (a["estimates"] or {}).items():
            eb = b["estimates"][name]
            for key in ("value", "low", "high"):
                assert close(ea[key], eb[key]), (a["id"], name, key, ea[key], eb[key])
