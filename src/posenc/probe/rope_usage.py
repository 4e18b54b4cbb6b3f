"""Which rotary frequencies a trained RoPE model uses, and how its logits depend on distance.

RoPE (Su et al. 2021) rotates query/key channel pair ``i`` by ``p * theta_i`` with ``theta_i = base^(-2i/R)``; pair 0
turns fastest, pair ``R/2 - 1`` slowest. A rotation keeps each pair's norm, so the share of ``|q|^2`` a pair carries,

    share_i = sum_t (q_{t,a}^2 + q_{t,b}^2) / sum_t |q_t|^2      ((a, b) = (i, i + R/2) in "half" pairing)

says how much of a head's query (or key) lives at frequency ``theta_i`` (Barbero et al. 2024, "Round and Round We Go!
What makes Rotary Positional Encodings useful?", find trained models concentrating on the lowest frequencies).

Logit against distance: for query ``i`` and key ``j = i - r`` the rotated logit is ``<R(i) q_i, R(j) k_j> / sqrt(Dh)``.
Three curves per layer and head, each the mean over queries at every distance ``r``:

- ``real``: the model's own queries and keys on the text;
- ``random``: Gaussian queries and keys with the real per-channel standard deviations and zero mean, rotated the same
  way (content-free: RoPE alone gives a mean logit of 0 at every distance; its spread shows the noise level);
- ``mean``: ``<R(r) q_bar, k_bar>`` for the mean query and key, the part of ``real`` a constant direction explains.

The rotated logits are checked against the model's own attention weights (softmax of the causal logits), so a wrong
pairing or base shows up as ``check_max_abs_error``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch

from posenc.encodings.base import future_mask
from posenc.errors import PosencError
from posenc.hf.config import from_hf_config
from posenc.kernels import apply_rope
from posenc.kernels.reference import pair_channels
from posenc.probe.heads import distance_bins

__all__ = ["RopeAccumulator", "pair_energy", "band_offset_shares", "band_position_shares"]


def pair_energy(x: torch.Tensor, rotary_dim: int, pairing: str) -> torch.Tensor:
    """Per-pair energy ``[..., R/2]`` of ``x [..., Dh]`` (summed squares of the two channels of each pair)."""
    a, b = pair_channels(x[..., :rotary_dim].pow(2), pairing)
    return a + b


@dataclass
class RopeAccumulator:
    """Running frequency usage and logit-distance curves; feed each layer with :meth:`add_qk` then
    :meth:`add_attention` (the hook order of :func:`posenc.probe.capture.capture`), read with :meth:`summary`.

    Args:
        config: the Hugging Face config of a RoPE model (posenc builds the same RoPE from it).
        max_len: the longest window that will be fed.
        seed: for the random queries and keys.
    """

    config: Any
    max_len: int
    seed: int = 0
    rope: Any = field(init=False, repr=False)
    distances: list[int] = field(init=False)
    _q_energy: dict[int, torch.Tensor] = field(init=False, repr=False)
    _k_energy: dict[int, torch.Tensor] = field(init=False, repr=False)
    _curves: dict[int, dict[str, torch.Tensor]] = field(init=False, repr=False)
    _counts: dict[int, int] = field(init=False, repr=False)
    _pending: dict[int, tuple[torch.Tensor, torch.Tensor]] = field(init=False, repr=False)
    _check: Any = field(init=False, default=0.0)  # a tensor on the projections' device once fed

    def __post_init__(self) -> None:
        self.rope = from_hf_config(self.config)
        if not hasattr(self.rope, "rotate") or self.rope.info.hooks != ("rotate",):
            raise PosencError(f"the config describes a {self.rope.name!r} encoding, not RoPE; the RoPE probes apply "
                              f"to rotary models only")
        self.heads = int(self.config.num_attention_heads)
        self.kv_heads = int(getattr(self.config, "num_key_value_heads", None) or self.heads)
        self.head_dim = int(self.rope.head_dim)
        self.scale = self.head_dim ** -0.5
        self.distances = [d for d in sorted(set(distance_bins(self.max_len - 1)[:-1]) | {1, 2, 3, 5, 7}) if
                          d < self.max_len]
        self._q_energy, self._k_energy, self._curves, self._counts, self._pending = {}, {}, {}, {}, {}
        self._generator = torch.Generator().manual_seed(self.seed)
        self._table_len, self._table = -1, None

    def add_qk(self, layer: int, q: torch.Tensor, k: torch.Tensor) -> None:
        """Unrotated projections ``q [B, T, H*Dh]``, ``k [B, T, Hk*Dh]`` of one layer (hook order: before the
        attention weights of the same layer)."""
        q = q.float().reshape(q.shape[0], q.shape[1], self.heads, self.head_dim).transpose(1, 2)  # [B, H, T, Dh]
        k = k.float().reshape(k.shape[0], k.shape[1], self.kv_heads, self.head_dim).transpose(1, 2)  # [B, Hk, T, Dh]
        r, pairing = self.rope.rotary_dim, self.rope.pairing
        self._q_energy[layer] = self._q_energy.get(layer, 0) + pair_energy(q, r, pairing).sum((0, 2))  # [H, R/2]
        self._k_energy[layer] = self._k_energy.get(layer, 0) + pair_energy(k, r, pairing).sum((0, 2))  # [Hk, R/2]
        self._pending[layer] = (q, k)

    def _tables(self, t: int, device: torch.device) -> tuple[torch.Tensor, torch.Tensor]:
        """float32 ``(cos, sin) [T, R/2]`` for positions ``0..t-1`` on ``device`` (built in float64 on the CPU and
        moved once per length and device)."""
        if self._table_len != (t, device):
            self._table = tuple(x.to(device) for x in self.rope.tables(torch.arange(t), t))
            self._table_len = (t, device)
        return self._table

    def _rotate(self, q: torch.Tensor, k: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Rotate ``q [B, H, Tq, Dh]`` at positions ``0..Tq-1`` and ``k [B, Hk, Tk, Dh]`` at ``0..Tk-1``; k comes back
        repeated to the ``H`` query heads (grouped-query attention)."""
        cos, sin = self._tables(max(q.shape[2], k.shape[2]), q.device)
        tq, tk = q.shape[2], k.shape[2]
        qr, kr = apply_rope(q.contiguous(), k.contiguous(), cos[:tq], sin[:tq], cos[:tk], sin[:tk],
                            pairing=self.rope.pairing)
        return qr, kr.repeat_interleave(self.heads // self.kv_heads, dim=1)  # [B, H, Tk, Dh]

    def _distance_means(self, qr: torch.Tensor, kr: torch.Tensor, distances: list[int]) -> torch.Tensor:
        """``[H, len(distances)]``: sum over the batch of the mean over queries ``i`` of ``<qr_i, kr_{i-r}> / sqrt(Dh)``
        (one dot product per query and distance, not the whole ``T x T`` matrix)."""
        t = qr.shape[2]
        return torch.stack([(qr[:, :, r:] * kr[:, :, : t - r]).sum(-1).mean(-1).sum(0) for r in distances],
                           dim=-1) * self.scale

    def add_attention(self, layer: int, weights: torch.Tensor) -> None:
        """The model's own weights ``[B, H, T, T]`` of the same layer: checks the rotated logits, adds the curves."""
        q, k = self._pending.pop(layer)
        batch, t = q.shape[0], q.shape[2]
        qr, kr = self._rotate(q, k)
        logits = qr @ kr.transpose(-1, -2) * self.scale  # [B, H, T, T]
        future = future_mask(t, t, q.device)  # key after query
        probs = logits.masked_fill_(future, float("-inf")).softmax(-1)
        self._check = torch.maximum(torch.as_tensor(self._check, device=q.device),
                                    (probs - weights.float()).abs().max())  # stays on the device
        del logits, probs
        dist = [d for d in self.distances if d < t]
        std_q = q.std(dim=(0, 2), keepdim=True)  # [1, H, 1, Dh]
        std_k = k.std(dim=(0, 2), keepdim=True)
        # drawn on the CPU from the seeded generator (the same numbers on every device), then moved
        rq, rk = self._rotate(torch.randn(q.shape, generator=self._generator).to(q.device) * std_q,
                              torch.randn(k.shape, generator=self._generator).to(k.device) * std_k)
        q_bar = q.mean(dim=(0, 2), keepdim=True).expand(1, -1, t, -1)  # [1, H, T, Dh]: the mean query at position r
        k_bar = k.mean(dim=(0, 2), keepdim=True)  # [1, Hk, 1, Dh]: the mean key at position 0
        mq, mk = self._rotate(q_bar, k_bar)
        mean = (mq[0] * mk[0]).sum(-1) * self.scale  # [H, T]
        curves = {"real": self._distance_means(qr, kr, dist), "random": self._distance_means(rq, rk, dist),
                  "mean": mean[:, dist] * batch}
        stored = self._curves.setdefault(layer, {name: torch.zeros(self.heads, len(self.distances), device=q.device)
                                                 for name in curves})
        for name, value in curves.items():
            stored[name][:, : len(dist)] += value
        self._counts[layer] = self._counts.get(layer, 0) + batch

    def summary(self) -> dict[str, Any]:
        """Per layer and head: pair shares of q and k; logit-distance curves; a summary per layer."""
        layers = sorted(self._q_energy)
        q_share = torch.stack([self._q_energy[i] / self._q_energy[i].sum(-1, keepdim=True) for i in layers])
        k_share = torch.stack([self._k_energy[i] / self._k_energy[i].sum(-1, keepdim=True) for i in layers])
        n_pairs = q_share.shape[-1]
        quarter = max(n_pairs // 4, 1)
        inv_freq, _ = self.rope.frequencies(self.max_len)
        curves = {name: torch.stack([self._curves[i][name] / self._counts[i] for i in sorted(self._curves)]).tolist()
                  for name in ("real", "random", "mean")} if self._curves else {}
        return {
            "rotary_dim": self.rope.rotary_dim, "pairing": self.rope.pairing, "base": self.rope.base,
            "inv_freq": [float(f) for f in inv_freq],
            "wavelength": [float(2 * np.pi / f) for f in inv_freq],
            "q_pair_share": q_share.tolist(), "k_pair_share": k_share.tolist(),
            "q_share_fastest_quarter": q_share[..., :quarter].sum(-1).mean(-1).tolist(),
            "q_share_slowest_quarter": q_share[..., -quarter:].sum(-1).mean(-1).tolist(),
            "k_share_fastest_quarter": k_share[..., :quarter].sum(-1).mean(-1).tolist(),
            "k_share_slowest_quarter": k_share[..., -quarter:].sum(-1).mean(-1).tolist(),
            "distances": self.distances, "logit_vs_distance": curves,
            "check_max_abs_error": float(self._check),
        }


def band_offset_shares(qr: torch.Tensor, kr: torch.Tensor, pairing: str, max_offset: int) -> torch.Tensor:
    """How much of each frequency pair's logit contribution the query-key offset explains, for one sequence.

    ``qr [H, T, Dh]`` and ``kr [H, T, Dh]`` are rotated queries and keys (keys repeated to the query heads). Pair
    ``b``'s contribution to logit ``(i, j)`` is ``s_b(i, j) = qr_i[b] . kr_j[b]`` over its two channels (RoPE keeps
    each pair's rotation separate). Over the causal pairs with offset ``r = i - j`` in ``0..max_offset``, the share
    of its variance explained by the offset is the between-groups sum of squares over the total (eta squared):

        eta^2_b = sum_r n_r (mean_r s_b - mean s_b)^2 / sum_(i, j) (s_b(i, j) - mean s_b)^2

    near 0 when the pair's logits follow the content alone (tutorial 002's "meaning"), near 1 when they follow the
    offset alone ("position"). Returns ``[H, Dh/2]`` in float64.
    """
    h, t, dh = qr.shape
    half = dh // 2
    q, k = qr.double(), kr.double()
    (q1, q2), (k1, k2) = pair_channels(q, pairing), pair_channels(k, pairing)  # [H, T, Dh/2] each
    band = q1[:, :, None] * k1[:, None] + q2[:, :, None] * k2[:, None]  # [H, T, T, Dh/2]
    i, j = torch.tril_indices(t, t)  # causal pairs, key j <= query i
    keep = i - j <= max_offset
    i, j = i[keep], j[keep]
    r = i - j  # [P] offsets
    values = band[:, i, j, :]  # [H, P, Dh/2]
    groups = int(r.max()) + 1
    n = torch.bincount(r, minlength=groups).double()[:, None, None]  # [R, 1, 1]
    s1 = torch.zeros(groups, h, half, dtype=torch.float64).index_add_(0, r, values.transpose(0, 1))  # [R, H, Dh/2]
    grand = s1.sum(0) / n.sum()
    between = (n * (s1 / n - grand) ** 2).sum(0)
    total = values.pow(2).sum(1) - n.sum() * grand ** 2
    return between / total


def band_position_shares(model: Any, windows: list[list[int]], max_offset: int) -> np.ndarray:
    """:func:`band_offset_shares` of every layer and head of a Hugging Face RoPE model on each window, ``[W, L, H,
    R/2]`` (pairs by falling frequency, pair 0 the fastest). Queries and keys are the model's own projections
    (captured by :func:`posenc.probe.capture.capture`), rotated by posenc's RoPE built from the model's config."""
    from posenc.probe.capture import capture

    config = model.config
    rope = from_hf_config(config)
    if not hasattr(rope, "rotate") or rope.info.hooks != ("rotate",):
        raise PosencError(f"the config describes a {rope.name!r} encoding, not RoPE; the band probe applies to "
                          f"rotary models only")
    heads = int(config.num_attention_heads)
    kv_heads = int(getattr(config, "num_key_value_heads", None) or heads)
    head_dim = int(rope.head_dim)
    if rope.rotary_dim != head_dim:
        raise PosencError(f"partial rotary ({rope.rotary_dim} of {head_dim} channels) is not supported by the band "
                          f"probe")
    out = []
    per_layer: dict[int, torch.Tensor] = {}

    def on_qk(layer: int, q: torch.Tensor, k: torch.Tensor) -> None:
        t = q.shape[1]
        q = q[0].float().reshape(t, heads, head_dim).transpose(0, 1)[None]  # [1, H, T, Dh]
        k = k[0].float().reshape(t, kv_heads, head_dim).transpose(0, 1)[None]
        positions = torch.arange(t)
        qr, kr = rope.rotate(q.contiguous(), k.contiguous(), positions, positions)
        kr = kr.repeat_interleave(heads // kv_heads, dim=1)
        per_layer[layer] = band_offset_shares(qr[0], kr[0], rope.pairing, max_offset)

    with torch.no_grad(), capture(model, lambda layer, weights: None, on_qk):
        for ids in windows:
            per_layer.clear()
            model(input_ids=torch.tensor([ids]))
            out.append(torch.stack([per_layer[i] for i in sorted(per_layer)]).numpy())
    return np.stack(out)
