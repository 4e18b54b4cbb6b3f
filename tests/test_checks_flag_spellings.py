"""``posenc.checks.wrong_flags`` for every spelling of an optional flag's annotation (``bool | None``,
``None | bool``, ``Optional[bool]``, as a postponed annotation reads them), and a plain ``bool``: a string such as
``"no"`` is flagged in each, ``None`` is taken only where the annotation allows it. (A mutation run found
``Optional[bool]`` tested by nothing: with it misspelled, such a field was not checked at all.)"""

import dataclasses

import pytest

from posenc.checks import wrong_flags


def settings(annotation: str, value):
    cls = dataclasses.make_dataclass("Settings", [("flag", annotation), ("other", "int", dataclasses.field(default=1))])
    return cls(flag=value)


@pytest.mark.parametrize("annotation", ["bool | None", "None | bool", "Optional[bool]", "bool|None"])
def test_an_optional_flag_takes_true_false_and_none_and_flags_anything_else(annotation):
    for value in (True, False, None):
        assert wrong_flags(settings(annotation, value)) == []
    for value in ("no", 0, 1, "False"):
        assert wrong_flags(settings(annotation, value)) == [("flag", value)]


def test_a_plain_flag_takes_only_true_and_false():
    assert wrong_flags(settings("bool", True)) == wrong_flags(settings("bool", False)) == []
    for value in (None, "no", 0):
        assert wrong_flags(settings("bool", value)) == [("flag", value)]


def test_other_annotations_are_not_flags():
    assert wrong_flags(settings("int", "no")) == [] and wrong_flags(settings("str | None", 3)) == []
