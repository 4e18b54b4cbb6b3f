"""Every figure kind by name, and one call that builds an encoding and draws it (what ``posenc plot`` runs)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from matplotlib.figure import Figure

from posenc.checks import FIGURE_SUFFIXES
from posenc.errors import PosencError
from posenc.names import Registry
from posenc.plots.binary import binary_figure
from posenc.plots.common import NotDrawable
from posenc.plots.decay import decay_figure
from posenc.plots.dims import dims_figure
from posenc.plots.heatmap import heatmap
from posenc.plots.positions import positions_figure
from posenc.plots.ramp import ramp_figure
from posenc.plots.rotation import rotation_figure

__all__ = ["FIGURES", "DEFAULT_SIZES", "make_figure", "save_figure", "drawable_kinds"]

#: kind -> function(encoding, length, d_model) returning a Figure
FIGURES: Registry[Callable[..., Figure]] = Registry("figure kind", plural="kinds")
FIGURES.register_all({
    "heatmap": heatmap,
    "dims": dims_figure,
    "positions": positions_figure,
    "binary": binary_figure,
    "rotation": rotation_figure,
    "decay": decay_figure,
    "ramp": ramp_figure,
})

#: (length, d_model) each kind uses when none is given, following the tutorial it reproduces
DEFAULT_SIZES: dict[str, tuple[int, int]] = {
    "heatmap": (128, 64), "dims": (128, 64), "positions": (128, 64), "binary": (64, 32), "rotation": (64, 64),
    "decay": (1024, 128), "ramp": (4096, 128),
}


def make_figure(name: str, kind: str, length: int | None = None, d_model: int | None = None,
                options: dict[str, Any] | None = None, n_heads: int = 8) -> Figure:
    """Build the encoding ``name`` (with ``options``) and draw figure ``kind``."""
    from posenc.properties.check import build_checked

    if kind not in FIGURES:
        raise FIGURES.unknown(kind)
    default_length, default_d = DEFAULT_SIZES[kind]
    length = default_length if length is None else length
    d_model = default_d if d_model is None else d_model
    encoding = build_checked(name, d_model, length, options, n_heads)
    if kind == "heatmap":
        return heatmap(encoding, length, d_model)
    try:
        return FIGURES[kind](encoding, length=length, d_model=d_model)
    except NotDrawable as exc:
        kinds = drawable_kinds(name, options, n_heads)
        raise PosencError(f"{exc}; {name} draws as --kind {', '.join(kinds)}") from None


def drawable_kinds(name: str, options: dict[str, Any] | None = None, n_heads: int = 8) -> list[str]:
    """The figure kinds that draw for encoding ``name`` with ``options``, found by drawing each at a small size (a
    suggestion that names only kinds that work, never one that sends the user back)."""
    from posenc.properties.check import build_checked

    kinds = []
    for kind, draw in FIGURES.items():
        length, d_model = 16, 16
        try:
            encoding = build_checked(name, d_model, length, options, n_heads)
            draw(encoding, length, d_model) if kind == "heatmap" else draw(encoding, length=length, d_model=d_model)
        except PosencError:
            continue
        kinds.append(kind)
    return kinds


def save_figure(fig: Figure, out: Path, dpi: int = 120) -> Path:
    """Write ``fig`` to ``out`` (format from the suffix: .png, .svg, .pdf, .jpg, .jpeg), creating the folder."""
    out = Path(out)
    if out.suffix.lower() not in FIGURE_SUFFIXES:
        raise PosencError(f"a figure file must end in {', '.join(FIGURE_SUFFIXES[:-1])} or {FIGURE_SUFFIXES[-1]}, "
                          f"got {out.name!r}; e.g. {out.with_suffix('.png').name!r}")
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=dpi)
    return out
