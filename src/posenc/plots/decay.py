"""Long-term decay curves (RoFormer §3.4.3 figure 2; xPos; ALiBi): what a key r positions back can still get.

- rotary: ``(1/(R/2)) sum_j |sum_{i<j} e^{i r theta_i}|`` (xPos: each term damped by ``zeta_i^(r/scale_base)``);
- bias: ``exp(b(r) - b(0))`` per head, and their mean.

Lines are exactly :func:`posenc.properties.decay.decay_curve`.
"""

from __future__ import annotations

from matplotlib.figure import Figure

from posenc.encodings.base import PositionalEncoding
from posenc.plots.common import not_applicable, view_of
from posenc.plots.style import GUIDE, style_figures
from posenc.properties.decay import decay_curve
from posenc.properties.result import NotApplicable

__all__ = ["decay_figure"]


def decay_figure(encoding: PositionalEncoding, length: int = 1024, d_model: int = 128) -> Figure:
    """Decay curve against relative distance ``r = 0..length-1``."""
    view = view_of(encoding, length, d_model)
    try:
        r, curve, label = decay_curve(view)
    except NotApplicable as exc:
        raise not_applicable("decay", exc) from None
    fig = Figure(figsize=(6, 3.5), layout="constrained")
    ax = fig.add_subplot()
    x = r.tolist()
    if curve.dim() == 2:
        for h in range(curve.shape[1]):
            ax.plot(x, curve[:, h].tolist(), lw=GUIDE, alpha=0.6, label=f"head {h}")
        ax.plot(x, curve.mean(dim=-1).tolist(), color="black", label="mean")
        ax.set_ylabel("weight relative to distance 0")
        ax.legend(ncol=2)
    else:
        ax.plot(x, curve.tolist(), label=label)
        ax.set_ylabel("bound on |logit| (relative units)")
        ax.legend()
    ax.set(title=f"{encoding.name}: {label}", xlabel="relative distance r")
    return fig


style_figures(globals())  # every figure function above, in the house style
