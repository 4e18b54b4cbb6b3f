"""bfloat16 precision of a bias encoding: not applicable, and why."""

from posenc.properties import check_encoding


def test_a_bias_encoding_is_not_applicable_with_the_reason():
    result = check_encoding("alibi", d_model=4, length=16, properties=["precision"])["precision"]
    assert result.verdict == "n.a."
    assert result.reason.endswith("a bias takes integer distances; it stores no per-position table")
