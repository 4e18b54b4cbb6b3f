"""The embedding-scale figure: density histograms of the two norms, and one bar per RMS scale in its colour."""

import numpy as np
import pytest
from matplotlib.colors import to_rgba

from posenc.errors import PosencError
from posenc.plots.probe import embedding_scale_figure


def test_histograms_are_densities_of_the_norms_and_bars_the_scales():
    rng = np.random.default_rng(0)
    words, positions = rng.normal(3.0, 0.2, 500), rng.normal(1.0, 0.1, 200)
    rms = {"sinusoid": 0.707, "embedding\n(std 0.02 x sqrt d)": 0.45, "word rows": 0.05}
    a, b = embedding_scale_figure(words, positions, "a model", rms, ["C1", "C0", "C2"]).axes
    bars = a.patches
    assert len(bars) == 120  # 60 bins per histogram
    for part, values in ((bars[:60], words), (bars[60:], positions)):
        area = sum(bar.get_height() * bar.get_width() for bar in part)
        assert area == pytest.approx(1.0)  # a density
        lefts = [bar.get_x() for bar in part]
        assert min(lefts) == pytest.approx(values.min()) and lefts[-1] + part[-1].get_width() == pytest.approx(
            values.max())
    assert [t.get_text() for t in a.get_legend().get_texts()] == ["trained word rows", "position rows"]
    assert a.get_title() == "a model"
    assert [bar.get_height() for bar in b.patches] == list(rms.values())
    assert [t.get_text() for t in b.get_xticklabels()] == list(rms)
    assert [bar.get_facecolor() for bar in b.patches] == [to_rgba(c) for c in ("C1", "C0", "C2")]
    assert b.get_yscale() == "log"


def test_one_colour_per_bar():
    with pytest.raises(PosencError, match=r"2 colours \['C1', 'C0'\] for 3 bars"):
        embedding_scale_figure(np.ones(3), np.ones(3), "m", {"a": 1.0, "b": 1.0, "c": 1.0}, ["C1", "C0"])
