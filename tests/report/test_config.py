"""ReportConfig, the settings of one report: built from a folder and fields, flags and claims checked by name."""

from __future__ import annotations

import pytest

from posenc.errors import PosencError
from posenc.report.config import ReportConfig, report_config


def test_report_config_takes_a_folder_and_fields_and_refuses_unknown_ones():
    config = ReportConfig(out_dir="a", claims=("sin-bounded",))
    assert report_config(config) is config
    assert report_config(config, seeds=3) == ReportConfig(out_dir="a", claims=("sin-bounded",), seeds=3)
    assert report_config("a", claims=["sin-bounded"]) == config  # a list is taken for the tuple
    with pytest.raises(PosencError, match=r"unknown report setting\(s\) claim; .*claims"):
        report_config("a", claim=["sin-bounded"])
    with pytest.raises(PosencError, match=r"out_dir is given twice: 'a' as the first argument and out_dir='b'; pass one"):
        report_config("a", out_dir="b")
    with pytest.raises(PosencError, match=r"must be a ReportConfig or the output folder \(e\.g\. 'posenc-report'\), got int 3"):
        report_config(3)


def test_a_flag_or_the_claims_of_the_wrong_type_are_refused_by_name():
    with pytest.raises(PosencError, match="ReportConfig.quick is a flag: True or False, got 'no'"):
        ReportConfig(quick="no")
    with pytest.raises(PosencError, match=r"claims is a list of claim ids, got the string 'sin-bounded'; pass e\.g\. "
                                          r"claims=\['sin-bounded'\]"):
        ReportConfig(claims="sin-bounded")


@pytest.mark.parametrize("field,default", [
    ("out_dir", "posenc-report"), ("quick", True), ("store_path", None), ("claims", None), ("seeds", None),
    ("thresholds", None), ("progress", True), ("device", "auto"), ("dtype", "float32"), ("executor", "local"),
    ("address", "auto"), ("extended", False), ("references", None)])
def test_each_default_as_the_docstring_gives_it(field, default):
    """Every field's default, written from the class docstring (quick mode from Python; a whole ledger; the store,
    the reference folder and the seed count resolved by run_report)."""
    assert getattr(ReportConfig(), field) == default


def test_every_field_has_its_default_listed():
    """The list above names every field: a new setting gets its default checked too."""
    import dataclasses

    assert {f.name for f in dataclasses.fields(ReportConfig)} == {
        "out_dir", "quick", "store_path", "claims", "seeds", "thresholds", "progress", "device", "dtype", "executor",
        "address", "extended", "references"}


def test_a_claim_named_twice_is_refused_not_run_twice():
    with pytest.raises(PosencError, match="^claims names 'sin-bounded' more than once; name each claim once"):
        ReportConfig(claims=["sin-bounded", "rope-decay", "sin-bounded"])
    assert ReportConfig(claims=["sin-bounded", "rope-decay"]).claims == ("sin-bounded", "rope-decay")
