"""Split the first layer's attention logits into word and position terms (tutorial 001 §5.2; Ke et al. 2021, TUPE).

With input ``h_i = e_i + p_i`` a head's logit ``a_ij = (W_q h_i)^T (W_k h_j) / sqrt(D_h)`` expands into four terms:
word-word ``(W_q e_i)^T W_k e_j``, word-position ``(W_q e_i)^T W_k p_j``, position-word and position-position.

BERT puts a LayerNorm between the sum and layer 0, ``h_i = gamma * (x_i - mean(x_i)) / sigma_i + beta`` with
``x_i = e_i + p_i + t_i`` (``t_i`` the token-type row) and ``sigma_i = sqrt(var(x_i) + eps)``. Because the mean is
linear and ``sigma_i`` is one number per token, the normalised input splits exactly into

    E_i = gamma * (e_i - mean(e_i)) / sigma_i        (word part)
    P_i = gamma * (p_i - mean(p_i)) / sigma_i        (position part)
    R_i = gamma * (t_i - mean(t_i)) / sigma_i + beta (remainder: token type and the LayerNorm bias)

with ``h_i = E_i + P_i + R_i``; the projections add their biases to the remainder (``q^R_i = W_q R_i + b_q``). The
logit is then ``ww + wp + pw + pp + rest`` where ``rest`` holds every product with a remainder part. The five parts
add up to the model's own layer-0 logits (its own query and key outputs, captured by hooks) to float precision.

Shapes: input ids ``[T]`` (one sequence); terms ``[H, T, T]`` (query i, key j).

Over many windows: :meth:`FourTermSplit.sums` reduces one window to within-query sums of squares per head, and
:func:`term_statistics` turns a stack of them into the statistics the report's claims read (spreads, variance shares,
their largest value over heads, the four terms' shares), each with a 95% interval from a bootstrap over windows;
:func:`flatness_statistics` and :func:`dimension_statistics` do so for the other sums, and :func:`split_statistics`
reads all three from one model's sums (:func:`posenc.probe.term_sums.window_sums`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from posenc.errors import PosencError
from posenc.stats import POSITIVE, Estimate, bootstrap_weights

__all__ = ["FourTermSplit", "ProjectedParts", "projected_parts", "four_term_split", "term_statistics", "flatness_statistics", "dimension_statistics",
           "split_statistics", "TERMS", "FOUR"]

TERMS = ("ww", "wp", "pw", "pp", "rest")
#: the tutorial's four terms (the remainder left out)
FOUR = ("ww", "wp", "pw", "pp")


class _LayerZeroSeen(Exception):
    """Raised by the key hook of layer 0: the rest of the forward pass is not needed."""


@dataclass
class FourTermSplit:
    """The five parts of one sequence's layer-0 logits.

    Attributes:
        terms: name (``ww``, ``wp``, ``pw``, ``pp``, ``rest``) -> ``[H, T, T]`` float64.
        reference: the model's own layer-0 logits ``[H, T, T]`` (from its query/key outputs).
        relative_error: ``||sum(terms) - reference||_F / ||reference||_F``.
    """

    terms: dict[str, torch.Tensor]
    reference: torch.Tensor
    relative_error: float
    #: the projected parts ``{"q": {"w", "p", "r"}, "k": {...}}``, each ``[H, T, Dh]`` (remainder with its bias),
    #: and the logits' scale: what :meth:`dimension_sums` splits by query/key dimension
    projected: dict[str, dict[str, torch.Tensor]] | None = None
    scale: float = 1.0

    def total(self) -> torch.Tensor:
        return sum(self.terms.values())

    def variance_shares(self, within_rows: bool = True) -> list[dict[str, float]]:
        """Per head: ``var(term) / var(logits)``. Terms are correlated, so the shares need not add up to 1;
        ``covariance`` is what the cross terms add (1 minus the sum).

        ``within_rows=True`` first subtracts each query's mean over keys from every part: softmax ignores a constant
        per query, so only the variation across keys moves attention. ``False`` uses all (query, key) entries.
        """
        def prepared(x: torch.Tensor) -> torch.Tensor:
            return x - x.mean(-1, keepdim=True) if within_rows else x

        out = []
        total = prepared(self.reference.to(torch.float64))
        terms = {name: prepared(term) for name, term in self.terms.items()}
        for h in range(total.shape[0]):
            var = float(total[h].pow(2).mean() if within_rows else total[h].var())
            shares = {name: float(term[h].pow(2).mean() if within_rows else term[h].var()) / var
                      for name, term in terms.items()}
            shares["covariance"] = 1.0 - sum(shares.values())
            out.append(shares)
        return out

    def sums(self) -> np.ndarray:
        """``[H, 6]`` within-query sums of squares of the five parts and of the logits (columns ``TERMS`` then
        ``total``): ``sum_ij (x_ij - mean_j x_ij)^2`` per head. Softmax ignores a constant per query, so only the
        variation across keys moves attention."""
        parts = [*(self.terms[name] for name in TERMS), self.reference.to(torch.float64)]
        return np.stack([(x - x.mean(-1, keepdim=True)).pow(2).sum(dim=(-1, -2)).numpy() for x in parts], axis=1)


    def flatness_sums(self) -> np.ndarray:
        """``[H, 4]`` how much of each cross term runs along positions: for word-position ``wp[i, j] = q^w_i . k^p_j``
        the key's position varies along a query's row, so ``sum_ij (wp_ij - mean_j wp_ij)^2`` (along positions)
        beside ``sum_ij (wp_ij - mean wp)^2`` (its whole variation); for position-word the query's position varies
        down a key's column, so ``sum_ij (pw_ij - mean_i pw_ij)^2`` beside the whole. Columns: wp along, wp whole,
        pw along, pw whole. A term flat along positions (uniform) is a constant per query word (per key word): its
        along share is 0."""
        wp, pw = self.terms["wp"], self.terms["pw"]  # [H, T, T]

        def whole(x: torch.Tensor) -> torch.Tensor:
            return (x - x.mean(dim=(-1, -2), keepdim=True)).pow(2).sum(dim=(-1, -2))

        return torch.stack([(wp - wp.mean(-1, keepdim=True)).pow(2).sum(dim=(-1, -2)), whole(wp),
                            (pw - pw.mean(-2, keepdim=True)).pow(2).sum(dim=(-1, -2)), whole(pw)], dim=1).numpy()

    def dimension_sums(self) -> np.ndarray:
        """``[H, Dh, 4]`` within-query sums of squares of each four term's contribution through one query/key
        dimension ``d`` (tutorial 003 §14.5.3: dimensions of W_q and W_k): the term ``a_b`` adds
        ``x_ij = s q^a_i[d] k^b_j[d]`` to logit ``(i, j)``, and ``sum_ij (x_ij - mean_j x_ij)^2
        = s^2 (sum_i q^a_i[d]^2) (sum_j (k^b_j[d] - mean_j k^b[d])^2)``. Columns: ww, wp, pw, pp (``FOUR``)."""
        if self.projected is None:
            raise PosencError("this split kept no projected parts; build it with four_term_split")
        q, k = self.projected["q"], self.projected["k"]
        rows = {a: q[a].pow(2).sum(1) for a in ("w", "p")}  # [H, Dh]
        cols = {b: (k[b] - k[b].mean(1, keepdim=True)).pow(2).sum(1) for b in ("w", "p")}
        return torch.stack([rows[t[0]] * cols[t[1]] for t in FOUR], dim=-1).numpy() * self.scale ** 2


def _bert_parts(model: Any) -> tuple[Any, Any]:
    embeddings = getattr(model, "embeddings", None)
    encoder = getattr(model, "encoder", None)
    names = ("word_embeddings", "position_embeddings", "LayerNorm")
    if embeddings is None or encoder is None or not all(hasattr(embeddings, n) for n in names) \
            or not hasattr(encoder, "layer"):
        kind = getattr(getattr(model, "config", None), "model_type", type(model).__name__)
        raise PosencError(f"the four-term split needs a BERT-style encoder (word + position (+ token type) "
                          f"embeddings, a LayerNorm, then layer 0 with query/key projections); model type {kind!r} "
                          f"is not one. The attention-head probes apply to any model")
    attention = encoder.layer[0].attention.self
    if not (hasattr(attention, "query") and hasattr(attention, "key")):
        raise PosencError(f"layer 0 of {type(model).__name__} has no query/key projections; cannot split its logits")
    return embeddings, attention


def _f64(x: torch.Tensor) -> torch.Tensor:
    """``x`` as float64 on the CPU (a copy from another device)."""
    return x.detach().to("cpu", torch.float64)


@dataclass
class ProjectedParts:
    """One sequence's layer-0 queries and keys, split by part: what every term of the split is a product of.

    Attributes:
        q, k: part (``w`` word, ``p`` position, ``r`` remainder with the projection's bias) -> ``[H, T, Dh]``
            float64.
        q_model, k_model: the model's own query and key outputs ``[H, T, Dh]`` (float64).
        scale: the logits' scale (``1 / sqrt(Dh)`` in BERT).
    """

    q: dict[str, torch.Tensor]
    k: dict[str, torch.Tensor]
    q_model: torch.Tensor
    k_model: torch.Tensor
    scale: float


@torch.no_grad()
def projected_parts(model: Any, input_ids: torch.Tensor) -> ProjectedParts:
    """Run ``model`` on one sequence ``input_ids [T]`` up to layer 0's keys and project the word, position and
    remainder parts of its normalised input through layer 0's query and key (see the module docstring).

    Every embedding row is the one the model itself used (captured by forward hooks), so position ids, token types
    and offsets are the model's own. The model runs where its parameters are; the parts are computed in float64 on
    the CPU (one layer of one sequence; MPS has no float64).
    """
    embeddings, attention = _bert_parts(model)
    first = next(iter(model.parameters()), None)
    ids = input_ids.reshape(1, -1).to(first.device if first is not None else "cpu")  # [1, T]
    seen: dict[str, torch.Tensor] = {}

    def keep(name: str):
        def hook(_module, _inputs, output):
            seen[name] = _f64(output)[0]  # [T, D]
            if name == "key":
                raise _LayerZeroSeen
        return hook

    modules = {"word": embeddings.word_embeddings, "position": embeddings.position_embeddings,
               "query": attention.query, "key": attention.key}
    if hasattr(embeddings, "token_type_embeddings"):
        modules["type"] = embeddings.token_type_embeddings
    handles = [module.register_forward_hook(keep(name)) for name, module in modules.items()]
    try:
        model(input_ids=ids, attention_mask=torch.ones_like(ids))
    except _LayerZeroSeen:
        pass
    finally:
        for handle in handles:
            handle.remove()
    if not {"word", "position", "query", "key"} <= seen.keys():
        raise PosencError(f"{type(model).__name__} did not call its word/position embeddings and layer-0 query/key "
                          f"the way a BERT encoder does; cannot split its logits")

    norm = embeddings.LayerNorm
    gamma, beta = _f64(norm.weight), _f64(norm.bias)  # [D]
    word, position = seen["word"], seen["position"]
    token_type = seen.get("type", torch.zeros_like(word))
    x = word + position + token_type  # [T, D]: the LayerNorm input
    sigma = torch.sqrt(x.var(-1, unbiased=False, keepdim=True) + norm.eps)  # [T, 1]

    def centred(part: torch.Tensor) -> torch.Tensor:
        return gamma * (part - part.mean(-1, keepdim=True)) / sigma  # [T, D]

    parts = {"w": centred(word), "p": centred(position), "r": centred(token_type) + beta}
    heads = attention.num_attention_heads
    head_dim = attention.attention_head_size
    scale = float(attention.scaling)

    def project(linear: torch.nn.Linear, h: torch.Tensor, bias: bool) -> torch.Tensor:
        y = h @ _f64(linear.weight).T + (_f64(linear.bias) if bias and linear.bias is not None else 0.0)
        return y.reshape(-1, heads, head_dim).transpose(0, 1)  # [H, T, Dh]

    q = {k: project(attention.query, v, k == "r") for k, v in parts.items()}
    k = {n: project(attention.key, v, n == "r") for n, v in parts.items()}
    q_model = seen["query"].reshape(-1, heads, head_dim).transpose(0, 1)  # [H, T, Dh]
    k_model = seen["key"].reshape(-1, heads, head_dim).transpose(0, 1)
    return ProjectedParts(q, k, q_model, k_model, scale)


@torch.no_grad()
def four_term_split(model: Any, input_ids: torch.Tensor) -> FourTermSplit:
    """Run ``model`` on one sequence ``input_ids [T]`` and split its layer-0 logits into five parts
    (:func:`projected_parts`, then each term the product of its query and key parts)."""
    parts = projected_parts(model, input_ids)
    q, k, scale = parts.q, parts.k, parts.scale

    def logits(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return a @ b.transpose(-1, -2) * scale  # [H, T, T]

    terms = {"ww": logits(q["w"], k["w"]), "wp": logits(q["w"], k["p"]), "pw": logits(q["p"], k["w"]),
             "pp": logits(q["p"], k["p"]),
             "rest": logits(q["w"] + q["p"], k["r"]) + logits(q["r"], k["w"] + k["p"] + k["r"])}
    reference = logits(parts.q_model, parts.k_model)
    total = sum(terms.values())
    error = float(torch.linalg.norm(total - reference) / torch.linalg.norm(reference))
    return FourTermSplit(terms=terms, reference=reference, relative_error=error, projected={"q": q, "k": k},
                         scale=scale)


def term_statistics(sums: np.ndarray, entries: np.ndarray, seed: int = 0) -> tuple[dict[str, Estimate],
                                                                                  dict[str, list[Estimate]]]:
    """Statistics of the five parts over windows, each with a 95% interval from a bootstrap over windows.

    Args:
        sums: ``[W, H, 6]`` per window :meth:`FourTermSplit.sums` (``TERMS`` then the logits' total).
        entries: ``[W]`` query-key entries per window and head (``T * T``).

    With ``S_t = sum_w S_{w,t}`` pooled over windows, per head ``h``:

    - spread ``sqrt(S_t / sum_w entries_w)`` (RMS within-query variation, in logit units); ``{t}_spread`` is its
      mean over heads, ``cross_to_main_spread = (wp + pw) / (ww + pp)`` of those spreads, and
      ``max_head_cross_to_main_spread`` the same ratio's largest value over heads;
    - variance share ``S_t / S_total``; ``{t}_share`` is its mean over heads, ``cross_share`` that of wp + pw,
      ``max_head_cross_share`` its largest value over heads. The parts are correlated, so shares need not add to 1;
    - share among the four terms ``S_t / (S_ww + S_wp + S_pw + S_pp)``: ``max_head_word_share`` (ww) and
      ``max_head_position_share`` (pp) are their largest values over heads.

    Returns ``(estimates, per_head)``: the statistics above, and per head the variance shares ``{t}_share`` and the
    four-term shares ``{t}_of_four`` (lists over heads).
    """
    sums = np.asarray(sums, np.float64)
    entries = np.asarray(entries, np.float64)
    windows, heads, _ = sums.shape
    flat = sums.reshape(windows, -1)  # [W, H*6]
    index = {name: i for i, name in enumerate((*TERMS, "total"))}
    names: list[str] = []

    def statistic(w: np.ndarray) -> np.ndarray:  # w [r, W] -> [r, m]
        pooled = (w @ flat).reshape(len(w), heads, 6)  # [r, H, 6]
        count = (w @ entries)[:, None]  # [r, 1]
        spread = {t: np.sqrt(pooled[..., index[t]] / count) for t in TERMS}  # [r, H] each
        share = {t: pooled[..., index[t]] / pooled[..., index["total"]] for t in TERMS}
        four = sum(pooled[..., index[t]] for t in FOUR)
        of_four = {t: pooled[..., index[t]] / four for t in FOUR}
        head_ratio = (spread["wp"] + spread["pw"]) / (spread["ww"] + spread["pp"])  # [r, H]
        mean = {t: spread[t].mean(1) for t in TERMS}
        columns = {**{f"{t}_spread": mean[t] for t in TERMS},
                   "cross_to_main_spread": (mean["wp"] + mean["pw"]) / (mean["ww"] + mean["pp"]),
                   "max_head_cross_to_main_spread": head_ratio.max(1),
                   **{f"{t}_share": share[t].mean(1) for t in TERMS},
                   "cross_share": (share["wp"] + share["pw"]).mean(1),
                   "max_head_cross_share": (share["wp"] + share["pw"]).max(1),
                   "max_head_word_share": of_four["ww"].max(1), "max_head_position_share": of_four["pp"].max(1)}
        per_head = {**{f"{t}_share": share[t] for t in TERMS}, **{f"{t}_of_four": of_four[t] for t in FOUR}}
        if not names:
            names.extend(columns)
            names.extend(f"{key}@{h}" for key in per_head for h in range(heads))
        return np.concatenate([np.stack(list(columns.values()), axis=1), *per_head.values()], axis=1)

    flat_estimates = bootstrap_weights((windows,), statistic, seed=seed, bounds=POSITIVE)  # every part is >= 0
    by_name = dict(zip(names, flat_estimates, strict=True))
    estimates = {k: v for k, v in by_name.items() if "@" not in k}
    per_head: dict[str, list[Estimate]] = {}
    for key, value in by_name.items():
        if "@" in key:
            per_head.setdefault(key.split("@")[0], []).append(value)
    return estimates, per_head


def flatness_statistics(flat_sums: np.ndarray, seed: int = 0) -> dict[str, Estimate]:
    """How flat the cross terms are along positions (TUPE's "uniform"), pooled over windows with a 95% interval from
    a bootstrap over windows.

    Args:
        flat_sums: ``[W, H, 4]`` per window :meth:`FourTermSplit.flatness_sums`.

    Per head the share of the cross terms' variation that runs along positions,
    ``(wp_along + pw_along) / (wp_whole + pw_whole)`` (0: flat, a constant per word; 1: all of it positional):
    ``cross_along_positions`` is its mean over heads, ``max_head_cross_along_positions`` its largest value over
    heads; ``wp_along_positions`` and ``pw_along_positions`` the same for each term alone (mean over heads).
    """
    sums = np.asarray(flat_sums, np.float64)
    windows, heads, _ = sums.shape
    flat = sums.reshape(windows, -1)

    def statistic(w: np.ndarray) -> np.ndarray:
        pooled = (w @ flat).reshape(len(w), heads, 4)  # [r, H, 4]
        cross = (pooled[..., 0] + pooled[..., 2]) / (pooled[..., 1] + pooled[..., 3])  # [r, H]
        return np.stack([cross.mean(1), cross.max(1), (pooled[..., 0] / pooled[..., 1]).mean(1),
                         (pooled[..., 2] / pooled[..., 3]).mean(1)], axis=1)

    names = ("cross_along_positions", "max_head_cross_along_positions", "wp_along_positions", "pw_along_positions")
    return dict(zip(names, bootstrap_weights((windows,), statistic, seed=seed), strict=True))


def dimension_statistics(dim_sums: np.ndarray, seed: int = 0, expert: float = 0.5) -> tuple[dict[str, Estimate],
                                                                                           np.ndarray]:
    """Word and position experts among the query/key dimensions, pooled over windows with a 95% interval from a
    bootstrap over windows.

    Args:
        dim_sums: ``[W, H, Dh, 4]`` per window :meth:`FourTermSplit.dimension_sums`.
        expert: a dimension is a word (position) expert when ww (pp) holds more than this share of its four terms.

    Returns ``(estimates, of_four)``: ``max_dim_word_share`` and ``max_dim_position_share`` (the largest ww / pp share
    of the four terms over every dimension of every head), ``word_dims`` and ``position_dims`` (counts of
    dimensions whose point share passes ``expert``, as a share of all dimensions), and the pooled shares
    ``of_four [H, Dh, 4]``.
    """
    sums = np.asarray(dim_sums, np.float64)
    windows, heads, dims, _ = sums.shape
    flat = sums.reshape(windows, -1)

    def shares(pooled: np.ndarray) -> np.ndarray:  # [..., H, Dh, 4] -> the same, each row over its four terms
        return pooled / pooled.sum(-1, keepdims=True)

    def statistic(w: np.ndarray) -> np.ndarray:
        of_four = shares((w @ flat).reshape(len(w), heads * dims, 4))  # [r, H*Dh, 4]
        return np.stack([of_four[..., 0].max(1), of_four[..., 3].max(1), (of_four[..., 0] > expert).mean(1),
                         (of_four[..., 3] > expert).mean(1)], axis=1)

    names = ("max_dim_word_share", "max_dim_position_share", "word_dims", "position_dims")
    estimates = dict(zip(names, bootstrap_weights((windows,), statistic, seed=seed), strict=True))
    return estimates, shares(sums.sum(0))


def split_statistics(sums: dict[str, np.ndarray], expert: float = 0.5) -> dict[str, Estimate]:
    """Every statistic of the four-term split from one model's sums over windows (``sums``, ``entries``,
    ``flat_sums``, ``dim_sums`` as :func:`posenc.probe.term_sums.window_sums` and the windows' ``T * T`` give them):
    :func:`term_statistics`, :func:`flatness_statistics` and :func:`dimension_statistics` (``expert``: its bar),
    so that a measurement and each draw of its null go through one function."""
    return {**term_statistics(sums["sums"], sums["entries"])[0], **flatness_statistics(sums["flat_sums"]),
            **dimension_statistics(sums["dim_sums"], expert=expert)[0]}
