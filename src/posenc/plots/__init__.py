"""Figures (matplotlib, Agg backend): each a function returning a ``Figure``; none calls ``show()``.

Kinds (``posenc plot NAME --kind KIND``): heatmap, dims, positions, binary, rotation, decay, ramp; see
:data:`posenc.plots.figures.FIGURES`.
"""

import matplotlib

matplotlib.use("Agg")
