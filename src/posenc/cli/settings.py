"""A command's options derived from its settings dataclass: one field, one option, written once.

:func:`settings_command` turns every field of a settings dataclass (:class:`~posenc.extend.ExtendConfig`,
:class:`~posenc.lab.RunConfig`, ...) into an option of the command it decorates:

- the option is ``--field-name`` (underscores become dashes); its help is the field's entry in the ``Attributes:``
  section of the class docstring (:mod:`posenc.cli.field_docs`); its default, shown by ``--help``, is the field's;
- its type comes from the field's annotation (``X | None`` is read as ``X``): ``int``, ``float`` and ``str`` take
  one value of that type; ``bool`` is a flag, ``--name`` when the default is False, else ``--name/--no-name``;
  ``tuple[T, ...]`` and ``list[T]`` (T int, float or str) take one comma-separated value, e.g.
  ``--depths 0.25,0.75`` (an empty value, ``--depths ''``, or an empty item, ``0.25,,0.75``, is an error: left
  out, the option keeps its default); ``dict[str, Any]`` takes ``KEY=VALUE``, repeated (:func:`posenc.cli.options.parse_options`: a
  key given twice is an error); any other type is refused when the command is defined;
- a field left off the command line is not passed on: the dataclass applies its own default (and its
  ``__post_init__`` its own rules, such as a ``quick`` plan's sizes);
- a field that is itself a settings dataclass (:attr:`posenc.lab.RunConfig.model`, a
  :class:`~posenc.model.ModelConfig`) gives its fields as options of their own, in its place (``--d-model``, help
  from its class's docstring); :meth:`CommandSettings.build` gathers them into it.

A :class:`Flag` changes how one field looks on the command line when the rule above does not fit: other names
(``-e``), a positional argument, a repeated option instead of a comma-separated one, a parser of its own for the
text (``4k`` token counts), or a command-line default that differs from the dataclass's (``--device auto``, which
the command resolves, where the dataclass holds a resolved device). ``exclude`` leaves fields off the command line.

The decorated function takes the command's other options as usual and, as ``settings``, a :class:`CommandSettings`:
the fields as given, to check (``settings["device"]``) and then build the dataclass (``settings.build()``) after
the command's own checks, so every error still comes in the order the command chooses. A new field of the
dataclass therefore appears in the command line, with its help, and reaches the dataclass without another line.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import types
import typing
from collections.abc import Callable, Iterable
from dataclasses import MISSING, dataclass, fields, is_dataclass
from typing import Any, Generic, TypeVar

import typer

from posenc.cli.field_docs import field_docs
from posenc.cli.options import parse_options
from posenc.errors import PosencError

__all__ = ["Flag", "CommandSettings", "settings_command", "derive_options", "comma_items", "comma_values"]

S = TypeVar("S")

_UNSET: Any = object()
#: the name of the typer context parameter the generated command takes (never an option)
_CONTEXT = "settings_context_"
_SCALARS = (int, float, str)


def comma_items(text: str, option: str, example: str) -> list[str]:
    """The items of a comma-separated value, stripped; an empty value (``''``) or an empty item (``10,,20``, a
    trailing comma) is an error naming ``option``, the text and an ``example`` of the form (never silently dropped,
    never read as the default)."""
    if not text.strip():
        raise PosencError(f"{option} {text!r} is empty; give at least one item, e.g. {option} {example}, or leave "
                          f"{option} out for its default")
    items = [part.strip() for part in text.split(",")]
    if not all(items):
        raise PosencError(f"{option} {text!r} has an empty item; write the items separated by single commas, e.g. "
                          f"{option} {example}")
    return items


#: each element type of a list option: an example of the value, and what its items are called in an error
_COMMA_FORMS: dict[type, tuple[str, str]] = {int: ("10,20,40", "integers"), float: ("0.25,0.75", "numbers"),
                                              str: ("none,yarn", "names")}


def comma_values(text: str, option: str, kind: type) -> list:
    """The items of a comma-separated value as ``kind`` (``int``, ``float`` or ``str``): ``"10,20,40"`` ->
    ``[10, 20, 40]``, ``"0.25,0.75"`` -> ``[0.25, 0.75]``, ``"none, yarn"`` -> ``["none", "yarn"]`` (spaces around
    the items dropped); an item that is not a ``kind`` is an error naming the option and an example."""
    example, what = _COMMA_FORMS[kind]
    items = comma_items(text, option, example)
    try:
        return [kind(part) for part in items]
    except ValueError as exc:
        raise PosencError(f"{option} must be comma-separated {what} such as {example}, got {text!r}") from exc


@dataclass(frozen=True)
class Flag:
    """How one field appears on the command line where the rule of :mod:`posenc.cli.settings` does not fit.

    Attributes:
        names: the option's names, e.g. ``("--encoding", "-e")`` (default ``--field-name``).
        argument: a positional argument instead of an option.
        repeatable: a sequence given by repeating the option (``--mode a --mode b``), not comma-separated.
        parse: ``parse(text, option) -> list``, the elements of a comma-separated value (raise
            :class:`~posenc.errors.PosencError` naming ``option`` on bad text).
        default: the command line's default when it differs from the dataclass's (the field's value when the
            option is left out).
        metavar: how ``--help`` shows the value, e.g. ``"<path>"`` for a file name held as a string.
        choices: the names the value may take, listed after the help (``"one of: copy, reverse, ..."``), read from
            the table that holds them, so a new entry of the table is in ``--help`` without another line.
    """

    names: tuple[str, ...] = ()
    argument: bool = False
    repeatable: bool = False
    parse: Callable[[str, str], list] | None = None
    default: Any = _UNSET
    metavar: str | None = None
    choices: Iterable[str] = ()


@dataclass(frozen=True)
class _Option:
    """One field as a command-line parameter: what typer gets, and how its value becomes the field's."""

    name: str
    option: str  #: as users write it: ``--lengths``, or an argument's name
    annotation: Any
    info: Any  #: a typer OptionInfo or ArgumentInfo
    read: Callable[[Any], Any]
    default: Any  #: the command line's own default, or _UNSET
    within: tuple[str, type] | None = None  #: the nested settings dataclass holding the field, as (field, class)


def _optional(annotation: Any) -> tuple[Any, bool]:
    """``X | None`` -> ``(X, True)``; anything else -> ``(annotation, False)``."""
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        args = typing.get_args(annotation)
        rest = [a for a in args if a is not type(None)]
        if len(rest) == 1 and len(args) == 2:
            return rest[0], True
    return annotation, False


def _sequence(annotation: Any) -> tuple[type, type] | None:
    """``tuple[T, ...]`` or ``list[T]`` with T int, float or str -> ``(container, T)``; else None."""
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin is tuple and len(args) == 2 and args[1] is Ellipsis and args[0] in _SCALARS:
        return tuple, args[0]
    if origin is list and len(args) == 1 and args[0] in _SCALARS:
        return list, args[0]
    return None


def _field_default(f) -> Any:
    if f.default is not MISSING:
        return f.default
    if f.default_factory is not MISSING:
        return f.default_factory()
    return _UNSET


def _same(value: Any) -> Any:
    return value


def _derive(cls: type, f, annotation: Any, doc: str, flag: Flag) -> _Option:
    """The command-line parameter of field ``f`` (see the table in the module docstring)."""
    kind, optional = _optional(annotation)
    default = flag.default if flag.default is not _UNSET else _field_default(f)
    names = flag.names or ("--" + f.name.replace("_", "-"),)
    option = f.name if flag.argument else names[0]
    help_text = doc.removesuffix(".")  # option help reads as a phrase
    if flag.choices:
        help_text += f"; one of: {', '.join(flag.choices)}"
    sequence = _sequence(kind)
    if (flag.repeatable or flag.parse) and sequence is None:
        raise TypeError(f"{cls.__name__}.{f.name}: Flag(repeatable=..., parse=...) applies to a tuple or list field, "
                        f"not {annotation!r}")
    if flag.repeatable and flag.parse:
        raise TypeError(f"{cls.__name__}.{f.name}: a repeated option has no comma-separated text to parse")
    read: Callable[[Any], Any] = _same
    if kind is bool:
        cli_type, shown = bool, default
        if default is not False:  # True or None: both spellings, so either can be chosen
            names = (f"{names[0]}/--no-{names[0].lstrip('-')}", *names[1:])
    elif kind in _SCALARS:
        cli_type, shown = kind, default
    elif sequence is not None and flag.repeatable:
        container, element = sequence
        cli_type, shown = list[element], (list(default) if default else None)
        help_text += " (repeatable)"

        def read(value: Any) -> Any:
            return container(value or ()) if value or not optional else None
    elif sequence is not None:
        container, element = sequence
        parse = flag.parse or functools.partial(comma_values, kind=element)
        cli_type, shown = str, (",".join(str(v) for v in default) if default else None)

        def read(value: Any) -> Any:  # only for an option given: '' is refused by the parser, never the default
            return container(parse(value, option))
    elif typing.get_origin(kind) is dict or kind is dict:
        cli_type, shown = list[str], None
        help_text += " (KEY=VALUE, repeatable)"

        def read(value: Any) -> Any:
            return parse_options(value, option, "key=value")
    else:
        raise TypeError(f"{cls.__name__}.{f.name}: no command-line form for type {annotation!r} (see "
                        f"posenc.cli.settings); leave the field off with exclude=")
    if default is _UNSET:
        shown = ...  # typer's mark of a required parameter
    if flag.argument:
        info = typer.Argument(shown, help=help_text, metavar=flag.metavar, show_default=shown is not None)
    else:
        info = typer.Option(shown, *names, help=help_text, metavar=flag.metavar)
    return _Option(f.name, option, cli_type, info, read, flag.default)


def _fields(cls: type) -> list[tuple[type, Any, Any, tuple[str, type] | None]]:
    """``(owner, field, annotation, within)`` for every field of ``cls`` in order, a nested settings dataclass's
    fields in its place (``within``: the field holding them and its class)."""
    hints = typing.get_type_hints(cls)
    out = []
    for f in fields(cls):
        kind = hints[f.name]
        if isinstance(kind, type) and is_dataclass(kind):
            inner = typing.get_type_hints(kind)
            out += [(kind, g, inner[g.name], (f.name, kind)) for g in fields(kind)]
        else:
            out.append((cls, f, kind, None))
    return out


def derive_options(cls: type, flags: dict[str, Flag] | None = None,
                   exclude: tuple[str, ...] = ()) -> dict[str, _Option]:
    """Every field of the dataclass ``cls`` but ``exclude`` as a command-line parameter, in field order (a nested
    settings dataclass's fields in its place)."""
    if not is_dataclass(cls):
        raise TypeError(f"{cls!r} is not a dataclass")
    flags = flags or {}
    every = _fields(cls)
    names = {f.name for _, f, _, _ in every}
    unknown = sorted((set(flags) | set(exclude)) - names)
    if unknown:
        raise TypeError(f"{cls.__name__} has no field(s) {unknown}")
    docs = {owner: field_docs(owner) for owner, _, _, _ in every}
    return {f.name: dataclasses.replace(_derive(owner, f, kind, docs[owner].get(f.name, ""),
                                                flags.get(f.name, Flag())), within=within)
            for owner, f, kind, within in every if f.name not in exclude}


class CommandSettings(Generic[S]):
    """The fields of a settings dataclass as one command line gave them.

    ``settings["name"]`` is a field's value as typer read it (for an option left out, the default ``--help``
    shows; comma-separated values still as text), for checks that come before the dataclass is built;
    :meth:`given` says whether the command line named the field; :meth:`parsed` holds the fields to pass on, in
    the dataclass's types; :meth:`build` makes the dataclass.
    """

    def __init__(self, cls: type[S], options: dict[str, _Option], values: dict[str, Any], given: frozenset[str]):
        self.cls = cls
        self.options = options
        self._values = values
        self._given = given

    @property
    def names(self) -> tuple[str, ...]:
        """The fields the command line can set."""
        return tuple(self.options)

    def __getitem__(self, name: str) -> Any:
        return self._values[name]

    def given(self, name: str) -> bool:
        """Whether the command line gave field ``name``."""
        return name in self._given

    def option(self, name: str) -> str:
        """How users write field ``name``: ``--lengths``, or an argument's name."""
        return self.options[name].option

    def parsed(self) -> dict[str, Any]:
        """The fields the command line gave, plus those with a command-line default of their own, as the
        dataclass takes them (comma-separated text parsed; bad text raises :class:`PosencError` naming the
        option). Fields left out are absent, so the dataclass's defaults apply."""
        out: dict[str, Any] = {}
        for name, spec in self.options.items():
            if name in self._given:
                out[name] = spec.read(self._values[name])
            elif spec.default is not _UNSET:
                out[name] = spec.default
        return out

    def build(self, **overrides: Any) -> S:
        """The settings dataclass from :meth:`parsed`, with ``overrides`` (values the command resolved) on top; the
        fields of a nested settings dataclass are gathered into it (left out: its default)."""
        values, nested = {**self.parsed(), **overrides}, {}
        for name, spec in self.options.items():
            if spec.within is not None and name in values:
                nested.setdefault(spec.within, {})[name] = values.pop(name)
        return self.cls(**values, **{field: kind(**given) for (field, kind), given in nested.items()})


def _given(ctx: Any, name: str) -> bool:
    source = ctx.get_parameter_source(name)
    return source is not None and source.name not in ("DEFAULT", "DEFAULT_MAP")


def settings_command(cls: type, *, flags: dict[str, Flag] | None = None,
                     exclude: tuple[str, ...] = ()) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Decorate a typer command taking ``settings`` so that every field of the dataclass ``cls`` (but ``exclude``)
    is one of its options; the command receives them as a :class:`CommandSettings`.

    ``flags`` adapts single fields (:class:`Flag`). ``--help`` lists the fields' options first, in field order,
    then the command's own parameters, which keep their typer declarations.
    """
    options = derive_options(cls, flags, exclude)

    def decorate(command: Callable[..., Any]) -> Callable[..., Any]:
        own = inspect.signature(command).parameters
        if "settings" not in own:
            raise TypeError(f"{command.__name__} must take a 'settings' parameter to receive {cls.__name__}")
        clash = sorted(set(options) & set(own))
        if clash:
            raise TypeError(f"{command.__name__}: parameter(s) {clash} are also fields of {cls.__name__}")
        hints = typing.get_type_hints(command)
        kw = inspect.Parameter.KEYWORD_ONLY
        params = [inspect.Parameter(_CONTEXT, kw, annotation=typer.Context)]
        params += [inspect.Parameter(name, kw, default=spec.info, annotation=spec.annotation)
                   for name, spec in options.items()]
        params += [p.replace(kind=kw, annotation=hints.get(p.name, p.annotation)) for p in own.values()
                   if p.name != "settings"]

        @functools.wraps(command)
        def wrapper(**kwargs: Any) -> Any:
            ctx = kwargs.pop(_CONTEXT)
            values = {name: kwargs.pop(name) for name in options}
            given = frozenset(name for name in options if _given(ctx, name))
            return command(settings=CommandSettings(cls, options, values, given), **kwargs)

        wrapper.__signature__ = inspect.Signature(params, return_annotation=hints.get("return", None))
        wrapper.__annotations__ = {p.name: p.annotation for p in params}
        wrapper.settings_class = cls
        wrapper.settings_options = options
        return wrapper

    return decorate
