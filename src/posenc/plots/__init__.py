"""Figures (matplotlib's object API, no pyplot): each a function returning a ``Figure``; none calls ``show()``.

Kinds (``posenc plot NAME --kind KIND``): heatmap, dims, positions, binary, rotation, decay, ramp; the table is
:data:`posenc.plots.kinds.PLOT_KINDS`, which imports no matplotlib.
"""
