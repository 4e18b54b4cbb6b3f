"""The verdicts of the last full and ``--extended`` runs, read from committed report.json files, beside this run's.

A full run (``posenc report``, about an hour on 2 cores) and an extended one (``posenc report --extended``) cannot be
recomputed by every page, so whoever runs them on a quiet machine commits their ``report.json`` into
:data:`REFERENCE_DIR` as ``full.json`` and ``extended.json``. Each report.json says what ran: its date
(``created_at``), the commit (``commit``), the machine (``machine``) and the library versions (``versions``); see
:func:`run_identity`. The page shows each claim's verdict in both beside this run's and marks where one differs; a
file that is missing or cannot be read is said on the page, never guessed. A follow-up run of a few claims
(:data:`FOLLOW_UPS`: ``more-seeds.json``) is shown in the sections of the claims it ran.

To refresh them (on an otherwise idle machine; the commands are those of docs/report.md)::

    posenc report --out /tmp/full && cp /tmp/full/report.json docs/reports/full.json
    posenc report --extended --out /tmp/extended && cp /tmp/extended/report.json docs/reports/extended.json
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from posenc.report.verdict import STATUSES

__all__ = ["REFERENCE_DIR", "KINDS", "FOLLOW_UPS", "ReferenceRun", "References", "load_references", "run_identity",
           "source_commit", "machine"]

#: where the committed reference reports live: ``docs/reports`` of the source tree posenc runs from
REFERENCE_DIR = Path(__file__).resolve().parents[3] / "docs" / "reports"
#: the reference runs, by kind: the file and the command that makes it
KINDS = {"full": ("full.json", "posenc report"), "extended": ("extended.json", "posenc report --extended")}
#: follow-up runs of a few claims (their file and command): shown in those claims' sections only, and only when
#: committed; their "not run" claims are left out. ``more-seeds``: the claims an interval left inconclusive, at 10
#: seeds, under the rule fixed before that run (docs/report.md, "More seeds where an interval straddles its bar").
FOLLOW_UPS = {"more-seeds": ("more-seeds.json", "posenc report --seeds 10 --claim ID")}


@dataclass(frozen=True)
class ReferenceRun:
    """One committed report: what ran (``kind``, ``created_at``, ``commit``, ``machine``, ``versions``) and its
    verdict per claim id (``{"status": ..., "condition": ...}``)."""

    kind: str
    path: Path
    created_at: str
    commit: str | None
    machine: dict[str, Any]
    versions: dict[str, str]
    verdicts: dict[str, dict[str, Any]]

    def describe(self) -> str:
        """``full run of 2026-11-26 (commit 1a2b3c4, 2 CPUs, x86_64, Linux; posenc 0.1.0, torch 2.13.0+cpu)``."""
        date = self.created_at.split("T")[0] if self.created_at else "an unknown date"
        commit = f"commit {self.commit[:12]}" if self.commit else "commit not recorded"
        where = ", ".join(str(x) for x in (f"{self.machine['cpus']} CPUs" if self.machine.get("cpus") else None,
                                           self.machine.get("machine"), self.machine.get("system"),
                                           self.machine.get("gpu")) if x) or "machine not recorded"
        libraries = ", ".join(f"{k} {v}" for k, v in self.versions.items() if k in ("posenc", "torch",
                                                                                   "transformers", "python"))
        return f"{self.kind} run of {date} ({commit}, {where}; {libraries or 'versions not recorded'})"


@dataclass(frozen=True)
class References:
    """The reference runs found in ``folder`` (by kind) and, for each kind not shown, why."""

    folder: Path
    runs: dict[str, ReferenceRun] = field(default_factory=dict)
    notes: dict[str, str] = field(default_factory=dict)

    def columns(self) -> list[tuple[str, ReferenceRun | None]]:
        """``(kind, run)`` for the full and the extended run (:data:`KINDS`, the page's two reference columns), in
        that order; ``run`` is ``None`` where that run is missing or cannot be read (:attr:`notes` says why)."""
        return [(kind, self.runs.get(kind)) for kind in KINDS]


def _read(kind: str, path: Path) -> ReferenceRun:
    """One reference file, checked: a full-mode report.json (an extended run for ``extended``) with a verdict per
    claim. Raises ``ValueError`` with what is wrong."""
    data = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict) or not isinstance(data.get("claims"), list):
        raise ValueError("it is not a report.json (no list of claims)")
    if data.get("quick"):
        raise ValueError("it is a quick run; the reference is a full run")
    if kind == "extended" and data.get("extended") is False:
        raise ValueError("it was run without --extended")
    verdicts = {}
    for claim in data["claims"]:
        verdict = claim.get("verdict") if isinstance(claim, dict) else None
        if not isinstance(verdict, dict) or verdict.get("status") not in STATUSES or not claim.get("id"):
            raise ValueError(f"a claim without an id or a known verdict status: {str(claim)[:120]}")
        if kind in FOLLOW_UPS and verdict["status"] == "not run":
            continue  # a follow-up holds the claims it ran
        verdicts[str(claim["id"])] = {"status": verdict["status"], "condition": verdict.get("condition")}
    machine_ = data.get("machine") if isinstance(data.get("machine"), dict) else {}
    versions = data.get("versions") if isinstance(data.get("versions"), dict) else {}
    return ReferenceRun(kind, path, str(data.get("created_at") or ""), data.get("commit"), machine_,
                        {str(k): str(v) for k, v in versions.items()}, verdicts)


def load_references(folder: str | Path | None = None) -> References:
    """The committed full and extended runs in ``folder`` (default :data:`REFERENCE_DIR`), and its follow-ups
    (:data:`FOLLOW_UPS`); a full or extended run whose file is missing, or any file that cannot be read, gets a note
    saying so and how to make it (a follow-up that was never made gets none: it is optional)."""
    where = Path(folder).expanduser() if folder is not None else REFERENCE_DIR
    runs: dict[str, ReferenceRun] = {}
    notes: dict[str, str] = {}
    for kind, (name, command) in {**KINDS, **FOLLOW_UPS}.items():
        path = where / name
        shown = _shown(path)
        make = f"run `{command} --out DIR` on an idle machine and commit DIR/report.json as {shown}"
        if not path.is_file():
            if kind in KINDS:
                notes[kind] = f"no committed {kind} run: {shown} does not exist ({make})"
            continue
        try:
            runs[kind] = _read(kind, path)
        except (OSError, UnicodeDecodeError, ValueError) as exc:  # json.JSONDecodeError is a ValueError
            notes[kind] = f"the committed {kind} run {shown} cannot be shown: {exc} ({make})"
    return References(where, runs, notes)


def _shown(path: Path) -> str:
    """``path`` as the page shows it: relative to the source tree when inside it (``docs/reports/full.json``)."""
    try:
        return str(path.resolve().relative_to(REFERENCE_DIR.parents[1]))
    except ValueError:
        return str(path)


def source_commit() -> str | None:
    """The git commit of the source tree posenc runs from (``+dirty`` when it has uncommitted changes), or ``None``
    outside a git checkout."""
    root = Path(__file__).resolve().parents[3]
    try:
        head = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True,
                              timeout=10, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, timeout=10, check=True).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return f"{head}+dirty" if head and dirty else head or None


def machine(gpu: str | None = None) -> dict[str, Any]:
    """What a run computed on: CPU count, architecture, operating system, memory, and the GPU if one was used."""
    try:
        memory = round(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 1024 ** 3, 1)
    except (AttributeError, ValueError, OSError):
        memory = None
    out = {"cpus": os.cpu_count(), "machine": platform.machine(), "system": platform.system(),
           "platform": platform.platform(), "processor": platform.processor() or None, "memory_gb": memory}
    if gpu:
        out["gpu"] = gpu
    return out


def run_identity(gpu: str | None = None) -> dict[str, Any]:
    """``{"commit": ..., "machine": {...}}``: what a report.json records beside its date and library versions, so
    that it can serve as a reference run."""
    return {"commit": source_commit(), "machine": machine(gpu)}
