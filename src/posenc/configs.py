"""One rule for the functions that give a command's settings dataclass from Python (:func:`posenc.extend.extend_config`,
:func:`posenc.report.report_config`): the dataclass itself, a copy with some settings replaced, or a new one whose
first field may be given first.

    >>> from dataclasses import dataclass
    >>> @dataclass(frozen=True)
    ... class Job:
    ...     name: str = "a"
    ...     size: int = 1
    >>> one_config(Job, "b", {"size": 2}, first="name", first_types=str, first_said="a job name (e.g. 'a')")
    Job(name='b', size=2)
"""

from __future__ import annotations

import dataclasses
from typing import Any, TypeVar

from posenc.errors import PosencError

__all__ = ["one_config"]

T = TypeVar("T")


def one_config(cls: type[T], config: Any, settings: dict[str, Any], *, first: str, first_types: type | tuple,
               first_said: str, what: str = "") -> T:
    """``config`` when it is a ``cls`` (a copy with ``settings`` replaced if any), else a new ``cls`` from
    ``settings`` with the field ``first`` set to ``config`` when it is given.

    Args:
        cls: the settings dataclass.
        config: a ``cls``, ``None``, or the value of the field ``first`` (of type ``first_types``).
        settings: field names and values; an unknown name is an error that lists the fields.
        first: the field a bare first argument sets.
        first_types: what a bare first argument may be.
        first_said: the first argument in words, with an example (``"a model name (e.g. 'smollm2')"``).
        what: the command's settings in words, for the unknown-name error (``"extend"``).
    """
    names = [f.name for f in dataclasses.fields(cls)]
    unknown = sorted(set(settings) - set(names))
    if unknown:
        raise PosencError(f"unknown {what + ' ' if what else ''}setting(s) {', '.join(unknown)}; the settings are "
                          f"{cls.__name__}'s fields: {', '.join(names)}")
    if isinstance(config, cls):
        return dataclasses.replace(config, **settings) if settings else config
    if config is None:
        return cls(**settings)
    if not isinstance(config, first_types):
        article = "an" if cls.__name__[:1] in "AEIOU" else "a"
        raise PosencError(f"the first argument must be {article} {cls.__name__} or {first_said}, got "
                          f"{type(config).__name__} {config!r}")
    if first in settings:
        raise PosencError(f"{first} is given twice: {config!r} as the first argument and {first}="
                          f"{settings[first]!r}; pass one")
    return cls(**{first: config}, **settings)
