"""Bad input to the encodings' Python API: every case raises a :class:`PosencError` (of the class named) whose one-line
message names the value, never a raw torch or Python error, an allocation that exhausts memory, or a silent answer.

``issue-*`` cases are the second round's findings, ``r3-*`` a further round. xPos over long spans is in
test_xpos_range.py (a correct result, not an error).
"""

import pytest
import torch

import posenc
from posenc.encodings import PositionOutOfRange, convert_qk_weights, sinusoidal_table, t5_bucket
from posenc.errors import PosencError
from posenc.kernels import apply_rope
from posenc.names import UnknownName

build = posenc.build


def _q(*shape, dtype=torch.float32):
    return torch.randn(*shape, dtype=dtype)


def _rope_rotate(**kwargs):
    q = kwargs.pop("q", _q(1, 1, 2, 8))
    k = kwargs.pop("k", _q(1, 1, 2, 8))
    qp = kwargs.pop("qp", torch.arange(2))
    kp = kwargs.pop("kp", torch.arange(2))
    return build("rope", head_dim=8).rotate(q, k, qp, kp, **kwargs)


CASES = [
    # -- silent wrong numbers (issue) ------------------------------------------------------------------------------
    ("issue-integer-input-to-sinusoidal", lambda: build("sinusoidal").embed(torch.zeros(1, 3, 4, dtype=torch.long),
                                                                          torch.arange(3)),
     ["sinusoidal.embed takes floating-point token embeddings", "torch.int64", "x.float()"]),
    ("issue-integer-input-to-learned", lambda: build("learned", dim=4, max_len=8).embed(
        torch.zeros(1, 3, 4, dtype=torch.int32), torch.arange(3)), ["learned.embed", "torch.int32"]),
    ("issue-yarn-inverted-betas", lambda: build("rope", head_dim=8, scaling={
        "type": "yarn", "factor": 4, "original_max_len": 2048, "beta_fast": 1, "beta_slow": 32}),
     ["beta_fast (1) must exceed beta_slow (32)", "beta_fast=32, beta_slow=1"]),
    ("issue-yarn-equal-betas", lambda: build("rope", head_dim=8, scaling={
        "type": "yarn", "factor": 4, "original_max_len": 2048, "beta_fast": 8, "beta_slow": 8}),
     ["beta_fast (8) must exceed beta_slow (8)"]),
    ("issue-base-inf", lambda: build("rope", head_dim=8, base=float("inf")),
     ["RoPE base must be a finite number > 1, got inf"]),
    ("issue-sinusoidal-base-inf", lambda: build("sinusoidal", dim=4, base=float("inf")),
     ["base must be a finite number > 1, got inf"]),
    ("issue-string-for-inplace", lambda: _rope_rotate(inplace="no"), ["inplace must be True or False, got 'no'"]),
    ("issue-string-for-a-flag-option", lambda: build("rope", head_dim=8, scale_logits="no"),
     ["option scale_logits is a flag", "got 'no'"]),
    ("issue-d-model-not-divisible", lambda: posenc.build_for_model("rope", d_model=10, n_heads=3),
     ["d_model (10) is not divisible by n_heads (3)", "n_heads=2"]),
    # -- tracebacks and allocations where a message belongs (issue) -----------------------------------------------
    ("issue-rope-head-dim-2-40", lambda: build("rope", head_dim=2 ** 40),
     [f"rotary width of {2 ** 40} channels does not fit in memory", "estimated", "head_dim"]),
    ("issue-learned-1e6-square", lambda: build("learned", dim=10 ** 6, max_len=10 ** 6),
     ["a learned table of 1000000 x 1000000 float32 values does not fit in memory", "smaller max_len or dim"]),
    ("issue-bias-at-1e5-positions", lambda: build("alibi", n_heads=8).bias(torch.arange(10 ** 5), torch.arange(10 ** 5)),
     ["alibi bias of 8 head(s) over 100000 query x 100000 key positions does not fit in memory", "fewer positions"]),
    ("issue-t5-bias-at-1e5-positions", lambda: build("t5", n_heads=8).bias(torch.arange(10 ** 5), torch.arange(10 ** 5)),
     ["t5 bias of 8 head(s) over 100000 query x 100000 key positions"]),
    ("issue-table-minus-one", lambda: build("sinusoidal", dim=4).table(-1),
     ["table length must be an integer >= 0", "got -1"]),
    ("issue-table-2-31", lambda: build("sinusoidal", dim=4).table(2 ** 31),
     ["table of 2147483648 positions x 4 channels does not fit in memory"]),
    ("issue-table-2-31-no-width", lambda: build("sinusoidal").table(2 ** 31),
     ["the encoding width is unknown", ".table(2147483648, dim=64)"]),
    ("issue-position-batches-differ", lambda: build("alibi", n_heads=2).bias(torch.zeros(2, 3, dtype=torch.long),
                                                                              torch.zeros(3, 3, dtype=torch.long)),
     ["q_positions has batch 2 but k_positions has batch 3"]),
    ("issue-rotate-position-batch", lambda: _rope_rotate(q=_q(2, 1, 2, 8), k=_q(2, 1, 2, 8),
                                                         qp=torch.zeros(3, 2, dtype=torch.long)),
     ["q_positions has batch 3 but the input has batch 2"]),
    ("issue-meta-positions", lambda: _rope_rotate(qp=torch.arange(2, device="meta")),
     ["q_positions is on the meta device"]),
    ("issue-meta-bias-positions", lambda: build("alibi", n_heads=2).bias(torch.arange(2, device="meta"),
                                                                          torch.arange(2)),
     ["q_positions is on the meta device"]),
    # -- r3: options at build ----------------------------------------------------------------------------------------
    ("r3-unknown-option-typo", lambda: build("rope", hed_dim=64), ["unknown option(s) 'hed_dim'",
                                                                  "Did you mean 'head_dim' for 'hed_dim'?"]),
    ("r3-rope-head-dim-float", lambda: build("rope", head_dim=64.0), ["head_dim must be an even integer >= 2",
                                                                     "got 64.0"]),
    ("r3-rope-head-dim-odd", lambda: build("rope", head_dim=7), ["got 7"]),
    ("r3-rope-base-string", lambda: build("rope", head_dim=8, base="10000"),
     ["RoPE base must be a finite number > 1, got '10000'"]),
    ("r3-rope-base-nan", lambda: build("rope", head_dim=8, base=float("nan")), ["got nan"]),
    ("r3-ntk-base-string", lambda: build("rope", head_dim=8, base="1e4", scaling={"type": "ntk", "factor": 2}),
     ["RoPE base must be a finite number > 1, got '1e4'"]),
    ("r3-axial-base-string", lambda: build("axial_rope", head_dim=8, base="10000"), ["got '10000'"]),
    ("r3-mrope-base-string", lambda: build("mrope", head_dim=12, base="10000", mrope_section=[2, 2, 2]),
     ["got '10000'"]),
    ("r3-rope-rotary-above-head", lambda: build("rope", head_dim=8, rotary_dim=16),
     ["rotary_dim (16) cannot exceed head_dim (8)"]),
    ("r3-rope-pairing", lambda: build("rope", head_dim=8, pairing="HALF"), ["got 'HALF'"]),
    ("r3-scaling-type", lambda: build("rope", head_dim=8, scaling={"type": "yarnn"}),
     ["unknown RoPE scaling 'yarnn'"]),
    ("r3-scaling-not-a-dict", lambda: build("rope", head_dim=8, scaling=5),
     ["scaling must be None, a name, a dict or a RopeScaling, got int"]),
    ("r3-scaling-factor-string", lambda: build("rope", head_dim=8, scaling={"type": "linear", "factor": "2"}),
     ["scaling factor must be a number >= 1", "got '2'"]),
    ("r3-scaling-factor-below-1", lambda: build("rope", head_dim=8, scaling={"type": "linear", "factor": 0.5}),
     ["got 0.5"]),
    ("r3-scaling-factor-nan", lambda: build("rope", head_dim=8, scaling={"type": "yarn", "factor": float("nan")}),
     ["got nan"]),
    ("r3-scaling-original-float", lambda: build("rope", head_dim=8, scaling={
        "type": "yarn", "factor": 4, "original_max_len": 2048.5}), ["original_max_len must be a positive integer",
                                                                      "got 2048.5"]),
    ("r3-scaling-unknown-parameter", lambda: build("rope", head_dim=8, scaling={"type": "linear", "factr": 2}),
     ["unknown parameter(s) 'factr' for RoPE scaling 'linear'"]),
    ("r3-yarn-beta-negative", lambda: build("rope", head_dim=8, scaling={
        "type": "yarn", "factor": 4, "original_max_len": 2048, "beta_slow": -1}),
     ["yarn scaling: beta_slow must be a finite number > 0, got -1"]),
    ("r3-yarn-mscale-negative", lambda: build("rope", head_dim=8, scaling={
        "type": "yarn", "factor": 4, "original_max_len": 2048, "mscale": -1}),
     ["yarn scaling: mscale must be a finite number >= 0, got -1"]),
    ("r3-yarn-attention-factor-zero", lambda: build("rope", head_dim=8, scaling={
        "type": "yarn", "factor": 4, "original_max_len": 2048, "attention_factor": 0}),
     ["attention_factor must be a finite number > 0, got 0"]),
    ("r3-yarn-truncate-string", lambda: build("rope", head_dim=8, scaling={
        "type": "yarn", "factor": 4, "original_max_len": 2048, "truncate": "yes"}),
     ["truncate must be True or False, got 'yes'"]),
    ("r3-llama3-low-negative", lambda: build("rope", head_dim=8, scaling={
        "type": "llama3", "factor": 8, "low_freq_factor": -1, "original_max_len": 8192}),
     ["llama3 scaling: low_freq_factor must be a finite number > 0, got -1"]),
    ("r3-llama3-high-below-low", lambda: build("rope", head_dim=8, scaling={
        "type": "llama3", "factor": 8, "low_freq_factor": 4, "high_freq_factor": 1, "original_max_len": 8192}),
     ["high_freq_factor > low_freq_factor", "got 1.0 and 4.0"]),
    ("r3-longrope-zero-factor", lambda: build("rope", head_dim=4, scaling={
        "type": "longrope", "short_factor": [1, 0], "long_factor": [1, 1], "original_max_len": 4096}),
     ["longrope short_factor must hold finite numbers > 0", "[0]"]),
    ("r3-longrope-string", lambda: build("rope", head_dim=4, scaling={
        "type": "longrope", "short_factor": "ab", "long_factor": [1, 1], "original_max_len": 4096}),
     ["longrope needs short_factor with one value per rotary pair (2), got 'ab'"]),
    ("r3-ntk-on-two-channels", lambda: build("rope", head_dim=2, scaling={"type": "ntk", "factor": 2}),
     ["NTK scaling needs a rotary dim > 2", "got 2"]),
    ("r3-proportional-above-1", lambda: build("rope", head_dim=8, scaling={
        "type": "proportional", "partial_rotary_factor": 1.5}), ["in [0, 1], got 1.5"]),
    ("r3-sinusoidal-odd", lambda: build("sinusoidal", dim=3), ["an even integer >= 2, got 3"]),
    ("r3-sinusoidal-layout", lambda: build("sinusoidal", dim=4, layout="x"), ["got 'x'"]),
    ("r3-sinusoidal-combine", lambda: build("sinusoidal", dim=4, combine="sum"),
     ["combine must be 'add' or 'concat', got 'sum'"]),
    ("r3-sinusoidal-base-string", lambda: build("sinusoidal", dim=4, base="10000"),
     ["base must be a finite number > 1, got '10000'"]),
    ("r3-learned-dim-none", lambda: build("learned", dim=None), ["learned: dim is required"]),
    ("r3-learned-max-len", lambda: build("learned", dim=4, max_len=-1), ["max_len must be a positive integer, got -1"]),
    ("r3-learned-init-std", lambda: build("learned", dim=4, max_len=4, init_std=-1),
     ["init_std must be a finite number >= 0, got -1"]),
    ("r3-integer-start-string", lambda: build("integer", dim=4, start="1"),
     ["integer: start must be a finite number", "got '1'"]),
    ("r3-integer-start-nan", lambda: build("integer", dim=4, start=float("nan")), ["got nan"]),
    ("r3-normalized-length", lambda: build("normalized", dim=4, length="5"),
     ["length must be a positive integer or None, got '5'"]),
    ("r3-alibi-slopes-string", lambda: build("alibi", n_heads=3, slopes="abc"),
     ["ALiBi slopes must be a list of numbers", "got 'abc'"]),
    ("r3-alibi-slopes-count", lambda: build("alibi", n_heads=4, slopes=[1.0, 2.0]), ["ALiBi got 2 slopes for 4"]),
    ("r3-alibi-heads-string", lambda: build("alibi", n_heads=3, heads="01"),
     ["heads must be a list of head indices in 0..2, got '01'"]),
    ("r3-alibi-heads-twice", lambda: build("alibi", n_heads=3, heads=[0, 0]), ["heads lists a head twice: [0, 0]"]),
    ("r3-t5-max-distance-string", lambda: build("t5", max_distance="128"),
     ["max_distance must be a positive integer", "got '128'"]),
    ("r3-t5-max-distance-float", lambda: build("t5", max_distance=128.5), ["got 128.5"]),
    ("r3-t5-buckets-odd", lambda: build("t5", num_buckets=31), ["num_buckets must be an integer >= 4 (even when "
                                                                 "bidirectional), got 31"]),
    ("r3-t5-bidirectional-string", lambda: build("t5", bidirectional="no"), ["option bidirectional is a flag"]),
    ("r3-t5-bucket-float", lambda: t5_bucket(torch.tensor([1.5])),
     ["relative positions must be an integer tensor", "torch.float32"]),
    ("r3-xpos-gamma-zero", lambda: build("xpos", head_dim=8, gamma=0), ["xpos gamma must be a finite number > 0"]),
    ("r3-xpos-scale-base-string", lambda: build("xpos", head_dim=8, scale_base="512"), ["got '512'"]),
    ("r3-fire-c-string", lambda: build("fire", c="1"), ["FIRE's c must be > 0", "got '1'"]),
    ("r3-kerple-kernel", lambda: build("kerple", kernel="gauss"), ["got 'gauss'"]),
    ("r3-kerple-r1-nan", lambda: build("kerple", r1=float("nan")), ["r1=nan"]),
    ("r3-sandwich-dim-0", lambda: build("sandwich", dim=0), ["got 0"]),
    ("r3-cope-head-dim-0", lambda: build("cope", head_dim=0), ["CoPE needs a positive integer head_dim, got 0"]),
    ("r3-randomized-options-string", lambda: build("randomized", options="x"),
     ["randomized: options (of the wrapped encoding) must be a dict", "got 'x'"]),
    ("r3-randomized-seed-negative", lambda: build("randomized", seed=-1),
     ["randomized: seed must be an integer in 0..4294967295, got -1"]),
    ("r3-randomized-seed-huge", lambda: build("randomized", seed=2 ** 70), [f"got {2 ** 70}"]),
    ("r3-randomized-itself", lambda: build("randomized", encoding="randomized"), ["randomized cannot wrap itself"]),
    ("r3-randomized-unknown", lambda: build("randomized", encoding="nosuch"), ["unknown encoding 'nosuch'"]),
    ("r3-mrope-section-sum", lambda: build("mrope", head_dim=12, mrope_section=[1, 1]), ["sums to 2 pairs"]),
    ("r3-axial-grid-width", lambda: build("axial_rope", head_dim=8, grid_width=0), ["got 0"]),
    ("r3-p-rope-p", lambda: build("p_rope", head_dim=8, p=1.5), ["got 1.5"]),
    ("r3-build-for-model-negative", lambda: posenc.build_for_model("rope", d_model=-4, n_heads=2),
     ["d_model must be a positive integer, got -4"]),
    ("r3-unknown-encoding", lambda: build("ropee"), ["unknown encoding 'ropee'", "Did you mean 'rope'?"]),
    # -- r3: hooks -------------------------------------------------------------------------------------------------
    ("r3-positions-list", lambda: _rope_rotate(qp=[0, 1]), ["q_positions must be an integer torch.Tensor", "got list"]),
    ("r3-positions-float", lambda: _rope_rotate(qp=torch.tensor([0.0, 1.0])), ["q_positions must hold integers",
                                                                               "torch.float32"]),
    ("r3-positions-negative", lambda: _rope_rotate(qp=torch.tensor([-1, 0])), ["q_positions must be >= 0",
                                                                               "got minimum -1"]),
    ("r3-positions-length", lambda: _rope_rotate(qp=torch.arange(3)), ["q_positions has 3 entries but the sequence "
                                                                      "has 2 tokens"]),
    ("r3-positions-3d", lambda: _rope_rotate(qp=torch.zeros(1, 1, 2, dtype=torch.long)), ["got shape [1, 1, 2]"]),
    ("r3-inplace-one", lambda: _rope_rotate(inplace=1), ["inplace must be True or False, got 1"]),
    ("r3-seq-len-zero", lambda: _rope_rotate(seq_len=0), ["seq_len must be a positive integer", "got 0"]),
    ("r3-q-integer", lambda: _rope_rotate(q=torch.zeros(1, 1, 2, 8, dtype=torch.long)),
     ["q must be a floating-point tensor, got torch.int64"]),
    ("r3-q-3d", lambda: _rope_rotate(q=_q(1, 2, 8)), ["q must have shape [batch, heads, seq, head_dim], got [1, 2, 8]"]),
    ("r3-q-head-dim", lambda: _rope_rotate(q=_q(1, 1, 2, 6)), ["q has head_dim 6 but this encoding was built for "
                                                              "head_dim 8"]),
    ("r3-gqa-heads", lambda: _rope_rotate(q=_q(1, 3, 2, 8), k=_q(1, 2, 2, 8)),
     ["q heads (3) must be a multiple of k heads (2)"]),
    ("r3-embed-4d", lambda: build("sinusoidal").embed(_q(1, 1, 3, 4), torch.arange(3)), ["shape [1, 1, 3, 4]"]),
    ("r3-embed-list", lambda: build("sinusoidal").embed([[1.0]], torch.arange(1)), ["got list"]),
    ("r3-embed-width", lambda: build("sinusoidal", dim=8).embed(_q(1, 3, 4), torch.arange(3)),
     ["x has width 4 and dim=8"]),
    ("r3-table-float-length", lambda: build("sinusoidal", dim=4).table(3.5), ["got 3.5"]),
    ("r3-table-odd-width", lambda: build("sinusoidal").table(5, dim=3), ["got 3"]),
    ("r3-bias-float-positions", lambda: build("alibi", n_heads=2).bias(torch.tensor([0.5]), torch.arange(2)),
     ["q_positions must hold integers"]),
    ("r3-fire-bias-huge", lambda: build("fire", n_heads=2).bias(torch.arange(10 ** 5), torch.arange(10 ** 5)),
     ["fire bias of 2 head(s) over 100000 query x 100000 key positions does not fit in memory"]),
    ("r3-cope-head-dim-mismatch", lambda: build("cope", head_dim=8).contextual_bias(
        _q(1, 1, 2, 4), _q(1, 1, 2, 4), torch.arange(2), torch.arange(2)), ["CoPE was built for head_dim 8"]),
    ("r3-randomized-range", lambda: build("randomized", encoding="sinusoidal", max_len=4, d_model=4).embed(
        _q(1, 8, 4), torch.arange(8)), ["needs 8 distinct positions but the range is [0, 4)"]),
    ("r3-apply-rope-pairing", lambda: apply_rope(_q(1, 1, 2, 8), _q(1, 1, 2, 8), *[torch.ones(2, 4)] * 4,
                                                 pairing="diag"), ["pairing must be 'half' or 'interleaved', got 'diag'"]),
    ("r3-convert-weights-rows", lambda: convert_qk_weights(torch.randn(10, 4), 2, 8, "half", "interleaved"),
     ["weight has 10 output rows but n_heads * head_dim = 2 * 8 = 16"]),
    ("r3-sinusoidal-table-layout", lambda: sinusoidal_table(torch.arange(3), 4, layout="x"), ["got 'x'"]),
    # -- issue 40: constructor arguments checked even where unused; q laid out [B, T, H, Dh] --------------------------
    ("i40-dape-max-len-negative", lambda: build("dape", max_len=-1),
     ["DAPE: max_len must be a positive integer or None", "got -1"]),
    ("i40-dape-max-len-text", lambda: build("dape", encoding="alibi", max_len="long"), ["got 'long'"]),
    ("i40-dape-options-not-a-dict", lambda: build("dape", options=0),
     ["DAPE: options (of the base encoding) must be a dict", "got 0"]),
    ("i40-randomized-d-model", lambda: build("randomized", encoding="rope", head_dim=8, d_model=-1),
     ["randomized: d_model must be a positive integer or None, got -1"]),
    ("i40-randomized-n-heads", lambda: build("randomized", encoding="sinusoidal", d_model=8, n_heads=2.5),
     ["randomized: n_heads must be a positive integer or None, got 2.5"]),
    ("i40-rope-q-transposed", lambda: _rope_rotate(q=_q(1, 5, 2, 8), k=_q(1, 2, 5, 8), qp=torch.arange(5),
                                                   kp=torch.arange(5)),
     ["q has shape [1, 5, 2, 8], which reads as [B, T, H, Dh]", "q must be [B, H, T, Dh]", "q.transpose(1, 2)"]),
    ("i40-rope-both-transposed", lambda: _rope_rotate(q=_q(1, 5, 4, 8), k=_q(1, 5, 2, 8), qp=torch.arange(5),
                                                      kp=torch.arange(5)), ["q.transpose(1, 2)"]),
    ("i40-rope-k-transposed", lambda: _rope_rotate(q=_q(1, 2, 5, 8), k=_q(1, 5, 2, 8), qp=torch.arange(5),
                                                   kp=torch.arange(5)),
     ["k has shape [1, 5, 2, 8]", "k.transpose(1, 2)"]),
    ("i40-rope-batched-positions", lambda: _rope_rotate(q=_q(2, 5, 2, 8), k=_q(2, 5, 2, 8),
                                                        qp=torch.arange(5).repeat(2, 1), kp=torch.arange(5)),
     ["q.transpose(1, 2)"]),
    ("i40-xpos-q-transposed", lambda: build("xpos", head_dim=8).rotate(_q(1, 5, 2, 8), _q(1, 5, 2, 8),
                                                                      torch.arange(5), torch.arange(5)),
     ["q.transpose(1, 2)"]),
    ("i40-pope-q-transposed", lambda: build("pope", head_dim=8, n_heads=2).rotate(
        _q(1, 5, 2, 8), _q(1, 5, 2, 8), torch.arange(5), torch.arange(5)), ["q.transpose(1, 2)"]),
    ("i40-mrope-q-transposed", lambda: build("mrope", head_dim=8).rotate(
        _q(1, 5, 2, 8), _q(1, 5, 2, 8), torch.arange(5), torch.arange(5)), ["q.transpose(1, 2)"]),
    ("i40-mrope-axes-q-transposed", lambda: build("mrope", head_dim=12).rotate(
        _q(1, 5, 2, 12), _q(1, 5, 2, 12), torch.arange(5).expand(3, 1, 5), torch.arange(5)), ["q.transpose(1, 2)"]),
    ("i40-cope-q-transposed", lambda: build("cope", head_dim=8).contextual_bias(
        _q(1, 5, 2, 8), _q(1, 5, 2, 8), torch.arange(5), torch.arange(5)), ["q.transpose(1, 2)"]),
    ("i40-dape-q-transposed", lambda: build("dape", n_heads=2, head_dim=8, encoding="alibi").contextual_bias(
        _q(1, 5, 2, 8), _q(1, 5, 2, 8), torch.arange(5), torch.arange(5)), ["q.transpose(1, 2)"]),
    ("i40-dape-positions-length", lambda: build("dape", n_heads=2, head_dim=8, encoding="alibi").contextual_bias(
        _q(1, 2, 5, 8), _q(1, 2, 5, 8), torch.arange(4), torch.arange(5)),
     ["q_positions has 4 entries but the sequence has 5 tokens"]),
]

#: cases whose error is a subclass of PosencError with a meaning of its own
KINDS = {"r3-randomized-unknown": UnknownName, "r3-unknown-encoding": UnknownName, "r3-scaling-type": UnknownName}


@pytest.mark.parametrize("call, fragments", [pytest.param(call, fragments, id=name) for name, call, fragments in CASES])
def test_bad_input_raises_one_line_naming_the_value(call, fragments, request):
    with pytest.raises(PosencError) as caught:
        call()
    name = request.node.callspec.id
    assert type(caught.value) is KINDS.get(name, PosencError)
    message = str(caught.value)
    assert "\n" not in message
    for fragment in fragments:
        assert fragment in message, message


def test_a_position_past_a_learned_table_is_its_own_kind_of_error():
    with pytest.raises(PositionOutOfRange, match="position 8 is past the learned table: it was built with max_len=8"):
        build("learned", dim=4, max_len=8).table(9)


def test_a_layout_that_cannot_be_told_apart_is_left_alone():
    # as many heads as tokens: [B, T, H, Dh] and [B, H, T, Dh] look alike, so nothing is refused
    q = _q(1, 3, 3, 8)
    qo, _ = build("rope", head_dim=8).rotate(q, q, torch.arange(3), torch.arange(3))
    assert qo.shape == q.shape


def test_the_table_holds_a_round_of_its_own():
    names = [name for name, _, _ in CASES]
    assert len(names) == len(set(names))
    assert sum(name.startswith("r3-") for name in names) >= 80
