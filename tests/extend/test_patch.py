"""posenc's RoPE patched into a Llama gives the model library's numbers for every scaling both implement."""

from __future__ import annotations

import copy
import math

import pytest
import torch
from extend_models import BASE, NATIVE, tiny_llama

import posenc
from posenc.extend import patch_model, scaled_rope, set_encoding, token_nll
from posenc.extend.passkey import cache_kwargs
from posenc.extend.patch import ROPE_TYPE, FixedLengthRope

S = 4.0  # windows of 4 * NATIVE tokens

# scaling name in posenc -> the same scaling in Hugging Face's rope_parameters (and its max_position_embeddings:
# HF's dynamic NTK measures against max_position_embeddings, yarn / llama3 against original_max_position_embeddings)
HF_SCALINGS = {
    "none": ({"rope_type": "default"}, NATIVE),
    "linear": ({"rope_type": "linear", "factor": S}, NATIVE),
    "dynamic": ({"rope_type": "dynamic", "factor": S}, NATIVE),
    "yarn": ({"rope_type": "yarn", "factor": S, "original_max_position_embeddings": NATIVE}, int(S * NATIVE)),
    "llama3": ({"rope_type": "llama3", "factor": S, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                "original_max_position_embeddings": NATIVE}, int(S * NATIVE)),
}


def ppl(model, ids) -> float:
    return math.exp(float(token_nll(model, ids).double().mean()))


@pytest.fixture(scope="module")
def reference_state():
    return tiny_llama().state_dict()


@pytest.mark.parametrize("name", list(HF_SCALINGS))
def test_patched_model_matches_hugging_face_scaling(name, reference_state, ids):
    params, max_pos = HF_SCALINGS[name]
    library = tiny_llama(params, reference_state, max_position_embeddings=max_pos)
    rope = scaled_rope(library.config, name, S if name != "none" else 1.0, native_len=NATIVE)
    # dynamic NTK at the window's length, as the library evaluates it for a full pass
    ours = patch_model(copy.deepcopy(library), rope, seq_len=len(ids) if name == "dynamic" else None)
    expected, got = ppl(library, ids), ppl(ours, ids)
    assert abs(got - expected) / expected < 1e-4
    if name != "none":  # the check can fail: this scaling moves perplexity far more than the tolerance
        unscaled = ppl(tiny_llama(None, reference_state), ids)
        assert abs(expected - unscaled) / unscaled > 1e-3


@pytest.mark.parametrize("name", [n for n in HF_SCALINGS if n != "none"])
def test_from_hf_config_builds_the_same_frequencies(name):
    # the encoding posenc reads from a scaled HF config equals the one posenc.extend builds from the scaling name
    params, max_pos = HF_SCALINGS[name]
    config = tiny_llama(params, max_position_embeddings=max_pos).config
    from_config = posenc.from_hf_config(config)
    ours = scaled_rope(config, name, S, native_len=NATIVE)
    for length in (NATIVE, 4 * NATIVE):
        a, fa = from_config.frequencies(length)
        b, fb = ours.frequencies(length)
        torch.testing.assert_close(a, b, rtol=1e-12, atol=0)
        assert fa == pytest.approx(fb, rel=1e-12)


def test_static_ntk_is_default_rope_with_a_larger_base(reference_state, ids):
    # static NTK: base' = base * s^(d/(d-2)), d = head_dim = 16, so base' = 10000 * 4^(16/14)
    head_dim = 16
    new_base = BASE * S ** (head_dim / (head_dim - 2))
    rope = scaled_rope(tiny_llama().config, "ntk", S, native_len=NATIVE)
    expected = 1.0 / new_base ** (torch.arange(0, head_dim, 2, dtype=torch.float64) / head_dim)
    torch.testing.assert_close(rope.inv_freq, expected, rtol=1e-13, atol=0)
    assert rope.attention_factor == 1.0
    # and as a model: Hugging Face's unscaled RoPE with rope_theta = base' gives the same perplexity
    library = tiny_llama({"rope_theta": new_base}, reference_state)
    ours = patch_model(copy.deepcopy(tiny_llama(None, reference_state)), rope)
    assert abs(ppl(ours, ids) - ppl(library, ids)) / ppl(library, ids) < 1e-4


def test_the_model_keeps_its_own_modules_and_rotates_with_the_encodings_frequencies(reference_state, ids):
    from transformers.models.llama.modeling_llama import LlamaAttention, LlamaRotaryEmbedding

    rope = scaled_rope(tiny_llama().config, "yarn", S, native_len=NATIVE)
    model = patch_model(tiny_llama(None, reference_state), rope)
    # nothing of a layer is replaced: the library's attention runs, with its own cache and masks
    assert all(type(layer.self_attn) is LlamaAttention for layer in model.model.layers)
    rotary = model.model.rotary_emb
    assert type(rotary) is LlamaRotaryEmbedding and model.config.rope_parameters["rope_type"] == ROPE_TYPE
    inv_freq, factor = rope.frequencies()
    torch.testing.assert_close(rotary.inv_freq, inv_freq.float(), rtol=0, atol=0)
    # YaRN's attention factor at s = 4: 0.1 ln 4 + 1 (Peng et al. 2023, eq. 22), applied by the library to cos and sin
    assert rotary.attention_scaling == pytest.approx(0.1 * math.log(4.0) + 1.0, rel=1e-12)
    cos, _ = rotary(torch.zeros(1, 3, 64), torch.arange(3)[None])
    assert float(cos[0, 0, 0]) == pytest.approx(0.1 * math.log(4.0) + 1.0, rel=1e-6)  # position 0: cos 0 = 1


def test_patched_config_carries_the_encoding_and_its_native_length(reference_state):
    from posenc.extend.patch import native_length, patched_encoding

    config = tiny_llama(HF_SCALINGS["yarn"][0], max_position_embeddings=4 * NATIVE).config
    model = patch_model(tiny_llama(HF_SCALINGS["yarn"][0], max_position_embeddings=4 * NATIVE),
                        FixedLengthRope(scaled_rope(config, "dynamic", 2.0, native_len=NATIVE), 3 * NATIVE))
    rope, seq_len = patched_encoding(model.config)
    assert seq_len == 3 * NATIVE and rope.scaling.as_dict() == {"type": "dynamic", "factor": 2.0,
                                                                 "original_max_len": NATIVE}
    assert native_length(model.config) == NATIVE  # the config's own original_max_position_embeddings stays
    assert patched_encoding(tiny_llama().config) is None


@pytest.mark.parametrize("name, scaling", [
    ("none", None),  # unscaled RoPE: no scaling record at all, config.json says "scaling": null
    ("linear", {"type": "linear", "factor": 2.0}),  # a scaling: its options, as scaled_rope(..., "linear", 2.0) set them
])
def test_the_patched_config_spells_the_encodings_options(name, scaling):
    # the record under rope_parameters["posenc"] is what config.json keeps: head_dim 16 = hidden 64 / 4 heads, the
    # tiny models' base, half pairing, every channel rotated; no fixed length for a scaling that does not need one
    model = patch_model(tiny_llama(), scaled_rope(tiny_llama().config, name, 2.0))
    assert model.config.rope_parameters[ROPE_TYPE] == {"head_dim": 16, "base": BASE, "pairing": "half",
                                                       "rotary_dim": 16, "scaling": scaling, "seq_len": None}


def test_encodings_the_model_cannot_carry_are_refused(reference_state):
    model = tiny_llama(None, reference_state)
    with pytest.raises(posenc.PosencError, match="takes a plain RoPE .* got XPos"):
        patch_model(model, posenc.build("xpos", head_dim=16))
    with pytest.raises(posenc.PosencError, match="pairs channels 'interleaved' but llama models rotate with 'half'"):
        patch_model(model, posenc.build("rope", head_dim=16, pairing="interleaved"))
    with pytest.raises(posenc.PosencError, match="rotates 8 of 16 channels per head"):
        patch_model(model, posenc.build("rope", head_dim=16, rotary_dim=8))
    with pytest.raises(posenc.PosencError, match="seq_len must be a positive integer"):
        patch_model(model, posenc.build("rope", head_dim=16), seq_len=0)
    with pytest.raises(posenc.PosencError, match="'dynamic' scaling changes with the length.*seq_len=LENGTH"):
        patch_model(model, scaled_rope(model.config, "dynamic", 2.0, native_len=NATIVE))
    assert model.config.rope_parameters["rope_type"] == "default"  # refused before anything changed


def test_the_registered_init_function_refuses_arguments_it_does_not_know(reference_state):
    from posenc.extend.patch import rope_init

    model = patch_model(tiny_llama(None, reference_state), scaled_rope(tiny_llama().config, "linear", 2.0))
    inv_freq, factor = rope_init(model.config, None, seq_len=None)
    torch.testing.assert_close(inv_freq, (1.0 / BASE ** (torch.arange(0, 16, 2, dtype=torch.float64) / 16) / 2).float())
    assert factor == 1.0
    with pytest.raises(posenc.PosencError, match=r"arguments it does not know: \['cache_position'\]"):
        rope_init(model.config, None, cache_position=3)


def test_set_encoding_swaps_without_reloading(reference_state, ids):
    config = tiny_llama().config
    model = patch_model(tiny_llama(None, reference_state), scaled_rope(config, "none", 1.0))
    unscaled = ppl(model, ids)
    set_encoding(model, scaled_rope(config, "linear", S, native_len=NATIVE))
    linear = ppl(model, ids)
    library = tiny_llama(HF_SCALINGS["linear"][0], reference_state)
    assert abs(linear - ppl(library, ids)) / linear < 1e-4
    assert abs(linear - unscaled) / unscaled > 1e-3
    with pytest.raises(posenc.PosencError, match="not patched"):
        set_encoding(tiny_llama(), scaled_rope(config, "none", 1.0))


@pytest.mark.parametrize("name", ["yarn", "dynamic"])
def test_cached_decoding_equals_full_forward(name, reference_state):
    # decoding token by token with the KV cache must give the logits of a full pass over the same tokens. A dynamic
    # scaling is frozen at the final length (FixedLengthRope): under a scaling that changes with the length every
    # layer's hidden states change, so no cache could match a full pass at a different length.
    from transformers import DynamicCache

    total = NATIVE + 6
    rope = scaled_rope(tiny_llama().config, name, 2.0, native_len=NATIVE)
    if rope.scaling.length_dependent:
        rope = FixedLengthRope(rope, total)
    model = patch_model(tiny_llama(None, reference_state), rope)
    seq = torch.randint(0, 128, (1, total), generator=torch.Generator().manual_seed(3))
    cache = DynamicCache()
    with torch.no_grad():
        model(seq[:, :NATIVE - 2], use_cache=True, **cache_kwargs(model, cache))
        for t in range(NATIVE - 2, total):
            step = model(seq[:, t:t + 1], use_cache=True, position_ids=torch.tensor([[t]]),
                         **cache_kwargs(model, cache)).logits[0, -1]
            assert cache.get_seq_length() == t + 1  # the cache grew by the one token fed
            full = model(seq[:, :t + 1], use_cache=False).logits[0, -1]
            torch.testing.assert_close(step, full, rtol=1e-4, atol=1e-4)


def test_fixed_length_rope_uses_the_frequencies_of_its_length():
    rope = scaled_rope(tiny_llama().config, "dynamic", 2.0, native_len=NATIVE)
    frozen = FixedLengthRope(rope, 3 * NATIVE)
    q, k = torch.randn(1, 4, 5, 16), torch.randn(1, 2, 5, 16)
    positions = torch.arange(5)
    expected = rope.rotate(q, k, positions + 3 * NATIVE - 5, positions + 3 * NATIVE - 5)  # seq_len = 3 * NATIVE
    got = frozen.rotate(q, k, positions + 3 * NATIVE - 5, positions + 3 * NATIVE - 5)
    torch.testing.assert_close(got[0], expected[0])
    early = frozen.rotate(q, k, positions, positions)[0]  # short positions, still the frequencies at 3 * NATIVE
    assert not torch.allclose(early, rope.rotate(q, k, positions, positions)[0])


def test_fixed_length_rope_is_the_inner_rotate_at_its_length():
    # the wrapper goes through the inner encoding's own rotate: its checks, and an xPos inner keeps its decay
    xpos = posenc.build("xpos", head_dim=16)
    frozen = FixedLengthRope(xpos, 3 * NATIVE)
    q, k = torch.randn(1, 4, 5, 16), torch.randn(1, 2, 5, 16)
    positions = torch.arange(5) + 700
    got, expected = frozen.rotate(q, k, positions, positions), xpos.rotate(q, k, positions, positions)
    assert torch.equal(got[0], expected[0]) and torch.equal(got[1], expected[1])
    with pytest.raises(posenc.PosencError, match="k has head_dim 8 but this encoding was built for head_dim 16"):
        frozen.rotate(q, k[..., :8], positions, positions)
    with pytest.raises(posenc.PosencError, match="FixedLengthRope wraps a RoPE encoding, got MRoPE"):
        FixedLengthRope(posenc.build("mrope", head_dim=12), 64)


def test_qwen3_layout_with_qk_norm_matches_library(ids):
    from transformers import Qwen3Config, Qwen3ForCausalLM

    torch.manual_seed(0)
    config = Qwen3Config(hidden_size=64, num_attention_heads=4, num_key_value_heads=2, head_dim=16,
                         num_hidden_layers=2, intermediate_size=128, vocab_size=128, max_position_embeddings=NATIVE,
                         rope_parameters={"rope_type": "linear", "factor": 2.0, "rope_theta": BASE},
                         initializer_range=0.2, attn_implementation="sdpa")
    library = Qwen3ForCausalLM(config).eval()
    ours = patch_model(copy.deepcopy(library), scaled_rope(config, "linear", 2.0, native_len=NATIVE))
    assert abs(ppl(ours, ids) - ppl(library, ids)) / ppl(library, ids) < 1e-4


def test_models_without_rope_are_refused():
    from transformers import BertConfig, GPT2Config, GPTNeoXConfig

    with pytest.raises(posenc.PosencError, match="not RoPE"):
        scaled_rope(BertConfig(hidden_size=32, num_attention_heads=2), "none", 1.0)
    with pytest.raises(posenc.PosencError, match="not RoPE"):
        scaled_rope(GPT2Config(n_embd=32, n_head=2), "linear", 2.0)
    with pytest.raises(posenc.PosencError, match="supported model types"):
        scaled_rope(GPTNeoXConfig(hidden_size=32, num_attention_heads=2), "linear", 2.0)


def test_unknown_scaling_lists_valid_ones():
    with pytest.raises(posenc.PosencError, match="valid scalings are: none, linear, ntk, dynamic, yarn, llama3"):
        scaled_rope(tiny_llama().config, "ntk-by-parts", 2.0)


def test_new_tokens_after_cached_ones_see_what_a_full_pass_sees(reference_state):
    """Several tokens after a cache (a passkey prompt after its shared prefix): the hidden states of one full pass."""
    from transformers import DynamicCache

    rope = scaled_rope(tiny_llama().config, "yarn", 2.0, native_len=NATIVE)
    model = patch_model(tiny_llama(None, reference_state), rope)
    seq = torch.randint(0, 128, (1, NATIVE + 20), generator=torch.Generator().manual_seed(4))
    cache = DynamicCache()
    with torch.no_grad():
        model.model(input_ids=seq[:, :34], use_cache=True, **cache_kwargs(model.model, cache))
        after = model.model(input_ids=seq[:, 34:], position_ids=torch.arange(34, NATIVE + 20)[None],
                            use_cache=True, **cache_kwargs(model.model, cache)).last_hidden_state
        full = model.model(input_ids=seq, use_cache=False).last_hidden_state
    assert cache.get_seq_length() == NATIVE + 20
    torch.testing.assert_close(after, full[:, 34:], rtol=1e-5, atol=1e-5)
