"""Names to builders: ``posenc.build("rope", head_dim=64)``.

Every encoding class registers itself with :func:`register`. Options are the keyword arguments of the class's
``__init__``; an unknown name or option raises an error that lists the valid ones. A duplicate name raises.
"""

from __future__ import annotations

import difflib
import inspect
from collections.abc import Callable
from typing import Any

from posenc.encodings.base import PositionalEncoding
from posenc.errors import PosencError

__all__ = ["register", "build", "build_for_model", "available", "options_of", "get_class", "MODEL_SIZES"]

_REGISTRY: dict[str, type[PositionalEncoding]] = {}

#: model sizes a model builder offers to every encoding; each encoding takes only those its __init__ names.
MODEL_SIZES = ("d_model", "n_heads", "head_dim", "max_len")


def register(name: str) -> Callable[[type[PositionalEncoding]], type[PositionalEncoding]]:
    """Class decorator: register an encoding under ``name`` (lower case, unique)."""

    def decorate(cls: type[PositionalEncoding]) -> type[PositionalEncoding]:
        if name in _REGISTRY:
            raise PosencError(f"encoding name {name!r} is already registered by {_REGISTRY[name].__qualname__}; "
                              f"pick another name")
        cls.name = name
        _REGISTRY[name] = cls
        return cls

    return decorate


def _ensure_loaded() -> None:
    import posenc.encodings  # noqa: F401  (importing registers every family)


def available() -> list[str]:
    """Names of every registered encoding, sorted."""
    _ensure_loaded()
    return sorted(_REGISTRY)


def get_class(name: str) -> type[PositionalEncoding]:
    """The class registered under ``name``; an unknown name lists the valid ones."""
    _ensure_loaded()
    if not isinstance(name, str) or name not in _REGISTRY:
        close = difflib.get_close_matches(str(name), list(_REGISTRY), n=1)
        hint = f" Did you mean {close[0]!r}?" if close else ""
        raise PosencError(f"unknown encoding {name!r}; valid names are: {', '.join(sorted(_REGISTRY))}.{hint}")
    return _REGISTRY[name]


def options_of(name: str) -> dict[str, Any]:
    """The options an encoding accepts, with their defaults (``inspect.Parameter.empty`` when required)."""
    cls = get_class(name)
    params = inspect.signature(cls.__init__).parameters
    return {p.name: p.default for p in params.values()
            if p.name != "self" and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}


def build(name: str, **options: Any) -> PositionalEncoding:
    """Build the encoding ``name`` with ``options``; unknown options raise an error listing the valid ones."""
    cls = get_class(name)
    valid = options_of(name)
    unknown = sorted(set(options) - set(valid))
    if unknown:
        raise PosencError(f"unknown option(s) {', '.join(map(repr, unknown))} for encoding {name!r}; "
                          f"valid options are: {', '.join(valid) or '(none)'}")
    return cls(**options)


def build_for_model(name: str, *, d_model: int | None = None, n_heads: int | None = None,
                    head_dim: int | None = None, max_len: int | None = None, **options: Any) -> PositionalEncoding:
    """Build ``name`` for a model of the given sizes: each size is passed only if the encoding takes it and the
    caller did not set it in ``options``. Unknown ``options`` still raise."""
    valid = options_of(name)
    sizes = {"d_model": d_model, "n_heads": n_heads, "head_dim": head_dim, "max_len": max_len}
    for key, value in sizes.items():
        if value is not None and key in valid and key not in options:
            options[key] = value
    # absolute encodings take their width as ``dim``; a model supplies d_model unless concat asks otherwise
    if "dim" in valid and "dim" not in options and d_model is not None and options.get("combine", "add") == "add":
        options["dim"] = d_model
    return build(name, **options)
