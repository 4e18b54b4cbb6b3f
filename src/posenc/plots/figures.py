"""One call that builds an encoding and draws a figure kind of :data:`posenc.plots.kinds.PLOT_KINDS` (what
``posenc plot`` runs), and the writing of a figure to a file."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from matplotlib.figure import Figure

from posenc.checks import FIGURE_SUFFIXES
from posenc.errors import PosencError
from posenc.plots.common import NotDrawable
from posenc.plots.kinds import PLOT_KINDS
from posenc.plots.style import style_figures

__all__ = ["make_figure", "save_figure", "drawable_kinds"]


def make_figure(name: str, kind: str, length: int | None = None, d_model: int | None = None,
                options: dict[str, Any] | None = None, n_heads: int = 8) -> Figure:
    """Build the encoding ``name`` (with ``options``) and draw figure ``kind``."""
    from posenc.properties.check import build_checked

    figure = PLOT_KINDS[kind]
    length = figure.length if length is None else length
    d_model = figure.d_model if d_model is None else d_model
    encoding = build_checked(name, d_model, length, options, n_heads)
    try:
        return figure.draw()(encoding, length=length, d_model=d_model)
    except NotDrawable as exc:
        kinds = drawable_kinds(name, options, n_heads)
        raise PosencError(f"{exc}; {name} draws as --kind {', '.join(kinds)}") from None


def drawable_kinds(name: str, options: dict[str, Any] | None = None, n_heads: int = 8) -> list[str]:
    """The figure kinds that draw for encoding ``name`` with ``options``, found by drawing each at a small size (a
    suggestion that names only kinds that work, never one that sends the user back)."""
    from posenc.properties.check import build_checked

    kinds = []
    for kind, figure in PLOT_KINDS.items():
        length, d_model = 16, 16
        try:
            encoding = build_checked(name, d_model, length, options, n_heads)
            figure.draw()(encoding, length=length, d_model=d_model)
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


style_figures(globals())  # every figure function above, in the house style
