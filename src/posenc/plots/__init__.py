"""Figures (matplotlib, Agg backend): each a function returning a ``Figure``; none calls ``show()``."""

import matplotlib

matplotlib.use("Agg")
