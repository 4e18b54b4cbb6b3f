"""``KEY=VALUE`` items (posenc.cli.options.parse_options): a value is JSON when it is JSON, else text, and
``true``/``false``/``none`` are a boolean or None in any case, as the module's docstring says."""

import pytest

from posenc.cli.options import parse_options


@pytest.mark.parametrize("text, value", [
    ("true", True), ("True", True), ("TRUE", True),
    ("false", False), ("False", False), ("FALSE", False), ("fAlSe", False),
    ("null", None), ("none", None), ("None", None), ("NULL", None),
])
def test_true_false_and_none_in_any_case(text, value):
    parsed = parse_options([f"flag={text}"])["flag"]
    assert parsed is value  # the object itself: "False" the text is truthy, and 1 == True


def test_json_values_and_text():
    assert parse_options(["base=500000", "scale=0.5", "dims=[1, 2]", 'scaling={"type": "yarn"}', "pairing=half",
                          "word=Falsey"]) == {"base": 500000, "scale": 0.5, "dims": [1, 2], "scaling": {"type": "yarn"},
                                              "pairing": "half", "word": "Falsey"}
