"""Print the largest differences between posenc and the reference implementations (tiny random HF models).

    python benchmarks/reference_checks.py
"""

from __future__ import annotations

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import torch  # noqa: E402
from transformers import BloomConfig, LlamaConfig, T5Config  # noqa: E402
from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS  # noqa: E402
from transformers.models.bloom.modeling_bloom import build_alibi_tensor  # noqa: E402
from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding, apply_rotary_pos_emb  # noqa: E402
from transformers.models.t5.modeling_t5 import T5Attention  # noqa: E402

import posenc  # noqa: E402
from posenc.encodings.rope_scaling import compute_inv_freq  # noqa: E402
from posenc.hf.config import rope_options_from_hf_config  # noqa: E402


def float64_rope(q, positions, inv_freq):
    theta = positions.double()[:, None] * inv_freq.double()
    c, s = theta.cos(), theta.sin()
    q = q.double()
    half = inv_freq.numel()
    x1, x2 = q[..., :half], q[..., half:2 * half]
    return torch.cat([x1 * c - x2 * s, x2 * c + x1 * s, q[..., 2 * half:]], dim=-1)


def main() -> None:
    torch.manual_seed(0)
    print("1. inverse frequencies and attention factor vs Hugging Face rope init functions (max relative diff)")
    cases = {
        "linear": {"factor": 4.0},
        "dynamic@16k": {"factor": 2.0},
        "yarn": {"factor": 8.0, "original_max_position_embeddings": 1024},
        "yarn+mscale": {"factor": 16.0, "original_max_position_embeddings": 1024, "mscale": 1.0, "mscale_all_dim": 0.5},
        "llama3": {"factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                   "original_max_position_embeddings": 1024},
        "longrope@8k": {"factor": 4.0, "original_max_position_embeddings": 2048,
                        "short_factor": [1.0 + 0.01 * i for i in range(32)],
                        "long_factor": [1.0 + 0.5 * i for i in range(32)]},
    }
    for label, extra in cases.items():
        kind = label.split("@")[0].split("+")[0]
        seq_len = {"dynamic@16k": 16384, "longrope@8k": 8192}.get(label)
        config = LlamaConfig(hidden_size=256, num_attention_heads=4, max_position_embeddings=8192,
                             rope_parameters={"rope_type": kind, "rope_theta": 10000.0, **extra})
        hf_inv, hf_factor = ROPE_INIT_FUNCTIONS[kind](config, "cpu", seq_len=seq_len)
        opts = rope_options_from_hf_config(config)
        inv, factor = compute_inv_freq(opts["rotary_dim"], opts["base"], opts["scaling"], seq_len)
        rel = float(((inv - hf_inv.double()).abs() / hf_inv.double().abs()).max())
        print(f"   {label:12s} inv_freq {rel:.2e}   attention factor {abs(factor - hf_factor) / hf_factor:.2e}")

    print("2. rotate() vs the Hugging Face model's rotary output, positions 0..4095 and 1000..5095 (max abs diff)")
    config = LlamaConfig(hidden_size=128, num_attention_heads=2, max_position_embeddings=8192)
    emb = LlamaRotaryEmbedding(config)
    rope = posenc.from_hf_config(config)
    for offset in (0, 1000):
        positions = torch.arange(offset, offset + 4096)
        q = torch.randn(1, 2, 4096, 64)
        cos, sin = emb(q.new_zeros(1, 4096, 64), positions[None])
        hf_q, _ = apply_rotary_pos_emb(q, q, cos, sin)
        ours, _ = rope.rotate(q, q, positions, positions)
        exact = float64_rope(q, positions, rope.inv_freq)
        print(f"   offset {offset:4d}: posenc vs HF {float((ours - hf_q).abs().max()):.2e}; "
              f"posenc vs float64 {float((ours.double() - exact).abs().max()):.2e}; "
              f"HF vs float64 {float((hf_q.double() - exact).abs().max()):.2e}")

    print("3. precision at large positions (max abs diff vs float64, float32 tensors; rel for bfloat16)")
    positions = torch.tensor([2 ** 20, 2 ** 22, 2 ** 24 - 1, 2 ** 24])
    q = torch.randn(1, 2, 4, 64)
    ours, _ = rope.rotate(q, q, positions, positions)
    exact = float64_rope(q, positions, rope.inv_freq)
    cos, sin = emb(q.new_zeros(1, 4, 64), positions[None])
    hf_q, _ = apply_rotary_pos_emb(q, q, cos, sin)
    ours_b, _ = rope.rotate(q.bfloat16(), q.bfloat16(), positions, positions)
    exact_b = float64_rope(q.bfloat16(), positions, rope.inv_freq)
    print(f"   posenc float32 {float((ours.double() - exact).abs().max()):.2e}; "
          f"posenc bfloat16 rel {float((ours_b.double() - exact_b).norm() / exact_b.norm()):.2e}; "
          f"HF float32 {float((hf_q.double() - exact).abs().max()):.2e}")

    print("4. ALiBi vs BLOOM (max abs diff after removing the per-row constant, causal region)")
    for heads in (8, 12, 16):
        T = 64
        bloom = build_alibi_tensor(torch.ones(1, T), heads, torch.float32).view(heads, 1, T).expand(heads, T, T)
        ours = posenc.from_hf_config(BloomConfig(n_head=heads, hidden_size=heads * 8)).bias(torch.arange(T),
                                                                                             torch.arange(T))
        causal = torch.ones(T, T, dtype=torch.bool).tril()
        diff = (ours - bloom)
        diff = (diff - diff[:, :, :1]).masked_fill(~causal, 0)
        print(f"   {heads} heads: {float(diff.abs().max()):.2e}")

    print("5. T5 bias vs T5Attention.compute_bias (max abs diff, 300 positions)")
    for decoder in (False, True):
        config = T5Config(d_model=32, d_kv=8, num_heads=4, is_decoder=decoder)
        attention = T5Attention(config, has_relative_attention_bias=True)
        ours = posenc.from_hf_config(config)
        with torch.no_grad():
            ours.embedding.weight.copy_(attention.relative_attention_bias.weight)
            diff = (ours.bias(torch.arange(300), torch.arange(300)) - attention.compute_bias(300, 300)[0]).abs().max()
        print(f"   {'causal' if decoder else 'bidirectional'}: {float(diff):.2e}")

    print("6. tiny random Llama / GPT-NeoX with posenc's rotate hook in place of their rotary (max abs logit diff)")
    from transformers import GPTNeoXConfig, GPTNeoXForCausalLM, LlamaForCausalLM
    from transformers.models.gpt_neox import modeling_gpt_neox
    from transformers.models.llama import modeling_llama

    for module, model_cls, config in (
            (modeling_llama, LlamaForCausalLM,
             LlamaConfig(vocab_size=100, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                         num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=256)),
            (modeling_gpt_neox, GPTNeoXForCausalLM,
             GPTNeoXConfig(vocab_size=100, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                           num_attention_heads=4, rotary_pct=0.25, max_position_embeddings=256))):
        config._attn_implementation = "eager"
        model = model_cls(config).eval()
        ids = torch.randint(0, 100, (2, 200))
        encoding, positions = posenc.from_hf_config(config), torch.arange(200)
        original = module.apply_rotary_pos_emb
        with torch.no_grad():
            reference = model(ids).logits
            def posenc_rotary(q, k, cos, sin, unsqueeze_dim=1, encoding=encoding, positions=positions):
                return encoding.rotate(q, k, positions, positions)

            module.apply_rotary_pos_emb = posenc_rotary
            try:
                ours = model(ids).logits
            finally:
                module.apply_rotary_pos_emb = original
        print(f"   {model_cls.__name__}: {float((ours - reference).abs().max()):.2e}")


if __name__ == "__main__":
    main()
