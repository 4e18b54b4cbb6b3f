"""Shared fixtures of the probe tests (MiniLM itself, loaded once per session, is in tests/conftest.py)."""

import pytest
import torch
from transformers import LlamaConfig, LlamaForCausalLM

from posenc.pretrained import LoadedModel


@pytest.fixture(scope="session")
def minilm_tables(minilm):
    embeddings = minilm.model.embeddings
    return embeddings.word_embeddings.weight.detach(), embeddings.position_embeddings.weight.detach()


@pytest.fixture(scope="session")
def tiny_llama(minilm):
    """A randomly initialised two-layer Llama (RoPE, grouped-query attention) with MiniLM's tokenizer."""
    config = LlamaConfig(vocab_size=minilm.tokenizer.vocab_size, hidden_size=32, intermediate_size=64,
                         num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
                         max_position_embeddings=256, tie_word_embeddings=True)
    torch.manual_seed(0)
    model = LlamaForCausalLM(config).eval()
    return LoadedModel(model=model, tokenizer=minilm.tokenizer, config=config, name="tiny-llama", source="test")
