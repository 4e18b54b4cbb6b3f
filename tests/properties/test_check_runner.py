"""The runner: every encoding gets every property with a verdict; n.a. with a reason where a claim does not apply;
bad sizes raise PosencError; reports are JSON-able."""

import json

import pytest
import torch

import posenc
from posenc.errors import PosencError
from posenc.properties import (
    NA,
    PROPERTIES,
    VARIANTS,
    EncodingView,
    check_all,
    check_encoding,
    check_view,
)
from posenc.properties.result import VERDICTS

TABLE_ONLY = ("uniqueness", "relative", "growth", "length_independence", "continuity")


def test_check_all_small_covers_the_registry_without_errors():
    reports = check_all(d_model=16, length=64, progress=False)
    labels = [r.label for r in reports]
    assert labels == posenc.available() + [label for label, _, _ in VARIANTS]
    for report in reports:
        assert report.ok, [(r.name, r.reason) for r in report.results if r.verdict == "error"]
        assert [r.name for r in report.results] == list(PROPERTIES)
        for result in report.results:
            assert result.verdict in VERDICTS
            if result.verdict == NA:
                assert result.reason  # n.a. always says why
            else:
                assert result.numbers


@pytest.mark.parametrize("name", ["alibi", "t5"])
def test_table_properties_are_not_applicable_to_biases(name):
    report = check_encoding(name, d_model=16, length=64)
    for prop in TABLE_ONLY:
        assert report[prop].verdict == NA
        assert "bias" in report[prop].reason or "adds no vector" in report[prop].reason
    assert report["translation"].verdict == "holds"  # a bias of i - j is the same at every p
    assert report["translation"].numbers["spread_max"] == 0


def test_nope_is_not_applicable_everywhere():
    report = check_encoding("nope", d_model=16, length=64)
    assert {r.verdict for r in report.results} == {NA}


def test_rotary_translation_through_the_rotate_hook():
    for name in ("rope", "xpos"):
        report = check_encoding(name, d_model=32, length=256, properties=["translation", "relative", "bounded"])
        assert report["translation"].verdict == "holds", report["translation"].reason
        assert report["translation"].numbers["spread_max"] < 1e-4
        assert report["relative"].verdict == "holds"
    # xPos scales q by zeta^((p - c)/512): its gain changes with position, RoPE's does not
    assert check_encoding("xpos", d_model=32, length=1024, properties=["bounded"])["bounded"].verdict == "fails"
    assert check_encoding("rope", d_model=32, length=1024, properties=["bounded"])["bounded"].verdict == "holds"


def test_randomized_is_measured_through_its_inner_encoding():
    report = check_encoding("randomized", d_model=32, length=128, options={"encoding": "sinusoidal"},
                            properties=["relative"])
    assert report["relative"].verdict == "holds"
    assert "wraps sinusoidal" in report["relative"].reason
    assert report.notes


def test_learned_table_refusing_a_length_is_not_applicable():
    enc = posenc.build("learned", dim=16, max_len=32)
    results = check_view(EncodingView(enc, 64, 16), ["bounded", "uniqueness"])
    assert [r.verdict for r in results] == [NA, NA]
    assert "max_len=32" in results[0].reason


def test_unscaled_rope_has_no_ramp():
    result = check_encoding("rope", d_model=16, length=64, properties=["scaling_ramp"])["scaling_ramp"]
    assert result.verdict == NA and "unscaled" in result.reason


@pytest.mark.parametrize("kwargs", [{"length": 4}, {"length": 8.5}, {"d_model": 7}, {"d_model": 0},
                                    {"properties": ["nonsense"]}])
def test_bad_input_raises_posenc_error(kwargs):
    args = {"d_model": 16, "length": 64} | kwargs
    with pytest.raises(PosencError):
        check_encoding("sinusoidal", **args)


def test_bad_options_raise():
    with pytest.raises(PosencError, match="unknown option"):
        check_encoding("rope", d_model=16, length=64, options={"nope": 1})


def test_report_is_json_able():
    report = check_encoding("rope", d_model=16, length=64, options={"scaling": {"type": "linear", "factor": 2.0}})
    data = json.loads(json.dumps(report.to_dict()))
    assert data["encoding"] == "rope" and data["options"]["scaling"]["factor"] == 2.0
    by_name = {p["name"]: p for p in data["properties"]}
    assert by_name["scaling_ramp"]["numbers"]["ratio"] == [0.5] * 8  # linear: every frequency halves
    assert by_name["relative"]["verdict"] == "holds"


def test_an_internal_error_is_recorded_not_raised(monkeypatch):
    def broken(view):
        raise RuntimeError("boom")

    monkeypatch.setitem(PROPERTIES, "broken", broken)
    report = check_encoding("sinusoidal", d_model=16, length=64, properties=["bounded", "broken"])
    assert report["broken"].verdict == "error" and "boom" in report["broken"].reason
    assert report["bounded"].verdict == "holds"
    assert not report.ok


def test_view_tables_match_the_hooks():
    view = EncodingView(posenc.build("rope", head_dim=16), 64, 16)
    cos, sin = view.inner.tables(torch.arange(64), 64)
    assert torch.allclose(view.rotation_table[:, 1::2].float(), cos, atol=1e-7)
    assert torch.allclose(view.rotation_table[:, 0::2].float(), sin, atol=1e-7)
