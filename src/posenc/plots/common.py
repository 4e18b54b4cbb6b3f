"""What the figures read from an encoding: its position table (absolute) or rotation table (rotary), via the hooks.

Both come from :class:`posenc.properties.view.EncodingView`, so a figure draws exactly what the properties measure.
A figure that does not apply to an encoding raises :class:`NotDrawable` with the reason;
:func:`posenc.plots.figures.make_figure` adds the kinds that do draw for that encoding.
"""

from __future__ import annotations

import torch

from posenc.encodings.base import PositionalEncoding
from posenc.errors import PosencError
from posenc.properties.result import NotApplicable
from posenc.properties.view import EncodingView

__all__ = ["view_of", "position_table", "not_applicable", "NotDrawable"]


def view_of(encoding: PositionalEncoding, length: int, d_model: int) -> EncodingView:
    """An :class:`EncodingView` (validates ``length`` and ``d_model``)."""
    return EncodingView(encoding, length, d_model)


class NotDrawable(PosencError):
    """A figure kind that does not apply to an encoding; ``kind`` names it."""

    def __init__(self, message: str, kind: str):
        super().__init__(message)
        self.kind = kind


def not_applicable(kind: str, exc: NotApplicable | str) -> NotDrawable:
    """The error of figure ``kind`` for an encoding it does not apply to, with the reason ``exc``."""
    return NotDrawable(f"cannot draw '{kind}': {exc}", kind)


def position_table(encoding: PositionalEncoding, length: int, d_model: int, kind: str) -> tuple[torch.Tensor, str]:
    """``(table [N, D] float64, what)``: ``PE`` for absolute encodings, ``(g sin theta, g cos theta)`` per pair for
    rotary ones (the sinusoid's layout, so dimension indices mean the same)."""
    view = view_of(encoding, length, d_model)
    try:
        if view.family == "rotary":
            return view.rotation_table, "sin/cos of the rotation angle"
        return view.table, "PE"
    except NotApplicable as exc:
        raise not_applicable(kind, exc) from None
