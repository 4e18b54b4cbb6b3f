"""The two evaluation protocols of Press et al. 2022 (ALiBi), shared by the lab's char-LM and by ``posenc extend``.

- ``nonoverlap``: consecutive windows of ``L`` tokens; each token is scored once, and the first tokens of a window see
  little context.
- ``sliding``: windows of ``L`` tokens moved by a stride; each window scores only its last ``stride`` tokens, so every
  scored token sees at least ``L - stride`` tokens of context.

``nonoverlapping`` is accepted as another spelling of ``nonoverlap``.
"""

from __future__ import annotations

from collections.abc import Iterable

from posenc.errors import PosencError

__all__ = ["PROTOCOLS", "normalize_protocol", "normalize_protocols"]

PROTOCOLS = ("nonoverlap", "sliding")
_ALIASES = {"nonoverlapping": "nonoverlap", "non-overlapping": "nonoverlap", "non-overlap": "nonoverlap"}


def normalize_protocol(name: str) -> str:
    """The canonical name of a protocol.

    >>> normalize_protocol("nonoverlapping")
    'nonoverlap'
    """
    canonical = _ALIASES.get(name, name) if isinstance(name, str) else name
    if canonical not in PROTOCOLS:
        raise PosencError(f"unknown protocol {name!r}; valid protocols are: {', '.join(PROTOCOLS)}")
    return canonical


def normalize_protocols(names: str | Iterable[str]) -> tuple[str, ...]:
    """Canonical names, in the order given, without repeats; a non-empty selection is required.

    >>> normalize_protocols(["sliding", "nonoverlapping", "nonoverlap"])
    ('sliding', 'nonoverlap')
    """
    names = [names] if isinstance(names, str) else list(names)
    out = tuple(dict.fromkeys(normalize_protocol(n) for n in names))
    if not out:
        raise PosencError(f"need at least one protocol of: {', '.join(PROTOCOLS)}")
    return out
