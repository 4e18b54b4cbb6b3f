"""Claim revisions pinned: every claim's revision and the fingerprint of the code that computes it
(``claim_revisions.json``, written by ``claim_revisions.py``).

A stored measurement is reused while its claim's revision is unchanged, so an experiment changed without a bump
serves the old number, and a bump undone serves numbers of the code before it. Both fail here; the message says to
bump the revision in the ledger and rewrite the table (``.venv/bin/python tests/report/claim_revisions.py``).
"""

import importlib.util
import json
import sys

import pytest
from claim_revisions import CODE_VERSIONS, TABLE, current, fingerprint, rewrite

from posenc.report.ledger import LEDGER

PINNED = json.loads(TABLE.read_text())
REWRITE = ".venv/bin/python tests/report/claim_revisions.py"


@pytest.fixture(scope="module")
def now():
    return current()


def test_every_claim_is_pinned_with_its_experiment(now):
    assert sorted(now["claims"]) == sorted(PINNED["claims"]), f"claims added or removed: run {REWRITE}"
    assert {c: r["experiment"] for c, r in now["claims"].items()} == \
        {c: r["experiment"] for c, r in PINNED["claims"].items()}
    assert len(PINNED["claims"]) == len(LEDGER) == 67


@pytest.mark.parametrize("claim", sorted(PINNED["claims"]))
def test_revision_and_code_as_pinned(claim, now):
    pinned, got = PINNED["claims"][claim], now["claims"].get(claim)
    assert got is not None, f"claim {claim} is pinned but not in the ledger: run {REWRITE}"
    assert got["revision"] >= pinned["revision"], (
        f"claim {claim}'s revision went back from {pinned['revision']} to {got['revision']}: results stored under "
        f"revision {got['revision']} were computed by the code before revision {pinned['revision']} and would be "
        f"reused; restore the revision")
    assert got["code"] == pinned["code"] or got["revision"] > pinned["revision"], (
        f"the code of experiment {got['experiment']} (claim {claim}) changed, but revision {got['revision']} did "
        f"not: stored results would be reused. Bump the claim's revision in the ledger, then run {REWRITE}")
    assert got == pinned, f"claim {claim}: revision bumped to {got['revision']}; run {REWRITE} to pin it"


def test_the_code_versions_of_the_lab_and_extension_stores_are_pinned(now):
    assert now["code_versions"] == PINNED["code_versions"] == {"posenc.lab.train": 1, "posenc.extend.run": 2}
    assert set(CODE_VERSIONS) == set(PINNED["code_versions"])


def _module(tmp_path, file, text):
    """Import ``text`` (written to ``file``) as a module of the report's experiments package, so the fingerprint
    follows it; one module name for both versions, as an edit keeps the name."""
    path = tmp_path / f"{file}.py"
    path.write_text(text)
    full = "posenc.report.experiments._fingerprint_probe"
    spec = importlib.util.spec_from_file_location(full, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[full] = module
    spec.loader.exec_module(module)
    return module


BASE = '''
WIDTH = 64


def _helper(x):
    return x * WIDTH


def measure(ctx):
    """Docstring."""
    return _helper(ctx)  # a comment
'''


@pytest.mark.parametrize(("name", "edit", "changes"), [
    ("same", lambda s: s, False),
    ("docstring", lambda s: s.replace('"""Docstring."""', '"""Another docstring."""'), False),
    ("comment", lambda s: s.replace("# a comment", "# another"), False),
    ("layout", lambda s: s.replace("return x * WIDTH", "return (x\n            * WIDTH)"), False),
    ("helper", lambda s: s.replace("x * WIDTH", "x * WIDTH + 1"), True),
    ("constant", lambda s: s.replace("WIDTH = 64", "WIDTH = 65"), True),
    ("body", lambda s: s.replace("return _helper(ctx)", "return _helper(ctx + 1)"), True),
])
def test_the_fingerprint_follows_helpers_and_constants_but_not_prose(tmp_path, name, edit, changes):
    try:
        before = fingerprint(_module(tmp_path, "before", BASE).measure)
        after = fingerprint(_module(tmp_path, f"after_{name}", edit(BASE)).measure)
    finally:
        sys.modules.pop("posenc.report.experiments._fingerprint_probe", None)
    assert (before != after) is changes


def test_the_fingerprint_follows_a_helper_imported_inside_the_function(tmp_path):
    # experiments import what they call inside the function: a helper of another experiments module reached that
    # way is followed, so editing it changes the fingerprint (it did not before 2026-12-06)
    helper = "posenc.report.experiments._fingerprint_helper"
    caller = BASE.replace("def measure(ctx):", f"def measure(ctx):\n    from {helper} import other\n").replace(
        "return _helper(ctx)", "return other(ctx)")

    def load(text):
        path = tmp_path / "helper.py"
        path.write_text(text)
        spec = importlib.util.spec_from_file_location(helper, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[helper] = module
        spec.loader.exec_module(module)

    try:
        load("def other(x):\n    return x + 1\n")
        before = fingerprint(_module(tmp_path, "caller", caller).measure)
        load("def other(x):\n    return x + 2\n")
        after = fingerprint(_module(tmp_path, "caller_again", caller).measure)
    finally:
        sys.modules.pop("posenc.report.experiments._fingerprint_probe", None)
        sys.modules.pop(helper, None)
    assert before != after


def test_the_rewrite_refuses_changed_code_without_a_bump(tmp_path, monkeypatch, now, capsys):
    import claim_revisions

    claim = sorted(now["claims"])[0]
    stale = json.loads(json.dumps(now))
    stale["claims"][claim]["code"] = "0" * 16  # the code as it was: another fingerprint, the same revision
    table = tmp_path / "claim_revisions.json"
    table.write_text(json.dumps(stale))
    monkeypatch.setattr(claim_revisions, "TABLE", table)
    assert rewrite() == 1
    assert f"{claim} (revision {now['claims'][claim]['revision']}" in capsys.readouterr().err
    assert json.loads(table.read_text()) == stale  # not written
    stale["claims"][claim]["revision"] -= 1  # bumped since: written
    table.write_text(json.dumps(stale))
    assert rewrite() == 0
    assert json.loads(table.read_text()) == now
