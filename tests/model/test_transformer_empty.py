"""The small Transformer on an empty sequence ``[B, 0]`` and an empty batch ``[0, T]``, with every encoding:
logits of shape ``[B, T, vocab]`` and a backward pass that gives every tensor a gradient of its own shape."""

import pytest
import torch

import posenc
from posenc.model import Transformer, TransformerConfig

VOCAB = 11


def _model(name: str, causal: bool) -> Transformer:
    config = TransformerConfig(vocab_size=VOCAB, d_model=32, n_layers=2, n_heads=4, n_kv_heads=2, causal=causal,
                               encoding=name, max_len=16)
    return Transformer(config)


@pytest.mark.parametrize("causal", [True, False])
@pytest.mark.parametrize("B,T", [(2, 0), (0, 5), (0, 0)])
@pytest.mark.parametrize("name", posenc.available())
def test_forward_and_backward(name, B, T, causal):
    model = _model(name, causal)
    ids = torch.randint(0, VOCAB, (B, T))
    captured = {}

    def keep(module, args, output):  # the input layer's output (B, T, width), to check its gradient
        output.retain_grad()
        captured["x"] = output

    model.input.register_forward_hook(keep)
    logits = model(ids)
    assert logits.shape == (B, T, VOCAB)
    logits.sum().backward()
    x = captured["x"]
    assert x.grad is not None and x.grad.shape == x.shape == (B, T, model.width)
    for pname, param in model.named_parameters():
        # nothing flowed through an empty batch: a gradient, where torch made one, has the parameter's shape and is 0
        assert param.grad is None or (param.grad.shape == param.shape and not param.grad.any()), pname


@pytest.mark.parametrize("name", ["rope", "alibi", "t5", "learned"])
def test_empty_sequence_with_padding_mask_and_per_row_positions(name):
    model = _model(name, causal=True)
    ids = torch.zeros(3, 0, dtype=torch.long)
    logits = model(ids, positions=torch.zeros(3, 0, dtype=torch.long),
                   key_padding_mask=torch.zeros(3, 0, dtype=torch.bool))
    assert logits.shape == (3, 0, VOCAB)
