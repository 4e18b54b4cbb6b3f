"""Hand-worked values at small sizes and error paths for M-RoPE, axial RoPE, p-RoPE / proportional, DeepSeek's YaRN
softmax factor, ALiBi slopes and head subsets, the T5 scale, the sinusoidal layouts, FIRE, KERPLE, Sandwich and CoPE."""

from __future__ import annotations

import math

import pytest
import torch
from offset_cases import offset_cases

import posenc
from posenc.encodings.mrope import mrope_axes
from posenc.encodings.rope_scaling import proportional, yarn_logit_scale
from posenc.encodings.sinusoidal import convert_sinusoidal_layout, sinusoidal_table
from posenc.errors import PosencError
from posenc.model import Transformer, TransformerConfig


def _rot_half(x, theta):
    """Rotate ``x [..., 2P]`` with half pairing by angles ``theta [..., P]`` (written out for the tests)."""
    p = x.shape[-1] // 2
    x1, x2 = x[..., :p], x[..., p:]
    return torch.cat([x1 * theta.cos() - x2 * theta.sin(), x2 * theta.cos() + x1 * theta.sin()], -1)


# -- M-RoPE ------------------------------------------------------------------------------------------------------------

def test_mrope_axes_contiguous_and_interleaved_by_hand():
    assert mrope_axes([2, 1, 1]).tolist() == [0, 0, 1, 2]
    # interleaved, 6 pairs, sections (2, 2, 2): t h w t h w
    assert mrope_axes([2, 2, 2], interleaved=True).tolist() == [0, 1, 2, 0, 1, 2]
    # (4, 1, 1): h and w only in the first triple, the rest temporal
    assert mrope_axes([4, 1, 1], interleaved=True).tolist() == [0, 1, 2, 0, 0, 0]


@pytest.mark.parametrize("interleaved", [False, True])
def test_mrope_angles_by_hand(interleaved):
    m = posenc.build("mrope", head_dim=8, mrope_section=[2, 1, 1], interleaved=interleaved, base=100.0)
    inv = torch.tensor([1.0, 100 ** -0.25, 100 ** -0.5, 100 ** -0.75], dtype=torch.float64)
    t, h, w = 3, 5, 7
    axis = [0, 0, 1, 2] if not interleaved else [0, 1, 2, 0]
    theta = torch.tensor([(t, h, w)[a] for a in axis], dtype=torch.float64) * inv
    x = torch.randn(1, 1, 1, 8, dtype=torch.float64)
    pos = torch.tensor([[[t]], [[h]], [[w]]])  # [3, 1, 1]
    got = m.rotate(x.float(), x.float(), pos, pos)[0].double()
    torch.testing.assert_close(got, _rot_half(x, theta), atol=1e-6, rtol=1e-6)


def test_mrope_at_text_positions_is_rope():
    m = posenc.build("mrope", head_dim=16, mrope_section=[4, 2, 2])
    r = posenc.build("rope", head_dim=16)
    q, k = torch.randn(2, 2, 6, 16), torch.randn(2, 1, 6, 16)
    pos = torch.arange(6)
    torch.testing.assert_close(m.rotate(q, k, pos, pos)[0], r.rotate(q, k, pos, pos)[0])


def test_mrope_bad_sections_name_what_fits():
    with pytest.raises(PosencError, match=r"mrope_section \[2, 2, 2\] sums to 6 pairs .* rotary width is 16 channels "
                                          r"= 8 pairs"):
        posenc.build("mrope", head_dim=16, mrope_section=[2, 2, 2])
    with pytest.raises(PosencError, match="interleaved mrope_section"):
        posenc.build("mrope", head_dim=16, mrope_section=[2, 3, 3], interleaved=True)
    m = posenc.build("mrope", head_dim=16, mrope_section=[4, 2, 2])
    x = torch.randn(1, 1, 3, 16)
    with pytest.raises(PosencError, match="has 2 axes .* turns by 3 position axes"):
        m.rotate(x, x, torch.zeros(2, 1, 3, dtype=torch.long), torch.arange(3))


def test_mrope_partial_rotary_turns_only_the_rotary_width():
    # head 8, rotary_dim 4, base 100: inv = (1, 100^(-2/4)) = (1, 0.1); sections (1, 1, 0): pair 0 by t, pair 1 by h
    m = posenc.build("mrope", head_dim=8, rotary_dim=4, mrope_section=[1, 1, 0], base=100.0)
    assert m.rotary_dim == 4
    t, h, w = 3, 5, 7
    theta = torch.tensor([t * 1.0, h * 0.1], dtype=torch.float64)
    x = torch.randn(1, 1, 1, 8, dtype=torch.float64)
    pos = torch.tensor([[[t]], [[h]], [[w]]])  # [3, 1, 1]
    got = m.rotate(x.float(), x.float(), pos, pos)[0].double()
    torch.testing.assert_close(got[..., :4], _rot_half(x[..., :4], theta), atol=1e-6, rtol=1e-6)
    torch.testing.assert_close(got[..., 4:], x[..., 4:], atol=1e-6, rtol=0)  # channels 4..7 pass through


def test_mrope_position_errors_name_the_query_positions():
    m = posenc.build("mrope", head_dim=8, mrope_section=[2, 1, 1])
    x = torch.randn(1, 1, 3, 8)
    with pytest.raises(PosencError, match="^q_positions has 2 entries but the sequence has 3 tokens"):
        m.rotate(x, x, torch.arange(2), torch.arange(3))


# -- axial ---------------------------------------------------------------------------------------------------------

def test_axial_angles_by_hand():
    ax = posenc.build("axial_rope", head_dim=8, base=100.0)
    f = torch.tensor([1.0, 100 ** -0.5], dtype=torch.float64)  # base^(-4i/R), R = 8
    y, x = 2, 3
    theta = torch.cat([y * f, x * f])
    v = torch.randn(1, 1, 1, 8, dtype=torch.float64)
    pos = torch.tensor([[[y]], [[x]]])
    torch.testing.assert_close(ax.rotate(v.float(), v.float(), pos, pos)[0].double(), _rot_half(v, theta),
                               atol=1e-6, rtol=1e-6)


def test_axial_is_relative_in_both_axes_and_reads_patch_indices():
    ax = posenc.build("axial_rope", head_dim=16, grid_width=4)
    q0, k0 = torch.randn(2, 16)
    logits = {}
    for (yq, xq, yk, xk) in [(3, 2, 1, 1), (5, 4, 3, 3), (2, 1, 0, 0)]:  # offset (2, 1) everywhere
        qr, kr = ax.rotate(q0.view(1, 1, 1, 16), k0.view(1, 1, 1, 16), torch.tensor([[[yq]], [[xq]]]),
                           torch.tensor([[[yk]], [[xk]]]))
        logits[(yq, xq)] = float((qr * kr).sum())
    values = list(logits.values())
    assert max(values) - min(values) < 1e-4
    idx = torch.arange(8)  # patch indices on a 4-wide grid equal explicit (row, column)
    yx = torch.stack([idx // 4, idx % 4])[:, None]
    v = torch.randn(1, 2, 8, 16)
    torch.testing.assert_close(ax.rotate(v, v, idx, idx)[0], ax.rotate(v, v, yx, yx)[0])
    from posenc.properties import check_encoding

    report = check_encoding("axial_rope", d_model=16, length=64)
    assert report["relative_2d"].verdict == "holds" and report["relative"].verdict == "n.a."


def test_axial_errors():
    with pytest.raises(PosencError, match="multiple of 4, got 6"):
        posenc.build("axial_rope", head_dim=6)
    with pytest.raises(PosencError, match="grid_width"):
        posenc.build("axial_rope", head_dim=8, grid_width=0)


def test_axial_frequencies_are_float64_to_full_precision():
    from posenc.encodings.axial import axial_inv_freq

    # R = 16: f_i = base^(-4i/16), i = 0..3, once for rows (axis 0) and once for columns (axis 1)
    inv, axis = axial_inv_freq(16, 10000.0)
    f = [1.0 / 10000.0 ** (4 * i / 16) for i in range(4)]
    torch.testing.assert_close(inv, torch.tensor(f + f, dtype=torch.float64), rtol=1e-15, atol=0)
    assert axis.tolist() == [0, 0, 0, 0, 1, 1, 1, 1]


# -- p-RoPE / proportional, DeepSeek's factor ---------------------------------------------------------------------------

def test_proportional_frequencies_by_hand():
    inv, factor = proportional(8, base=10000.0, factor=2.0, partial_rotary_factor=0.5)
    # head 8: kept pairs floor(0.5 * 8 / 2) = 2: 1 and 10000^(-2/8) = 0.1, then 0, 0; all / 2
    torch.testing.assert_close(inv, torch.tensor([0.5, 0.05, 0.0, 0.0], dtype=torch.float64))
    assert factor == 1.0
    with pytest.raises(PosencError, match=r"partial_rotary_factor .* in \[0, 1\], got 1.5"):
        proportional(8, partial_rotary_factor=1.5)


def test_p_rope_leaves_low_frequency_pairs_still():
    pr = posenc.build("p_rope", head_dim=8, p=0.5)
    q = torch.randn(1, 1, 5, 8)
    out = pr.rotate(q, q, torch.arange(5), torch.arange(5))[0]
    still = [2, 3, 6, 7]  # pairs 2 and 3 (channels i and i + 4) never turn
    torch.testing.assert_close(out[..., still], q[..., still])
    assert (out[..., 1:, [0, 4]] - q[..., 1:, [0, 4]]).abs().max() > 1e-3
    full = posenc.build("p_rope", head_dim=8, p=1.0).rotate(q, q, torch.arange(5), torch.arange(5))[0]
    torch.testing.assert_close(full, posenc.build("rope", head_dim=8).rotate(q, q, torch.arange(5), torch.arange(5))[0])


def test_yarn_logit_scale_by_hand():
    # s = 40, mscale_all_dim = 1: (0.1 ln 40 + 1)^2 = 1.3689^2
    assert yarn_logit_scale(40.0, 1.0) == pytest.approx((0.1 * math.log(40) + 1) ** 2)
    assert yarn_logit_scale(40.0, None) == 1.0
    rope = posenc.build("rope", head_dim=8, scale_logits=True,
                        scaling={"type": "yarn", "factor": 40.0, "mscale": 1.0, "mscale_all_dim": 1.0})
    assert rope.attention_factor == pytest.approx(1.0)  # the cos/sin factor collapses to 1 ...
    assert rope.logit_factor == pytest.approx(1.8739, abs=1e-4)  # ... and the softmax carries the temperature
    assert rope.query_scale(torch.arange(3)) == rope.logit_factor  # the same number for every query
    assert posenc.build("rope", head_dim=8).query_scale(torch.arange(3)) == 1.0


def test_model_applies_logit_scale():
    torch.manual_seed(0)
    scaled = TransformerConfig(vocab_size=11, d_model=16, n_heads=2, n_layers=1, encoding="rope",
                               encoding_options={"scale_logits": True, "scaling": {
                                   "type": "yarn", "factor": 40.0, "mscale": 1.0, "mscale_all_dim": 1.0}})
    model = Transformer(scaled)
    plain = Transformer(TransformerConfig(**{**scaled.as_dict(), "encoding_options": {"scaling": {
        "type": "yarn", "factor": 40.0, "mscale": 1.0, "mscale_all_dim": 1.0}}}))
    plain.load_state_dict(model.state_dict())
    ids = torch.randint(0, 11, (1, 6))
    assert (model(ids) - plain(ids)).abs().max() > 1e-4


# -- ALiBi, T5, sinusoidal ---------------------------------------------------------------------------------------------

def test_alibi_custom_slopes_and_subset_by_hand():
    a = posenc.build("alibi", n_heads=3, heads=[1], slopes=[0.25])
    b = a.bias(torch.tensor([4]), torch.tensor([0, 2, 4]))  # distances 4, 2, 0
    assert b[:, 0].tolist() == [[0.0, 0.0, 0.0], [-1.0, -0.5, 0.0], [0.0, 0.0, 0.0]]
    # default slopes for the subset: those of a 2-head ALiBi (1/16, 1/256), placed on heads 0 and 3
    c = posenc.build("alibi", n_heads=4, heads=[0, 3])
    assert c.slopes.tolist() == [2 ** -4, 0.0, 0.0, 2 ** -8]


def test_alibi_errors():
    with pytest.raises(PosencError, match=r"ALiBi got 3 slopes for 2 ALiBi head\(s\) \(heads \[0, 1\]\)"):
        posenc.build("alibi", n_heads=4, heads=[0, 1], slopes=[1, 2, 3])
    with pytest.raises(PosencError, match=r"ALiBi got 2 slopes for 4 ALiBi head\(s\) \(n_heads = 4\)"):
        posenc.build("alibi", n_heads=4, slopes=[1, 2])
    with pytest.raises(PosencError, match=r"head indices in 0..3 \(n_heads = 4\), got \[0, 4\]; out of range: \[4\]"):
        posenc.build("alibi", n_heads=4, heads=[0, 4])


def test_t5_scale_multiplies_the_bias():
    torch.manual_seed(0)
    one = posenc.build("t5", n_heads=2)
    three = posenc.build("t5", n_heads=2, scale=3.0)
    three.load_state_dict(one.state_dict())
    pos = torch.arange(5)
    torch.testing.assert_close(three.bias(pos, pos), 3 * one.bias(pos, pos))
    with pytest.raises(PosencError, match="scale must be a finite number"):
        posenc.build("t5", scale=float("nan"))


def test_sinusoidal_concat_layout_by_hand_and_converter():
    # d = 4, p = 2: w = (1, 0.01); concat = (sin 2, sin 0.02, cos 2, cos 0.02)
    row = posenc.build("sinusoidal", dim=4, layout="concat").table(3)[2]
    torch.testing.assert_close(row, torch.tensor([math.sin(2), math.sin(0.02), math.cos(2), math.cos(0.02)]))
    inter = sinusoidal_table(torch.arange(9), 8)
    concat = sinusoidal_table(torch.arange(9), 8, layout="concat")
    torch.testing.assert_close(convert_sinusoidal_layout(inter, "interleaved", "concat"), concat)
    torch.testing.assert_close(convert_sinusoidal_layout(concat, "concat", "interleaved"), inter)
    with pytest.raises(PosencError, match="layout must be 'interleaved'"):
        posenc.build("sinusoidal", dim=4, layout="halves")
    # the converter's error names which of its two layouts was wrong
    for source, target, wrong in (("halves", "concat", "source"), ("concat", "halves", "target")):
        with pytest.raises(PosencError, match=f"^{wrong} must be 'interleaved'.*got 'halves'"):
            convert_sinusoidal_layout(inter, source, target)


# -- FIRE, KERPLE, Sandwich, CoPE --------------------------------------------------------------------------------------

def test_fire_input_by_hand_and_bias_is_the_mlp_of_it():
    from posenc.encodings.fire import fire_inputs

    # c = 1, L = 2: query 4, key 1 -> log(1 + 3) / log(1 + max(2, 4)) = ln 4 / ln 5
    x = fire_inputs(torch.tensor([4]), torch.tensor([1]), 1.0, 2.0)
    assert float(x) == pytest.approx(math.log(4) / math.log(5), rel=1e-6)
    # float32 whatever c and L come as (the module's parameters, or float64 tensors): the explorer's golden values
    # are these float32 numbers
    wide = fire_inputs(torch.tensor([4]), torch.tensor([1]), torch.tensor(1.0, dtype=torch.float64),
                       torch.tensor(2.0, dtype=torch.float64))
    assert x.dtype == wide.dtype == torch.float32 and torch.equal(wide, x)
    fire = posenc.build("fire", n_heads=3, c=1.0, threshold=2.0)
    b = fire.bias(torch.tensor([4]), torch.tensor([1]))
    torch.testing.assert_close(b[:, 0, 0], fire.mlp(torch.tensor([[math.log(4) / math.log(5)]]))[0])


def test_kerple_by_hand():
    power = posenc.build("kerple", n_heads=1, kernel="power", r1=0.5, r2=1.5)
    b = power.bias(torch.tensor([4]), torch.tensor([0, 3]))  # distances 4, 1
    torch.testing.assert_close(b[0, 0], torch.tensor([-0.5 * 4 ** 1.5, -0.5]), atol=1e-5, rtol=1e-5)
    with pytest.raises(PosencError, match="0 < r2 <= 2"):
        posenc.build("kerple", kernel="power", r2=2.5)
    with pytest.raises(PosencError, match="kernel must be one of log, power"):
        posenc.build("kerple", kernel="gauss")


def test_sandwich_by_hand():
    # d' = 4, compress off: cos(r) + cos(r / 100) - 2
    s = posenc.build("sandwich", n_heads=2, dim=4, compress=False)
    b = s.bias(torch.tensor([5]), torch.tensor([0, 5]))
    want = math.cos(5) + math.cos(0.05) - 2
    torch.testing.assert_close(b[:, 0, 0], torch.tensor([want, want]))
    assert b[:, 0, 1].abs().max() == 0
    c = posenc.build("sandwich", n_heads=2, dim=4)  # rho = 4, 8: head 1 uses r / 4
    b = c.bias(torch.tensor([5]), torch.tensor([0]))
    assert float(b[0, 0, 0]) == pytest.approx(math.cos(5 / 4) + math.cos(5 / 400) - 2, rel=1e-5)


def test_sandwich_bias_of_relative_distances_by_hand_with_and_without_a_batch():
    from posenc.encodings.sandwich import sandwich_bias

    # d' = 2: one frequency w = 1, so b_h(r) = cos(r / rho_h) - 1; rho = (1, 2)
    rho = torch.tensor([1.0, 2.0], dtype=torch.float64)
    relative = torch.tensor([[0, -1, -2], [1, 0, -1]])  # [Tq = 2, Tk = 3]
    want = torch.tensor([[[math.cos(r / h) - 1 for r in row] for row in relative.tolist()] for h in (1.0, 2.0)])
    torch.testing.assert_close(sandwich_bias(relative, 2, rho), want)  # [H, Tq, Tk]
    batched = torch.stack([relative, relative + 3])  # [B = 2, Tq, Tk]
    want_3 = torch.tensor([[[math.cos((r + 3) / h) - 1 for r in row] for row in relative.tolist()] for h in (1.0, 2.0)])
    torch.testing.assert_close(sandwich_bias(batched, 2, rho), torch.stack([want, want_3]))  # [B, H, Tq, Tk]
    assert sandwich_bias(torch.zeros(2, 0, 3, dtype=torch.long), 2, rho).shape == (2, 2, 0, 3)


def test_cope_by_hand():
    # one head, Dh = 1, q = 1 and keys 0, 0, ln 3: gates 1/2, 1/2, 3/4; query at position 2
    cope = posenc.build("cope", head_dim=1, max_len=4)
    with torch.no_grad():
        cope.table.copy_(torch.tensor([[0.0], [10.0], [20.0], [30.0]]))  # e[n] = 10 n
    q = torch.ones(1, 1, 3, 1)
    k = torch.tensor([0.0, 0.0, math.log(3)]).view(1, 1, 3, 1)
    b = cope.contextual_bias(q, k, torch.arange(3), torch.arange(3))
    # row 2: p = (1/2 + 1/2 + 3/4, 1/2 + 3/4, 3/4) = (1.75, 1.25, 0.75) -> q . e[p] = 10 p
    torch.testing.assert_close(b[0, 0, 2], torch.tensor([17.5, 12.5, 7.5]))
    assert b[0, 0, 0, 1:].abs().max() == 0  # future keys get nothing
    # p clips at n_pos - 1 = 3
    many = posenc.build("cope", head_dim=1, max_len=2)
    with torch.no_grad():
        many.table.copy_(torch.tensor([[0.0], [10.0]]))
    assert float(many.contextual_bias(torch.ones(1, 1, 6, 1) * 20, torch.ones(1, 1, 6, 1), torch.arange(6),
                                      torch.arange(6))[0, 0, 5, 0].detach()) == pytest.approx(200.0)


def test_cope_errors_name_the_argument():
    with pytest.raises(PosencError, match="^CoPE needs a positive integer head_dim, got 0"):
        posenc.build("cope", head_dim=0)
    with pytest.raises(PosencError, match="^CoPE needs a positive integer max_len, got 0"):
        posenc.build("cope", head_dim=4, max_len=0)
    cope = posenc.build("cope", head_dim=4, max_len=8)
    q = torch.randn(1, 1, 3, 4)
    with pytest.raises(PosencError, match="^q_positions has 2 entries but the sequence has 3 tokens"):
        cope.contextual_bias(q, q, torch.arange(2), torch.arange(3))
    with pytest.raises(PosencError, match="^q_positions has 1 entries but the sequence has 3 tokens"):
        cope.contextual_bias(q, q, torch.tensor([2]), torch.arange(3))


def test_cope_in_the_model_gets_gradients_and_respects_causality():
    torch.manual_seed(0)
    model = Transformer(TransformerConfig(vocab_size=11, d_model=16, n_heads=2, n_layers=1, encoding="cope"))
    ids = torch.randint(0, 11, (2, 6))
    out = model(ids)
    out.sum().backward()
    assert model.encoding.table.grad is not None and model.encoding.table.grad.abs().sum() > 0
    changed = ids.clone()
    changed[:, -1] = (changed[:, -1] + 1) % 11
    torch.testing.assert_close(model(changed)[:, :-1], out[:, :-1])  # the last token does not reach earlier ones


@pytest.mark.parametrize("name", ["mrope", "axial_rope", "p_rope", "fire", "kerple", "sandwich", "cope"])
def test_every_new_encoding_builds_and_runs_in_the_model(name):
    model = Transformer(TransformerConfig(vocab_size=11, d_model=16, n_heads=2, n_layers=1, encoding=name))
    assert model(torch.randint(0, 11, (2, 5))).shape == (2, 5, 11)
    assert name in posenc.available()


# -- KERPLE, Sandwich, FIRE through the offset table (posenc.encodings.offsets) against the formula per pair ----------



def _pairs(q: torch.Tensor, k: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """``(i, j)`` of every pair as float64 ``[(B,) 1, Tq, Tk]`` (a head axis to broadcast against)."""
    i, j = torch.broadcast_tensors(q[..., :, None], k[..., None, :])
    return i.double().unsqueeze(-3), j.double().unsqueeze(-3)


def _grads_close(module, bias, leaves, direct):
    """The gradients of the module's parameters equal the float64 formula's for the same upstream gradient."""
    upstream = torch.randn(direct.shape, generator=torch.Generator().manual_seed(1), dtype=torch.float64)
    got = torch.autograd.grad((bias * upstream.float()).sum(), list(module.parameters()))
    want = torch.autograd.grad((direct * upstream).sum(), leaves)
    for g, w in zip(got, want, strict=True):
        torch.testing.assert_close(g.double(), w, rtol=1e-4, atol=1e-4 * float(w.abs().max()))


@pytest.mark.parametrize("kernel", ["log", "power"])
@pytest.mark.parametrize("case", list(offset_cases()))
def test_kerple_bias_and_its_gradients_equal_the_kernel_per_pair(case, kernel):
    q, k = offset_cases()[case]
    kerple = posenc.build("kerple", n_heads=3, kernel=kernel)
    with torch.no_grad():  # heads differ; the power kernel's r2 stays below its clamp at 2
        kerple.raw_r1.copy_(torch.tensor([-1.0, 0.2, 0.9]))
        kerple.raw_r2.copy_(torch.tensor([-0.5, 0.3, 1.2]))
    raw_r1, raw_r2 = (p.detach().double().requires_grad_() for p in (kerple.raw_r1, kerple.raw_r2))
    r1 = torch.log1p(raw_r1.exp())[:, None, None]  # softplus, [H, 1, 1]
    r2 = torch.log1p(raw_r2.exp())[:, None, None]
    i, j = _pairs(q, k)
    d = (i - j).abs()
    direct = -r1 * d ** r2 if kernel == "power" else -r1 * torch.log(1 + r2 * d)  # Chi et al. 2022, §4.2
    bias = kerple.bias(q, k)
    assert bias.shape == direct.shape
    torch.testing.assert_close(bias.double(), direct.detach(), rtol=1e-5, atol=1e-5)
    _grads_close(kerple, bias, (raw_r1, raw_r2), direct)


@pytest.mark.parametrize("compress", [True, False])
@pytest.mark.parametrize("case", list(offset_cases()))
def test_sandwich_bias_equals_the_sinusoid_inner_product_per_pair(case, compress):
    q, k = offset_cases()[case]
    H, dim = 3, 16
    i, j = _pairs(q, k)
    rho = torch.tensor([8.0 * h / H for h in range(1, H + 1)] if compress else [1.0] * H, dtype=torch.float64)
    # sum over the d'/2 frequencies 10000^(-2m/d'), m = 0 .. d'/2 - 1, of cos((i - j) w_m / rho_h), minus d'/2
    direct = sum(torch.cos((i - j) * 10000.0 ** (-2 * m / dim) / rho[:, None, None]) for m in range(dim // 2)) - dim / 2
    bias = posenc.build("sandwich", n_heads=H, dim=dim, compress=compress).bias(q, k)
    assert bias.shape == direct.shape
    torch.testing.assert_close(bias.double(), direct, rtol=1e-6, atol=1e-5)


@pytest.mark.parametrize("with_grad", [True, False])
@pytest.mark.parametrize("case", list(offset_cases()))
def test_fire_bias_and_its_gradients_equal_the_mlp_per_pair(case, with_grad, monkeypatch):
    import posenc.encodings.fire as fire_module

    # blocks of a few query rows, so rows at or below L = 60.5 fill whole blocks (one table over the offsets) and
    # one block holds both kinds (the MLP per pair)
    monkeypatch.setattr(fire_module, "_BLOCK_FLOATS", 8 * 3 * 210)  # hidden 8: three rows of 210 keys
    q, k = offset_cases()[case]
    torch.manual_seed(0)
    fire = posenc.build("fire", n_heads=3, hidden=8, c=0.7, threshold=60.5)
    leaves = [p.detach().double().requires_grad_() for p in fire.parameters()]
    params = dict(zip((name for name, _ in fire.named_parameters()), leaves, strict=True))
    c, L = params["log_c"].exp(), params["threshold"].clamp(min=0)
    i, j = _pairs(q, k)
    x = (torch.log(1 + c * (i - j).abs()) / torch.log(1 + c * torch.maximum(i, L))).movedim(-3, -1)  # [..., 1]
    hidden = torch.relu(x * params["mlp.0.weight"][:, 0] + params["mlp.0.bias"])  # [..., hidden]
    direct = (hidden @ params["mlp.2.weight"].T + params["mlp.2.bias"]).movedim(-1, -3)  # f: [(B,) H, Tq, Tk]
    with torch.set_grad_enabled(with_grad):
        bias = fire.bias(q, k)
    assert bias.shape == direct.shape
    torch.testing.assert_close(bias.double(), direct.detach(), rtol=1e-5, atol=1e-5)
    if with_grad:
        _grads_close(fire, bias, leaves, direct)
