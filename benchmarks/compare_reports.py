"""Compare the verdicts of two reports claim by claim (quick against full, or one run against its re-run).

    python benchmarks/compare_reports.py QUICK/report.json FULL/report.json [--markdown]

For every claim: the two verdicts, and whether the pair is faithful (equal, or the first is inconclusive: quick mode
may be less decided than full mode, never decided differently). With --markdown, prints the table docs/report.md
shows. Exit status 1 when a pair is not faithful.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def verdicts(path: Path) -> dict[str, str]:
    data = json.loads(path.read_text())
    return {c["id"]: c["verdict"]["status"] for c in data["claims"]}


def faithful(first: str, second: str) -> bool:
    return first == second or first == "inconclusive"


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("first", type=Path)
    p.add_argument("second", type=Path)
    p.add_argument("--markdown", action="store_true")
    args = p.parse_args()
    a, b = verdicts(args.first), verdicts(args.second)
    ids = list(a) + [c for c in b if c not in a]
    broken = 0
    if args.markdown:
        print("| claim | quick | full | |\n|---|---|---|---|")
    for cid in ids:
        x, y = a.get(cid, "-"), b.get(cid, "-")
        ok = faithful(x, y)
        broken += not ok
        mark = "same" if x == y else ("less decided" if ok else "CONTRADICTS")
        print(f"| `{cid}` | {x} | {y} | {mark} |" if args.markdown else f"{cid:36s} {x:13s} {y:13s} {mark}")
    same = sum(a.get(c) == b.get(c) for c in ids)
    print(f"\n{len(ids)} claims: {same} same, {len(ids) - same - broken} less decided in the first, {broken} "
          "contradicting")
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
