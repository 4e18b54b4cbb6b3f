"""FlexAttention with the encoding's ``score_mod`` gives the values and gradients of the materialised bias.

Everything here runs FlexAttention eager (``POSENC_FLEX_COMPILE=0``: no compile in CI). PyTorch's CPU build refuses
FlexAttention backward in its public function (a device check); its autograd rule is the one the GPU runs, so the
gradient tests lift that check (``flex_backward_on_cpu``) and compare it with SDPA on the materialised bias.
"""

import pytest
import torch
from torch.nn.attention import flex_attention as torch_flex

import posenc
from posenc.encodings.schedule import Layer
from posenc.errors import PosencError
from posenc.model import Transformer, TransformerConfig
from posenc.model import flex as flex_module
from posenc.model.flex import BLOCK, FLEX_MIN_LENGTH_CPU, FlexMask, _mask_mod, block_mask, choose, flex_mask
from posenc.model.transformer import attend, attention_mask

pytestmark = pytest.mark.filterwarnings("ignore:.*flex_attention called without torch.compile")

CPU = torch.device("cpu")
HEADS = 4
ENCODINGS = {"alibi": {}, "t5": {}, "kerple": {"kernel": "power", "r2": 1.5}, "sandwich": {"dim": 16},
             "fire": {"threshold": 40.5, "hidden": 4}}


@pytest.fixture(autouse=True)
def eager(monkeypatch):
    monkeypatch.setenv("POSENC_FLEX_COMPILE", "0")


@pytest.fixture
def flex_backward_on_cpu(monkeypatch):
    monkeypatch.setattr(torch_flex, "_validate_device", lambda *args: None)


def _encoding(name: str, causal: bool = True):
    options = dict(ENCODINGS[name])
    if name == "t5":
        options["bidirectional"] = not causal
    enc = posenc.build(name, n_heads=HEADS, **options)
    g = torch.Generator().manual_seed(3)
    with torch.no_grad():
        for p in enc.parameters():
            p.add_(0.3 * torch.randn(p.shape, generator=g))
    return enc


def _padding(batch: int, length: int) -> torch.Tensor:
    pad = torch.zeros(batch, length, dtype=torch.bool)
    pad[-1, length - 37:] = True  # the last row ends in padding, across a tile boundary
    return pad


@pytest.mark.parametrize("causal", [True, False], ids=["causal", "bidirectional"])
@pytest.mark.parametrize("name", list(ENCODINGS))
def test_flex_equals_the_materialised_bias_forward_and_backward(name, causal, flex_backward_on_cpu):
    """In float64 (the encoding's parameters too), so that a wrong gradient cannot hide in the rounding of sums over
    150 x 150 pairs. FIRE's bias path multiplies float32 matrices: its parameters stay float32, and the two paths
    then differ by the rounding of a float32 MLP summed in another order."""
    B, T, Dh = 2, 150, 8  # 150 tokens: two tiles of 128, the second partly outside the sequence
    enc = _encoding(name, causal)
    tolerance = 1e-5 if name == "fire" else 1e-9
    if name != "fire":
        enc = enc.double()
    g = torch.Generator().manual_seed(0)
    q = torch.randn(B, HEADS, T, Dh, generator=g, dtype=torch.float64, requires_grad=True)
    k, v = (torch.randn(B, 2, T, Dh, generator=g, dtype=torch.float64, requires_grad=True)
            for _ in range(2))  # grouped-query: 2 kv heads
    pos, pad = torch.arange(T), _padding(B, T)
    dense = attention_mask(enc, pos, causal, pad, torch.float64, CPU)
    flex = flex_mask(enc, pos, causal, pad, B, CPU)
    assert isinstance(flex, FlexMask)
    want = attend(q, k, v, enc, pos, pos, dense, causal)
    have = attend(q, k, v, enc, pos, pos, flex, causal)
    torch.testing.assert_close(have, want, rtol=tolerance, atol=tolerance)
    inputs = [q, k, v, *[p for p in enc.parameters() if p.requires_grad]]
    weights = torch.randn(want.shape, generator=g, dtype=torch.float64)
    expected = torch.autograd.grad((want * weights).sum(), inputs)
    got = torch.autograd.grad((have * weights).sum(), inputs)
    for a, b in zip(expected, got, strict=True):
        torch.testing.assert_close(b.double(), a.double(), rtol=10 * tolerance,
                                   atol=10 * tolerance * max(1.0, float(a.abs().max())))


def test_queries_after_keys_and_a_layer_span(flex_backward_on_cpu):
    """A KV cache (3 queries, the last of 140 keys, per-row positions) under a window and a chunk."""
    B, Tk, Tq, Dh = 2, 140, 3, 8
    enc = _encoding("t5", causal=True)
    k_pos = torch.stack([torch.arange(Tk), torch.arange(Tk) + 1000])
    q_pos = k_pos[:, -Tq:]
    layer = Layer("t5", window=100, chunk=64)
    g = torch.Generator().manual_seed(4)
    q = torch.randn(B, HEADS, Tq, Dh, generator=g)
    k, v = (torch.randn(B, HEADS, Tk, Dh, generator=g) for _ in range(2))
    dense = attention_mask(enc, q_pos, True, None, torch.float32, CPU, layer, k_positions=k_pos)
    flex = flex_mask(enc, q_pos, True, None, B, CPU, layer, k_positions=k_pos)
    torch.testing.assert_close(attend(q, k, v, enc, q_pos, k_pos, flex, True),
                               attend(q, k, v, enc, q_pos, k_pos, dense, True), rtol=1e-5, atol=1e-5)


CASES = {  # (batch, Tq, Tk, causal, padding, layer)
    "causal": (1, 300, 300, True, False, None),
    "bidirectional_padded": (3, 257, 257, False, True, None),
    "causal_padded_window": (2, 390, 390, True, True, Layer("alibi", window=130)),
    "kv_cache_chunk": (2, 5, 300, True, False, Layer("alibi", chunk=128)),
    "nothing": (2, 129, 129, False, False, None),
    # one query short of a tile: its tile sees every real pair but has a row past the end, so it is not a full tile
    "one_query_short": (1, 127, 128, False, False, None),
    "one_query_short_padded": (2, 255, 256, False, True, None),
}


@pytest.mark.parametrize("case", list(CASES))
def test_block_mask_equals_pytorchs_dense_construction(case):
    batch, t_q, t_k, causal, padded, layer = CASES[case]
    k_pos = torch.arange(t_k)
    q_pos = k_pos[-t_q:]
    pad = _padding(batch, t_k) if padded else None
    mod = _mask_mod(q_pos, k_pos, t_q, t_k, causal, pad, layer)
    ours = block_mask(mod, batch, t_q, t_k, CPU)
    if mod is None:
        def mod(b, h, q, k):
            return q >= 0
    reference = torch_flex.create_block_mask(mod, batch, 1, t_q, t_k, device="cpu", BLOCK_SIZE=BLOCK)
    dense_ours, dense_ref = ours.to_dense(), reference.to_dense()  # [B, 1, n_q, n_k] tiles run
    torch.testing.assert_close(dense_ours.expand_as(dense_ref), dense_ref)
    full_ours = ours.full_kv_num_blocks.expand(batch, -1, -1)
    torch.testing.assert_close(full_ours, reference.full_kv_num_blocks)  # tiles that skip the mask


def test_the_transformer_gives_the_same_logits_on_either_path():
    config = TransformerConfig(vocab_size=30, d_model=32, n_layers=2, n_heads=HEADS, n_kv_heads=2, encoding="fire",
                               encoding_options={"threshold": 20.5}, max_len=64)
    model = Transformer(config).eval()
    ids = torch.randint(0, 30, (2, 140), generator=torch.Generator().manual_seed(5))
    pad = _padding(2, 140)
    with torch.no_grad():
        want = model(ids, key_padding_mask=pad, bias_path="materialised")
        have = model(ids, key_padding_mask=pad, bias_path="flex")
    torch.testing.assert_close(have, want, rtol=1e-4, atol=1e-4)


def test_choose_takes_flex_only_where_it_was_measured_faster():
    alibi, rope = posenc.build("alibi", n_heads=HEADS), posenc.build("rope", head_dim=8)
    long, short = FLEX_MIN_LENGTH_CPU, FLEX_MIN_LENGTH_CPU - 1
    with torch.no_grad():
        assert choose("auto", alibi, long, CPU, 0.0)
        assert not choose("auto", alibi, short, CPU, 0.0)
        assert not choose("auto", alibi, long, torch.device("meta"), 0.0)  # a device nobody measured
        assert not choose("auto", rope, long, CPU, 0.0)  # no score_mod: SDPA's fast path
        assert not choose("auto", alibi, long, CPU, 0.1)  # dropout
        assert not choose("materialised", alibi, long, CPU, 0.0)
        assert choose("flex", alibi, 4, CPU, 0.0)
        assert not choose("flex", alibi, 0, CPU, 0.0)  # an empty sequence: nothing to attend over
    assert not choose("auto", alibi, long, CPU, 0.0)  # gradients: the CPU build has no FlexAttention backward


def test_bad_choices_are_refused_by_name():
    alibi, rope = posenc.build("alibi", n_heads=HEADS), posenc.build("rope", head_dim=8)
    with pytest.raises(PosencError, match="auto, materialised, flex, got 'fast'"):
        choose("fast", alibi, 8, CPU, 0.0)
    assert not choose("flex", rope, 8, CPU, 0.0)  # no bias: SDPA's fast path, nothing to materialise
    randomized = posenc.build("randomized", encoding="alibi", n_heads=HEADS)  # a bias without a score_mod
    with pytest.raises(PosencError, match="randomized.*materialised"):
        choose("flex", randomized, 8, CPU, 0.0)
    with pytest.raises(PosencError, match="dropout 0.1"):
        choose("flex", alibi, 8, CPU, 0.1)
    model = Transformer(TransformerConfig(vocab_size=10, d_model=16, n_heads=2, encoding="alibi"))
    with pytest.raises(PosencError, match="bias_path"):
        model(torch.zeros(1, 4, dtype=torch.long), bias_path="sdpa")


@pytest.mark.parametrize(("setting", "compiles"), [(None, True), ("1", True), ("0", False)])
def test_flex_attend_compiles_once_by_default_and_not_under_posenc_flex_compile_0(monkeypatch, setting, compiles):
    """``torch.compile`` takes minutes here, so it is replaced by a stub that records its call and hands back the eager
    function: the values are then FlexAttention's, which must equal SDPA's on the materialised bias. (Eager
    FlexAttention compiles an inner wrapper of its own with the eager backend; that call goes to the real compile.)"""
    calls, real_compile = [], torch.compile

    def compile_stub(function, **options):
        if function is not torch_flex.flex_attention:
            return real_compile(function, **options)
        calls.append(options)
        return function

    monkeypatch.setattr(torch, "compile", compile_stub)
    monkeypatch.setattr(flex_module, "_compiled", {})  # a fresh process: nothing compiled yet
    if setting is None:
        monkeypatch.delenv("POSENC_FLEX_COMPILE")
    else:
        monkeypatch.setenv("POSENC_FLEX_COMPILE", setting)
    enc = _encoding("alibi")
    B, T, Dh = 1, 6, 8
    g = torch.Generator().manual_seed(6)
    q, k, v = (torch.randn(B, HEADS, T, Dh, generator=g) for _ in range(3))
    pos = torch.arange(T)
    want = attend(q, k, v, enc, pos, pos, attention_mask(enc, pos, True, None, torch.float32, CPU), True)
    flex = flex_mask(enc, pos, True, None, B, CPU)
    for _ in range(2):  # the second call reuses the first call's compiled function
        torch.testing.assert_close(flex_module.flex_attend(q, k, v, flex, Dh ** -0.5), want, rtol=1e-5, atol=1e-5)
    assert calls == ([{"dynamic": False}] if compiles else [])
