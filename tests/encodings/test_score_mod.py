"""``score_mod``: the encoding's ``bias`` at one (query, key) pair, for FlexAttention.

Evaluated on the whole index grid (the arguments broadcast as FlexAttention's eager path does), it must give the
values of ``bias`` and the same gradients of the encoding's parameters (T5's buckets, KERPLE's r1 and r2, FIRE's MLP,
c and L), for shared and per-row positions and for queries at other positions than the keys (a KV cache).
"""

import pytest
import torch

import posenc
from posenc.encodings.base import PositionalEncoding
from posenc.errors import PosencError

HEADS = 4
#: registered encodings that override score_mod, and options that move every learned parameter off its start
CASES = {
    "alibi": [{}, {"heads": [0, 2], "slopes": [1.0, 0.25]}],
    "t5": [{"bidirectional": True}, {"bidirectional": False, "num_buckets": 8, "max_distance": 16, "scale": 0.5}],
    "kerple": [{"kernel": "log"}, {"kernel": "power", "r2": 1.5}],
    "sandwich": [{}, {"dim": 8, "compress": False}],
    "fire": [{"threshold": 5.5}, {"hidden": 3, "c": 0.5, "threshold": 0.0}],
}


def _overrides(name: str) -> bool:
    return posenc.get_class(name).score_mod is not PositionalEncoding.score_mod


def _grid(score_mod, batch: int, t_q: int, t_k: int) -> torch.Tensor:
    """``score_mod`` at every (b, h, q, k) of zero scores -> ``[batch, H, t_q, t_k]``."""
    b = torch.arange(batch)[:, None, None, None]
    h = torch.arange(HEADS)[None, :, None, None]
    q, k = torch.arange(t_q)[:, None], torch.arange(t_k)
    return score_mod(torch.zeros(()), b, h, q, k).expand(batch, HEADS, t_q, t_k)


def _perturbed(name: str, options: dict) -> PositionalEncoding:
    enc = posenc.build(name, n_heads=HEADS, **options)
    g = torch.Generator().manual_seed(1)
    with torch.no_grad():
        for p in enc.parameters():  # away from the initialisation, where a wrong gradient could hide (b2 = 0, ...)
            p.add_(0.3 * torch.randn(p.shape, generator=g))
    return enc


def test_the_encodings_with_a_score_mod_are_exactly_these_and_all_declare_a_bias():
    assert {name for name in posenc.available() if _overrides(name)} == set(CASES)
    for name in CASES:
        assert posenc.get_class(name).info.biases_logits


@pytest.mark.parametrize("name", [n for n in posenc.available() if not _overrides(n)])
def test_an_encoding_without_one_returns_none(name):
    enc = posenc.build_for_model(name, d_model=16, n_heads=2, head_dim=8, max_len=16)
    assert enc.score_mod(torch.arange(4), torch.arange(4)) is None


POSITIONS = {
    "shared": (torch.arange(9), torch.arange(9)),
    "shifted": (torch.arange(9) + 300, torch.arange(9) + 300),  # past max_distance and the threshold
    "kv_cache": (torch.arange(6, 9), torch.arange(9)),  # 3 queries, the last of 9 keys
    "per_row": (torch.tensor([[0, 1, 2, 3, 4], [7, 9, 10, 20, 21]]), torch.tensor([[0, 1, 2, 3, 4], [7, 9, 10, 20, 21]])),
    "one_row": (torch.tensor([[2, 3, 5]]), torch.tensor([[0, 1, 2, 3, 5]])),
}


@pytest.mark.parametrize("where", list(POSITIONS))
@pytest.mark.parametrize(("name", "options"), [(n, o) for n, cases in CASES.items() for o in cases])
def test_score_mod_gives_the_bias_and_its_gradients(name, options, where):
    enc = _perturbed(name, options)
    q_pos, k_pos = POSITIONS[where]
    bias = enc.bias(q_pos, k_pos)  # [H, Tq, Tk] or [B, H, Tq, Tk]
    batch = q_pos.shape[0] if q_pos.dim() == 2 else 2
    expected = bias.expand(batch, *bias.shape[-3:])
    got = _grid(enc.score_mod(q_pos, k_pos), batch, q_pos.shape[-1], k_pos.shape[-1])
    torch.testing.assert_close(got, expected, rtol=1e-5, atol=1e-5)
    params = [p for p in enc.parameters() if p.requires_grad]
    if not params:  # ALiBi and Sandwich: nothing learned
        return
    weights = torch.randn(expected.shape, generator=torch.Generator().manual_seed(2))
    want = torch.autograd.grad((expected * weights).sum(), params)
    have = torch.autograd.grad((got * weights).sum(), params)
    for p, a, b in zip(params, want, have, strict=True):
        assert b.abs().sum() > 0 or a.abs().sum() == 0, p.shape  # a gradient reaches every parameter that has one
        torch.testing.assert_close(b, a, rtol=1e-4, atol=1e-4 * float(a.abs().max()) + 1e-6)


def test_score_mod_adds_to_the_score_it_is_given():
    enc = posenc.build("alibi", n_heads=HEADS)
    score_mod = enc.score_mod(torch.arange(5), torch.arange(5))
    score = torch.full((), 2.5)
    # head 0 of 4: slope 2^-2, query 4 against key 1: distance 3
    assert float(score_mod(score, torch.tensor(0), torch.tensor(0), torch.tensor(4), torch.tensor(1))) == 2.5 - 0.75


def test_score_mod_checks_its_positions_and_holds_nothing_per_pair():
    enc = posenc.build("kerple", n_heads=HEADS)
    with pytest.raises(PosencError, match="q_positions"):
        enc.score_mod(torch.arange(4.0), torch.arange(4))
    with pytest.raises(PosencError, match="batch"):
        enc.score_mod(torch.zeros(2, 4, dtype=torch.long), torch.zeros(3, 4, dtype=torch.long))
    long = torch.arange(1 << 20)  # a [H, T, T] bias would be 16 TiB: the score_mod holds a table over the offsets
    assert enc.score_mod(long, long) is not None
