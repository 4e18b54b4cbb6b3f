"""The memory estimate counts the weights exactly and refuses lengths that do not fit, before loading."""

from __future__ import annotations

import pytest
import torch
from extend_models import tiny_config
from transformers import LlamaForCausalLM

from posenc import PosencError
from posenc.extend.memory import GB, available_memory, check_fits, estimate_memory


@pytest.mark.parametrize("tied", [True, False])
def test_weight_bytes_equal_the_parameters_of_the_model(tied):
    config = tiny_config(tie_word_embeddings=tied)
    params = sum(p.numel() for p in LlamaForCausalLM(config).parameters())  # tied weights are counted once
    assert estimate_memory(config, 128).weights == 4 * params
    assert estimate_memory(config, 128, dtype=torch.bfloat16).weights == 2 * params


def test_estimate_grows_linearly_with_length():
    config = tiny_config()
    a, b, c = (estimate_memory(config, n, logits_chunk=1) for n in (1000, 2000, 3000))
    assert b.activations - a.activations == c.activations - b.activations > 0
    assert b.kv_cache == 2 * a.kv_cache
    assert estimate_memory(config, 1000, kv_cache=False).kv_cache == 0


def test_smollm2_at_32k_fits_in_24_gb():
    # SmolLM2-135M: 30 layers, hidden 576, 9 heads, 3 kv heads, head dim 64, MLP 1536, vocab 49152, tied
    config = {"hidden_size": 576, "num_attention_heads": 9, "num_key_value_heads": 3, "head_dim": 64,
              "intermediate_size": 1536, "num_hidden_layers": 30, "vocab_size": 49152, "tie_word_embeddings": True}
    estimate = estimate_memory(config, 32768)
    assert estimate.kv_cache == 4 * 30 * 2 * 3 * 64 * 32768  # 1.41 GiB of keys and values
    assert estimate.total < 24 * GB


def test_the_output_layer_holds_three_float32_copies_of_one_chunk_of_logits():
    # the module docstring: 3 C V values of 4 bytes, C = min(logits_chunk, length); SmolLM2's vocabulary V = 49152
    config = {"hidden_size": 576, "num_attention_heads": 9, "num_hidden_layers": 30, "vocab_size": 49152}
    assert estimate_memory(config, 32768).output_layer == 603_979_776  # 3 x 1024 x 49152 x 4: 0.56 GiB
    assert estimate_memory(config, 100).output_layer == 58_982_400  # 3 x 100 x 49152 x 4
    assert estimate_memory(config, 32768, dtype=torch.bfloat16).output_layer == 603_979_776  # upcast whatever dtype


def test_refusal_names_the_estimate_and_what_fits():
    config = tiny_config()
    small = estimate_memory(config, 64).total
    with pytest.raises(PosencError, match=r"length 4096 does not fit in memory: estimated .* GB.*these fit: \[64\]"):
        check_fits(config, [64, 4096], limit_bytes=small + 1)
    assert set(check_fits(config, [64], limit_bytes=small + 1)) == {64}


def test_available_memory_is_positive():
    assert available_memory("cpu") > 0
