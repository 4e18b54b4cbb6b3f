"""CoPE against its references: the paper's Appendix B code, written out here by hand from the paper, and
x-transformers' ``CoPE`` as x-transformers' own attention (``Attend``) calls it, with weights copied.

Golovneva et al. 2024, Appendix B: ``SelfAttn.forward`` computes ``attn_logits = q k^T / sqrt(head_dim)`` (plus the
mask's log), then ``attn_logits += CoPE.forward(query, attn_logits)``, where the gates are
``sigmoid(attn_logits)``: the gates read the *scaled* logits, and the position logits ``q . e[p]`` are added
unscaled.

x-transformers is optional: the test runs where it can be imported (:data:`COMPARED`: the version compared, with
einops 0.8.2 and einx 0.4.3). It is not a dependency of posenc; to run this test beside the project's environment,
``pip install --target /tmp/xt x-transformers einops einx frozendict loguru torch-einops-utils --no-deps`` (or another
folder named by ``POSENC_XT_PATH``).
"""

from __future__ import annotations

import math
import os
import sys
from pathlib import Path

import pytest
import torch

import posenc
from posenc.model.transformer import Attention

HEAD_DIM, HEADS, N_POS = 8, 2, 6
#: the x-transformers release this test was last run against (equal to float32 round-off)
COMPARED = "2.31.10"


def _appendix_b(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, pos_emb: torch.Tensor,
                scaled_gates: bool = True) -> torch.Tensor:
    """The paper's ``SelfAttn.forward`` with its ``CoPE.forward`` (Appendix B), causal mask, for ``[B*H, T, Dh]``
    queries, keys and values and ``pos_emb [Dh, n_pos]`` (the paper's parameter, ``[1, head_dim, npos_max]``).
    ``scaled_gates=False``: the gates read ``q k^T`` before the scaling (not the paper's code; the contrast)."""
    t = q.shape[-2]
    mask = torch.ones(t, t).tril()
    raw = torch.bmm(q, k.transpose(-1, -2))
    attn_logits = raw / math.sqrt(q.shape[-1])
    attn_logits = attn_logits + mask.log()
    gates = torch.sigmoid(attn_logits if scaled_gates else raw + mask.log())
    pos = gates.flip(-1).cumsum(dim=-1).flip(-1).clamp(max=pos_emb.shape[-1] - 1)
    pos_ceil, pos_floor = pos.ceil().long(), pos.floor().long()
    logits_int = torch.matmul(q, pos_emb)
    w = pos - pos_floor
    attn_logits = attn_logits + logits_int.gather(-1, pos_ceil) * w + logits_int.gather(-1, pos_floor) * (1 - w)
    return torch.bmm(torch.softmax(attn_logits, dim=-1), v)


def _posenc_attention(x: torch.Tensor, seed: int = 0) -> tuple[Attention, object, torch.Tensor]:
    """posenc's attention with CoPE on ``x [B, T, width]``: the module, the encoding, and its output."""
    torch.manual_seed(seed)
    attention = Attention(HEAD_DIM * HEADS, HEADS, HEADS).double()
    cope = posenc.build("cope", head_dim=HEAD_DIM, max_len=N_POS).double()
    with torch.no_grad():
        cope.table.normal_(0.0, 1.0)  # large enough that positions move the attention visibly
    positions = torch.arange(x.shape[1])
    return attention, cope, attention(x, positions, cope, None, causal=True)


def _heads(attention: Attention, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """The q, k, v ``[B, H, T, Dh]`` posenc's attention computes from ``x``."""
    b, t, _ = x.shape
    q = attention.q_proj(x).view(b, t, HEADS, HEAD_DIM).transpose(1, 2)
    k, v = attention.kv_proj(x).view(b, t, 2, HEADS, HEAD_DIM).permute(2, 0, 3, 1, 4)
    return q, k, v


def test_posenc_attention_with_cope_equals_the_papers_code():
    x = torch.randn(2, 9, HEAD_DIM * HEADS, dtype=torch.float64, generator=torch.Generator().manual_seed(1))
    attention, cope, out = _posenc_attention(x)
    q, k, v = _heads(attention, x)
    b, h, t, d = q.shape

    def paper(scaled_gates: bool) -> torch.Tensor:
        heads = _appendix_b(q.reshape(b * h, t, d), k.reshape(b * h, t, d), v.reshape(b * h, t, d),
                            cope.table.detach().T, scaled_gates)  # [B*H, T, Dh]
        return attention.out_proj(heads.view(b, h, t, d).transpose(1, 2).reshape(b, t, h * d))

    torch.testing.assert_close(out, paper(scaled_gates=True), rtol=1e-10, atol=1e-10)
    # gates on the unscaled q . k (what posenc computed before) give another output, far past round-off
    assert (out - paper(scaled_gates=False)).abs().max() > 1e-3


def test_gates_read_the_scaled_logits_by_hand():
    # one head, Dh = 4, q = (1, 1, 1, 1), keys with q . k = 0, 0, 2 ln 3: scaled by 1/2 the gates are 1/2, 1/2, 3/4
    cope = posenc.build("cope", head_dim=4, max_len=4)
    with torch.no_grad():
        cope.table.copy_(torch.tensor([[0.0] * 4, [2.5] * 4, [5.0] * 4, [7.5] * 4]))  # q . e[n] = 10 n
    q = torch.ones(1, 1, 3, 4)
    k = torch.zeros(1, 1, 3, 4)
    k[0, 0, 2] = 2 * math.log(3) / 4
    b = cope.contextual_bias(q, k, torch.arange(3), torch.arange(3))
    # row 2: p = (1/2 + 1/2 + 3/4, 1/2 + 3/4, 3/4) = (1.75, 1.25, 0.75) -> q . e[p] = 10 p
    torch.testing.assert_close(b[0, 0, 2], torch.tensor([17.5, 12.5, 7.5]))


def _x_transformers():
    extra = os.environ.get("POSENC_XT_PATH", "/tmp/xt")
    if Path(extra).is_dir() and extra not in sys.path:
        sys.path.append(extra)  # after the environment's own packages: it adds x-transformers, never replaces one
    return pytest.importorskip("x_transformers", reason="x-transformers is not installed (optional reference)")


def test_posenc_attention_with_cope_equals_x_transformers():
    """x-transformers' ``Attend(causal=True, cope=CoPE(...))``, as its ``Attention`` builds it with ``use_cope``,
    on the q, k, v posenc's attention computes, with CoPE's table copied: the same output."""
    x_transformers = _x_transformers()
    from x_transformers.attend import Attend
    from x_transformers.x_transformers import CoPE as XCoPE

    x = torch.randn(2, 9, HEAD_DIM * HEADS, dtype=torch.float64, generator=torch.Generator().manual_seed(2))
    attention, cope, out = _posenc_attention(x, seed=3)
    q, k, v = _heads(attention, x)
    reference = XCoPE(dim=HEAD_DIM, heads=HEADS, max_pos=N_POS).double()
    with torch.no_grad():
        reference.pos_emb.copy_(cope.table)  # both [n_pos, Dh]
    attend = Attend(causal=True, cope=reference, flash=False)
    theirs, _ = attend(q, k, v)  # [B, H, T, Dh]
    b, h, t, d = theirs.shape
    theirs = attention.out_proj(theirs.transpose(1, 2).reshape(b, t, h * d))
    # x-transformers takes its softmax in float32 even for float64 inputs: agreement to float32 round-off; the
    # gates on unscaled logits (the contrast above) miss by more than 1e-3
    from importlib.metadata import version

    compared = version("x-transformers")
    torch.testing.assert_close(out, theirs, rtol=1e-5, atol=1e-6,
                               msg=lambda m: f"x-transformers {compared} (last compared: {COMPARED}): {m}")
    assert x_transformers.attend.Attend is Attend
