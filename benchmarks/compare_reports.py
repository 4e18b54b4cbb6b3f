"""Compare the verdicts of two reports claim by claim (quick against full, or one run against its re-run).

    python benchmarks/compare_reports.py QUICK/report.json FULL/report.json [--markdown]
    python benchmarks/compare_reports.py BEFORE/report.json AFTER/report.json --same   # a restructuring changed nothing

For every claim: the two verdicts, and whether the pair is faithful (equal, or the first is less decided: inconclusive,
not decided in quick mode, or not run; quick mode may be less decided than full mode, never decided differently). A
claim not run in the second report has nothing to compare. With --markdown, prints the table docs/report.md shows.
Exit status 1 when a pair is not faithful.

With --same: the two reports must be the same report, claim by claim: every field of report.json but the ones that
say how it ran (its wall time, whether it was read from the store). Prints each difference; exit status 1 when there
is one.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def verdicts(path: Path) -> dict[str, str]:
    data = json.loads(path.read_text())
    return {c["id"]: c["verdict"]["status"] for c in data["claims"]}


#: statuses that decide nothing, so the other report may hold any verdict
LESS_DECIDED = ("inconclusive", "not decided in quick mode", "not run")


def faithful(first: str, second: str) -> bool:
    return first == second or first in LESS_DECIDED or second == "not run"


#: report.json claim fields that say how a run went, not what it found
RUN_FIELDS = ("wall_s", "cached")


def _timing(key: str) -> bool:
    """A measured time inside a claim's numbers (``cpu_s_all_runs``, ``wall_s``): differs on every run."""
    return key == "wall_s" or key.startswith("cpu_s")


def differences(first: Path, second: Path) -> list[str]:
    """Every place where the two reports' claims differ, outside :data:`RUN_FIELDS`."""
    a = {c["id"]: c for c in json.loads(first.read_text())["claims"]}
    b = {c["id"]: c for c in json.loads(second.read_text())["claims"]}
    out = [f"{cid}: only in {'the first' if cid in a else 'the second'}" for cid in sorted(set(a) ^ set(b))]

    def walk(x, y, where: str) -> None:
        if isinstance(x, dict) and isinstance(y, dict):
            for key in sorted((set(x) | set(y)) - {k for k in set(x) | set(y) if _timing(str(k))}):
                walk(x.get(key, "<absent>"), y.get(key, "<absent>"), f"{where}.{key}")
        elif isinstance(x, list) and isinstance(y, list) and len(x) == len(y):
            for i, (u, v) in enumerate(zip(x, y, strict=True)):
                walk(u, v, f"{where}[{i}]")
        elif x != y:
            out.append(f"{where}: {x!r} != {y!r}")

    for cid in [c for c in a if c in b]:
        walk({k: v for k, v in a[cid].items() if k not in RUN_FIELDS},
             {k: v for k, v in b[cid].items() if k not in RUN_FIELDS}, cid)
    return out


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("first", type=Path)
    p.add_argument("second", type=Path)
    p.add_argument("--markdown", action="store_true")
    p.add_argument("--same", action="store_true", help="require the same report (every finding), not just faithful "
                                                       "verdicts")
    args = p.parse_args()
    if args.same:
        found = differences(args.first, args.second)
        for line in found:
            print(line)
        print(f"{len(found)} differences")
        return 1 if found else 0
    a, b = verdicts(args.first), verdicts(args.second)
    ids = list(a) + [c for c in b if c not in a]
    broken = absent = 0
    if args.markdown:
        print("| claim | quick | full | |\n|---|---|---|---|")
    for cid in ids:
        x, y = a.get(cid, "-"), b.get(cid, "-")
        if "-" in (x, y):  # a claim only one report has (added or removed between them): nothing to compare
            absent += 1
            mark = "in one report only"
        else:
            ok = faithful(x, y)
            broken += not ok
            mark = ("same" if x == y else "not run in the second" if y == "not run" else
                    "less decided" if ok else "CONTRADICTS")
        print(f"| `{cid}` | {x} | {y} | {mark} |" if args.markdown else f"{cid:36s} {x:25s} {y:25s} {mark}")
    same = sum(c in a and c in b and a[c] == b[c] for c in ids)
    print(f"\n{len(ids)} claims: {same} same, {len(ids) - same - broken - absent} less decided in the first, {broken} "
          f"contradicting, {absent} in one report only")
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
