"""FoX: the forget bias by hand and by loop, cached decoding, one gate per layer, and equality with x-transformers
2.31.10 (weights copied)."""

import math

import pytest
import torch

import posenc
from posenc.encodings.fox import forget_bias
from posenc.errors import PosencError
from posenc.model import Transformer, TransformerConfig
from posenc.model.transformer import attend

XT_VERSION = "2.31.10"  #: the x-transformers release compared (pinned in the dev extra)


def test_constant_gates_are_alibi():
    # w = 0: f = sigmoid(b) for every token, so D_ij = (i - j) log sigmoid(b): ALiBi with slope -log sigmoid(b)
    fox = posenc.build("fox", d_model=3, n_heads=2)
    with torch.no_grad():
        fox.gate.weight.zero_()
        fox.gate.bias.copy_(torch.tensor([0.0, 2.0]))
    bias = fox.contextual_bias(None, None, torch.arange(4), torch.arange(4), x=torch.randn(1, 4, 3))[0]
    for h, b in enumerate((0.0, 2.0)):
        slope = -math.log(1 / (1 + math.exp(-b)))
        for i in range(4):
            for j in range(i + 1):
                assert float(bias[h, i, j]) == pytest.approx(-slope * (i - j), abs=1e-6)


def test_the_bias_is_the_sum_of_log_gates_between_key_and_query():
    g = torch.Generator().manual_seed(0)
    fox = posenc.build("fox", d_model=5, n_heads=3)
    x = torch.randn(2, 6, 5, generator=g)
    bias = fox.contextual_bias(None, None, torch.arange(6), torch.arange(6), x=x)
    w, b = fox.gate.weight.double(), fox.gate.bias.double()
    for batch in range(2):
        log_f = torch.nn.functional.logsigmoid(x[batch].double() @ w.T + b)  # [T, H]
        for i in range(6):
            for j in range(i + 1):
                want = log_f[j + 1:i + 1].sum(0)  # tokens j+1 .. i
                torch.testing.assert_close(bias[batch, :, i, j].double(), want, rtol=1e-5, atol=1e-6)


def test_keys_after_the_query_take_the_second_gate():
    g = torch.Generator().manual_seed(1)
    fox = posenc.build("fox", d_model=4, n_heads=2, bidirectional=True)
    x = torch.randn(1, 5, 4, generator=g)
    bias = fox.contextual_bias(None, None, torch.arange(5), torch.arange(5), x=x)[0]
    log_g = torch.nn.functional.logsigmoid(x[0].double() @ fox.gate.weight.double().T + fox.gate.bias.double())[:, 2:]
    for i in range(5):
        for j in range(i + 1, 5):
            torch.testing.assert_close(bias[:, i, j].double(), log_g[i + 1:j + 1].sum(0), rtol=1e-5, atol=1e-6)


def test_cached_queries_get_the_last_rows():
    fox = posenc.build("fox", d_model=4, n_heads=2)
    x = torch.randn(2, 7, 4)
    full = fox.contextual_bias(None, None, torch.arange(7), torch.arange(7), x=x)
    last = fox.contextual_bias(None, None, torch.arange(5, 7), torch.arange(7), x=x)
    torch.testing.assert_close(last, full[:, :, 5:])
    assert bool((forget_bias(torch.zeros(1, 1, 3), 3) == 0).all())  # gates of 1 forget nothing


def test_every_layer_gets_its_own_gate():
    model = Transformer(TransformerConfig(vocab_size=10, d_model=16, n_layers=3, n_heads=2, encoding="fox"))
    gates = [e.gate for e in model.encodings]
    assert len({id(g) for g in gates}) == 3
    assert sum(p.numel() for p in model.parameters()) == sum(p.numel() for p in Transformer(TransformerConfig(
        vocab_size=10, d_model=16, n_layers=3, n_heads=2, encoding="nope")).parameters()) + 3 * (16 * 2 + 2)


def test_bad_input():
    with pytest.raises(PosencError, match=r"FoX reads the layer input \[batch, seq, 8\]"):
        posenc.build("fox", d_model=8).contextual_bias(None, None, torch.arange(3), torch.arange(3),
                                                       x=torch.randn(1, 3, 4))
    with pytest.raises(PosencError, match=r"FoX's bias comes from the layer input: pass x=\.\.\. \(\[batch, seq, 8\]"):
        posenc.build("fox", d_model=8).contextual_bias(torch.randn(1, 2, 3, 4), torch.randn(1, 2, 3, 4),
                                                       torch.arange(3), torch.arange(3))
    with pytest.raises(PosencError, match="bias_init must be a finite number"):
        posenc.build("fox", bias_init=float("inf"))
    # more queries than tokens: the bias would silently have the wrong number of rows
    with pytest.raises(PosencError, match="q_positions has 5 entries but x holds 3 tokens"):
        posenc.build("fox", d_model=4, n_heads=1).contextual_bias(None, None, torch.arange(5), torch.arange(3),
                                                                  x=torch.randn(1, 3, 4))


@pytest.mark.parametrize("causal", [True, False])
def test_equals_x_transformers_data_dependent_alibi(causal):
    xt = pytest.importorskip("x_transformers.x_transformers")
    torch.manual_seed(0)
    B, T, D, H, Dh = 2, 9, 32, 4, 8
    attn = xt.Attention(dim=D, heads=H, dim_head=Dh, causal=causal, data_dependent_alibi=True).eval()
    x, positions = torch.randn(B, T, D), torch.arange(T)
    with torch.no_grad():
        linear = attn.data_dependent_alibi.to_forget_gates[0]
        linear.weight.mul_(8.0)  # gates that vary from token to token, far from their initial 0.993
        want = attn(x)
        q = attn.to_q(x).view(B, T, H, Dh).transpose(1, 2)
        k = attn.to_k(x).view(B, T, H, Dh).transpose(1, 2)
        v = attn.to_v(x).view(B, T, H, Dh).transpose(1, 2)
        fox = posenc.build("fox", d_model=D, n_heads=H, bidirectional=not causal)
        fox.gate.load_state_dict(linear.state_dict())
        y = attend(q, k, v, fox, positions, positions, None, causal=causal, x=x)
        got = attn.to_out(y.transpose(1, 2).reshape(B, T, H * Dh))
        torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-6)
        plain = attend(q, k, v, posenc.build("nope"), positions, positions, None, causal=causal)
        assert (attn.to_out(plain.transpose(1, 2).reshape(B, T, H * Dh)) - want).abs().max() > 1e-3


@pytest.mark.parametrize("bidirectional", [False, True])
def test_float64_inputs_are_computed_in_float64(bidirectional):
    # gates far from 1 and 0 and a float64 reference in plain Python: D_ij = sum_{l=j+1}^{i} log sigmoid(w . x_l + b)
    # (and the second gate's sum for j > i); float32 gates would be about 1e-7 off
    g = torch.Generator().manual_seed(5)
    fox = posenc.build("fox", d_model=3, n_heads=2, bias_init=0.5, bidirectional=bidirectional)
    with torch.no_grad():
        fox.gate.weight.copy_(torch.randn(fox.gate.weight.shape, generator=g))
    x = torch.randn(1, 6, 3, generator=g, dtype=torch.float64)
    got = fox.contextual_bias(None, None, torch.arange(6), torch.arange(6), x=x)
    assert got.dtype == torch.float64
    w, b = fox.gate.weight.detach().double(), fox.gate.bias.detach().double()

    def log_gate(row: int, l: int) -> float:
        z = sum(w[row, c].item() * x[0, l, c].item() for c in range(3)) + b[row].item()
        return -math.log1p(math.exp(-z))

    for h in range(2):
        for i in range(6):
            for j in range(6):
                if j <= i:
                    want = sum(log_gate(h, l) for l in range(j + 1, i + 1))
                elif bidirectional:
                    want = sum(log_gate(2 + h, l) for l in range(i + 1, j + 1))
                else:
                    continue  # a decoder's mask hides keys after the query
                assert got[0, h, i, j].item() == pytest.approx(want, rel=1e-12, abs=1e-12)


def test_float32_inputs_stay_float32():
    fox = posenc.build("fox", d_model=3, n_heads=2)
    x = torch.randn(1, 4, 3)
    got = fox.contextual_bias(None, None, torch.arange(4), torch.arange(4), x=x)
    assert got.dtype == torch.float32
    wide = fox.contextual_bias(None, None, torch.arange(4), torch.arange(4), x=x.double())
    torch.testing.assert_close(wide.float(), got)
