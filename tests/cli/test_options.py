"""``KEY=VALUE`` items (posenc.cli.options.parse_options): a value is JSON when it is JSON, else text, and
``true``/``false``/``none`` are a boolean or None in any case, as the module's docstring says."""

import pytest

from posenc.cli.options import check_threads, parse_options
from posenc.errors import PosencError


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


@pytest.mark.parametrize("pair, key, value", [
    ("a=b=c", "a", "b=c"),  # the first = splits: a value may hold =
    ("base-len=4", "base_len", 4),  # a dash in a key is an underscore, as in the option names
    ("  dim = 16 ", "dim", 16),  # spaces around the key and the value are dropped
    (" pairing = half ", "pairing", "half"),
    ("name=", "name", ""),  # an empty value is empty text
    ("x=1e3", "x", 1000.0),
    ("x=Infinity", "x", float("inf")),  # Python's json reads Infinity: the encodings refuse it with their own rule
])
def test_one_item(pair, key, value):
    assert parse_options([pair]) == {key: value}


def test_no_items_is_an_empty_dict():
    assert parse_options(None) == {} and parse_options([]) == {}


@pytest.mark.parametrize("pairs, message", [
    (["base"], "-o 'base' is not of the form KEY=VALUE; write e.g. -o base=500000"),
    (["=5"], "-o '=5' is not of the form KEY=VALUE; write e.g. -o base=500000"),
    ([" =5"], "-o ' =5' is not of the form KEY=VALUE; write e.g. -o base=500000"),
    (["base=1", "base=2"], "-o gives base twice ('base=1' and 'base=2'); give each key once"),
    (["head-dim=8", "head_dim=8"], "-o gives head_dim twice ('head-dim=8' and 'head_dim=8'); give each key once"),
])
def test_bad_items_name_the_item_and_the_fix(pairs, message):
    with pytest.raises(PosencError) as caught:
        parse_options(pairs)
    assert str(caught.value) == message


def test_errors_name_the_option_and_its_example():
    with pytest.raises(PosencError, match=r"^--set 'lr' is not of the form KEY=VALUE; write e.g. --set lr=3e-3$"):
        parse_options(["lr"], "--set", "lr=3e-3")


@pytest.mark.parametrize("threads, kept", [(None, None), (0, None), (1, 1), (2, 2), (64, 64)])
def test_threads_zero_or_none_is_torchs_choice_and_a_count_is_kept(threads, kept):
    assert check_threads(threads) == kept


@pytest.mark.parametrize("threads", [-1, -8])
def test_a_negative_thread_count_names_the_rule_and_the_value(threads):
    with pytest.raises(PosencError) as caught:
        check_threads(threads, "--workers-threads")
    assert str(caught.value) == (f"--workers-threads must be an integer >= 0 (0: torch's own choice, every core), "
                                 f"got {threads}")
