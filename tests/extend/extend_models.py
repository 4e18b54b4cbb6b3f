"""Tiny random-initialised Hugging Face models (no download) for the context-extension tests."""
# imported by the tests of this folder (pytest puts the folder on sys.path)

from __future__ import annotations

import torch
from transformers import LlamaConfig, LlamaForCausalLM

NATIVE = 64  # the tiny models' trained context
BASE = 10000.0


def tiny_config(rope_parameters: dict | None = None, max_position_embeddings: int = NATIVE, **overrides):
    """A 2-layer Llama with grouped-query attention; large init so attention depends visibly on position."""
    params = {"rope_type": "default", "rope_theta": BASE, **(rope_parameters or {})}
    settings = dict(hidden_size=64, num_attention_heads=4, num_key_value_heads=2, num_hidden_layers=2,
                    intermediate_size=128, vocab_size=128, max_position_embeddings=max_position_embeddings,
                    rope_parameters=params, initializer_range=0.2, attn_implementation="sdpa")
    settings.update(overrides)
    return LlamaConfig(**settings)


def tiny_llama(rope_parameters: dict | None = None, state: dict | None = None, **overrides) -> LlamaForCausalLM:
    torch.manual_seed(0)
    model = LlamaForCausalLM(tiny_config(rope_parameters, **overrides)).eval()
    if state is not None:
        model.load_state_dict(state)
    return model
