"""The report's measured curves the explorer ships: the committed report's own numbers (checked here against the json
read independently), nothing where the report lacks them, and the page carrying exactly what measured_curves read."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

from posenc.explore import write_explorer
from posenc.explore.measured import measured_curves
from posenc.explore.panels import checkout_report

REPORT = Path(__file__).resolve().parents[2] / "docs" / "reports" / "full.json"


def _claim(claim_id: str) -> dict:
    return next(c for c in json.loads(REPORT.read_text())["claims"] if c["id"] == claim_id)


@pytest.mark.skipif(not REPORT.is_file(), reason="needs the checkout's committed docs/reports/full.json")
def test_the_pair_use_is_the_committed_smollm2_measurement():
    use = measured_curves(REPORT)["pair_use"]
    windows = np.array(_claim("low-dims-position")["numbers"]["smollm2"]["per_window"])
    assert windows.shape == (16, 32)  # 16 windows x SmolLM2's 32 rotary pairs (head_dim 64)
    np.testing.assert_allclose(use["mean"], windows.mean(axis=0), rtol=1e-12)
    assert use["low"] == windows.min(axis=0).tolist() and use["high"] == windows.max(axis=0).tolist()
    assert (use["model"], use["length"], use["windows"], use["head_dim"], use["theta"]) == (
        "SmolLM2-135M", 128, 16, 64, 100000.0)
    # the report's own summary rows quote the fastest and slowest 8 pairs to 3 places
    rows = {r["quantity"]: r["measured"] for r in _claim("low-dims-position")["rows"]}
    fastest = next(v for k, v in rows.items() if "fastest 8 pairs" in k)
    assert [float(x) for x in fastest.split(", ")] == [round(v, 3) for v in use["mean"][:8]]


@pytest.mark.skipif(not REPORT.is_file(), reason="needs the checkout's committed docs/reports/full.json")
def test_the_extension_is_the_committed_pi_yarn_measurement():
    ext = measured_curves(REPORT)["extension"]
    numbers = _claim("pi-yarn")["numbers"]
    assert (ext["native_len"], ext["long"], ext["windows"]) == (8192, 10240, 4)
    for key in ("value", "low", "high"):
        assert ext["native"][key] == numbers["ppl_native"][key]
        for scaling in ("none", "linear", "yarn"):
            assert ext["scalings"][scaling][key] == numbers["ppl_long"][scaling][key]
    # perplexity is exp of the mean window NLL: the committed value follows from the committed windows
    assert ext["scalings"]["linear"]["value"] == pytest.approx(np.exp(np.mean(numbers["window_nll_long"]["linear"])))
    assert ext["status"] == _claim("pi-yarn")["verdict"]["status"]


def test_a_report_without_them_ships_none(tmp_path):
    assert measured_curves(tmp_path / "missing.json") == {}
    damaged = tmp_path / "damaged.json"
    damaged.write_text("{not json")
    assert measured_curves(damaged) == {}
    partial = tmp_path / "partial.json"
    partial.write_text(json.dumps({"claims": [
        {"id": "low-dims-position", "numbers": {"smollm2": {"per_window": [[0.1, 0.2], [0.3]]}}},  # ragged
        {"id": "pi-yarn", "numbers": {"native_len": 8192, "long": 10240, "ppl_native": {"value": 3.0, "low": 2.0,
                                                                                         "high": 4.0},
                                      "ppl_long": {"none": {"value": 5.0, "low": 4.0, "high": 6.0}}},
         "verdict": {"status": "supported"}}]}))
    got = measured_curves(partial)
    assert list(got) == ["extension"] and got["extension"]["scalings"] == {"none": {"value": 5.0, "low": 4.0,
                                                                                    "high": 6.0}}


def test_the_page_ships_what_measured_curves_read(tmp_path):
    html = write_explorer(tmp_path, lang="en").read_text(encoding="utf-8")
    data = json.loads(re.search(r'<script type="application/json" id="explore-data">(.*?)</script>', html,
                                flags=re.S).group(1))
    assert data["measured"] == measured_curves()
    if checkout_report() is not None:
        assert set(data["measured"]) == {"pair_use", "extension"}
        assert len(json.dumps(data["measured"])) < 4000  # only what the figures draw
