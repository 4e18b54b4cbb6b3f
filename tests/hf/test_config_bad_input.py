"""Malformed Hugging Face configs in posenc.from_hf_config: a one-line PosencError naming the field and the fix, never
a KeyError or TypeError from inside (issue cases), or a value silently used (an infinite rope_theta)."""

import pytest

import posenc
from posenc.errors import PosencError

LLAMA = {"model_type": "llama", "hidden_size": 64, "num_attention_heads": 4, "max_position_embeddings": 4096}


def _config(**fields):
    return {**LLAMA, **fields}


CASES = [
    ("issue-linear-without-factor", _config(rope_scaling={"rope_type": "linear"}),
     ["rope type 'linear' needs 'factor' in rope_parameters / rope_scaling", "holds ['rope_type']"]),
    ("issue-dynamic-without-factor", _config(rope_scaling={"rope_type": "dynamic"}), ["'dynamic' needs 'factor'"]),
    ("issue-llama3-without-bands", _config(rope_scaling={"rope_type": "llama3", "factor": 8}),
     ["'llama3' needs 'low_freq_factor'"]),
    ("issue-longrope-without-factors", _config(rope_scaling={"rope_type": "longrope", "factor": 8}),
     ["'longrope' needs 'short_factor'"]),
    ("issue-rope-scaling-string", _config(rope_scaling="linear"),
     ['config.json field "rope_scaling" = "linear" (a string): expected an object', 'fix: write an object such as']),
    ("issue-bloom-without-heads", {"model_type": "bloom"},
     ["model_type 'bloom'", "the number of attention heads", '"num_attention_heads" or "n_head" or "num_heads"',
      "found none of them"]),
    ("issue-t5-without-buckets", {"model_type": "t5", "num_heads": 8},
     ['the T5 bias\'s buckets as an integer >= 4 in config.json field "relative_attention_num_buckets", found none']),
    ("issue-gpt2-without-positions", {"model_type": "gpt2", "n_embd": 64},
     ['the context length as an integer >= 1 in config.json field "max_position_embeddings" or "n_positions"']),
    ("issue-partial-factor-zero", _config(rope_theta=1e4, partial_rotary_factor=0),
     ['config.json field "partial_rotary_factor" = 0: expected a number in (0, 1]']),
    ("issue-partial-factor-above-one", _config(rope_theta=1e4, partial_rotary_factor=1.5),
     ['"partial_rotary_factor" = 1.5: expected a finite number from 0 to 1']),
    ("issue-partial-factor-negative", _config(rope_theta=1e4, partial_rotary_factor=-0.5),
     ['"partial_rotary_factor" = -0.5: expected a finite number from 0 to 1']),
    ("issue-rope-theta-inf", _config(rope_theta=float("inf")),
     ['config.json field "rope_theta" = Infinity: expected a finite number > 1']),
    ("r3-partial-factor-odd-width", _config(rope_theta=1e4, partial_rotary_factor=0.1),
     ['"partial_rotary_factor" = 0.1 of head_dim 16 gives 1 rotary channel(s)', "a factor such as 0.125"]),
    # 16 x 0.1875 = 3 channels: at least 2 but odd; nearest even width 2 x round(1.5) = 4, i.e. 4 / 16 = 0.25
    ("partial-factor-odd-width-of-three", _config(rope_theta=1e4, partial_rotary_factor=0.1875),
     ['"partial_rotary_factor" = 0.1875 of head_dim 16 gives 3 rotary channel(s)', "a factor such as 0.25"]),
    # 16 x 0.05 = 0.8, truncated to 0 channels: even but no pair; the smallest even width 2 is 2 / 16 = 0.125
    ("partial-factor-no-channel", _config(rope_theta=1e4, partial_rotary_factor=0.05),
     ['"partial_rotary_factor" = 0.05 of head_dim 16 gives 0 rotary channel(s)', "a factor such as 0.125"]),
    ("r3-rope-theta-string", _config(rope_theta="10000"),
     ['config.json field "rope_theta" = "10000" (a string): expected a finite number > 1', "write 10000 without quotes"]),
    ("r3-yarn-no-factor-no-lengths", {"model_type": "llama", "hidden_size": 64, "num_attention_heads": 4,
                                      "rope_scaling": {"rope_type": "yarn"}},
     ["rope type 'yarn' has no factor", "max_position_embeddings (None)"]),
    ("r3-heads-string", _config(num_attention_heads="4", rope_theta=1e4),
     ['config.json field "num_attention_heads" = "4" (a string): expected an integer >= 1', "write 4 without quotes"]),
    ("r3-hidden-zero", _config(hidden_size=0, rope_theta=1e4),
     ['config.json field "hidden_size" = 0: expected an integer >= 1 (the model width)']),
    ("r3-head-dim-string", _config(head_dim="16", rope_theta=1e4),
     ['config.json field "head_dim" = "16" (a string): expected an integer >= 0', "write 16 without quotes"]),
    ("r3-longrope-factors-string", _config(rope_scaling={"rope_type": "longrope", "factor": 2, "short_factor": "x",
                                                         "long_factor": "y", "original_max_position_embeddings": 2048}),
     ['config.json field "rope_scaling.short_factor" = "x" (a string): expected a list of entries, each a number']),
    ("r3-unknown-rope-type", _config(rope_scaling={"rope_type": "su"}), ["RoPE type 'su', which posenc does not "
                                                                         "implement"]),
    ("r3-t5-three-buckets", {"model_type": "t5", "num_heads": 8, "relative_attention_num_buckets": 3},
     ['config.json field "relative_attention_num_buckets" = 3: expected an integer >= 4']),
    ("r3-config-is-a-string", "llama", ["from_hf_config takes a Hugging Face config", "got str"]),
    ("r3-config-is-none", None, ["got NoneType"]),
]


@pytest.mark.parametrize("config, fragments", [pytest.param(c, f, id=name) for name, c, f in CASES])
def test_a_malformed_config_is_named(config, fragments):
    with pytest.raises(PosencError) as caught:
        posenc.from_hf_config(config)
    assert isinstance(caught.value, PosencError) and "\n" not in str(caught.value)
    for fragment in fragments:
        assert fragment in str(caught.value), str(caught.value)


def test_an_unknown_layer_type_is_named():
    config = _config(model_type="gemma3", rope_parameters={"full_attention": {"rope_type": "default",
                                                                              "rope_theta": 1e4}})
    with pytest.raises(PosencError, match="layer_type 'x' has no RoPE parameters in this config; it has them for "
                                          "'full_attention'"):
        posenc.from_hf_config(config, layer_type="x")
