"""The plan of an extend run: a passkey-only run, and the time model with shared passkey prefixes."""

from __future__ import annotations

import pytest
from extend_models import NATIVE, tiny_config

from posenc import PosencError
from posenc.extend import scaled_rope
from posenc.extend.factors import EXTEND_SCALINGS
from posenc.extend.plan import ExtendConfig, decode_seconds, decode_work, forward_seconds, forward_work, make_plan
from posenc.resources import seconds, usable_cores


def _plan(**kwargs):
    config = tiny_config()
    return make_plan(ExtendConfig(**kwargs), NATIVE, lambda s, f: scaled_rope(config, s, f, NATIVE))


def test_passkey_alone_runs_no_window():
    plan = _plan(lengths=(64, 128), scalings=("none", "yarn"), protocols=(), passkey=True, depths=(0.0, 1.0),
                 trials=3)
    assert plan.windows == [] and plan.config.protocols == ()
    # 64 tokens: both scalings are the unscaled model (s = 1): 2 depths x 3 trials; 128 tokens: twice that
    assert len(plan.passkeys) == 6 + 12
    assert "passkey only" in plan.describe()
    with pytest.raises(PosencError, match="nothing to run"):
        ExtendConfig(protocols=(), passkey=False)


def test_forward_work_of_smollm2_by_hand():
    # SmolLM2-135M: 30 layers, h = 576, I = 1536, 9 heads of 64, 3 key/value heads (k d = 192), V = 49152. Per token:
    # 2 (30 (2 * 576^2 + 2 * 576 * 192 + 3 * 576 * 1536) + 576 * 49152) = 2 (30 * 3,538,944 + 28,311,552)
    # = 268,959,744; attention 4 * 30 * 576 L^2 = 69,120 L^2
    per_token = 2 * (30 * (2 * 576 ** 2 + 2 * 576 * 192 + 3 * 576 * 1536) + 576 * 49152)
    assert per_token == 268_959_744
    assert forward_work(2048) == 2048 * 268_959_744 + 69_120 * 2048 ** 2
    # decoding: 8 steps of one token attending to 4096 (+ 4 * 30 * 4096 * 576 each), moving the cache of
    # 2 * 30 * 576 * 4096 float32 numbers twice
    flops, moved = decode_work(4096)
    assert flops == 8 * (268_959_744 + 69_120 + 4 * 30 * 4096 * 576)
    assert moved == 8 * 2 * (2 * 30 * 576 * 4096 * 4)


def test_time_model_counts_the_shared_prefix_once():
    # depth 0.5 at 4096, 3 trials: the text before the needle once (f(2048)), then per trial the rest
    # (f(4096) - f(2048)) and the decoding; depth 0 shares nothing, so each trial costs a whole prompt
    f2, f4, d4 = forward_seconds(2048), forward_seconds(4096), decode_seconds(4096)
    assert forward_seconds(2048) == pytest.approx(seconds(forward_work(2048), threads=usable_cores()), rel=1e-12)
    plan = _plan(lengths=(4096,), scalings=("none",), protocols=(), passkey=True, depths=(0.5,), trials=3)
    assert plan.estimate_seconds() == pytest.approx(f2 + 3 * (f4 - f2 + d4), rel=1e-9)
    deep = _plan(lengths=(4096,), scalings=("none",), protocols=("nonoverlap",), passkey=True, depths=(0.0,),
                 trials=2, windows=1)
    assert deep.estimate_seconds() == pytest.approx(f4 + 2 * (f4 + d4), rel=1e-9)


def test_time_model_scales_with_layers_and_length():
    # half the layers: half the work; twice the length: twice the linear part and four times attention's
    from types import SimpleNamespace

    def shape(layers):
        return SimpleNamespace(num_hidden_layers=layers, hidden_size=576, intermediate_size=1536,
                               num_attention_heads=9, num_key_value_heads=3, vocab_size=49152)

    smollm2 = forward_work(2048)
    assert forward_work(2048, shape(30)) == smollm2  # SmolLM2's own shape: the default
    head = 2 * 2048 * 576 * 49152  # the output layer, once whatever the layers
    assert forward_work(2048, shape(15)) - head == pytest.approx((smollm2 - head) / 2, rel=1e-12)
    linear, quadratic = 2048 * 268_959_744, 69_120 * 2048 ** 2
    assert forward_work(4096) == 2 * linear + 4 * quadratic
    assert forward_seconds(4096) / forward_seconds(2048) == pytest.approx((2 * linear + 4 * quadratic) / smollm2)


def test_a_given_factor_is_every_lengths_factor():
    # --factor 4 fixes s at 4 for every length, instead of max(1, L / 64) = 1 and 2
    plan = _plan(lengths=(64, 128), scalings=("none", "yarn"), passkey=False, windows=1, factor=4.0)
    assert plan.factors == {64: 4.0, 128: 4.0}
    assert "factor s=4" in plan.describe()


def test_the_defaults_are_the_documented_table():
    # the module docstring: lengths 2k..16k, every scaling, both protocols, passkey at depths 0.25 and 0.75, 1 trial
    c = ExtendConfig()
    assert (c.model, c.lengths, c.scalings, c.protocols) == (
        "smollm2", (2048, 4096, 8192, 16384), EXTEND_SCALINGS.names(), ("nonoverlap", "sliding"))
    assert (c.passkey, c.depths, c.trials, c.windows, c.stride_fraction, c.factor) == (True, (0.25, 0.75), 1, None,
                                                                                        0.5, None)
    assert (c.quick, c.device, c.dtype, c.text, c.max_memory_gb, c.seed) == (False, "auto", "float32", None, None, 0)
    # quick: 4k, 8k, 12k; none, linear, yarn; no passkey unless asked, then one trial at depth 0.5
    q = ExtendConfig(quick=True)
    assert (q.lengths, q.scalings, q.passkey, q.depths) == ((4096, 8192, 12288), ("none", "linear", "yarn"), False,
                                                            (0.5,))


# native length 8192: max(1, min(4, 8192 // L)) windows, hand-divided at each side of every switch
@pytest.mark.parametrize("length,windows", [(1024, 4), (2048, 4), (2049, 3), (2730, 3), (2731, 2), (4096, 2),
                                            (4097, 1), (8192, 1), (16384, 1)])
def test_windows_per_length_switch_where_the_native_length_divides(length, windows):
    assert ExtendConfig().windows_for(length, 8192) == windows
    assert ExtendConfig(quick=True).windows_for(length, 8192) == 1  # quick: one window whatever the length
    assert ExtendConfig(windows=7).windows_for(length, 8192) == 7  # a given count wins


@pytest.mark.parametrize("length,fraction,stride", [(4096, 0.5, 2048), (66, 0.5, 33), (64, 1.0, 64),
                                                    (64, 0.25, 16), (64, 0.001, 1)])  # 0.064 rounds to 0: at least 1
def test_the_sliding_stride_is_the_rounded_fraction_of_the_length_and_at_least_one(length, fraction, stride):
    assert ExtendConfig(stride_fraction=fraction).stride_for(length) == stride


@pytest.mark.parametrize("fraction", [0.0, -0.5, 1.0 + 1e-9, 2.0])
def test_a_stride_fraction_outside_zero_to_one_is_refused(fraction):
    with pytest.raises(PosencError, match=r"stride_fraction must be in \(0, 1\]"):
        ExtendConfig(stride_fraction=fraction)


def test_lengths_from_64_tokens_are_taken_sorted_once_and_63_is_refused():
    assert ExtendConfig(lengths=(4096, 64, 4096)).lengths == (64, 4096)
    with pytest.raises(PosencError, match="lengths must be integers >= 64 tokens, got 63"):
        ExtendConfig(lengths=(63,))


@pytest.mark.parametrize("depth,taken", [(0.0, True), (1.0, True), (-0.001, False), (1.001, False)])
def test_passkey_depths_are_taken_from_zero_to_one_both_included(depth, taken):
    if taken:
        assert ExtendConfig(depths=(depth,)).depths == (depth,)
    else:
        with pytest.raises(PosencError, match="passkey depths must be numbers in"):
            ExtendConfig(depths=(depth,))


@pytest.mark.parametrize("cap,taken", [(1e-6, True), (0, False), (float("inf"), False)])
def test_a_memory_cap_must_be_positive_and_finite(cap, taken):
    if taken:
        assert ExtendConfig(max_memory_gb=cap).max_memory_gb == cap
    else:
        with pytest.raises(PosencError, match="max_memory_gb must be a number > 0"):
            ExtendConfig(max_memory_gb=cap)


def test_windows_shared_by_protocols_and_unscaled_lengths_are_one_job_each():
    # 4 windows a protocol, stride L / 2. At L = 64 (the native length, factor 1) none and yarn are the same model:
    # nonoverlap 0, 64, 128, 192 and sliding 0, 32, 64, 96 are 6 distinct offsets, one job each for both scalings.
    # At L = 128 (factor 2) they differ: nonoverlap 0, 128, 256, 384 and sliding 0, 64, 128, 192, 6 offsets twice.
    plan = _plan(lengths=(64, 128), scalings=("none", "yarn"), passkey=False, windows=4)
    assert plan.offsets[("sliding", 64)] == [0, 32, 64, 96] and plan.offsets[("nonoverlap", 128)] == [0, 128, 256, 384]
    at_64 = [j for j in plan.windows if j.length == 64]
    assert sorted(j.offset for j in at_64) == [0, 32, 64, 96, 128, 192]
    assert all(j.scalings == ["none", "yarn"] for j in at_64)
    assert len([j for j in plan.windows if j.length == 128]) == 12 and len(plan.windows) == 18
    assert plan.strides == {64: 32, 128: 64} and plan.factors == {64: 1.0, 128: 2.0}
