"""The model probe's figures draw the numbers they are given: per-layer curves averaged over heads, estimates with
their intervals at the lengths they belong to, the thresholds the captions name, and colour scales that keep a
share a share."""

import re

import numpy as np
import pytest
import torch
from matplotlib.container import ErrorbarContainer
from matplotlib.text import Text

from posenc.plots import probe
from posenc.plots.probe import rope_distance_figure, rope_frequency_figure, term_shares_figure, window_length_figure
from posenc.probe.decompose import FourTermSplit
from posenc.stats import Estimate


def _data(values):
    return np.asarray(values, dtype=float).tolist()


def _series(ax):
    """The data line of each error-bar series, in drawing order: ``(label, x, y)``."""
    return [(c.get_label(), _data(c.lines[0].get_xdata()), _data(c.lines[0].get_ydata()))
            for c in ax.containers if isinstance(c, ErrorbarContainer)]


def _legend(ax):
    return [t.get_text() for t in ax.get_legend().get_texts()]


def _rope(layers=6, heads=2, pairs=4):
    grid = np.arange(layers * heads * 4, dtype=float).reshape(layers, heads, 4)
    share = np.arange(layers * heads * pairs, dtype=float).reshape(layers, heads, pairs)
    return {"distances": [0, 1, 4, 16],
            "logit_vs_distance": {"real": grid.tolist(), "random": (-grid).tolist(), "mean": (grid / 10).tolist()},
            "q_pair_share": share.tolist(), "k_pair_share": (2 * share).tolist()}


def test_rope_distance_panels_are_layers_and_lines_are_head_means():
    rope = _rope()
    real = np.asarray(rope["logit_vs_distance"]["real"])
    fig = rope_distance_figure(rope)
    # six layers: the first, a third and two thirds of the way, and the last
    assert [ax.get_title() for ax in fig.axes] == ["layer 0", "layer 2", "layer 4", "layer 5"]
    for ax, layer in zip(fig.axes, (0, 2, 4, 5), strict=True):
        line_real, line_mean, line_random = ax.lines
        assert _data(line_real.get_xdata()) == [0.5, 1, 4, 16]  # distance 0 drawn at 0.5 on the log axis
        assert _data(line_real.get_ydata()) == ((real[layer, 0] + real[layer, 1]) / 2).tolist()
        assert _data(line_random.get_ydata()) == (-(real[layer, 0] + real[layer, 1]) / 2).tolist()
        assert _data(line_mean.get_ydata()) == pytest.approx(((real[layer, 0] + real[layer, 1]) / 20).tolist())
        assert ax.get_xscale() == "log" and ax.get_ylabel() == "mean logit"
    assert _legend(fig.axes[-1]) == ["real q/k", "mean q, mean k", "random q/k"]
    assert [ax.get_title() for ax in rope_distance_figure(rope, layers=[3]).axes] == ["layer 3"]


def test_rope_frequency_images_are_layer_by_pair_head_means():
    rope = _rope(layers=3, heads=2, pairs=4)
    share = np.asarray(rope["q_pair_share"])
    panels = [ax for ax in rope_frequency_figure(rope).axes if ax.images]
    for ax, scale, name in zip(panels, (1, 2), ("query", "key"), strict=True):
        image = ax.images[0].get_array()
        assert image.shape == (3, 4)  # rows: layers, columns: rotary pairs
        assert np.array_equal(image, scale * (share[:, 0] + share[:, 1]) / 2)
        assert ax.get_ylabel() == "layer" and ax.get_xlabel() == "rotary pair i (fast -> slow)"
        assert ax.get_title().startswith(f"{name}:") and "uniform = 0.250" in ax.get_title()  # 1 / 4 pairs


def _e(value, spread=0.05):
    return Estimate(value, value - spread, value + spread, n=5, method="t")


def test_term_shares_points_axis_and_lengths_in_order():
    per_head = {f"{name}_of_four": [_e(v), _e(v + 0.05)]
                for name, v in (("ww", 0.4), ("wp", 0.2), ("pw", 0.15), ("pp", 0.1))}
    by_length = {n: {"cross_share": _e(c), "max_head_cross_share": _e(c + 0.1), "rest_share": _e(0.02, 0.01)}
                 for n, c in ((256, 0.3), (64, 0.2), (128, 0.25))}  # not in length order on purpose
    a, b = term_shares_figure(per_head, by_length, 128, 0.3).axes
    series = _series(a)
    assert [s[0] for s in series] == ["word-word", "word-position", "position-word", "position-position"]
    for i, (_, x, _) in enumerate(series):  # four points per head, side by side around the head's tick
        assert x == pytest.approx([(i - 1.5) * 0.18, 1 + (i - 1.5) * 0.18])
    assert series[0][2] == pytest.approx([0.4, 0.45]) and series[3][2] == pytest.approx([0.1, 0.15])
    low, high = a.get_ylim()
    assert low == 0 and 1 <= high <= 1.05  # a share of the whole: the axis shows all of 0..1
    assert "expert bar (30%)" in _legend(a)
    assert any(_data(line.get_ydata()) == [0.3, 0.3] for line in a.lines)
    assert "128-token" in a.get_title()
    series = _series(b)
    assert [s[1] for s in series] == [[64, 128, 256]] * 3
    assert series[0][2] == pytest.approx([0.2, 0.25, 0.3])  # cross share, by length
    assert series[1][2] == pytest.approx([0.3, 0.35, 0.4])  # largest head
    assert [t.get_text() for t in b.get_xticklabels()] == ["64", "128", "256"]


def test_window_length_panels_threshold_and_fraction_image():
    lengths = [64, 128, 256]
    tracked = {"L0H1": [_e(0.9), _e(0.8), _e(0.6)], "L2H3": [_e(0.5), _e(0.4), _e(0.3)]}
    bins = {64: [_e(0.95), _e(0.85)], 128: [_e(0.9), _e(0.8), _e(0.7), _e(0.6)]}
    fractions = np.array([[0.1, 0.95, 0.3], [0.5, 0.2, 0.7]])
    offsets = np.array([[0, -1, 2], [1, -3, -1]])
    fig = window_length_figure(lengths, tracked, bins, 32, fractions, offsets, 0.5, 128)
    a, b, c = fig.axes[:3]
    (label0, x0, y0), (label1, x1, y1) = _series(a)
    assert (label0, x0, y0) == ("L0H1", [64, 128, 256], pytest.approx([0.9, 0.8, 0.6]))
    assert label1 == "L2H3" and x1 == pytest.approx([64 * 1.02, 128 * 1.02, 256 * 1.02])  # nudged apart
    assert sorted(_legend(a)) == ["L0H1", "L2H3", "Voita's bar (50%)"]
    for ax in (a, b):
        assert any(_data(line.get_ydata()) == [0.5, 0.5] for line in ax.lines)
    by_position = _series(b)
    assert [s[1] for s in by_position] == [[16, 48], [16, 48, 80, 112]]  # the middle of each 32-query bin
    assert [s[0] for s in by_position] == ["64-token windows", "128-token windows"]
    assert b.get_title().startswith("L0H1:")
    assert np.array_equal(c.images[0].get_array(), fractions)
    assert c.images[0].get_clim() == (0, 1)  # a share: the colour of 1 is all of the queries
    labels = {(t.get_position(), t.get_text()) for t in c.texts}
    assert labels == {((head, layer), f"{offsets[layer, head]:+d}") for layer in range(2) for head in range(3)}
    assert c.get_xlabel() == "head" and c.get_ylabel() == "layer" and "128-token" in c.get_title()


def _figures():
    """One figure of each kind the module draws, from small inputs: ``{name: figure}``."""
    rng = np.random.default_rng(0)
    heads, layers, tokens = 2, 3, 5
    subspace = [{"k": k, "overlap": 0.1 * k, "random_overlap_mean": 0.05 * k, "random_overlap_std": 0.01}
                for k in (1, 2, 4)]
    geo = {"dim": 8, "raw": {"angle_mean": 89.0}, "subspace": {"k": subspace}}
    dec = {"chance_absolute_mae": 10.0, **{n: {"absolute_mae_clipped": 2.0, "relative_error_pct": 5.0}
                                          for n in ("model", "sinusoid", "random")}}
    names = ("ww", "wp", "pw", "pp", "rest")
    split = FourTermSplit({n: torch.randn(heads, tokens, tokens, dtype=torch.float64) for n in names},
                          torch.zeros(heads, tokens, tokens), 1e-6)
    summary = {"shares_within_rows": [dict.fromkeys(names, 0.2)] * heads, "relative_error": 1e-6}
    grid = np.full((layers, heads), 0.5)
    attention = {"previous": grid, "next": grid, "voita_fraction": grid, "positional_heads": [(0, 1, -1, 0.9)],
                 "distance_bin_edges": [0, 1, 2, 4, 8], "mass_by_distance": np.full((layers, heads, 4), 0.25)}
    per_head = {f"{n}_of_four": [_e(0.25), _e(0.25)] for n in names[:4]}
    by_length = {n: {"cross_share": _e(0.3), "max_head_cross_share": _e(0.4), "rest_share": _e(0.02, 0.01)}
                 for n in (64, 128)}
    figures = {
        "geometry_figure": probe.geometry_figure(geo, rng.normal(0, 0.1, 50), rng.normal(0, 0.1, 50),
                                                 rng.normal(0, 0.1, 50)),
        "decodability_figure": probe.decodability_figure(dec),
        "four_terms_figure": probe.four_terms_figure(split, summary, tokens=tokens),
        "heads_figure": probe.heads_figure(attention),
        "distance_figure": probe.distance_figure(attention),
        "rope_frequency_figure": rope_frequency_figure(_rope()),
        "rope_distance_figure": rope_distance_figure(_rope()),
        "window_length_figure": window_length_figure([64, 128], {"layer 0 head 1": [_e(0.9), _e(0.8)]},
                                                     {64: [_e(0.9), _e(0.8)]}, 32, grid, np.zeros((3, 2), int),
                                                     0.5, 128),
        "term_shares_figure": term_shares_figure(per_head, by_length, 128, 0.3),
        "orthogonality_figure": probe.orthogonality_figure({"frequent words": _e(89.5), "published": 89.9}, 0.5,
                                                           {"frequent words": rng.normal(90, 1, 50)}),
        "dimension_split_figure": probe.dimension_split_figure(np.linspace(0, 1, 8), [(0, 4), (4, 8)],
                                                               [_e(0.5), _e(0.6)], [0.9, 0.95], [_e(0.3), _e(0.4)]),
        "embedding_scale_figure": probe.embedding_scale_figure(rng.normal(3, 0.2, 50), rng.normal(1, 0.1, 50),
                                                               "a model", {"sinusoid": 0.7, "word rows": 0.05},
                                                               ["C1", "C0"]),
    }
    assert set(figures) == set(probe.__all__)  # a new figure joins the rule below
    return figures


def test_every_figure_writes_in_lowercase_sentence_style():
    # titles, labels, legends and notes are sentences in lower case: no word of four or more capitals (the
    # acronyms the figures use, RMS, MAE, PCA, are three letters; the inputs above hold none either)
    for name, fig in _figures().items():
        texts = [t.get_text() for t in fig.findobj(Text)]
        assert any(texts), name
        shouted = [text for text in texts if re.search(r"\b[A-Z]{4,}\b", text)]
        assert shouted == [], name


def test_orthogonality_points_carry_their_intervals():
    """An estimate is a point with its 95% interval drawn left and right of it; an estimate without an interval
    (infinite ends: too few units) shrinks to its point; a published number is a plain diamond."""
    samples = {"frequent words": Estimate(89.5, 89.2, 89.9, n=5, method="t"),
               "two words": Estimate(88.0, -np.inf, np.inf, n=1, method="t"), "published": 89.9}
    a, _ = probe.orthogonality_figure(samples, 0.5, {"frequent words": np.array([89.0, 90.0, 91.0])}).axes
    bars = [c for c in a.containers if isinstance(c, ErrorbarContainer)]
    assert len(bars) == 2  # the two estimates; the published number is no error bar
    # labels go top-down: the first sample on the highest row (y = 2), the second below it (y = 1)
    expected = ((89.5, 89.2, 89.9, 2), (88.0, 88.0, 88.0, 1))  # value, low, high, row
    for container, (value, low, high, y) in zip(bars, expected, strict=True):
        line, _, (segments,) = container.lines
        assert (_data(line.get_xdata()), _data(line.get_ydata())) == ([value], [y])
        (start, end), = segments.get_segments()  # one horizontal segment from low to high at the row's height
        assert start.tolist() == pytest.approx([low, y]) and end.tolist() == pytest.approx([high, y])
    (diamond,) = [line for line in a.lines if line.get_marker() == "D"]
    assert (_data(diamond.get_xdata()), _data(diamond.get_ydata())) == ([89.9], [0])
    rows = {int(y): t.get_text() for y, t in zip(a.get_yticks(), a.get_yticklabels(), strict=True)}
    assert rows == {2: "frequent words", 1: "two words", 0: "published"}


def test_dimension_split_names_each_block_by_its_dimensions():
    """The decoding bars stand one per block of dimensions, and each tick names the block's dimensions: blocks are
    half-open ``[lo, hi)``, so (0, 4) covers dimensions 0..3 ("0-3") and (4, 8) covers 4..7."""
    blocks = [(0, 4), (4, 8)]
    _, b = probe.dimension_split_figure(np.linspace(0, 1, 8), blocks, [_e(0.5), _e(0.6)], [0.9, 0.95],
                                        [_e(0.3), _e(0.4)]).axes
    assert [t.get_text() for t in b.get_xticklabels()] == ["0-3", "4-7"]
    assert _data(b.get_xticks()) == [0, 1]
    sums, table = b.patches[:2], b.patches[2:]  # word + position bars, then the table's, one per block each
    assert [bar.get_height() for bar in sums] == pytest.approx([0.5, 0.6])
    assert [bar.get_height() for bar in table] == pytest.approx([0.9, 0.95])
