"""``posenc explore``: the tutorials' figures live in the browser, computing what posenc computes.

:func:`write_explorer` writes one self-contained page (``explore.html``): seven panels (naive encodings, the
sinusoid, relative position as a rotation, RoPE, scalings with real models' presets, bias encodings, precision),
in Chinese and English, each quoting its tutorial's sentence and linking to its claim's verdict in the report. The
page checks its own formulas against posenc's float64 values (:mod:`posenc.explore.golden`) when it loads.
"""

from posenc.explore.page import LANGUAGES, PAGE_NAME, write_explorer

__all__ = ["write_explorer", "LANGUAGES", "PAGE_NAME"]
