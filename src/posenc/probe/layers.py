"""What a BERT-style encoder's later modules still carry: the output of every attention sublayer and every
feed-forward sublayer, and linear probes that read the token and its position from them.

- :func:`sublayer_outputs`: hidden states after the embeddings, after each layer's attention block (its residual
  and LayerNorm included) and after each layer's feed-forward block (the layer's output), by forward hooks;
- :func:`ridge_fit`: a ridge regression with an intercept, the penalty relative to the features' scale;
- :func:`window_folds`: windows split into folds, so a probe is always tested on windows it was not fitted on;
- :func:`position_probe`, :func:`token_probe`: per token, whether a probe fitted on the other folds' windows reads
  its position (the largest of one score per position) or its token (the candidate word whose embedding row is
  nearest in direction to the probe's prediction of that row); :func:`held_out_predictions` fits both at once
  (one regression onto the stacked targets: the same fit as two, column by column).

Shapes: features ``[W, T, d]`` (windows, tokens, channels); ids ``[W, T]``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from posenc.errors import PosencError

__all__ = ["sublayer_outputs", "ridge_fit", "window_folds", "held_out_predictions", "position_targets",
           "read_positions", "read_tokens", "position_probe", "token_probe", "RIDGE"]

#: the ridge penalty, relative to the mean eigenvalue of the features' covariance (fixed before any run)
RIDGE = 1e-2


def sublayer_outputs(model: Any, ids: torch.Tensor) -> dict[str, torch.Tensor]:
    """``{"embeddings": [B, T, d], "layer 1 attention": ..., "layer 1 FFN": ..., ...}`` for a BERT-style encoder
    (``model.embeddings``, ``model.encoder.layer[i].attention``): every module's output for ``ids [B, T]``."""
    layers = getattr(getattr(model, "encoder", None), "layer", None)
    if layers is None or not hasattr(model, "embeddings"):
        raise PosencError(f"sublayer_outputs reads BERT-style encoders (model.embeddings, model.encoder.layer[i]."
                          f"attention); {type(model).__name__} is not one")
    out: dict[str, torch.Tensor] = {}
    handles = []

    def keep(name: str):
        def hook(_module, _inputs, output):
            out[name] = (output[0] if isinstance(output, tuple) else output).detach()
        return hook

    handles.append(model.embeddings.register_forward_hook(keep("embeddings")))
    for i, layer in enumerate(layers, 1):
        handles.append(layer.attention.register_forward_hook(keep(f"layer {i} attention")))
        handles.append(layer.register_forward_hook(keep(f"layer {i} FFN")))
    try:
        with torch.no_grad():
            model(input_ids=ids, attention_mask=torch.ones_like(ids))
    finally:
        for handle in handles:
            handle.remove()
    order = ["embeddings"] + [f"layer {i} {part}" for i in range(1, len(layers) + 1) for part in ("attention", "FFN")]
    return {name: out[name] for name in order}


def ridge_fit(x: np.ndarray, y: np.ndarray, ridge: float = RIDGE) -> tuple[np.ndarray, np.ndarray]:
    """``(W [d, k], b [k])`` minimising ``|x W + b - y|^2 + lam |W|^2`` with ``lam = ridge x n x mean eigenvalue
    of cov(x)`` (``x [n, d]``, ``y [n, k]``), by the normal equations on centred data (``ridge = 0`` needs
    ``x`` of full column rank)."""
    mean_x, mean_y = x.mean(axis=0), y.mean(axis=0)
    xc, yc = x - mean_x, y - mean_y
    gram = xc.T @ xc  # [d, d]
    from scipy.linalg import solve

    lam = ridge * np.trace(gram) / x.shape[1]
    w = solve(gram + lam * np.eye(x.shape[1]), xc.T @ yc, assume_a="pos")  # Cholesky: the matrix is positive
    return w, mean_y - mean_x @ w


def window_folds(windows: int, folds: int = 4) -> list[np.ndarray]:
    """``min(folds, windows)`` folds of window indices, in order (window ``i`` in fold ``i mod k``)."""
    if windows < 2:
        raise PosencError(f"a probe tested on held-out windows needs at least 2 windows, got {windows}")
    k = min(folds, windows)
    return [np.arange(f, windows, k) for f in range(k)]


def held_out_predictions(features: np.ndarray, targets: np.ndarray, folds: list[np.ndarray],
                         ridge: float = RIDGE) -> np.ndarray:
    """``[W, T, k]``: for each fold, a ridge regression (:func:`ridge_fit`) fitted on the other folds' windows
    predicts ``targets [W, T, k]`` of the fold's windows from ``features [W, T, d]``."""
    n_windows, length, dim = features.shape
    out = np.empty(targets.shape, dtype=np.float64)
    for held in folds:
        train = np.setdiff1d(np.arange(n_windows), held)
        w, b = ridge_fit(features[train].reshape(-1, dim), targets[train].reshape(-1, targets.shape[-1]), ridge)
        out[held] = features[held] @ w + b
    return out


def position_targets(n_windows: int, length: int) -> np.ndarray:
    """One-hot positions ``0..T-1`` of every window: ``[W, T, T]``."""
    return np.tile(np.eye(length), (n_windows, 1, 1))


def read_positions(predicted: np.ndarray, tolerance: int = 0) -> np.ndarray:
    """``correct [W, T]``: each token's position read as the largest of its predicted one-hot scores ``[W, T, T]``,
    correct when it lies within ``tolerance`` positions of the true one (0: exactly)."""
    if not isinstance(tolerance, int) or isinstance(tolerance, bool) or tolerance < 0:
        raise PosencError(f"tolerance must be a whole number of positions >= 0, got {tolerance!r}")
    return np.abs(predicted.argmax(axis=-1) - np.arange(predicted.shape[1])) <= tolerance


def read_tokens(predicted: np.ndarray, ids: np.ndarray, table: np.ndarray, candidates: np.ndarray) -> np.ndarray:
    """``correct [W, T]``: each token read as the candidate (ids ``candidates [C]``) whose row of ``table`` is
    nearest in direction to its predicted row ``predicted [W, T, d']``."""
    rows = table[candidates]  # [C, d']
    unit = rows / np.maximum(np.linalg.norm(rows, axis=1, keepdims=True), 1e-30)
    guess = candidates[(predicted.reshape(-1, predicted.shape[-1]) @ unit.T).argmax(axis=1)]
    return guess.reshape(ids.shape) == ids


def position_probe(features: np.ndarray, folds: list[np.ndarray], ridge: float = RIDGE) -> np.ndarray:
    """``correct [W, T]``: a ridge regression onto one-hot positions ``0..T-1``, fitted on the other folds'
    windows, reads each token's position as its largest output."""
    n_windows, length, _ = features.shape
    return read_positions(held_out_predictions(features, position_targets(n_windows, length), folds, ridge))


def token_probe(features: np.ndarray, ids: np.ndarray, table: np.ndarray, candidates: np.ndarray,
                folds: list[np.ndarray], ridge: float = RIDGE) -> np.ndarray:
    """``correct [W, T]``: a ridge regression onto each token's embedding row (``table [V, d']``), fitted on the
    other folds' windows, reads each token as the candidate (ids ``candidates [C]``) whose row is nearest in
    direction to its prediction."""
    return read_tokens(held_out_predictions(features, table[ids], folds, ridge), ids, table, candidates)
