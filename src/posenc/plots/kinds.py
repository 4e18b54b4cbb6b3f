"""The figure kinds of ``posenc plot NAME --kind KIND``: one table, :data:`PLOT_KINDS`, read without matplotlib.

Each kind names the figure of a tutorial it reproduces, its default size, and where its drawing function lives; the
function is imported only when a figure is drawn, so the CLI lists and checks kinds before matplotlib loads::

    >>> PLOT_KINDS.names()
    ('heatmap', 'dims', 'positions', 'binary', 'rotation', 'decay', 'ramp')
    >>> PLOT_KINDS["decay"].length, PLOT_KINDS["decay"].d_model
    (1024, 128)
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from posenc.names import Registry

__all__ = ["PlotKind", "PLOT_KINDS"]


@dataclass(frozen=True)
class PlotKind:
    """A figure kind: its default ``length`` and ``d_model`` (those of the tutorial figure it follows) and its drawing
    function ``function`` in ``posenc.plots.<module>``, called as ``function(encoding, length=..., d_model=...)``."""

    length: int
    d_model: int
    module: str
    function: str

    def draw(self) -> Callable[..., Any]:
        """The drawing function (imports matplotlib)."""
        return getattr(importlib.import_module(f"posenc.plots.{self.module}"), self.function)


#: kind -> :class:`PlotKind`, in the order ``posenc plot --help`` lists them
PLOT_KINDS: Registry[PlotKind] = Registry("figure kind", plural="kinds")
PLOT_KINDS.register_all({
    "heatmap": PlotKind(128, 64, "heatmap", "heatmap"),
    "dims": PlotKind(128, 64, "dims", "dims_figure"),
    "positions": PlotKind(128, 64, "positions", "positions_figure"),
    "binary": PlotKind(64, 32, "binary", "binary_figure"),
    "rotation": PlotKind(64, 64, "rotation", "rotation_figure"),
    "decay": PlotKind(1024, 128, "decay", "decay_figure"),
    "ramp": PlotKind(4096, 128, "ramp", "ramp_figure"),
})
