"""The encoding read off the model a config describes (posenc.hf.model_reading), for GPT-2 and LLaMA's defaults."""

from __future__ import annotations

from posenc.hf.model_reading import read_encoding


def test_read_encoding_by_hand():
    from transformers import GPT2Config, LlamaConfig

    gpt2 = read_encoding(GPT2Config())
    assert gpt2["kind"] == "learned" and gpt2["table"] == [1024, 768]  # GPT-2's wpe: 1024 positions x 768
    llama = read_encoding(LlamaConfig())
    assert llama["kind"] == "rope" and llama["table"] is None
