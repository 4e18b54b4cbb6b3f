"""The runner: every encoding gets every property with a verdict; n.a. with a reason where a claim does not apply;
bad sizes raise PosencError; reports are JSON-able."""

import json

import pytest
import torch

import posenc
from posenc import resources
from posenc.encodings.base import AbsoluteEncoding, EncodingInfo
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
from posenc.properties.check import PAIR_BYTES, build_sized, check_fits, estimate_check
from posenc.properties.result import VERDICTS
from posenc.resources import GB

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


def test_build_sized_gives_tables_the_check_length():
    # a learned table defaults to 512 rows; the check builds it with one row per measured position
    assert build_sized("learned", 16, 64).max_len == 64
    assert build_sized("learned", 16, 1000).max_len == 1000


def test_estimate_check_memory_and_seconds_by_hand():
    n, d = 1024, 64
    cells = 128 * n * d  # BYTES_PER_CELL per (position, channel)
    runtime = int(0.4 * GB)
    # drawing: tables only; checking adds the pairwise blocks, 24 KiB per position
    assert estimate_check(n, d, ["sinusoidal"], pairwise=False) == (runtime + cells, 0.0)
    total, seconds = estimate_check(n, d, ["sinusoidal"])
    assert total == runtime + cells + 24 * 1024 * n
    # the time counts N (N - 1) / 2 pairs, each 4 D' operations and PAIR_BYTES bytes, at this machine's rate
    pairs = n * (n - 1) / 2
    assert seconds == pytest.approx(resources.seconds(pairs * 4 * d, memory=pairs * PAIR_BYTES))
    # binary has bit_length(1024) + 1 = 12 distinct channels below 2^11 positions; integer one
    assert estimate_check(n, d, ["binary"])[1] == pytest.approx(resources.seconds(pairs * 4 * 12,
                                                                                  memory=pairs * PAIR_BYTES))
    assert estimate_check(n, d, ["integer"])[1] == pytest.approx(resources.seconds(pairs * 4 * 1,
                                                                                   memory=pairs * PAIR_BYTES))


def test_check_fits_names_the_parts_of_the_estimate():
    with pytest.raises(PosencError) as checking:
        check_fits(4096, 512, limit_bytes=GB // 4)
    assert ("checking sinusoidal at length 4096, d_model 512 does not fit in memory: estimated 762 MB (256 MB of "
            "tables for 4096 x 512 float64 cells, 96 MB of pairwise distance blocks, runtime 410 MB), but only "
            "256 MB is available") in str(checking.value)
    with pytest.raises(PosencError) as drawing:
        check_fits(4096, 512, pairwise=False, limit_bytes=GB // 4)
    assert ("drawing sinusoidal at length 4096, d_model 512 does not fit in memory: estimated 666 MB (256 MB of "
            "tables for 4096 x 512 float64 cells, runtime 410 MB)") in str(drawing.value)



def test_a_check_too_big_for_memory_names_the_encoding_it_would_check():
    # 10^12 positions x 2 channels of float64 tables alone are 16 TB, more than any machine has: refused before
    # anything is built, naming the encoding asked for (rope), not some other one
    with pytest.raises(PosencError, match=r"^checking rope at length 1000000000000, d_model 2 does not fit in memory"):
        check_encoding("rope", d_model=2, length=10**12)

class _Float32Thirds(AbsoluteEncoding):
    """A user encoding whose ``encode`` takes no ``dtype``: ``PE[p] = (p / 3, p / 3)`` in float32."""

    name = "float32_thirds"
    info = EncodingInfo(family="absolute", paper="test", hooks=("embed",))

    def encode(self, positions, dim=None):
        values = positions.to(torch.float32) / 3
        return values[..., None].expand(*values.shape, dim)


def test_view_of_an_encoding_without_dtype_reads_the_float32_hook():
    view = EncodingView(_Float32Thirds(dim=2), 8, 2)
    thirds = (torch.arange(8, dtype=torch.float32) / 3).double()
    assert torch.equal(view.table, torch.stack([thirds, thirds], dim=-1))
    assert view.table_dtype == "float32" and view.tolerance == 1e-5
    assert torch.equal(view.table_at(torch.tensor([5, 2])), view.table[[5, 2]])
