"""Forgetting attention, FoX (Lin, Nikishin, He and Courville 2025, "Forgetting Transformer: Softmax Attention with a
Forget Gate", ICLR 2025, arXiv:2503.02130): a data-dependent ALiBi.

Each head computes a forget gate from every token's layer input ``x_l``, and a key's logit is lowered by the log of
every gate between it and the query::

    f_l = sigmoid(w_h . x_l + b_h)                             (one gate per head and token)
    D_ij = sum_{l = j+1}^{i} log f_l = c_i - c_j,      c_i = sum_{l <= i} log f_l     (j <= i)
    logit_ij += D_ij

With every gate equal to ``exp(-m_h)`` this is ALiBi with slope ``m_h``; learned from the tokens, a head can forget
quickly after one token and slowly after another. The model then needs no other position information (the paper's
FoX uses none). The sum runs over the tokens in the order given (the positions are not read); with a KV cache the
input of every key token is given and the queries are the last ``Tq`` of them.

``bidirectional=True`` (an encoder) adds a second gate per head for keys after the query,
``D_ij = sum_{l = i+1}^{j} log g_l`` for ``j > i`` (as x-transformers' ``DataDependentAlibi`` does).

The gate belongs to its layer (``info.per_layer``): every layer of a model gets its own. Its bias starts at
``bias_init`` (5: ``f = 0.993``, a slow forgetting at the start of training).
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn

from posenc.checks import whole_number
from posenc.encodings.base import EncodingInfo, PositionalEncoding, check_positions, future_mask, math_dtype
from posenc.encodings.catalog import register
from posenc.errors import PosencError

__all__ = ["FoX", "forget_bias"]


def forget_bias(log_f: torch.Tensor, t_q: int, log_g: torch.Tensor | None = None) -> torch.Tensor:
    """``D [B, H, Tq, Tk]`` from log forget gates ``log_f [B, H, Tk]`` (and ``log_g`` for keys after the query):
    ``c_i - c_j`` below the diagonal; the queries are the last ``Tq`` of the ``Tk`` tokens."""
    c = log_f.cumsum(-1)  # [B, H, Tk]
    t_k = c.shape[-1]
    bias = c[..., t_k - t_q:, None] - c[..., None, :]  # [B, H, Tq, Tk]
    if log_g is None:
        return bias
    d = log_g.cumsum(-1)
    after = d[..., None, :] - d[..., t_k - t_q:, None]  # d_j - d_i: the gates l = i+1 .. j
    later = future_mask(t_q, t_k, c.device)
    return torch.where(later, after, bias)


@register("fox")
class FoX(PositionalEncoding):
    """A forget gate per head whose cumulative log is added to the logits (arXiv:2503.02130).

    Args:
        d_model: width of the layer input the gates read.
        n_heads: attention heads (one gate each).
        bias_init: the gates' initial bias (5: each gate starts at ``sigmoid(5) = 0.993``).
        bidirectional: a second gate for keys after the query (an encoder); ``False``: a decoder.

    Example::

        >>> import torch, posenc
        >>> fox = posenc.build("fox", d_model=8, n_heads=2)
        >>> x = torch.randn(1, 5, 8)
        >>> fox.contextual_bias(None, None, torch.arange(5), torch.arange(5), x=x).shape
        torch.Size([1, 2, 5, 5])
    """

    info = EncodingInfo(family="contextual", paper="Lin et al. 2025, Forgetting Transformer (arXiv:2503.02130)",
                        hooks=("contextual_bias",), per_layer=True)

    def __init__(self, d_model: int = 512, n_heads: int = 8, bias_init: float = 5.0, bidirectional: bool = False):
        super().__init__()
        for key, value in (("d_model", d_model), ("n_heads", n_heads)):
            if not whole_number(value):
                raise PosencError(f"{key} must be a positive integer, got {value!r}")
        if isinstance(bias_init, bool) or not isinstance(bias_init, int | float) or not math.isfinite(bias_init):
            raise PosencError(f"bias_init must be a finite number (5 gives gates of 0.993), got {bias_init!r}")
        self.d_model, self.n_heads, self.bidirectional = d_model, n_heads, bool(bidirectional)
        self.gate = nn.Linear(d_model, n_heads * (2 if bidirectional else 1))
        nn.init.constant_(self.gate.bias, float(bias_init))

    def log_gates(self, x: torch.Tensor) -> torch.Tensor:
        """``log f`` (and ``log g``) ``[B, H or 2H, T]`` of the layer input ``x [B, T, d_model]``: in float32, or in
        float64 when ``x`` or the gate is float64 (the precision given is kept)."""
        if x.dim() != 3 or x.shape[-1] != self.d_model:
            raise PosencError(f"FoX reads the layer input [batch, seq, {self.d_model}], got shape {list(x.shape)}; "
                              f"build it with d_model={x.shape[-1] if x.dim() == 3 else '...'}")
        weight, bias = self.gate.weight, self.gate.bias
        if math_dtype(x, weight) == torch.float64:
            logits = F.linear(x.double(), weight.double(), bias.double())  # [B, T, H or 2H]
        else:  # the gate in its own dtype (bfloat16 in a bfloat16 model), the log in float32
            logits = self.gate(x.to(weight.dtype)).float()
        return F.logsigmoid(logits).transpose(1, 2)

    def contextual_bias(self, q: torch.Tensor | None, k: torch.Tensor | None, q_positions: torch.Tensor,
                        k_positions: torch.Tensor, x: torch.Tensor | None = None) -> torch.Tensor:
        """``D [B, H, Tq, Tk]`` from the layer input ``x [B, Tk, d_model]`` (the module docstring); the queries and
        keys are not read (pass ``None``)."""
        if not isinstance(x, torch.Tensor):
            raise PosencError(f"FoX's bias comes from the layer input: pass x=... ([batch, seq, {self.d_model}], one "
                              f"row per key), got {type(x).__name__}; attention passes it as attend(..., x=layer_input)")
        k_positions = check_positions(k_positions, x.shape[1], "k_positions", batch=x.shape[0])
        t_q = check_positions(q_positions, name="q_positions").shape[-1]
        if t_q > x.shape[1]:  # the queries are the last Tq of the Tk tokens x holds
            raise PosencError(f"q_positions has {t_q} entries but x holds {x.shape[1]} tokens; FoX's queries are the "
                              f"last Tq of the tokens x holds (with a KV cache, every key token's input), so pass at "
                              f"most {x.shape[1]} query positions")
        gates = self.log_gates(x)
        log_f, log_g = (gates.chunk(2, dim=1) if self.bidirectional else (gates, None))
        return forget_bias(log_f, t_q, log_g).to(x.dtype)

    def extra_repr(self) -> str:
        return f"d_model={self.d_model}, n_heads={self.n_heads}, bidirectional={self.bidirectional}"
