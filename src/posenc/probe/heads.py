"""Positional attention heads: the Voita rule, previous/next-token attention, attention mass against distance.

- Voita et al. 2019 ("Analyzing Multi-Head Self-Attention: Specialized Heads Do the Heavy Lifting", §4.1): a head is
  *positional* if in at least 90% of queries its maximum attention weight sits on one fixed relative offset
  ``o = j - i`` (in practice -1 or +1). The fraction for offset ``o`` counts only the queries ``i`` for which
  ``i + o`` is inside the sequence.
- Clark et al. 2019 ("What Does BERT Look At?", §3): the mean attention a head puts on the previous token
  ``mean_i A[i, i-1]`` and on the next ``mean_i A[i, i+1]``; on BERT-base 4 heads put more than 50% on the previous
  token and 5 on the next.
- Attention mass against distance: ``m(b) = (1/T) sum_i sum_{j : |i-j| in bin b} A[i, j]`` over distance bins
  (``sum_b m(b) = 1``), and the mean attention distance ``(1/T) sum_ij A[i, j] |i - j|``.

Attention arrives one layer at a time (``[B, H, T, T]``, see :mod:`posenc.probe.capture`) and is folded into
per-window counts (each batch element of a forward pass is one window), so any number of windows costs the memory of
one layer's weights plus a few numbers per window and head.

:func:`positional_heads` is the one judgement of "which heads are positional" (``posenc probe``, ``posenc report``
and the Python API all call it). A head's Voita fraction is a share of queries, and what varies is which queries
hit: its 95% interval comes from the two-way bootstrap over windows and query positions (:func:`query_shares`;
resampling windows alone gives a zero-width interval whenever every window has the same queries hit, e.g. a head
that misses the same one query of every window). Previous / next-token shares (means of attention weights, which
vary from window to window) get theirs from a bootstrap over windows. A head is positional when the whole interval
of its fraction lies above the threshold, not positional when it lies at or below it, and undecided otherwise
(fewer than 3 windows give no interval: every head is undecided).

Over a model's windows: :func:`head_pass` (per-window counts, optionally with the word swap's attention change),
:func:`head_summary_pass` (the summary and each query's exact argmax offset), :func:`two_passes` (a decoder and its
random-weight null on the same text windows, judged by :func:`decoder_heads`). Read from the argmax offsets:
one head's share on a given offset (:func:`fraction_at`), by bins of query positions (:func:`position_bins`), and
the judgement on each kind of text alone (:func:`by_kind`).
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch

from posenc.errors import PosencError
from posenc.probe.capture import attention_modules, capture, transformer_body
from posenc.probe.content import content_change, swap_words
from posenc.probe.random_weights import null_model
from posenc.stats import POSITIVE, SHARE, Estimate, bootstrap_weights

__all__ = ["HeadAccumulator", "HeadJudgement", "head_pass", "positional_heads", "query_shares", "distance_bins", "VOITA_THRESHOLD",
           "CLARK_THRESHOLD", "voita_fractions", "prev_next", "PAD_OFFSET", "head_summary_pass", "decoder_heads",
           "two_passes", "offset_hits", "position_bins", "fraction_at", "by_kind"]

#: Voita et al. 2019: positional when the maximum sits on one fixed offset in at least 90% of queries
VOITA_THRESHOLD = 0.9
#: Clark et al. 2019 count heads with more than 50% of their attention on the previous (next) token
CLARK_THRESHOLD = 0.5
#: offsets -MAX_OFFSET..MAX_OFFSET are candidates for the Voita rule
MAX_OFFSET = 8
#: the query offset stored for a position past a window's end (no query there)
PAD_OFFSET = -128


def _wide(device: torch.device) -> torch.dtype:
    """The dtype sums are kept in: float64, or float32 on MPS (which has none)."""
    return torch.float32 if device.type == "mps" else torch.float64


def distance_bins(max_distance: int) -> list[int]:
    """Bin edges ``[0, 1, 2, 3, 4, 6, 8, 12, 16, ...]`` (exact up to 4, then half-octaves) past ``max_distance``."""
    edges = [0, 1, 2, 3, 4]
    while edges[-1] <= max_distance:
        last = edges[-1]
        edges.append(last * 3 // 2 if last & (last - 1) == 0 else last * 4 // 3)  # 4, 6, 8, 12, 16, 24, ...
    return edges


def voita_fractions(attention: torch.Tensor, max_offset: int = MAX_OFFSET) -> tuple[torch.Tensor, torch.Tensor]:
    """``(hits [H, 2K+1], valid [2K+1])`` for offsets ``-K..K`` of one sequence's attention ``[H, T, T]``.

    ``hits[h, o]``: queries whose largest weight sits at offset ``o``; ``valid[o]``: queries with ``i + o`` inside.
    """
    heads, t, _ = attention.shape
    offsets = torch.arange(-max_offset, max_offset + 1, device=attention.device)
    argmax = attention.argmax(-1) - torch.arange(t, device=attention.device)  # [H, T] offset of each query's maximum
    hits = (argmax[..., None] == offsets).sum(1)  # [H, 2K+1]
    starts = (-offsets).clamp(min=0)
    valid = (torch.minimum(torch.full_like(offsets, t), t - offsets) - starts).clamp(min=0)  # [2K+1]
    return hits, valid


def prev_next(attention: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Sums (not means) over queries of ``A[i, i-1]`` and ``A[i, i+1]`` for ``[H, T, T]`` -> ``([H], [H])``."""
    prev = torch.diagonal(attention, offset=-1, dim1=-2, dim2=-1).sum(-1)
    nxt = torch.diagonal(attention, offset=1, dim1=-2, dim2=-1).sum(-1)
    return prev, nxt


@dataclass
class HeadAccumulator:
    """Head statistics over layers and windows; feed it with :meth:`add`, read it with :meth:`summary`.

    Args:
        n_layers, n_heads: the model's shape.
        max_len: the longest window that will be fed (fixes the distance bins).
        max_offset: candidate offsets ``-K..K`` of the Voita rule.

    Each layer's ``k``-th batch element is window ``k`` of that layer (layers arrive in any order; every layer must
    see the same windows). The counts stay on the weights' device (float64 there, float32 on MPS, which has no
    float64) until :meth:`per_window` or :meth:`summary` reads them, so feeding a GPU's weights reads nothing back.
    Besides the counts it keeps each query's argmax offset (one byte per query and head, :meth:`query_offsets`),
    which the Voita fraction's interval resamples.
    """

    n_layers: int
    n_heads: int
    max_len: int
    max_offset: int = MAX_OFFSET
    edges: list[int] = field(init=False)
    _windows: list[list[dict[str, Any]]] = field(init=False, repr=False)  # [layer][window] -> counts
    _mass: dict[int, torch.Tensor] = field(init=False, repr=False)  # layer -> [H, nb] on the weights' device
    _distance: dict[int, torch.Tensor] = field(init=False, repr=False)  # layer -> [H]
    _queries: np.ndarray = field(init=False, repr=False)
    _onehot: dict[tuple[int, torch.device], tuple[torch.Tensor, torch.Tensor]] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.edges = distance_bins(self.max_len - 1)
        self._windows = [[] for _ in range(self.n_layers)]
        self._distance, self._mass = {}, {}
        self._queries = np.zeros(self.n_layers)  # queries seen (T per window)
        self._onehot = {}

    def _bins(self, t: int, device: torch.device) -> tuple[torch.Tensor, torch.Tensor]:
        if (t, device) not in self._onehot:
            dist = (torch.arange(t)[:, None] - torch.arange(t)[None, :]).abs()  # [T, T]
            index = torch.bucketize(dist, torch.tensor(self.edges[1:]), right=True)  # [T, T] bin of |i - j|
            onehot = torch.nn.functional.one_hot(index.flatten(), len(self.edges) - 1).float()  # [T*T, nb]
            self._onehot = {(t, device): (onehot.to(device), dist.flatten().float().to(device))}  # one length only
        return self._onehot[(t, device)]

    def add(self, layer: int, attention: torch.Tensor) -> None:
        """Fold in one layer's weights ``[B, H, T, T]`` (or ``[H, T, T]``): ``B`` windows."""
        weights = attention.float()
        if weights.dim() == 3:
            weights = weights[None]
        batch, heads, t, _ = weights.shape
        if t > self.max_len:
            raise PosencError(f"window of {t} tokens is longer than max_len={self.max_len}; build the accumulator "
                              f"with max_len >= {t}")
        onehot, dist = self._bins(t, weights.device)
        wide = _wide(weights.device)
        for b in range(batch):
            a = weights[b]  # [H, T, T]
            hits, valid = voita_fractions(a, self.max_offset)
            prev, nxt = prev_next(a)
            offsets = (a.argmax(-1) - torch.arange(t, device=a.device)).clamp(-self.max_offset - 1,
                                                                               self.max_offset + 1)  # [H, T]
            self._windows[layer].append({"hits": hits.to(wide), "valid": valid.to(wide), "previous": prev.to(wide),
                                         "next": nxt.to(wide), "neighbours": float(t - 1),
                                         "offsets": offsets.to(torch.int8)})
            flat = a.reshape(heads, t * t)  # [H, T*T]
            if layer not in self._mass:
                self._mass[layer] = torch.zeros(heads, len(self.edges) - 1, dtype=wide, device=weights.device)
                self._distance[layer] = torch.zeros(heads, dtype=wide, device=weights.device)
            self._mass[layer] += (flat @ onehot).to(wide)
            self._distance[layer] += (flat @ dist).to(wide)
            self._queries[layer] += t

    def per_window(self) -> dict[str, np.ndarray]:
        """Per-window counts: ``hits [W, L, H, 2K+1]``, ``valid [W, L, 2K+1]``, ``previous`` and ``next``
        ``[W, L, H]`` (sums over queries), ``neighbours [W, L]`` (queries with a previous token)."""
        counts = {len(w) for w in self._windows}
        if len(counts) != 1 or 0 in counts:
            raise PosencError(f"every layer must see the same windows; windows seen per layer: "
                              f"{[len(w) for w in self._windows]}")

        def stack(key: str) -> np.ndarray:
            if key == "neighbours":
                return np.stack([np.stack([window[key] for window in layer]) for layer in self._windows], axis=1)
            return torch.stack([torch.stack([window[key] for window in layer]) for layer in self._windows],
                               dim=1).cpu().numpy().astype(np.float64)  # one read from the device

        return {key: stack(key) for key in ("hits", "valid", "previous", "next", "neighbours")}

    def query_offsets(self) -> np.ndarray:
        """``[W, L, H, T]`` int8: the offset ``j - i`` of each query's largest weight (clipped to one past the
        candidates, ``PAD_OFFSET`` past a shorter window's end), for :func:`positional_heads`."""
        self.per_window()  # the same windows in every layer
        longest = max(int(window["offsets"].shape[-1]) for layer in self._windows for window in layer)
        out = np.full((len(self._windows[0]), self.n_layers, self.n_heads, longest), PAD_OFFSET, dtype=np.int8)
        for l, layer in enumerate(self._windows):
            for w, window in enumerate(layer):
                offsets = window["offsets"].cpu().numpy()
                out[w, l, :, :offsets.shape[-1]] = offsets
        return out

    def summary(self, threshold: float = VOITA_THRESHOLD, seed: int = 0) -> dict[str, Any]:
        """Per layer and head: Voita offset, fraction (with its interval) and verdict; previous/next attention;
        mass by distance bin; the per-window counts (``per_window``) the judgement rests on."""
        per_window = self.per_window()
        queries = np.maximum(self._queries[:, None], 1)
        mass, distance = (np.stack([table[layer].cpu().numpy().astype(np.float64) for layer in range(self.n_layers)])
                          for table in (self._mass, self._distance))
        out: dict[str, Any] = {"per_window": {k: v.tolist() for k, v in per_window.items()},
                               "windows": int(per_window["hits"].shape[0]), "distance_bin_edges": self.edges,
                               "mass_by_distance": (mass / queries[..., None]).tolist(),
                               "mean_distance": (distance / queries).tolist()}
        out.update(positional_heads(out, threshold, seed=seed, query_offsets=self.query_offsets()).as_summary())
        return out


@dataclass(frozen=True)
class HeadJudgement:
    """Which heads are positional (Voita) and which attend to the previous / next token (Clark), with intervals.

    Attributes:
        threshold: Voita's bar (share of queries).
        offsets: ``[L, H]`` each head's best fixed offset (pooled over windows).
        fractions: ``[L][H]`` the share of queries with the maximum at that offset.
        previous, next: ``[L][H]`` mean attention on the previous / next token.
        positional, undecided: ``(layer, head, offset)`` of heads whose fraction's interval lies wholly above the
            threshold / straddles it.
        previous_over_half, next_over_half, previous_undecided, next_undecided: ``(layer, head)`` judged the same
            way against :data:`CLARK_THRESHOLD`.
        estimates: what the report's claims read: ``positional_heads`` (a count: value = heads whose point estimate
            clears the bar, interval = [decided heads, decided + undecided heads]), ``adjacent_positional_heads`` and
            ``other_positional_heads`` (the same for offsets +-1 and for any other offset), ``previous_heads`` and
            ``next_heads`` (Clark's counts), ``best_voita_fraction`` (the head with the highest fraction).
        windows: how many windows the intervals rest on.
    """

    threshold: float
    offsets: np.ndarray
    fractions: list[list[Estimate]]
    previous: list[list[Estimate]]
    next: list[list[Estimate]]
    positional: list[tuple[int, int, int]]
    undecided: list[tuple[int, int, int]]
    previous_over_half: list[tuple[int, int]]
    next_over_half: list[tuple[int, int]]
    previous_undecided: list[tuple[int, int]]
    next_undecided: list[tuple[int, int]]
    estimates: dict[str, Estimate]
    windows: int

    @property
    def best(self) -> tuple[int, int]:
        """``(layer, head)`` with the highest Voita fraction."""
        values = np.array([[e.value for e in row] for row in self.fractions])
        layer, head = np.unravel_index(int(values.argmax()), values.shape)
        return int(layer), int(head)

    def as_summary(self) -> dict[str, Any]:
        """The judgement as the plain lists and numbers of ``probe.json``."""
        def grid(estimates: list[list[Estimate]]) -> tuple[list, list]:
            return ([[e.value for e in row] for row in estimates],
                    [[[e.low, e.high] for e in row] for row in estimates])

        fraction, fraction_interval = grid(self.fractions)
        previous, previous_interval = grid(self.previous)
        nxt, next_interval = grid(self.next)
        return {"voita_threshold": self.threshold, "clark_threshold": CLARK_THRESHOLD,
                "voita_offset": self.offsets.tolist(), "voita_fraction": fraction,
                "voita_interval": fraction_interval,
                "positional": [[(l, h) in {(a, b) for a, b, _ in self.positional} for h in range(len(row))]
                               for l, row in enumerate(self.fractions)],
                "positional_heads": [[l, h, o, self.fractions[l][h].value] for l, h, o in self.positional],
                "undecided_heads": [[l, h, o, self.fractions[l][h].value] for l, h, o in self.undecided],
                "previous": previous, "previous_interval": previous_interval,
                "next": nxt, "next_interval": next_interval,
                "previous_heads_over_half": [list(x) for x in self.previous_over_half],
                "next_heads_over_half": [list(x) for x in self.next_over_half],
                "previous_heads_undecided": [list(x) for x in self.previous_undecided],
                "next_heads_undecided": [list(x) for x in self.next_undecided],
                "estimates": {k: e.as_dict() for k, e in self.estimates.items()}}


def _count(decided: int, undecided: int, point: int, windows: int) -> Estimate:
    """A count of heads: the point count, and [heads decided, heads decided or undecided] as its bounds (not a
    sampled interval: each head's own interval decides it)."""
    return Estimate(float(point), float(decided), float(decided + undecided), windows, "bounds", POSITIVE)


def _decide(estimates: list[list[Estimate]], threshold: float) -> tuple[np.ndarray, np.ndarray]:
    """``(above, undecided)`` masks: the interval wholly above ``threshold``; straddling it."""
    low = np.array([[e.low for e in row] for row in estimates])
    high = np.array([[e.high for e in row] for row in estimates])
    above = low > threshold
    return above, ~above & (high > threshold)


def query_shares(hits: np.ndarray, valid: np.ndarray, seed: int = 0) -> list[Estimate]:
    """Shares of queries ``sum hits / sum valid`` for ``N`` heads (or query sets), with 95% intervals from the
    two-way bootstrap over windows and query positions (both resampled, independently: :func:`bootstrap_weights`).

    ``hits, valid``: ``[W, T, N]`` (0/1): whether query ``t`` of window ``w`` hits, and whether it counts at all
    (its offset lies inside the window). The point estimate is the pooled share. Fewer than 3 windows or query
    positions: no interval.
    """
    hits, valid = np.asarray(hits, np.float64), np.asarray(valid, np.float64)
    if hits.ndim != 3 or hits.shape != valid.shape:
        raise PosencError(f"query_shares needs hits and valid of one shape [windows, queries, heads], got "
                          f"{hits.shape} and {valid.shape}")
    hits = hits * valid  # a hit counts only where the query counts
    windows, queries, n = hits.shape
    flat_hits, flat_valid = hits.reshape(windows, -1), valid.reshape(windows, -1)  # [W, T*N]

    def statistic(a: np.ndarray, b: np.ndarray) -> np.ndarray:  # a [r, W], b [r, T] -> [r, N]
        r = len(a)
        num = np.einsum("rtn,rt->rn", (a @ flat_hits).reshape(r, queries, n), b)
        den = np.einsum("rtn,rt->rn", (a @ flat_valid).reshape(r, queries, n), b)
        return num / np.maximum(den, 1e-300)

    chunk = int(max(1, min(250, 4_000_000 // max(1, queries * n))))  # at most ~32 MB per chunk of resamples
    return bootstrap_weights((windows, queries), statistic, seed=seed, chunk=chunk, bounds=SHARE)


def positional_heads(summary: Mapping[str, Any], threshold: float = VOITA_THRESHOLD,
                     seed: int = 0, *, query_offsets: np.ndarray) -> HeadJudgement:
    """The one judgement of which heads are positional: Voita et al.'s rule with a 95% interval.

    ``summary`` holds ``per_window`` counts (:meth:`HeadAccumulator.summary` or :meth:`HeadAccumulator.per_window`);
    ``query_offsets [W, L, H, T]`` each query's argmax offset (:meth:`HeadAccumulator.query_offsets`). For each head
    the offset ``o`` with the highest pooled fraction ``sum_w hits_w[o] / sum_w valid_w[o]`` is its candidate; the
    fraction's interval comes from :func:`query_shares`, the two-way bootstrap over windows and query positions (the
    offset stays fixed); the head is positional when the interval lies wholly above ``threshold``. Clark et al.'s
    previous / next-token shares ``sum_w prev_w / sum_w (T_w - 1)`` are judged the same way against 0.5, with
    intervals from a bootstrap over windows.
    """
    raw = summary["per_window"] if "per_window" in summary else summary
    hits, valid = np.asarray(raw["hits"], np.float64), np.asarray(raw["valid"], np.float64)  # [W,L,H,O], [W,L,O]
    prev, nxt = np.asarray(raw["previous"], np.float64), np.asarray(raw["next"], np.float64)  # [W, L, H]
    neighbours = np.asarray(raw["neighbours"], np.float64)  # [W, L]
    windows, n_layers, n_heads, n_off = hits.shape
    query_offsets = np.asarray(query_offsets)
    if query_offsets.shape[:3] != (windows, n_layers, n_heads):
        raise PosencError(f"query_offsets must be [windows, layers, heads, queries] = [{windows}, {n_layers}, "
                          f"{n_heads}, T] like the counts, got {list(query_offsets.shape)}")
    max_offset = n_off // 2
    pooled = hits.sum(0) / np.maximum(valid.sum(0), 1)[:, None, :]  # [L, H, O]
    best = pooled.argmax(-1)  # [L, H]
    offsets = best - max_offset
    t = query_offsets.shape[-1]
    length = neighbours[:, 0] + 1  # [W] tokens per window
    position = np.arange(t)
    flat_offsets = offsets.reshape(-1)  # [L*H]
    chosen = query_offsets.reshape(windows, n_layers * n_heads, t).transpose(0, 2, 1)  # [W, T, L*H]
    inside = (position[None, :, None] + flat_offsets[None, None, :] >= 0) & \
             (position[None, :, None] + flat_offsets[None, None, :] < length[:, None, None])  # [W, T, L*H]
    fractions_flat = query_shares(chosen == flat_offsets[None, None, :], inside, seed=seed)
    shared = np.repeat(neighbours, n_heads, axis=1)  # [W, L*H]
    flat_prev, flat_next = prev.reshape(windows, -1), nxt.reshape(windows, -1)

    def statistic(w: np.ndarray) -> np.ndarray:  # w [r, W] -> [r, 2 * L * H]
        denom = np.maximum(w @ shared, 1e-300)
        return np.concatenate([(w @ flat_prev) / denom, (w @ flat_next) / denom], axis=1)

    flat = fractions_flat + bootstrap_weights((windows,), statistic, seed=seed, bounds=SHARE)
    size = n_layers * n_heads

    def grid(part: int) -> list[list[Estimate]]:
        values = flat[part * size:(part + 1) * size]
        return [values[l * n_heads:(l + 1) * n_heads] for l in range(n_layers)]

    fractions, previous, following = grid(0), grid(1), grid(2)
    above, open_ = _decide(fractions, threshold)
    point = np.array([[e.value for e in row] for row in fractions]) > threshold
    heads = [(l, h) for l in range(n_layers) for h in range(n_heads)]
    positional = [(l, h, int(offsets[l, h])) for l, h in heads if above[l, h]]
    undecided = [(l, h, int(offsets[l, h])) for l, h in heads if open_[l, h]]
    adjacent = np.abs(offsets) == 1

    def count(mask: np.ndarray) -> Estimate:
        return _count(int((above & mask).sum()), int((open_ & mask).sum()), int((point & mask).sum()), windows)

    estimates = {"positional_heads": count(np.ones_like(adjacent)), "adjacent_positional_heads": count(adjacent),
                 "other_positional_heads": count(~adjacent)}
    clark: dict[str, tuple[list, list]] = {}
    for name, grid_ in (("previous", previous), ("next", following)):
        over, maybe = _decide(grid_, CLARK_THRESHOLD)
        clark_point = np.array([[e.value for e in row] for row in grid_]) > CLARK_THRESHOLD
        estimates[f"{name}_heads"] = _count(int(over.sum()), int(maybe.sum()), int(clark_point.sum()), windows)
        clark[name] = ([(l, h) for l, h in heads if over[l, h]], [(l, h) for l, h in heads if maybe[l, h]])
    judgement = HeadJudgement(threshold, offsets, fractions, previous, following, positional, undecided,
                              clark["previous"][0], clark["next"][0], clark["previous"][1], clark["next"][1],
                              estimates, windows)
    layer, head = judgement.best
    estimates["best_voita_fraction"] = fractions[layer][head]
    return judgement


def head_pass(model: Any, windows: Sequence[Sequence[int]], swapped: Sequence[Sequence[int]] | None = None
              ) -> dict[str, Any]:
    """Every layer's attention of ``model`` (a Hugging Face transformer) on ``windows`` of token ids (one length),
    one forward pass per window, folded into a :class:`HeadAccumulator`: ``per_window`` counts and
    ``query_offsets [W, L, H, T]``, what :func:`positional_heads` judges. With ``swapped`` (the same windows with
    other words, :func:`~posenc.probe.content.swap_words`), also ``change [W, L, H]``,
    :func:`~posenc.probe.content.content_change`, from the same forward passes.

    Example::

        >>> from transformers import LlamaConfig, LlamaModel
        >>> from posenc.probe.heads import head_pass, positional_heads
        >>> config = LlamaConfig(vocab_size=32, hidden_size=16, intermediate_size=32, num_hidden_layers=2,
        ...                      num_attention_heads=4, num_key_value_heads=4)
        >>> run = head_pass(LlamaModel(config).eval(), [[1, 5, 7, 2, 9, 3]] * 3)
        >>> run["query_offsets"].shape  # windows, layers, heads, queries
        (3, 2, 4, 6)
        >>> judged = positional_heads(run["per_window"], query_offsets=run["query_offsets"])
    """
    if len(windows) < 1:
        raise PosencError("head_pass needs at least one window of token ids, got none")
    lengths = {len(w) for w in windows}
    if len(lengths) != 1 or 0 in lengths:
        raise PosencError(f"head_pass needs windows of one non-zero length, got lengths {sorted(lengths)}")
    config = model.config
    heads = HeadAccumulator(len(attention_modules(model)), int(config.num_attention_heads), max_len=lengths.pop())
    out: dict[str, Any] = {"windows": len(windows)}
    with torch.no_grad():
        if swapped is None:
            with capture(model, heads.add):
                for ids in windows:
                    batch = torch.tensor([list(ids)])
                    model(input_ids=batch, attention_mask=torch.ones_like(batch))
        else:
            out["change"] = content_change(model, windows, swapped, on_original=heads.add)
    out["per_window"] = heads.per_window()
    out["query_offsets"] = heads.query_offsets()
    return out


def head_summary_pass(model: Any, windows: Sequence[Sequence[int]], max_len: int) -> dict[str, Any]:
    """Every layer's attention of ``model`` (a Hugging Face transformer) on ``windows`` of token ids, one forward
    pass per window, folded into a :class:`HeadAccumulator` of ``max_len`` tokens: ``summary``
    (:meth:`HeadAccumulator.summary`) and ``argmax [W, L, H, T]`` (int16), the offset ``j - i`` of each query's
    largest weight, unclipped (what :func:`positional_heads` reads as ``query_offsets``, :func:`fraction_at` and
    :func:`position_bins` as ``argmax``)."""
    n_layers, n_heads = model.config.num_hidden_layers, model.config.num_attention_heads
    heads = HeadAccumulator(n_layers, n_heads, max_len=max_len)
    layer_argmax: dict[int, np.ndarray] = {}
    argmax = []

    def on_attention(layer: int, weights: torch.Tensor) -> None:
        heads.add(layer, weights)
        t = weights.shape[-1]
        layer_argmax[layer] = (weights[0].argmax(-1) - torch.arange(t)).to(torch.int16).numpy()  # [H, T]

    with torch.no_grad(), capture(model, on_attention):
        for ids in windows:
            batch = torch.tensor([ids])  # [1, T]
            model(input_ids=batch, attention_mask=torch.ones_like(batch))
            argmax.append(np.stack([layer_argmax[layer] for layer in range(n_layers)]))  # [L, H, T]
    return {"summary": heads.summary(), "argmax": np.stack(argmax)}


def decoder_heads(pass_: dict[str, Any]) -> HeadJudgement:
    """:func:`positional_heads` on a :func:`head_pass`: the judgement any model's heads get."""
    return positional_heads(pass_["per_window"], query_offsets=pass_["query_offsets"])


def two_passes(model: Any, tokenizer: Any, count: int, length: int, null_seed: int = 0) -> dict[str, Any]:
    """A decoder's head pass with the word swap (``trained``) and its :func:`posenc.probe.random_weights.null_model`'s
    head pass (drawn with ``null_seed``) on the same windows (``null``): ``count`` windows of ``length`` tokens of
    both kinds of text (:func:`posenc.corpora.text_windows`), the transformer without its LM head
    (:func:`posenc.probe.capture.transformer_body`), with the CPU time of each part (process time, every thread)."""
    from posenc.corpora import special_tokens, text_windows

    windows, kinds = text_windows(tokenizer, length, count)
    prefix, suffix = special_tokens(tokenizer)
    swapped = swap_words(windows, len(prefix), len(suffix))
    body = transformer_body(model)
    cpu: dict[str, float] = {}
    started = time.process_time()
    trained = head_pass(body, windows, swapped)
    cpu["measured"] = time.process_time() - started
    started = time.process_time()
    twin = null_model(model, null_seed)
    null = head_pass(twin, windows)
    del twin
    cpu["null"] = time.process_time() - started
    config = body.config
    return {"trained": trained, "null": null, "kinds": kinds, "length": length,
            "layers": int(config.num_hidden_layers), "heads": int(config.num_attention_heads),
            "cpu_s": {k: round(v, 2) for k, v in cpu.items()}}


def offset_hits(argmax: np.ndarray, layer: int, head: int, offset: int) -> tuple[np.ndarray, np.ndarray]:
    """``(hits, valid) [W, T]``: queries of one head whose maximum sits on ``offset``, and queries for which the
    offset lies inside the window (``argmax [W, L, H, T]``: each query's argmax offset)."""
    t = argmax.shape[-1]
    positions = np.arange(t)
    valid = np.broadcast_to((positions + offset >= 0) & (positions + offset < t), argmax.shape[:1] + (t,))
    return (argmax[:, layer, head, :] == offset) & valid, valid


def position_bins(argmax: np.ndarray, layer: int, head: int, offset: int, width: int) -> list[Estimate]:
    """Share of queries whose maximum sits on ``offset`` for one head, by query-position bin of ``width`` queries,
    with the two-way bootstrap over windows and the bin's query positions. ``argmax [W, L, H, T]`` holds each
    query's argmax offset."""
    hits, valid = offset_hits(argmax, layer, head, offset)  # [W, T] each
    t = argmax.shape[-1]
    return [query_shares(hits[:, a:min(a + width, t), None], valid[:, a:min(a + width, t), None])[0]
            for a in range(0, t, width)]


def fraction_at(window_pass: Mapping[str, Any], layer: int, head: int, offset: int) -> Estimate:
    """One head's Voita fraction at a given offset (not its own best), with the two-way bootstrap over windows and
    query positions (``window_pass["argmax"] [W, L, H, T]``: each query's argmax offset)."""
    hits, valid = offset_hits(window_pass["argmax"], layer, head, offset)
    return query_shares(hits[..., None], valid[..., None])[0]


def by_kind(window_pass: Mapping[str, Any]) -> dict[str, HeadJudgement]:
    """:func:`positional_heads` on each kind of text's windows alone, cut from a pass over windows of several kinds
    (``summary`` with its ``per_window`` counts, ``argmax [W, L, H, T]``, and ``kinds``, each window's kind); a kind
    of fewer than 2 windows is left out."""
    raw = {k: np.asarray(v) for k, v in window_pass["summary"]["per_window"].items()}
    kinds = np.asarray(window_pass["kinds"])
    argmax = np.asarray(window_pass["argmax"])
    return {kind: positional_heads({k: v[kinds == kind] for k, v in raw.items()}, query_offsets=argmax[kinds == kind])
            for kind in dict.fromkeys(window_pass["kinds"]) if (kinds == kind).sum() >= 2}
