"""The committed full and extended runs the page shows beside each verdict: read from small synthetic report.json
files, refused with a note (never guessed) when missing or not a full run; what a report.json records to serve as
one (commit, machine)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from posenc.report.reference import (
    FOLLOW_UPS,
    KINDS,
    REFERENCE_DIR,
    load_references,
    machine,
    run_identity,
    source_commit,
)


def write_report(folder: Path, name: str, verdicts: dict[str, str], quick: bool = False, extended: bool = False,
                 **extra) -> Path:
    """A report.json with only what a reference needs: when, what, where, and a verdict per claim."""
    data = {"created_at": "2026-11-26T08:00:00Z", "commit": "0123456789abcdef0123", "quick": quick,
            "extended": extended, "machine": {"cpus": 2, "machine": "x86_64", "system": "Linux"},
            "versions": {"posenc": "0.1.0", "torch": "2.13.0+cpu", "python": "3.11.7"},
            "claims": [{"id": cid, "verdict": {"status": status, "reason": "...",
                                               "condition": "at 128 tokens" if status == "qualified" else None}}
                       for cid, status in verdicts.items()], **extra}
    path = folder / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_no_committed_file_says_so_and_how_to_make_one(tmp_path):
    refs = load_references(tmp_path)
    assert refs.runs == {} and set(refs.notes) == {"full", "extended"}
    assert str(tmp_path / "full.json") in refs.notes["full"] and "does not exist" in refs.notes["full"]
    assert "posenc report --extended --out DIR" in refs.notes["extended"]
    default = load_references()  # the source tree's folder: named relative to it, as the page shows it
    if "full" not in default.runs:
        assert "no committed full run: docs/reports/full.json does not exist" in default.notes["full"]


def test_committed_runs_are_read_with_what_ran_them(tmp_path):
    write_report(tmp_path, "full.json", {"sin-bounded": "supported", "pi-yarn": "refuted", "cope-counts": "not run"})
    write_report(tmp_path, "extended.json", {"sin-bounded": "supported", "cope-counts": "qualified"}, extended=True)
    refs = load_references(tmp_path)
    assert set(refs.runs) == {"full", "extended"} and refs.notes == {}
    full = refs.runs["full"]
    assert full.verdicts["pi-yarn"] == {"status": "refuted", "condition": None}
    assert refs.runs["extended"].verdicts["cope-counts"]["condition"] == "at 128 tokens"
    text = full.describe()
    assert text.startswith("full run of 2026-11-26 (commit 0123456789ab, 2 CPUs, x86_64, Linux; posenc 0.1.0")
    assert "torch 2.13.0+cpu" in text


def test_a_file_that_is_not_a_full_run_is_not_shown(tmp_path):
    write_report(tmp_path, "full.json", {"sin-bounded": "supported"}, quick=True)
    write_report(tmp_path, "extended.json", {"sin-bounded": "supported"}, extended=False)
    refs = load_references(tmp_path)
    assert refs.runs == {}
    assert "is a quick run" in refs.notes["full"] and "without --extended" in refs.notes["extended"]
    (tmp_path / "full.json").write_text("{not json")
    assert "cannot be shown" in load_references(tmp_path).notes["full"]
    write_report(tmp_path, "full.json", {"sin-bounded": "probably"})
    assert "known verdict status" in load_references(tmp_path).notes["full"]


def test_the_default_folder_is_the_source_trees_docs_reports():
    assert REFERENCE_DIR == Path(__file__).resolve().parents[2] / "docs" / "reports"
    assert {name for name, _ in KINDS.values()} == {"full.json", "extended.json"}


def test_a_report_records_its_commit_and_machine():
    head = subprocess.run(["git", "-C", str(REFERENCE_DIR.parent), "rev-parse", "HEAD"], capture_output=True,
                          text=True).stdout.strip()
    commit = source_commit()
    assert commit is not None and commit.split("+")[0] == head
    where = machine(gpu="NVIDIA H100")
    assert where["cpus"] == os.cpu_count() and where["gpu"] == "NVIDIA H100" and where["system"]
    assert set(run_identity()) == {"commit", "machine"}


def test_the_machine_memory_is_in_gib_to_one_decimal(monkeypatch):
    """The page size times the number of physical pages, in GiB (2^30 bytes), one decimal."""
    pages = {"SC_PAGE_SIZE": 4096, "SC_PHYS_PAGES": 4 * 2 ** 20}  # 4096 * 2^22 = 2^34 bytes = 16 GiB
    monkeypatch.setattr(os, "sysconf", lambda name: pages[name])
    assert machine()["memory_gb"] == 16.0
    pages["SC_PHYS_PAGES"] = 1_500_000  # 6 144 000 000 / 1 073 741 824 = 5.722...
    assert machine()["memory_gb"] == 5.7

    def no_such_name(name):
        raise ValueError(f"unrecognized configuration name {name}")

    monkeypatch.setattr(os, "sysconf", no_such_name)  # a system that does not tell: no number rather than a guess
    assert machine()["memory_gb"] is None


def test_compare_reports_reads_the_new_statuses_as_less_decided(tmp_path):
    """benchmarks/compare_reports.py on a quick and a full report.json: a claim not decided in quick mode, or not run,
    is less decided than any verdict, never a contradiction; a decided verdict against another one is."""
    import sys

    script = Path(__file__).resolve().parents[2] / "benchmarks" / "compare_reports.py"
    quick = write_report(tmp_path, "quick.json", {"a": "not decided in quick mode", "b": "not run", "c": "supported",
                                                  "d": "inconclusive"}, quick=True)
    full = write_report(tmp_path, "full.json", {"a": "refuted", "b": "supported", "c": "supported", "d": "refuted"})
    run = subprocess.run([sys.executable, str(script), str(quick), str(full)], capture_output=True, text=True)
    assert run.returncode == 0 and "1 same, 3 less decided in the first, 0 contradicting" in run.stdout
    wrong = write_report(tmp_path, "wrong.json", {"a": "supported", "b": "not run", "c": "refuted", "d": "refuted"})
    run = subprocess.run([sys.executable, str(script), str(quick), str(wrong)], capture_output=True, text=True)
    assert run.returncode == 1 and "CONTRADICTS" in run.stdout


def test_a_reference_that_records_little_says_what_it_lacks(tmp_path):
    """describe()'s words for each part a report.json left out: the date, the commit, the machine, the versions."""
    (tmp_path / "full.json").write_text(json.dumps({"claims": [{"id": "sin-bounded",
                                                                "verdict": {"status": "supported"}}]}))
    run = load_references(tmp_path).runs["full"]
    assert run.describe() == ("full run of an unknown date (commit not recorded, machine not recorded; "
                              "versions not recorded)")
    assert run.verdicts == {"sin-bounded": {"status": "supported", "condition": None}}


def test_a_full_file_needs_only_to_be_full_and_an_extended_one_to_say_extended(tmp_path):
    """The extended kind refuses only a file that says extended=false; one that does not say is shown (older
    reports), and an extended run serves as the full one too (it is a full run with more claims)."""
    write_report(tmp_path, "full.json", {"sin-bounded": "supported"}, extended=True)
    path = write_report(tmp_path, "extended.json", {"sin-bounded": "supported"})
    data = json.loads(path.read_text())
    del data["extended"]
    path.write_text(json.dumps(data))
    assert set(load_references(tmp_path).runs) == {"full", "extended"}


def test_a_follow_up_holds_the_claims_it_ran_and_is_optional(tmp_path):
    assert FOLLOW_UPS == {"more-seeds": ("more-seeds.json", "posenc report --seeds 10 --claim ID")}
    assert "more-seeds" not in load_references(tmp_path).notes  # never made: nothing to say
    write_report(tmp_path, "more-seeds.json", {"alibi-table": "qualified", "sin-bounded": "not run",
                                               "cope-counts": "supported"}, seeds=10)
    refs = load_references(tmp_path)
    assert refs.runs["more-seeds"].verdicts == {"alibi-table": {"status": "qualified", "condition": "at 128 tokens"},
                                                "cope-counts": {"status": "supported", "condition": None}}
    assert refs.runs["more-seeds"].describe().startswith("more-seeds run of 2026-11-26 (commit 0123456789ab")
    write_report(tmp_path, "more-seeds.json", {"alibi-table": "qualified"}, quick=True)
    note = load_references(tmp_path).notes["more-seeds"]
    assert "is a quick run" in note and "posenc report --seeds 10 --claim ID --out DIR" in note


def test_the_committed_follow_up_is_the_ten_seed_run_of_three_claims():
    follow_up = load_references().runs.get("more-seeds")
    assert follow_up is not None, load_references().notes.get("more-seeds")
    assert sorted(follow_up.verdicts) == ["alibi-table", "cope-counts", "learned-slows-convergence"]
