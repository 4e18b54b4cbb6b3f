"""The explorer page as written: self-contained, small, its data readable, every text in both languages, and a clear
error for what it cannot take."""

from __future__ import annotations

import json
import re
from importlib import resources

import pytest

from posenc.errors import PosencError
from posenc.explore import write_explorer
from posenc.explore.golden import FUNCTIONS
from posenc.explore.page import explorer_data
from posenc.explore.panels import PANELS, claim_verdicts
from posenc.report.ledger import claim_ids


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    return write_explorer(tmp_path_factory.mktemp("explore") / "new" / "folder", lang="en")


def _data(html: str) -> dict:
    found = re.search(r'<script type="application/json" id="explore-data">(.*?)</script>', html, flags=re.S)
    return json.loads(found.group(1))


def test_the_page_is_self_contained_and_small(page):
    html = page.read_text(encoding="utf-8")
    assert page.name == "explore.html" and page.stat().st_size < 300_000
    assert "/*@" not in html  # every placeholder filled
    assert 'data-default-lang="en"' in html
    assert not re.search(r"<(script|link|img|iframe)[^>]+(src|href)=", html)  # nothing loaded from elsewhere
    assert not re.search(r"\bfetch\(|XMLHttpRequest|import\(", html)
    assert html.count("<script") == 3  # the data, the strings and the page's code


def test_the_data_holds_panels_models_and_the_golden_table(page):
    data = _data(page.read_text(encoding="utf-8"))
    assert [p["id"] for p in data["panels"]] == [p.id for p in PANELS]
    assert {row["f"] for row in data["golden"]} == set(FUNCTIONS)
    assert len(data["models"]) >= 7


def test_every_panel_links_to_claims_of_the_ledger_and_quotes_a_tutorial():
    ids = set(claim_ids())
    for panel in PANELS:
        assert panel.claims and set(panel.claims) <= ids, panel.id
        assert panel.quote and panel.where.startswith("tutorial 00")


def test_the_verdicts_are_the_committed_reports(tmp_path):
    report = tmp_path / "report.json"
    report.write_text(json.dumps({"claims": [{"id": "pi-yarn", "title": "PI / YaRN", "verdict": {"status": "refuted"}},
                                             {"id": "not-a-panels-claim", "verdict": {"status": "supported"}}]}))
    assert claim_verdicts(report) == {"pi-yarn": {"status": "refuted", "title": "PI / YaRN"}}
    assert claim_verdicts(tmp_path / "missing.json") == {}
    committed = claim_verdicts()
    if committed:  # inside a checkout: docs/reports/full.json
        assert committed["integer-positions"]["status"] == "supported"


def test_a_verdict_written_as_its_bare_status_or_left_out_is_read(tmp_path):
    # a claim's verdict may be the status string itself (no {"status": ...} record), or missing: the status is that
    # string, or None (no pill on the page); the title falls back to the claim's statement, then to ""
    report = tmp_path / "report.json"
    report.write_text(json.dumps({"claims": [{"id": "pi-yarn", "statement": "PI and YaRN extend", "verdict": "refuted"},
                                             {"id": "alibi-table"}]}))
    assert claim_verdicts(report) == {"pi-yarn": {"status": "refuted", "title": "PI and YaRN extend"},
                                      "alibi-table": {"status": None, "title": ""}}


def test_each_panels_claims_reach_the_page_by_id_with_their_verdicts():
    # the page's code links each claim by ``claim.id`` (index.html#claim-<id>) and draws ``claim.status`` as a pill:
    # the data must carry exactly those keys, the ids in the panel's order, the verdicts the committed report's
    script = (resources.files("posenc.explore") / "assets" / "explore.js").read_text(encoding="utf-8")
    assert "#claim-${claim.id}" in script and "claim.status" in script
    verdicts = claim_verdicts()
    panels = explorer_data()["panels"]
    assert [p["id"] for p in panels] == [p.id for p in PANELS]
    for panel, shown in zip(PANELS, panels, strict=True):
        assert [c.get("id") for c in shown["claims"]] == list(panel.claims), panel.id
        for claim in shown["claims"]:
            assert set(claim) <= {"id", "status", "title"}, claim
            assert claim.get("status") == verdicts.get(claim.get("id"), {}).get("status"), claim


def test_every_text_is_in_both_languages():
    strings = json.loads((resources.files("posenc.explore") / "assets" / "strings.json").read_text(encoding="utf-8"))
    assert sorted(strings) == ["en", "zh"]
    keys = [set(strings["zh"]), set(strings["en"])]
    assert keys[0] == keys[1] and len(keys[0]) > 150
    assert all(isinstance(text, str) and text.strip() for table in strings.values() for text in table.values())
    script = (resources.files("posenc.explore") / "assets" / "explore.js").read_text(encoding="utf-8")
    used = set(re.findall(r'(?:t\(|label: |i18n": |"@)[`"]([a-z_]+(?:\.[a-z_0-9]+)+)[`"]', script))
    assert used and used <= keys[0], sorted(used - keys[0])


def test_bad_input_is_a_clear_error(tmp_path):
    with pytest.raises(PosencError, match="language must be one of zh, en, got 'fr'; e.g. --lang en"):
        write_explorer(tmp_path, lang="fr")
    afile = tmp_path / "a-file"
    afile.write_text("")
    with pytest.raises(PosencError, match="is a file, not a folder"):
        write_explorer(afile)
    with pytest.raises(PosencError, match="config file .*missing.json does not exist"):
        write_explorer(tmp_path, configs=[tmp_path / "missing.json"])
    assert not (tmp_path / "explore.html").exists()  # a refused page writes nothing
