"""posenc.names.Registry: duplicates refused, declaration order kept, messages that name the kind, the given name,
every valid name and the closest one."""

import argparse
import re

import pytest

from posenc.errors import PosencError
from posenc.names import DuplicateName, Registry, UnknownName, did_you_mean


def _fruit() -> Registry[int]:
    fruit: Registry[int] = Registry("fruit")
    for i, name in enumerate(("pear", "apple", "plum")):  # not sorted: the order must be kept, not re-sorted
        fruit.register(name, i)
    return fruit


def test_names_items_and_iteration_keep_declaration_order():
    fruit = _fruit()
    assert fruit.names() == ("pear", "apple", "plum")
    assert list(fruit) == ["pear", "apple", "plum"]
    assert fruit.items() == [("pear", 0), ("apple", 1), ("plum", 2)]
    assert fruit.values() == [0, 1, 2] and fruit.keys() == fruit.names()
    assert dict(fruit) == {"pear": 0, "apple": 1, "plum": 2} and list(dict(fruit)) == ["pear", "apple", "plum"]
    assert fruit.choices == ["pear", "apple", "plum"]
    assert len(fruit) == 3 and "apple" in fruit and "fig" not in fruit and 3 not in fruit


def test_get_returns_the_registered_item():
    fruit = _fruit()
    assert fruit.get("apple") == 1 and fruit["plum"] == 2
    assert fruit.get("fig", None) is None and fruit.get("pear", None) == 0  # a default, as dict.get


def test_a_duplicate_name_is_refused_and_the_first_item_kept():
    fruit = _fruit()
    with pytest.raises(DuplicateName, match="fruit name 'apple' is already registered .*pick another name"):
        fruit.register("apple", 9)
    assert fruit.get("apple") == 1 and len(fruit) == 3


def test_register_all_keeps_the_table_order_and_refuses_a_taken_name():
    fruit: Registry[int] = Registry("fruit")
    fruit.register_all({"pear": 0, "apple": 1, "plum": 2})
    assert fruit.items() == [("pear", 0), ("apple", 1), ("plum", 2)]
    with pytest.raises(DuplicateName, match="fruit name 'apple' is already registered"):
        fruit.register_all({"fig": 3, "apple": 4})
    assert fruit.get("apple") == 1 and fruit.get("fig") == 3  # the names before the taken one are in


def test_the_decorator_form_registers_what_it_decorates_and_returns_it():
    shapes: Registry[type] = Registry("shape")

    @shapes.register("square")
    class Square:
        pass

    assert shapes.get("square") is Square and Square.__name__ == "Square"
    with pytest.raises(DuplicateName, match=r"shape name 'square' is already registered \(by .*Square\)"):
        @shapes.register("square")
        class Other:
            pass


def test_an_unknown_name_lists_every_valid_name_in_order_and_the_closest():
    with pytest.raises(UnknownName) as caught:
        _fruit().get("appel")
    assert str(caught.value) == "unknown fruit 'appel'; valid fruits are: pear, apple, plum. Did you mean 'apple'?"


def test_an_unknown_name_far_from_all_has_no_suggestion():
    with pytest.raises(UnknownName) as caught:
        _fruit().get("zzzzzz")
    assert str(caught.value) == "unknown fruit 'zzzzzz'; valid fruits are: pear, apple, plum."


def test_the_unknown_error_is_a_posenc_error_a_value_error_and_a_key_error():
    with pytest.raises(UnknownName) as caught:
        _fruit().get("fig")
    assert isinstance(caught.value, PosencError) and isinstance(caught.value, ValueError)
    assert isinstance(caught.value, KeyError)
    assert not str(caught.value).startswith("'")  # KeyError's quoting is not in the message


def test_a_name_of_another_type_is_unknown_not_a_crash():
    for bad in (None, 3, ("apple",)):
        with pytest.raises(UnknownName, match=re.escape(f"unknown fruit {bad!r};")):
            _fruit().get(bad)


def test_a_sorted_registry_lists_and_suggests_in_sorted_order():
    fruit: Registry[int] = Registry("fruit", sort=True)
    for i, name in enumerate(("pear", "apple", "plum")):
        fruit.register(name, i)
    assert fruit.names() == ("apple", "pear", "plum") and list(fruit) == ["apple", "pear", "plum"]
    assert fruit.items() == [("apple", 1), ("pear", 0), ("plum", 2)] and fruit.choices == ["apple", "pear", "plum"]
    with pytest.raises(UnknownName, match=r"valid fruits are: apple, pear, plum\. Did you mean 'pear'\?"):
        fruit.get("peer")


def test_the_plural_is_a_constructor_argument():
    classes: Registry[int] = Registry("class", plural="classes")
    classes.register("a", 1)
    with pytest.raises(UnknownName, match="unknown class 'b'; valid classes are: a."):
        classes.get("b")


def test_an_empty_registry_says_none():
    with pytest.raises(UnknownName, match=r"unknown probe 'x'; valid probes are: \(none\)\."):
        Registry("probe").get("x")


@pytest.mark.parametrize("bad", ["", None, 5])
def test_a_name_that_is_not_a_non_empty_string_is_refused(bad):
    with pytest.raises(PosencError, match=f"a fruit name must be a non-empty string, got {bad!r}"):
        Registry("fruit").register(bad, 1)


@pytest.mark.parametrize("bad", ["", "  ", None])
def test_a_kind_that_is_not_a_non_empty_string_is_refused(bad):
    with pytest.raises(PosencError, match="a registry's kind must be a non-empty string"):
        Registry(bad)


def test_unknown_says_where_the_name_was_given():
    error = _fruit().unknown("aple", where=" for --fruit")
    assert str(error) == ("unknown fruit 'aple' for --fruit; valid fruits are: pear, apple, plum. "
                          "Did you mean 'apple'?")
    error = _fruit().unknown("aple", also=" (or a basket)")
    assert str(error) == ("unknown fruit 'aple'; valid fruits are: pear, apple, plum (or a basket). "
                          "Did you mean 'apple'?")


def test_item_assignment_swaps_an_entry_and_deletion_removes_it(monkeypatch):
    fruit = _fruit()
    monkeypatch.setitem(fruit, "apple", 7)  # a test's stand-in
    assert fruit.get("apple") == 7 and fruit.names() == ("pear", "apple", "plum")
    monkeypatch.undo()
    assert fruit.get("apple") == 1
    fruit["fig"] = 3
    assert fruit.names()[-1] == "fig"
    del fruit["fig"]
    assert "fig" not in fruit
    fruit["fig"] = 3
    assert fruit.pop("fig") == 3 and fruit.pop("fig", None) is None and "fig" not in fruit
    with pytest.raises(UnknownName):
        fruit.pop("fig")
    with pytest.raises(UnknownName):
        del fruit["fig"]


def test_choices_drive_argparse():
    parser = argparse.ArgumentParser(exit_on_error=False)
    parser.add_argument("--fruit", choices=_fruit().choices)
    assert parser.parse_args(["--fruit", "plum"]).fruit == "plum"
    with pytest.raises(argparse.ArgumentError, match="'pear', 'apple', 'plum'"):
        parser.parse_args(["--fruit", "fig"])


def test_did_you_mean_on_its_own():
    assert did_you_mean("hed_dim", ["head_dim", "d_model"], suffix=" for 'hed_dim'") == (
        " Did you mean 'head_dim' for 'hed_dim'?")
    assert did_you_mean("qqq", ["head_dim"]) == ""


def test_the_module_example_runs():
    import doctest

    import posenc.names

    result = doctest.testmod(posenc.names, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0


def test_check_names_every_unknown_name_at_once():
    probes = Registry("probe")
    probes.register_all({"heads": 1, "rope": 2, "geometry": 3})
    assert probes.check(["rope", "heads", "rope"]) == ("rope", "heads")  # the order given, no repeats
    assert probes.check(iter(())) == ()
    with pytest.raises(UnknownName) as caught:
        probes.check(["rope", "zeta", "hedas"], where=" for --only")
    assert str(caught.value) == ("unknown probe(s) ['hedas', 'zeta'] for --only; valid probes are: heads, rope, "
                                 "geometry. Did you mean 'heads'?")
