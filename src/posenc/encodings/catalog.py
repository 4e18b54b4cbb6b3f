"""Names to builders: the table behind ``posenc.build("rope", head_dim=64)``.

The table, :data:`ENCODINGS`, is a :class:`~posenc.names.Registry` of classes; it imports none. Each family registers
at its class with the decorator :func:`register` (``@register("rope")`` above ``class RoPE``), and the package
(``posenc/encodings/__init__.py``) imports every module of the folder, so a new family file is in the table without
being listed anywhere; an encoding defined elsewhere joins with the same decorator. Options are the keyword arguments
of the class's ``__init__``; an unknown name or option raises an error that lists the valid ones. A duplicate name
raises.

Importing any ``posenc.encodings`` module runs the package first, so the table is full before this module is used.
A wrapper that builds an encoding by name (``randomized``) imports this module, never the package.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from posenc.checks import whole_number
from posenc.encodings.base import PositionalEncoding
from posenc.errors import PosencError
from posenc.names import Registry, did_you_mean

__all__ = ["ENCODINGS", "register", "build", "build_for_model", "available", "options_of", "get_class", "MODEL_SIZES"]

#: every encoding class by name, listed sorted (the families register in the order their files are imported)
ENCODINGS: Registry[type[PositionalEncoding]] = Registry("encoding", sort=True)

#: model sizes a model builder offers to every encoding; each encoding takes only those its __init__ names.
MODEL_SIZES = ("d_model", "n_heads", "head_dim", "max_len")


def register(name: str) -> Callable[[type[PositionalEncoding]], type[PositionalEncoding]]:
    """Class decorator: add an encoding under ``name`` (lower case, unique) and set its ``name``; a name already
    taken raises :class:`~posenc.names.DuplicateName`."""

    def decorate(cls: type[PositionalEncoding]) -> type[PositionalEncoding]:
        ENCODINGS.register(name, cls)
        cls.name = name
        return cls

    return decorate


def available() -> list[str]:
    """Names of every registered encoding, sorted."""
    return list(ENCODINGS.names())


def get_class(name: str) -> type[PositionalEncoding]:
    """The class registered under ``name``; an unknown name lists the valid ones."""
    return ENCODINGS.get(name)


def options_of(name: str) -> dict[str, Any]:
    """The options an encoding accepts, with their defaults (``inspect.Parameter.empty`` when required)."""
    cls = get_class(name)
    params = inspect.signature(cls.__init__).parameters
    return {p.name: p.default for p in params.values()
            if p.name != "self" and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}


def build(name: str, **options: Any) -> PositionalEncoding:
    """Build the encoding ``name`` with ``options``; unknown options raise an error listing the valid ones, and an
    option whose default is ``True`` or ``False`` takes only ``True`` or ``False`` (a string such as ``"no"`` would
    count as true)."""
    cls = get_class(name)
    valid = options_of(name)
    unknown = sorted(set(options) - set(valid))
    if unknown:
        hint = "".join(did_you_mean(key, list(valid), suffix=f" for {key!r}") for key in unknown)
        raise PosencError(f"unknown option(s) {', '.join(map(repr, unknown))} for encoding {name!r}; "
                          f"valid options are: {', '.join(valid) or '(none)'}.{hint}")
    for key, value in options.items():
        if isinstance(valid[key], bool) and not isinstance(value, bool):
            raise PosencError(f"encoding {name!r}: option {key} is a flag, so it takes True or False, got {value!r} "
                              f"(a string such as 'no' would count as true); on the command line write -o {key}=false")
    return cls(**options)


def build_for_model(name: str, *, d_model: int | None = None, n_heads: int | None = None,
                    head_dim: int | None = None, max_len: int | None = None, **options: Any) -> PositionalEncoding:
    """Build ``name`` for a model of the given sizes: each size is passed only if the encoding takes it and the
    caller did not set it in ``options``. Unknown ``options`` still raise.

    Without ``head_dim``, an encoding that takes one gets ``d_model // n_heads``, and a ``d_model`` that ``n_heads``
    does not divide is refused (no head width would fit)."""
    valid = options_of(name)
    if head_dim is None and d_model is not None and n_heads is not None and "head_dim" in valid and (
            "head_dim" not in options):
        for label, value in (("d_model", d_model), ("n_heads", n_heads)):
            if not whole_number(value):
                raise PosencError(f"{label} must be a positive integer, got {value!r}")
        if d_model % n_heads:
            fits = max(h for h in range(1, n_heads + 1) if d_model % h == 0)
            raise PosencError(f"d_model ({d_model}) is not divisible by n_heads ({n_heads}), so no head width fits; "
                              f"use e.g. n_heads={fits}, or pass head_dim explicitly")
        head_dim = d_model // n_heads
    sizes = {"d_model": d_model, "n_heads": n_heads, "head_dim": head_dim, "max_len": max_len}
    for key, value in sizes.items():
        if value is not None and key in valid and key not in options:
            options[key] = value
    # absolute encodings take their width as ``dim``; a model supplies d_model unless concat asks otherwise
    if "dim" in valid and "dim" not in options and d_model is not None and options.get("combine", "add") == "add":
        options["dim"] = d_model
    return build(name, **options)
