"""The house style every figure is drawn in.

A figure function carries no font size or line width of its own: :func:`styled` runs it under :data:`HOUSE`, and the
few places that differ from the house on purpose name a role, :data:`SMALL` (text) or :data:`GUIDE` (line width).
Each module of :mod:`posenc.plots` ends with ``style_figures(globals())``, which wraps its figure functions, rather
than decorating each with ``@styled``: mutation testing (``scripts/mutate.py``) passes over decorated functions, and
the figures' bodies are code it must reach. ``tests/plots/test_style.py`` checks that every public function returning
a figure is wrapped.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any, TypeVar

import matplotlib

__all__ = ["HOUSE", "SMALL", "GUIDE", "SIZES", "WIDTHS", "styled", "style_figures", "is_styled"]

F = TypeVar("F", bound=Callable[..., Any])

#: small text (points): legends, numbers inside heatmap cells, crowded tick labels, notes on a panel
SMALL = 7.0
#: the width (points) of guides (reference, threshold and boundary lines) and backdrops (lines drawn behind the data)
GUIDE = 0.8

#: the matplotlib settings every figure is drawn under (matplotlib's own sizes, pinned, and 7-point legends)
HOUSE: dict[str, Any] = {
    "font.size": 10.0,  # body text: axis labels, tick labels, colour-bar labels, annotations
    "axes.labelsize": 10.0,
    "xtick.labelsize": 10.0,
    "ytick.labelsize": 10.0,
    "axes.titlesize": 12.0,  # titles of panels, figures and subfigures
    "figure.titlesize": 12.0,
    "legend.fontsize": SMALL,
    "lines.linewidth": 1.5,  # a data line
}

#: every text size a figure holds: small text, body text, titles
SIZES = frozenset({SMALL, HOUSE["font.size"], HOUSE["axes.titlesize"]})
#: every line width a figure holds: guides and backdrops, data lines
WIDTHS = frozenset({GUIDE, HOUSE["lines.linewidth"]})

#: the attribute :func:`styled` sets on the function it returns
_MARK = "house_style"


def styled(function: F) -> F:
    """``function`` run under :data:`HOUSE` (``matplotlib.rc_context``), with its name, docstring and signature.

    matplotlib reads most settings when it creates an artist (a legend its font size, a line its width), so the
    whole body runs inside the context; what the figure holds after it returns keeps the house's values, whatever
    the settings are when it is saved.
    """

    @functools.wraps(function)
    def in_house_style(*args: Any, **kwargs: Any) -> Any:
        with matplotlib.rc_context(HOUSE):
            return function(*args, **kwargs)

    setattr(in_house_style, _MARK, True)
    return in_house_style  # type: ignore[return-value]


def is_styled(function: Callable[..., Any]) -> bool:
    """Whether ``function`` was wrapped by :func:`styled`."""
    return getattr(function, _MARK, False) is True


def style_figures(namespace: dict[str, Any]) -> None:
    """Wrap with :func:`styled`, in ``namespace`` (a module's ``globals()``, called at its end), every function the
    module exports (``__all__``) whose return annotation names a ``Figure``; one already wrapped is left as it is."""
    for name in namespace.get("__all__", ()):
        value = namespace.get(name)
        # the signature, not __annotations__: a wrapper that sets __signature__ (mutation testing's) is read right
        if callable(value) and not is_styled(value) and \
                "Figure" in str(inspect.signature(value).return_annotation):
            namespace[name] = styled(value)
