"""The numbers of pretrained.py's experiments that the other tests do not recompute (issue #19, item 3).

The experiments run on all-MiniLM-L6-v2; the probe functions they call are checked against independent
computations in tests/probe/ (orthogonality, term statistics, Voita fractions) and the experiments' own code in
test_pretrained_claims.py (magnitude, the window pass, the position bins). Left to this file, on inputs built here:

- ``minilm_heads``: the counts ``adjacent_positional_heads`` / ``other_positional_heads`` the voita-heads claim reads
  (positional heads split by their offset), counted by hand from attention patterns with known offsets, and its
  table of the best head's share by query position in the 512-token windows, on made-up window passes;
- ``minilm_dimensions``: its two statistics, run on small made-up tables in place of MiniLM's, against numpy: the
  held-out R^2 per quarter from the decoder's squared errors, and the per-dimension variance shares;
- ``minilm_geometry``'s before-training baseline (``init_angle_offset_deg``): the angle between the drawn tables'
  rows by a loop over pairs.

Each kind of text's judgement (``posenc.probe.heads.by_kind``) against a separate accumulation:
tests/probe/test_heads.py.
"""

from __future__ import annotations

import math
import types

import numpy as np
import pytest
import torch

from by_hand import mixed_head, offset_head
from posenc.report.experiments import pretrained
from posenc.report.experiments.base import Context
from posenc.report.present import pretrained as present_pretrained

T = 24


pytestmark = pytest.mark.usefixtures("one_thread")


def test_heads_split_by_offset_counted_by_hand():
    from posenc.probe.heads import HeadAccumulator, positional_heads

    rng = np.random.default_rng(3)
    offsets = (-1, 1, 3, -2, 0)  # heads 0..3 sit on one offset; head 4 is mixed below
    windows = []
    for _ in range(10):
        heads = [offset_head(o, T) for o in offsets[:4]] + [mixed_head(rng, -1, 0.5, T)]
        windows.append(torch.stack(heads))  # [H, T, T]
    acc = HeadAccumulator(n_layers=1, n_heads=5, max_len=T)
    for w in windows:
        acc.add(0, w)
    judged = positional_heads(acc.summary(), query_offsets=acc.query_offsets())
    # by hand: each head's share of queries whose maximum sits on its best offset, over all windows
    best = []
    for h in range(5):
        shares = {}
        for o in range(-8, 9):
            inside = [i for i in range(T) if 0 <= i + o < T]
            hits = sum(int(w[h, i].argmax()) == i + o for w in windows for i in inside)
            shares[o] = hits / (len(inside) * len(windows))
        o = max(shares, key=shares.get)
        best.append((o, shares[o]))
    assert [o for o, _ in best[:4]] == [-1, 1, 3, -2] and best[4][1] < 0.9
    positional = [o for o, share in best if share > 0.9]
    adjacent = sum(abs(o) == 1 for o in positional)
    e = judged.estimates
    assert (e["positional_heads"].value, e["positional_heads"].low, e["positional_heads"].high) == (4, 4, 4)
    assert (e["adjacent_positional_heads"].value, e["adjacent_positional_heads"].low) == (adjacent, adjacent) == (2, 2)
    assert (e["other_positional_heads"].value, e["other_positional_heads"].low) == (len(positional) - adjacent, 2)
    # Clark: the mean weight on the previous / next key over queries that have one
    prev = [np.mean([float(w[h, i, i - 1]) for w in windows for i in range(1, T)]) for h in range(5)]
    nxt = [np.mean([float(w[h, i, i + 1]) for w in windows for i in range(T - 1)]) for h in range(5)]
    assert e["previous_heads"].value == sum(p > 0.5 for p in prev) == 1
    assert e["next_heads"].value == sum(p > 0.5 for p in nxt) == 1
    assert [f.value for f in judged.fractions[0]] == pytest.approx([s for _, s in best], abs=1e-12)


# ---------------------------------------------------------------------------------------------------------------
# minilm_dimensions on small made-up tables
# ---------------------------------------------------------------------------------------------------------------
def test_dimension_statistics_against_numpy(monkeypatch):
    from posenc.probe import decodability, geometry

    rng = np.random.default_rng(0)
    n_words, n_positions, d = 60, 48, 8
    t = np.arange(n_positions)
    positions = 0.3 * rng.normal(size=(n_positions, d))
    positions[:, 0] += t / n_positions  # position lives in dims 0-1 (the lowest quarter)
    positions[:, 1] += np.cos(t / 7)
    words = rng.normal(size=(n_words, d)) * np.array([0.2, 0.2, 0.5, 0.5, 1, 1, 1.5, 1.5])
    trained = np.arange(4, n_words)  # rows 0..3 play the placeholders the experiment leaves out
    captured = {}
    real = decodability.block_position_decoding

    def keep(*args, **kwargs):
        captured.update(real(*args, **kwargs))
        return captured

    monkeypatch.setattr(pretrained, "_tables", lambda: (torch.from_numpy(words).float(),
                                                        torch.from_numpy(positions).float()))
    monkeypatch.setattr(pretrained, "minilm", lambda: types.SimpleNamespace(tokenizer=None))
    monkeypatch.setattr(geometry, "trained_rows", lambda tokenizer, n: trained)
    monkeypatch.setattr(decodability, "block_position_decoding", keep)
    m = pretrained.minilm_dimensions(Context(quick=True))
    # the R^2 of each quarter from the decoder's held-out squared errors: 1 - SSE / SS around the mean
    y, se = captured["t"], captured["squared_error"]
    r2 = 1 - se.sum(0) / ((y - y.mean()) ** 2).sum()
    np.testing.assert_allclose(r2, captured["r2"], rtol=1e-9)  # the decoder's own R^2 agrees
    labels = ["dims 0-1", "dims 2-3", "dims 4-5", "dims 6-7"]
    assert [m.numbers["r2_sum"][lab][0] for lab in labels] == pytest.approx(r2.tolist(), rel=1e-9)
    assert m.estimates["low_minus_high_position_r2"].value == pytest.approx(r2[0] - r2[-1], rel=1e-9)
    # variance shares: per dimension var(position) / (var(position) + var(word)) over the trained rows, then the
    # mean over each quarter's dimensions
    w32, p32 = words.astype(np.float32).astype(np.float64), positions.astype(np.float32).astype(np.float64)
    share = p32.var(0) / (p32.var(0) + w32[trained].var(0))
    quarters = share.reshape(4, 2).mean(1)
    assert [m.numbers["position_share"][lab][0] for lab in labels] == pytest.approx(quarters.tolist(), rel=1e-9)
    assert m.estimates["low_minus_high_position_share"].value == pytest.approx(quarters[0] - quarters[-1], rel=1e-9)
    assert m.numbers["word_rows"] == len(trained) and m.estimates["low_minus_high_position_share"].value > 0.5


def test_initial_table_angles_by_a_loop_over_pairs():
    from posenc.probe.geometry import initial_table_orthogonality

    n_words, n_positions, d, std = 30, 20, 16, 0.02
    got = initial_table_orthogonality(n_words, n_positions, d, std=std, seed=5)
    rng = np.random.default_rng(5)  # the same draws: words first, then positions
    words, positions = rng.normal(0.0, std, (n_words, d)), rng.normal(0.0, std, (n_positions, d))
    angles = [math.degrees(math.acos(float(w @ p) / math.sqrt(float(w @ w) * float(p @ p))))
              for w in words for p in positions]
    assert got["angle_mean"].value == pytest.approx(np.mean(angles), abs=1e-9)
    assert got["angle_offset"].value == pytest.approx(abs(np.mean(angles) - 90), abs=1e-9)


# ---------------------------------------------------------------------------------------------------------------
# minilm_heads' table by query position, on made-up window passes
# ---------------------------------------------------------------------------------------------------------------
def _pass(t: int, windows: int = 3) -> dict:
    """A window pass in ``_window_pass``'s format, 1 layer x 2 heads: head 0 puts each query's maximum on the
    previous token, except the queries from 256 on that are multiples of 4 (on token 0 instead); head 1 on i + 2 for
    even queries, on token 0 otherwise."""
    from posenc.corpora import TEXT_KINDS
    from posenc.probe.heads import HeadAccumulator

    i = torch.arange(t)
    previous = torch.where((i >= 256) & (i % 4 == 0), 0, (i - 1).clamp(min=0))
    ahead = torch.where((i % 2 == 0) & (i + 2 < t), i + 2, 0)
    a = torch.full((2, t, t), 0.01)
    a[0, i, previous] = 1.0
    a[1, i, ahead] = 1.0
    a = a / a.sum(-1, keepdim=True)
    acc = HeadAccumulator(n_layers=1, n_heads=2, max_len=t)
    for _ in range(windows):
        acc.add(0, a)
    kinds = [TEXT_KINDS[0], TEXT_KINDS[1], TEXT_KINDS[0]][:windows]
    return {"summary": acc.summary(), "argmax": acc.query_offsets(), "windows": windows, "kinds": kinds}


def test_heads_by_query_position_in_the_longest_windows(monkeypatch):
    """minilm_heads tracks the headline's best head (head 0 at offset -1, on every query of 128-token windows)
    through the 512-token windows in bins of 128 queries. By hand, in 512-token windows: queries 1..127 and
    128..255 all sit on the previous token (query 0 has none): 1; from 256 on every fourth query does not: 96 of
    128 = 0.75 in each of the two last bins. The anchor is the headline windows' one bin (queries 0..127): 1."""
    passes = {n: _pass(n) for n in pretrained.LENGTHS}
    monkeypatch.setattr(pretrained, "_window_pass", lambda length, count: passes[length])
    m = pretrained.minilm_heads(Context(quick=True))
    assert m.numbers["by_query_position"]["head"] == [0, 0, -1] and m.numbers["by_query_position"]["bin_width"] == 128
    assert [e[0] for e in m.numbers["by_query_position"]["512"]] == pytest.approx([1.0, 1.0, 0.75, 0.75])
    rows = [r for r in present_pretrained.minilm_heads(m, Context(quick=True)).rows
            if r.quantity.startswith("L0H0 in 512-token windows")]
    assert [r.quantity for r in rows] == [f"L0H0 in 512-token windows, queries {a}..{a + 127}: share on offset -1"
                                          for a in (0, 128, 256, 384)]
    assert [r.measured.value for r in rows] == pytest.approx([1.0, 1.0, 0.75, 0.75])
    assert all(r.anchor.value == 1.0 and r.anchor_label == "queries 0..127 of 128-token windows" for r in rows)
