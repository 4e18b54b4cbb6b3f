"""A RoPE scaling's per-pair frequency ratio against the unscaled frequencies (the YaRN / Llama 3 ramps).

Pairs on the left (high frequency, short wavelength) keep ratio 1; pairs on the right are divided by the factor; the
ramp joins them. Dashed lines mark 1 and ``1/s``. The line is :func:`posenc.properties.scaling_ramps.frequency_ratio`.
"""

from __future__ import annotations

from matplotlib.figure import Figure

from posenc.encodings.base import PositionalEncoding
from posenc.plots.common import not_applicable, view_of
from posenc.plots.style import GUIDE, style_figures
from posenc.properties.result import NotApplicable
from posenc.properties.scaling_ramps import frequency_ratio

__all__ = ["ramp_figure"]


def ramp_figure(encoding: PositionalEncoding, length: int = 4096, d_model: int = 128) -> Figure:
    """Frequency ratio per rotary pair, with reference lines at 1 and ``1/factor``."""
    view = view_of(encoding, length, d_model)
    try:
        ratio, spec = frequency_ratio(view)
    except NotApplicable as exc:
        raise not_applicable("ramp", exc) from None
    factor = float(spec.get("factor", 1.0))
    fig = Figure(figsize=(6, 3.5), layout="constrained")
    ax = fig.add_subplot()
    ax.plot(list(range(ratio.numel())), ratio.tolist(), marker=".", label=spec["type"])
    ax.axhline(1.0, ls="--", color="0.5", lw=GUIDE)
    ax.axhline(1.0 / factor, ls="--", color="0.5", lw=GUIDE)
    ax.set(title=f"{encoding.name} {spec['type']} x{factor:g}: inv_freq scaled / default", xlabel="rotary pair i",
           ylabel="frequency ratio", yscale="log")
    ax.legend()
    return fig


style_figures(globals())  # every figure function above, in the house style
