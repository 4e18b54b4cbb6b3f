"""Statistics of a model's word and position rows: how they sit against each other, and where in the dimensions
their variance lies.

- :func:`embedding_cosines`: mean ``|cos|`` between every word row and every position row, raw (tutorial 001 §4.1) and
  with each set centred first; :func:`chance_abs_cos`: the same for two independent random directions;
- :func:`sparse_dims_share`: the share of the position rows' variance in the half of the dimensions where the word
  rows vary least (tutorial 001 §4's mechanism: position written where meaning is sparse);
- :func:`quarter_shares`: the share of the word rows' variance in the lowest and the highest quarter of dimensions,
  and :func:`division_change`, its change through training (tutorial 002's division of labour: more meaning in the
  high dimensions, where the sinusoid turns slowest); :func:`permuted_division`: the null of a per-dimension
  division where a dimension's index carries nothing (the dimensions in random orders).

Shapes: ``words [W, d]``, ``positions [P, d]``; every statistic is computed in float64.
"""

from __future__ import annotations

import math

import numpy as np
import torch
import torch.nn.functional as F

from posenc.stats import Estimate

__all__ = ["embedding_cosines", "sparse_dims_share", "quarter_shares", "chance_abs_cos", "division_change",
           "PERMUTATIONS", "permuted_division"]


def embedding_cosines(words: torch.Tensor, positions: torch.Tensor) -> tuple[float, float]:
    """Mean |cos| between every word row ``[W, d]`` and every position row ``[P, d]``: raw (tutorial 001 §4.1 computes
    ``cosine_similarity(word_embeddings, pos_embeddings)``) and with each set centred on its own mean first
    (FACTS §2: a shared offset makes raw cosines move together)."""
    def mean_abs_cos(a: torch.Tensor, b: torch.Tensor) -> float:
        return float((F.normalize(a, dim=1) @ F.normalize(b, dim=1).T).abs().mean())

    words, positions = words.double(), positions.double()
    return (mean_abs_cos(words, positions),
            mean_abs_cos(words - words.mean(dim=0), positions - positions.mean(dim=0)))


def sparse_dims_share(words: torch.Tensor, positions: torch.Tensor) -> float:
    """Tutorial 001 §4's mechanism ("把位置的信息放到语义稀疏的维度上"): the share of the position table's variance
    (over its rows, per dimension) that lies in the half of the dimensions where the word rows vary least (meaning
    is sparse there). 0.5 when position ignores where meaning is; 1 when it lives only where meaning is sparse."""
    w_var = words.double().var(dim=0, unbiased=False)  # [d]
    p_var = positions.double().var(dim=0, unbiased=False)
    sparse = torch.argsort(w_var, stable=True)[: len(w_var) // 2]
    return float(p_var[sparse].sum() / p_var.sum())


def quarter_shares(words: torch.Tensor) -> tuple[float, float]:
    """The share of the word rows' variance (over rows, summed over dimensions) in the lowest and in the highest
    quarter of dimensions: tutorial 002's "more meaning in the high dimensions", where the sinusoid turns slowest."""
    var = words.double().var(dim=0, unbiased=False)  # [d]
    quarter = len(var) // 4
    return float(var[:quarter].sum() / var.sum()), float(var[-quarter:].sum() / var.sum())


def chance_abs_cos(dim: int) -> float:
    """Mean |cos| of two independent uniformly random directions in ``dim`` dimensions:
    ``Gamma(d/2) / (sqrt(pi) Gamma((d+1)/2))`` (about ``sqrt(2 / (pi d))``)."""
    return math.exp(math.lgamma(dim / 2) - math.lgamma((dim + 1) / 2)) / math.sqrt(math.pi)


#: random orders of the dimensions for :func:`permuted_division`'s null
PERMUTATIONS = 1000


def division_change(start: list[float], end: list[float]) -> float:
    """The division statistic: the word rows' variance share in the highest quarter minus the lowest, at the end
    minus at the start (``[low, high]`` from :func:`quarter_shares`)."""
    return (end[1] - end[0]) - (start[1] - start[0])


def permuted_division(per_dim: list[float], permutations: int = PERMUTATIONS, seed: int = 0) -> Estimate:
    """The null of a division over dimensions whose index carries nothing (e.g. MiniLM's learned table): the lowest
    quarter's mean of ``per_dim`` (a position share per dimension) minus the highest's, with the dimensions in
    ``permutations`` random orders (seeded by ``seed``): the mean and the central 95% of the draws."""
    shares = np.asarray(per_dim, dtype=float)
    quarter = len(shares) // 4
    rng = np.random.default_rng(seed)
    orders = np.stack([rng.permutation(len(shares)) for _ in range(permutations)])  # [N, d]
    shuffled = shares[orders]
    draws = shuffled[:, :quarter].mean(1) - shuffled[:, -quarter:].mean(1)
    low, high = np.quantile(draws, [0.025, 0.975])
    return Estimate(float(draws.mean()), float(min(low, draws.mean())), float(max(high, draws.mean())), permutations,
                    "permutation", (-1.0, 1.0))
