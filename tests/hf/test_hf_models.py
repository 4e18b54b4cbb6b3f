"""posenc inside tiny random-initialised Hugging Face models (no download): the references for equivalence."""

import contextlib

import pytest
import torch
from transformers import BloomConfig, GPTNeoXConfig, GPTNeoXForCausalLM, LlamaConfig, LlamaForCausalLM, T5Config
from transformers.models.bloom.modeling_bloom import build_alibi_tensor
from transformers.models.t5.modeling_t5 import T5Attention

import posenc


@contextlib.contextmanager
def posenc_rotary(module, encoding, positions):
    """Replace the model file's ``apply_rotary_pos_emb`` with posenc's rotate hook at ``positions``."""
    original = module.apply_rotary_pos_emb

    def apply(q, k, cos, sin, unsqueeze_dim=1):
        return encoding.rotate(q, k, positions, positions)

    module.apply_rotary_pos_emb = apply
    try:
        yield
    finally:
        module.apply_rotary_pos_emb = original


@pytest.mark.parametrize("rope_parameters", [
    {"rope_type": "default", "rope_theta": 10000.0},
    {"rope_type": "linear", "rope_theta": 10000.0, "factor": 2.0},
    {"rope_type": "yarn", "rope_theta": 10000.0, "factor": 4.0, "original_max_position_embeddings": 64},
    {"rope_type": "llama3", "rope_theta": 500000.0, "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
     "original_max_position_embeddings": 64},
])
def test_tiny_llama_with_posenc_rotary_gives_the_same_logits(rope_parameters):
    from transformers.models.llama import modeling_llama

    config = LlamaConfig(vocab_size=100, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                         num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=256,
                         rope_parameters=rope_parameters, attn_implementation="eager")
    model = LlamaForCausalLM(config).eval()
    ids = torch.randint(0, 100, (2, 200))
    positions = torch.arange(200)
    with torch.no_grad():
        reference = model(ids).logits
        with posenc_rotary(modeling_llama, posenc.from_hf_config(config), positions):
            ours = model(ids).logits
        # the patch is live: a RoPE with another base changes the logits
        with posenc_rotary(modeling_llama, posenc.build("rope", head_dim=16, base=77.0), positions):
            other = model(ids).logits
    assert (ours - reference).abs().max() < 1e-3
    assert (other - reference).abs().max() > 100 * (ours - reference).abs().max()


def test_tiny_gpt_neox_partial_rotary_gives_the_same_logits():
    from transformers.models.gpt_neox import modeling_gpt_neox

    config = GPTNeoXConfig(vocab_size=100, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                           num_attention_heads=4, rotary_pct=0.25, max_position_embeddings=256,
                           attn_implementation="eager")
    encoding = posenc.from_hf_config(config)
    assert encoding.rotary_dim == 4 and encoding.head_dim == 16  # 25% of a 16-wide head
    model = GPTNeoXForCausalLM(config).eval()
    ids = torch.randint(0, 100, (1, 64))
    with torch.no_grad():
        reference = model(ids).logits
        with posenc_rotary(modeling_gpt_neox, encoding, torch.arange(64)):
            ours = model(ids).logits
    assert (ours - reference).abs().max() < 1e-3


@pytest.mark.parametrize("n_heads", [8, 12, 16])
def test_alibi_equals_bloom_up_to_a_row_constant(n_heads):
    T = 20
    bloom = build_alibi_tensor(torch.ones(1, T), n_heads, torch.float32).view(n_heads, 1, T)  # m_h * j
    bloom = bloom.expand(n_heads, T, T)
    ours = posenc.from_hf_config(BloomConfig(n_head=n_heads, hidden_size=n_heads * 8)).bias(
        torch.arange(T), torch.arange(T))  # -m_h |i - j|
    causal = torch.ones(T, T, dtype=torch.bool).tril()
    difference = (ours - bloom).masked_fill(~causal, 0.0)  # compare where attention can look
    # in the causal region ours = -m(i - j) = m j - m i: bloom minus a per-row constant m i
    row_constant = difference[:, :, :1].expand_as(difference).masked_fill(~causal, 0.0)
    torch.testing.assert_close(difference, row_constant, rtol=0, atol=1e-5)
    softmax = lambda b: torch.softmax(b.masked_fill(~causal, float("-inf")), dim=-1)  # noqa: E731
    torch.testing.assert_close(softmax(ours), softmax(bloom), rtol=0, atol=1e-6)


@pytest.mark.parametrize("is_decoder", [False, True])
def test_t5_bias_equals_t5_attention(is_decoder):
    config = T5Config(d_model=32, d_kv=8, num_heads=4, relative_attention_num_buckets=32,
                      relative_attention_max_distance=128, is_decoder=is_decoder)
    attention = T5Attention(config, has_relative_attention_bias=True)
    ours = posenc.from_hf_config(config)
    with torch.no_grad():
        ours.embedding.weight.copy_(attention.relative_attention_bias.weight)
        T = 300  # past max_distance, so the last bucket is exercised
        reference = attention.compute_bias(T, T)[0]  # [H, T, T]
        torch.testing.assert_close(ours.bias(torch.arange(T), torch.arange(T)), reference)


def test_learned_from_bert_and_gpt2_configs():
    from transformers import BertConfig, GPT2Config

    bert = posenc.from_hf_config(BertConfig(hidden_size=48, num_attention_heads=4, max_position_embeddings=64))
    gpt2 = posenc.from_hf_config(GPT2Config(n_embd=32, n_head=4, n_positions=128))
    assert (bert.name, bert.max_len, bert.dim) == ("learned", 64, 48)
    assert (gpt2.name, gpt2.max_len, gpt2.dim) == ("learned", 128, 32)
