"""RoPE frequency usage and logit-distance curves, on tiny random Llama models (no download)."""

import math

import numpy as np
import pytest
import torch
from transformers import LlamaConfig, LlamaForCausalLM

from posenc.probe.capture import capture
from posenc.probe.rope_usage import RopeAccumulator, pair_energy

HEADS, KV, DH, T = 4, 2, 16, 40


def _llama(theta=10000.0):
    config = LlamaConfig(vocab_size=80, hidden_size=HEADS * DH, intermediate_size=64, num_hidden_layers=2,
                         num_attention_heads=HEADS, num_key_value_heads=KV, rope_theta=theta,
                         max_position_embeddings=256)
    return LlamaForCausalLM(config).eval()


def _run(model, ids):
    acc = RopeAccumulator(model.config, max_len=ids.shape[-1])
    with capture(model, acc.add_attention, acc.add_qk), torch.no_grad():
        model(ids)
    return acc.summary()


def test_pair_energy_by_hand():
    x = torch.zeros(8)
    x[1], x[5] = 3.0, 4.0  # half pairing (R=8): pair 1 is channels 1 and 5 -> 9 + 16
    assert pair_energy(x, 8, "half").tolist() == [0, 25, 0, 0]
    assert pair_energy(x, 8, "interleaved").tolist() == [9, 0, 16, 0]  # pairs (0,1), (4,5)


def test_rotated_logits_reproduce_the_models_attention():
    """posenc's RoPE (built from the config) on the captured q/k gives the model's own attention weights."""
    out = _run(_llama(theta=500.0), torch.randint(0, 80, (1, T)))
    assert out["check_max_abs_error"] < 1e-5
    assert np.asarray(out["q_pair_share"]).shape == (2, HEADS, DH // 2)
    assert np.asarray(out["k_pair_share"]).shape == (2, KV, DH // 2)
    np.testing.assert_allclose(np.asarray(out["q_pair_share"]).sum(-1), 1.0, atol=1e-6)
    assert out["inv_freq"][1] == pytest.approx(500.0 ** (-2 / DH))


def test_a_query_living_in_one_pair_is_seen_there():
    """Zero every q_proj row except channels 3 and 3 + 8 of each head: all of |q|^2 sits in pair 3."""
    model = _llama()
    with torch.no_grad():
        weight = model.model.layers[0].self_attn.q_proj.weight.view(HEADS, DH, -1)  # [H, Dh, D]
        keep = torch.zeros(DH, dtype=torch.bool)
        keep[[3, 3 + DH // 2]] = True
        weight[:, ~keep] = 0.0
    out = _run(model, torch.randint(0, 80, (1, T)))
    share = np.asarray(out["q_pair_share"])[0]  # [H, R/2]
    np.testing.assert_allclose(share[:, 3], 1.0, atol=1e-6)
    assert out["q_share_fastest_quarter"][0] == pytest.approx(0.0, abs=1e-6)  # pairs 0-1 are empty


def _summary_and_layer0_qk(model):
    """Run the accumulator over random ids; return its summary and layer 0's captured (q, k)."""
    ids = torch.randint(0, 80, (1, T))
    acc = RopeAccumulator(model.config, max_len=T)
    captured = {}

    def keep(layer, q, k):
        captured.setdefault(layer, (q, k))
        acc.add_qk(layer, q, k)

    with capture(model, acc.add_attention, keep), torch.no_grad():
        model(ids)
    return acc.summary(), captured[0]



def test_mean_curve_is_the_rotation_formula():
    """For the mean query/key, logit(r) = sum_i [(q1 k1 + q2 k2) cos(r w_i) - (q2 k1 - q1 k2) sin(r w_i)] / sqrt(Dh)
    (the real part of q conj(k) e^{i r w_i}, one pair at a time)."""
    out, (q, k) = _summary_and_layer0_qk(_llama())
    q_bar = q[0].reshape(T, HEADS, DH).mean(0).double()[0]  # head 0
    k_bar = k[0].reshape(T, KV, DH).mean(0).double()[0]  # its kv head
    w = 10000.0 ** (-torch.arange(0, DH, 2, dtype=torch.float64) / DH)
    h = DH // 2
    a = q_bar[:h] * k_bar[:h] + q_bar[h:] * k_bar[h:]
    b = q_bar[h:] * k_bar[:h] - q_bar[:h] * k_bar[h:]
    for index, r in enumerate(out["distances"]):
        want = float(((a * torch.cos(r * w)) - (b * torch.sin(r * w))).sum()) / math.sqrt(DH)
        assert out["logit_vs_distance"]["mean"][0][0][index] == pytest.approx(want, abs=1e-4)


def test_random_queries_show_no_distance_trend():
    """Zero-mean random q/k with per-channel std s_q, s_k: each rotated logit has mean 0 and std
    sqrt(sum_c s_q,c^2 s_k,c^2) / sqrt(Dh) (a rotation mixes a pair's channels but keeps that sum when both channels
    of a pair share a std; here bounded with the pair maximum), so the mean over the T - r queries at distance r
    stays within 5 / sqrt(T - r) of those units."""
    out, (q, k) = _summary_and_layer0_qk(_llama())
    sq = q[0].reshape(T, HEADS, DH).std(0).double()  # [H, Dh]
    sk = k[0].reshape(T, KV, DH).std(0).double().repeat_interleave(HEADS // KV, 0)
    h = DH // 2
    pair_q = torch.maximum(sq[:, :h], sq[:, h:]).repeat(1, 2)  # the larger std of each pair, on both channels
    pair_k = torch.maximum(sk[:, :h], sk[:, h:]).repeat(1, 2)
    unit = (pair_q.pow(2) * pair_k.pow(2)).sum(-1).sqrt() / math.sqrt(DH)  # [H]
    random = np.asarray(out["logit_vs_distance"]["random"])[0]  # [H, D]
    for index, r in enumerate(out["distances"]):
        assert np.all(np.abs(random[:, index]) < 5 * unit.numpy() / math.sqrt(T - r))


def _config():
    return LlamaConfig(vocab_size=80, hidden_size=HEADS * DH, intermediate_size=64, num_hidden_layers=2,
                       num_attention_heads=HEADS, num_key_value_heads=KV, max_position_embeddings=256)


def test_distances_are_the_bin_edges_and_the_small_odd_ones():
    # distance_bins(39) = 0, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48: all but the last edge, with 5 and 7 added
    assert RopeAccumulator(_config(), max_len=T).distances == [0, 1, 2, 3, 4, 5, 6, 7, 8, 12, 16, 24, 32]
    assert RopeAccumulator(_config(), max_len=6).distances == [0, 1, 2, 3, 4, 5]


def test_everything_stays_on_the_projections_device():
    """Fed on the meta device (which mixes with no other), the tables, curves and check are made there too."""
    acc = RopeAccumulator(_config(), max_len=12)
    acc.add_qk(0, torch.ones(1, 12, HEADS * DH, device="meta"), torch.ones(1, 12, KV * DH, device="meta"))
    acc.add_attention(0, torch.ones(1, HEADS, 12, 12, device="meta"))
    assert acc._check.device.type == "meta"
    assert {curve.device.type for curve in acc._curves[0].values()} == {"meta"}


def _random_curves(q, k):
    acc = RopeAccumulator(_config(), max_len=T)
    acc.add_qk(0, q, k)
    acc.add_attention(0, torch.zeros(1, HEADS, T, T))
    return np.asarray(acc.summary()["logit_vs_distance"]["random"])[0]  # [H, D]


def test_random_queries_take_each_heads_own_spread():
    """The random q of head h has head h's per-channel std: scaling head 0's queries by 1000 scales its random curve
    by 1000 (the draws are the same) and leaves the other heads' curves as they were."""
    rng = torch.Generator().manual_seed(3)
    q, k = torch.randn(1, T, HEADS * DH, generator=rng), torch.randn(1, T, KV * DH, generator=rng)
    scaled = q.clone()
    scaled[..., :DH] *= 1000.0
    before, after = _random_curves(q, k), _random_curves(scaled, k)
    np.testing.assert_allclose(after[1:], before[1:], rtol=1e-6)
    np.testing.assert_allclose(after[0], 1000.0 * before[0], rtol=1e-4)


def test_quarter_shares_are_per_layer_means_over_heads():
    """q/k shares of the fastest and slowest quarter of pairs, summed over the quarter and averaged over heads,
    one number per layer (here 2 layers and 2 kv heads, so averaging over the wrong axis would keep the shape)."""
    out = _run(_llama(), torch.randint(0, 80, (1, T)))
    quarter = DH // 2 // 4
    for name in ("q", "k"):
        share = np.asarray(out[f"{name}_pair_share"])  # [L, H, R/2]
        np.testing.assert_allclose(out[f"{name}_share_fastest_quarter"], share[..., :quarter].sum(-1).mean(-1),
                                   rtol=1e-6)
        np.testing.assert_allclose(out[f"{name}_share_slowest_quarter"], share[..., -quarter:].sum(-1).mean(-1),
                                   rtol=1e-6)


def test_band_offset_shares_by_a_loop_over_pairs():
    """Eta squared of each pair's logit contribution over the query-key offset, by a loop over the causal pairs; a
    pair whose contribution depends on the offset alone gives 1, one that does not depend on it gives about 0."""
    from posenc.probe.rope_usage import band_offset_shares

    g = torch.Generator().manual_seed(3)
    q, k = torch.randn(2, 12, 8, generator=g), torch.randn(2, 12, 8, generator=g)
    got = band_offset_shares(q, k, "half", 6)
    assert got.shape == (2, 4)
    qn, kn = q.double().numpy(), k.double().numpy()
    for h in range(2):
        for b in range(4):
            groups: dict[int, list[float]] = {}
            for i in range(12):
                for j in range(i + 1):
                    if i - j <= 6:
                        groups.setdefault(i - j, []).append(qn[h, i, b] * kn[h, j, b] + qn[h, i, b + 4] * kn[h, j, b + 4])
            values = np.concatenate([np.array(v) for v in groups.values()])
            between = sum(len(v) * (np.mean(v) - values.mean()) ** 2 for v in groups.values())
            assert got[h, b].item() == pytest.approx(between / ((values - values.mean()) ** 2).sum(), rel=1e-10)
    # a contribution cos(r w) of the offset alone: constant queries and keys rotated by RoPE, explained entirely
    t = torch.arange(12, dtype=torch.float64)
    angle = 0.7 * t
    qr = torch.stack([torch.cos(angle), torch.sin(angle)], -1)[None]  # [1, T, 2]: one pair, half pairing
    assert band_offset_shares(qr, qr, "half", 6)[0, 0].item() == pytest.approx(1.0)
    inter = band_offset_shares(q, k, "interleaved", 6)
    assert inter.shape == (2, 4) and not torch.allclose(inter, got)


def test_band_position_shares_on_a_tiny_llama():
    """Every layer and head of a random Llama on two windows, each share within [0, 1]."""
    from posenc.probe.rope_usage import band_position_shares

    out = band_position_shares(_llama(theta=500.0), [list(range(5, 25)), list(range(30, 50))], 8)
    assert out.shape == (2, 2, HEADS, DH // 2) and (out >= 0).all() and (out <= 1 + 1e-12).all()
