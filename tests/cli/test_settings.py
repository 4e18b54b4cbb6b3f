"""Options derived from a settings dataclass: field docs as help, types, defaults, parsing, and what is passed on."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest
import typer

from posenc.cli.field_docs import field_docs, plain_text
from posenc.cli.settings import Flag, comma_values, derive_options, settings_command
from posenc.errors import PosencError


@dataclass
class Toy:
    """A settings dataclass with one field of every kind the command line knows.

    Attributes:
        size: an ``int`` with a default.
        rate: an optional number
            whose entry goes on over two lines.
        name, label: two fields, one entry (:class:`~posenc.lab.RunConfig` style).
        quick: a flag that is off by default.
        strict: a flag that is on by default.
        passkey: a flag with no default.
        lengths: optional integers.
        names: strings, never None.
        depths: numbers.
        options: ``"key"`` and value pairs.
        device: ``cpu`` here, ``auto`` on the command line.
        hidden: left off the command line.

    Example:
        not: an attribute.
    """

    size: int = 3
    rate: float | None = None
    name: str = "toy"
    label: str | None = None
    quick: bool = False
    strict: bool = True
    passkey: bool | None = None
    lengths: tuple[int, ...] | None = None
    names: list[str] = field(default_factory=lambda: ["a", "b"])
    depths: tuple[float, ...] = (0.25, 0.75)
    options: dict[str, Any] = field(default_factory=dict)
    device: str = "cpu"
    hidden: int = 0


FLAGS = {"name": Flag(names=("--name", "-n")), "device": Flag(default="auto"), "depths": Flag(repeatable=True)}


def test_field_docs_read_the_attributes_section():
    docs = field_docs(Toy)
    assert docs["size"] == "an int with a default."
    assert docs["rate"] == "an optional number whose entry goes on over two lines."
    assert docs["name"] == docs["label"] == "two fields, one entry (RunConfig style)."
    assert docs["options"] == "key and value pairs."
    assert "not" not in docs  # the next section is not part of it
    assert set(docs) == {f for f in Toy.__dataclass_fields__}


def test_a_continuation_line_belongs_to_the_entry_above_it():
    class Spread:
        """Continuation lines under the first and the third entry.

        Attributes:
            first: one entry
                on two lines.
            second: one line.
            third: and this one
                on three
                lines.
        """

    assert field_docs(Spread) == {"first": "one entry on two lines.", "second": "one line.",
                                  "third": "and this one on three lines."}


def test_field_docs_of_a_class_without_the_section_are_empty():
    class Plain:
        """No attributes here.

        Args:
            x: an argument, not a field.
        """

    assert field_docs(Plain) == {}


@pytest.mark.parametrize("text,plain", [
    ("``x`` and `y`", "x and y"),
    ('``"decoder"`` or ``{"a": 1}``', 'decoder or {"a": 1}'),
    (":mod:`posenc.extend.perplexity` and :meth:`~posenc.lab.RunConfig.as_dict`", "posenc.extend.perplexity and as_dict"),
    ("two\n   lines", "two lines"),
])
def test_plain_text_takes_the_markup_off(text, plain):
    assert plain_text(text) == plain


def test_each_field_becomes_an_option_with_its_type_default_and_help():
    options = derive_options(Toy, FLAGS, exclude=("hidden",))
    assert list(options) == [f for f in Toy.__dataclass_fields__ if f != "hidden"]
    decls = {name: spec.info.param_decls for name, spec in options.items()}
    assert decls["size"] == ("--size",) and decls["name"] == ("--name", "-n")
    assert decls["quick"] == ("--quick",)  # off by default: a single flag
    assert decls["strict"] == ("--strict/--no-strict",) and decls["passkey"] == ("--passkey/--no-passkey",)
    types = {name: spec.annotation for name, spec in options.items()}
    assert types == {"size": int, "rate": float, "name": str, "label": str, "quick": bool, "strict": bool,
                     "passkey": bool, "lengths": str, "names": str, "depths": list[float], "options": list[str],
                     "device": str}
    shown = {name: spec.info.default for name, spec in options.items()}
    assert shown == {"size": 3, "rate": None, "name": "toy", "label": None, "quick": False, "strict": True,
                     "passkey": None, "lengths": None, "names": "a,b", "depths": [0.25, 0.75], "options": None,
                     "device": "auto"}
    helps = {name: spec.info.help for name, spec in options.items()}
    assert helps["size"] == "an int with a default"  # the entry, without its final full stop
    assert helps["depths"] == "numbers (repeatable)" and helps["options"] == "key and value pairs (KEY=VALUE, repeatable)"


def test_a_flag_with_choices_lists_them_after_the_help_in_their_table_order():
    table = {"beta": 2, "alpha": 1}  # a registry: its order, not sorted
    options = derive_options(Toy, {"name": Flag(choices=table)})
    assert options["name"].info.help == "two fields, one entry (RunConfig style); one of: beta, alpha"
    assert "one of" not in derive_options(Toy)["name"].info.help


def test_fields_the_command_line_cannot_take_are_refused_when_the_command_is_defined():
    @dataclass
    class Odd:
        """A field of a type the command line does not know.

        Attributes:
            pairs: two integers.
        """

        pairs: tuple[int, int] = (1, 2)

    with pytest.raises(TypeError, match=r"Odd.pairs: no command-line form"):
        derive_options(Odd)
    assert list(derive_options(Odd, exclude=("pairs",))) == []
    with pytest.raises(TypeError, match=r"has no field\(s\) \['nosuch'\]"):
        derive_options(Toy, {"nosuch": Flag()})
    with pytest.raises(TypeError, match=r"Toy.size: Flag\(repeatable=..., parse=...\) applies to a tuple or list"):
        derive_options(Toy, {"size": Flag(parse=lambda text, option: [text])})
    with pytest.raises(TypeError, match="no comma-separated text to parse"):
        derive_options(Toy, {"names": Flag(repeatable=True, parse=lambda text, option: [text])})


def _run(argv: list[str]):
    """Run a one-command app over Toy; return the CommandSettings the command received."""
    seen = {}
    app = typer.Typer(add_completion=False)

    @settings_command(Toy, flags=FLAGS, exclude=("hidden",))
    def toy(settings, verbose: bool = typer.Option(False, "--verbose")) -> None:
        seen["settings"], seen["verbose"] = settings, verbose

    app.command("toy")(toy)
    app.command("other")(lambda: None)  # two commands, so "toy" is named on the command line
    app(["toy", *argv], standalone_mode=False)
    return seen["settings"], seen["verbose"]


def test_only_what_the_command_line_gives_is_passed_on():
    settings, verbose = _run([])
    assert verbose is False
    assert settings.parsed() == {"device": "auto"}  # the command line's own default; the rest: the dataclass's
    assert settings.build() == Toy(device="auto")
    assert settings["size"] == 3 and settings["names"] == "a,b"  # what --help shows, for checks before build()
    assert not settings.given("size") and settings.option("name") == "--name"


def test_given_values_are_parsed_into_the_fields_types():
    settings, verbose = _run(["--size", "5", "-n", "x", "--no-strict", "--passkey", "--lengths", "4, 8",
                              "--names", " p ,q", "--depths", "0.5", "--depths", "1", "--options", "k=1", "--options",
                              "s=text", "--device", "cpu", "--verbose"])
    assert verbose is True
    assert settings.given("size") and not settings.given("rate")
    assert settings.build() == Toy(size=5, name="x", strict=False, passkey=True, lengths=(4, 8), names=["p", "q"],
                                   depths=(0.5, 1.0), options={"k": 1, "s": "text"}, device="cpu")
    assert settings.build(size=9).size == 9  # values the command resolved go on top


@pytest.mark.parametrize("option, text, example", [("--lengths", "", "10,20,40"), ("--names", " ", "none,yarn")])
def test_an_empty_list_is_refused_never_read_as_the_default(option, text, example):
    # an optional field (--lengths) would have become None, the default; another one an empty list
    settings, _ = _run([option, text])
    with pytest.raises(PosencError, match=f"^{option} {text!r} is empty; give at least one item, e.g. {option} "
                                          f"{example}, or leave {option} out for its default$"):
        settings.parsed()


@pytest.mark.parametrize("text", ["4,,8", "4,8,", ",4", ",", " , "])
def test_an_empty_item_is_refused_never_dropped(text):
    settings, _ = _run(["--lengths", text])
    with pytest.raises(PosencError, match=f"--lengths {text!r} has an empty item; write the items separated by "
                                          f"single commas, e.g. --lengths 10,20,40"):
        settings.parsed()


def test_bad_list_text_names_the_option():
    settings, _ = _run(["--lengths", "4,x"])
    with pytest.raises(PosencError, match=r"--lengths must be comma-separated integers such as 10,20,40, "
                                          r"got '4,x'"):
        settings.parsed()
    assert _run(["--lengths", "4, 8", "--names", " none , yarn"])[0].parsed() == {
        "lengths": (4, 8), "names": ["none", "yarn"], "device": "auto"}


def test_comma_values_reads_each_element_type():
    assert comma_values("0.5, 1e-1", "--depths", float) == [0.5, 0.1]
    assert comma_values("none, yarn", "--names", str) == ["none", "yarn"]
    with pytest.raises(PosencError, match=r"^--depths must be comma-separated numbers such as 0.25,0.75, "
                                          r"got '0.5,half'$"):
        comma_values("0.5,half", "--depths", float)


def test_the_commands_own_parameters_keep_their_typer_declarations():
    seen = {}
    app = typer.Typer(add_completion=False)

    @settings_command(Toy, exclude=("hidden",))
    def toy(settings, note=typer.Option("none", "--note", help="a parameter without a type annotation")) -> None:
        seen["note"] = note

    app.command("toy")(toy)
    app.command("other")(lambda: None)
    app(["toy", "--note", "42"], standalone_mode=False)
    assert seen["note"] == "42"  # typer's reading of an option without an annotation: text
    assert toy.settings_class is Toy  # the class its options come from, for whoever inspects the command


def test_a_command_needs_a_settings_parameter_and_no_clashing_names():
    with pytest.raises(TypeError, match="must take a 'settings' parameter"):
        settings_command(Toy)(lambda size=1: None)
    with pytest.raises(TypeError, match=r"\['size'\] are also fields of Toy"):
        settings_command(Toy)(lambda settings, size=1: None)


def test_a_key_value_field_names_its_option_in_errors():
    settings, _ = _run(["--options", "k"])
    with pytest.raises(PosencError, match=r"^--options 'k' is not of the form KEY=VALUE; write e.g. --options "
                                          r"key=value$"):
        settings.parsed()
    settings, _ = _run(["--options", "k=1", "--options", "k=2"])
    with pytest.raises(PosencError, match=r"^--options gives k twice \('k=1' and 'k=2'\); give each key once$"):
        settings.parsed()


def test_a_field_given_its_default_value_is_still_given():
    # given means named on the command line, whatever the value: --size 3 is passed on though 3 is the default
    settings, _ = _run(["--size", "3"])
    assert settings.given("size") and settings.parsed() == {"size": 3, "device": "auto"}
