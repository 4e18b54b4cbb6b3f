"""Perplexity of a causal LM on long windows, by two protocols (Press et al. 2022, ALiBi, Section 4 / Appendix B).

One forward pass over a window of ``L`` tokens gives the per-token negative log-likelihoods

    nll_t = -log p(x_t | x_0 .. x_{t-1}),   t = 1 .. L-1          (an array ``[L - 1]``)

and both protocols are sums of these arrays:

- **non-overlapping**: windows at offsets ``0, L, 2L, ...``; every prediction of every window counts, so a token's
  context ranges from 0 to ``L - 1`` tokens (the ALiBi paper's main protocol).
- **sliding window** with stride ``S``: windows at offsets ``0, S, 2S, ...``; only the last ``S`` predictions of each
  window count, so every scored token sees at least ``L - S`` tokens of context.

``ppl = exp(sum nll / count)`` over the counted predictions of all windows of a length. A window is the unit of work
(and of caching): the window at offset 0 serves both protocols, and with ``S = L / 2`` every other sliding window is a
non-overlapping window too. The protocols' names (:data:`PROTOCOLS`, ``nonoverlap`` and ``sliding``;
``nonoverlapping`` is another spelling of ``nonoverlap``) are the lab's char-LM's too (:mod:`posenc.lab.evaluate`).

The output layer runs on chunks of positions so that ``[L, vocab]`` logits never exist at once (at 32k tokens and
SmolLM2's 49152-token vocabulary they would take 6.4 GB).
"""

from __future__ import annotations

import base64
import math
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
import torch
from torch import nn

from posenc.errors import PosencError
from posenc.names import Registry

__all__ = ["PROTOCOLS", "normalize_protocol", "normalize_protocols", "token_nll", "window_offsets", "scored_slice",
           "protocol_ppl", "encode_nll", "decode_nll", "WindowNLL"]

#: the protocols by their canonical names, each with the predictions it counts
PROTOCOLS: Registry[str] = Registry("protocol")
PROTOCOLS.register_all({"nonoverlap": "windows at offsets 0, L, 2L, ...; every prediction counts",
                        "sliding": "windows every S tokens; the last S predictions of each count"})
_ALIASES = {"nonoverlapping": "nonoverlap", "non-overlapping": "nonoverlap", "non-overlap": "nonoverlap"}


def normalize_protocol(name: str) -> str:
    """The canonical name of a protocol.

    >>> normalize_protocol("nonoverlapping")
    'nonoverlap'
    """
    canonical = _ALIASES.get(name, name) if isinstance(name, str) else name
    if canonical not in PROTOCOLS:
        raise PROTOCOLS.unknown(name)
    return canonical


def normalize_protocols(names: str | Iterable[str]) -> tuple[str, ...]:
    """Canonical names, in the order given, without repeats; a non-empty selection is required.

    >>> normalize_protocols(["sliding", "nonoverlapping", "nonoverlap"])
    ('sliding', 'nonoverlap')
    """
    names = [names] if isinstance(names, str) else list(names)
    out = tuple(dict.fromkeys(normalize_protocol(n) for n in names))
    if not out:
        raise PosencError(f"need at least one protocol of: {', '.join(PROTOCOLS)}")
    return out


def _base_and_head(model: nn.Module) -> tuple[nn.Module, nn.Module]:
    base = getattr(model, "model", None)
    head = model.get_output_embeddings() if hasattr(model, "get_output_embeddings") else None
    if base is None or head is None:
        raise PosencError(f"{type(model).__name__} is not a causal LM with .model and an output layer; pass a "
                          f"*ForCausalLM model")
    return base, head


@torch.no_grad()
def token_nll(model: nn.Module, ids: torch.Tensor, chunk: int = 1024) -> torch.Tensor:
    """``-log p(x_t | x_<t)`` for ``t = 1 .. L-1``: ids ``[L]`` or ``[1, L]`` -> float32 ``[L - 1]`` (on CPU).

    One forward pass without a KV cache; the output layer and log-softmax run ``chunk`` positions at a time.
    """
    ids = ids.reshape(1, -1)  # [1, L]
    if ids.shape[1] < 2:
        raise PosencError(f"a window needs at least 2 tokens to score, got {ids.shape[1]}")
    base, head = _base_and_head(model)
    device = next(model.parameters()).device
    ids = ids.to(device)
    hidden = base(input_ids=ids, use_cache=False).last_hidden_state[0]  # [L, D]
    targets = ids[0, 1:]  # [L - 1]
    out = torch.empty(ids.shape[1] - 1, dtype=torch.float32, device=device)  # read back once, at the end
    for start in range(0, ids.shape[1] - 1, chunk):
        stop = min(start + chunk, ids.shape[1] - 1)
        logits = head(hidden[start:stop]).float()  # [c, V]
        logp = torch.log_softmax(logits, dim=-1)  # [c, V]
        out[start:stop] = -logp.gather(1, targets[start:stop, None])[:, 0]
    return out.cpu()


def window_offsets(protocol: str, length: int, n_windows: int, stride: int | None = None) -> list[int]:
    """Token offsets of the first ``n_windows`` windows of a protocol (``stride`` only for ``sliding``)."""
    protocol = normalize_protocol(protocol)
    if n_windows < 1:
        raise PosencError(f"need at least one window per length, got {n_windows}")
    step = length if protocol == "nonoverlap" else _check_stride(length, stride)
    return [i * step for i in range(n_windows)]


def _check_stride(length: int, stride: int | None) -> int:
    if stride is None or not 1 <= stride <= length:
        raise PosencError(f"sliding-window stride must be in 1..length ({length}), got {stride!r}; "
                          f"e.g. stride = length // 2")
    return int(stride)


def scored_slice(protocol: str, length: int, stride: int | None = None) -> slice:
    """Which entries of a window's ``[L - 1]`` nll array a protocol counts."""
    if normalize_protocol(protocol) == "nonoverlap":
        return slice(0, length - 1)
    stride = _check_stride(length, stride)
    return slice(max(0, length - 1 - stride), length - 1)


@dataclass
class WindowNLL:
    """The nll array of one window (``[L - 1]``) at a token offset."""

    offset: int
    nll: np.ndarray


def protocol_ppl(windows: list[WindowNLL], protocol: str, length: int, stride: int | None = None) -> dict:
    """``{"ppl", "nll", "tokens", "windows", "offsets", "window_nll"}`` for one protocol over its windows.

    ``nll`` is the token-weighted mean over every counted prediction; ``window_nll`` the mean of each window's counted
    predictions, in offset order (every window counts the same number, so their mean is ``nll``): the independent
    units an interval over windows resamples.
    """
    part = scored_slice(protocol, length, stride)
    total, count = 0.0, 0
    means = []
    for window in windows:
        scored = window.nll[part].astype(np.float64)
        total += float(scored.sum())
        count += scored.size
        if scored.size:
            means.append(float(scored.mean()))
    if not count:
        raise PosencError(f"no scored tokens for protocol {protocol!r} at length {length}")
    mean = total / count
    return {"ppl": math.exp(mean), "nll": mean, "tokens": count, "windows": len(windows),
            "offsets": [w.offset for w in windows], "window_nll": means}


def encode_nll(nll: torch.Tensor | np.ndarray) -> str:
    """float32 nll array -> base64 text (what the results store keeps per window)."""
    array = np.asarray(nll, dtype=np.float32)
    return base64.b64encode(array.tobytes()).decode("ascii")


def decode_nll(text: str) -> np.ndarray:
    """Inverse of :func:`encode_nll`."""
    return np.frombuffer(base64.b64decode(text), dtype=np.float32).copy()
