"""One table of names: :class:`Registry`, what every name table of posenc is (encodings, scalings, tasks, presets,
experiments, claims, ...).

A registry holds items of one kind under unique names, in the order they were registered. An unknown name raises
:class:`UnknownName`, whose message names what was given, lists every valid name and suggests the closest one::

    >>> colours = Registry("colour")
    >>> colours.register("red", 1)
    1
    >>> colours.register("green", 2)
    2
    >>> colours.get("gren")
    Traceback (most recent call last):
    ...
    posenc.names.UnknownName: unknown colour 'gren'; valid colours are: red, green. Did you mean 'green'?
    >>> colours.names()
    ('red', 'green')
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterator, Mapping
from typing import Any, Generic, TypeVar, overload

from posenc.errors import PosencError

__all__ = ["Registry", "UnknownName", "DuplicateName", "did_you_mean"]

T = TypeVar("T")
_MISSING: Any = object()


class UnknownName(PosencError, KeyError):
    """A name no registry entry has. A ``PosencError`` (so a ``ValueError``) and a ``KeyError``; its message lists the
    valid names."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else ""


class DuplicateName(PosencError):
    """A name registered twice."""


def did_you_mean(given: object, valid: tuple[str, ...] | list[str], *, suffix: str = "") -> str:
    """``" Did you mean 'x'?"`` for the valid name closest to ``given`` (difflib's ratio above 0.6), else ``""``.
    ``suffix`` goes inside the sentence before its question mark (``" for 'hed_dim'"``)."""
    close = difflib.get_close_matches(str(given), list(valid), n=1)
    return f" Did you mean {close[0]!r}{suffix}?" if close else ""


class Registry(Generic[T]):
    """Names to items of one ``kind``, in registration order; a duplicate name raises :class:`DuplicateName` and an
    unknown one :class:`UnknownName`.

    Args:
        kind: what an item is, in the singular, for messages: ``"encoding"`` gives "unknown encoding 'x'".
        plural: its plural (default ``kind + "s"``): "valid encodings are: ...".
        sort: list the names sorted instead of in registration order, for a table whose registration order means
            nothing (encodings register as the package imports their files).
    """

    def __init__(self, kind: str, plural: str | None = None, *, sort: bool = False) -> None:
        if not isinstance(kind, str) or not kind.strip():
            raise PosencError(f"a registry's kind must be a non-empty string such as 'encoding', got {kind!r}")
        self.kind = kind
        self.plural = plural or f"{kind}s"
        self.sort = sort
        self._items: dict[str, T] = {}

    @overload
    def register(self, name: str) -> Callable[[T], T]: ...

    @overload
    def register(self, name: str, item: T) -> T: ...

    def register(self, name: str, item: T = _MISSING) -> T | Callable[[T], T]:
        """Add ``item`` under ``name`` and return it; without ``item``, a decorator that adds what it decorates.

        Raises :class:`DuplicateName` when ``name`` is taken, :class:`PosencError` when it is not a non-empty string.
        """
        if not isinstance(name, str) or not name:
            raise PosencError(f"a {self.kind} name must be a non-empty string, got {name!r}")
        if item is _MISSING:
            def decorate(obj: T) -> T:
                return self.register(name, obj)
            return decorate
        if name in self._items:
            held = self._items[name]
            what = getattr(held, "__qualname__", None) or type(held).__name__
            raise DuplicateName(f"{self.kind} name {name!r} is already registered (by {what}); pick another name")
        self._items[name] = item
        return item

    def register_all(self, table: Mapping[str, T]) -> None:
        """:meth:`register` every ``name: item`` of ``table``, in its order (a table written as a dict literal)."""
        for name, item in table.items():
            self.register(name, item)

    def unknown(self, name: object, *, where: str = "", also: str = "") -> UnknownName:
        """The error for ``name`` not in the table (to raise); ``where`` follows the name (``" for --claim"``),
        ``also`` the list of valid names (``" (or pass a JSON sweep file)"``)."""
        listed = ", ".join(self.names()) or "(none)"
        return UnknownName(f"unknown {self.kind} {name!r}{where}; valid {self.plural} are: {listed}{also}."
                           f"{did_you_mean(name, self.names())}")

    def check(self, names: Any, *, where: str = "") -> tuple[str, ...]:
        """``names`` (an iterable of names) in the order given, without repeats, when every one is in the table;
        otherwise :class:`UnknownName` listing every unknown one (sorted), then the valid names and a did-you-mean
        for the first. ``where`` follows the unknown names (``" for --only"``).

        >>> Registry("probe").check([])
        ()
        """
        given = list(names)
        unknown = sorted({str(n) for n in given if n not in self})
        if unknown:
            listed = ", ".join(self.names()) or "(none)"
            raise UnknownName(f"unknown {self.kind}(s) {unknown}{where}; valid {self.plural} are: {listed}."
                              f"{did_you_mean(unknown[0], self.names())}")
        return tuple(dict.fromkeys(given))

    def get(self, name: str, default: Any = _MISSING) -> T:
        """The item registered under ``name``; an unknown name raises :class:`UnknownName`, or returns ``default``
        when one is given (as ``dict.get`` does)."""
        if not isinstance(name, str) or name not in self._items:
            if default is not _MISSING:
                return default
            raise self.unknown(name)
        return self._items[name]

    def names(self) -> tuple[str, ...]:
        """Every name, in registration order (sorted for a registry made with ``sort=True``)."""
        return tuple(sorted(self._items) if self.sort else self._items)

    @property
    def choices(self) -> list[str]:
        """Every name, in the order of :meth:`names`, as a CLI's choices."""
        return list(self.names())

    def keys(self) -> tuple[str, ...]:
        """The same as :meth:`names` (so ``dict(registry)`` copies the table)."""
        return self.names()

    def items(self) -> list[tuple[str, T]]:
        """Every (name, item), in the order of :meth:`names`."""
        return [(name, self._items[name]) for name in self.names()]

    def values(self) -> list[T]:
        """Every item, in the order of :meth:`names`."""
        return [self._items[name] for name in self.names()]

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name in self._items

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())

    def __len__(self) -> int:
        return len(self._items)

    def __getitem__(self, name: str) -> T:
        return self.get(name)

    def __setitem__(self, name: str, item: T) -> None:
        """Put ``item`` under ``name``, replacing what was there: a deliberate swap (a test's stand-in, as
        ``monkeypatch.setitem`` does). :meth:`register` is the way to add, and refuses a name that is taken."""
        if name not in self._items:
            self.register(name, item)
        self._items[name] = item

    def pop(self, name: str, default: Any = _MISSING) -> T:
        """Remove ``name`` and return its item (a test's own entry, once done); an unknown name raises
        :class:`UnknownName`, or returns ``default`` when one is given."""
        if name not in self._items:
            if default is not _MISSING:
                return default
            raise self.unknown(name)
        return self._items.pop(name)

    def __delitem__(self, name: str) -> None:
        if name not in self._items:
            raise self.unknown(name)
        del self._items[name]

    def __repr__(self) -> str:
        return f"Registry({self.kind!r}: {', '.join(self.names())})"
