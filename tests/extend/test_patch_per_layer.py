"""A patched pretrained model, layer by layer: every layer rotates with the encoding's frequencies (not only the first,
not the model's old ones), and every layer keeps modules and parameters of its own (nothing shared across layers,
nothing added or lost by the patch)."""

from __future__ import annotations

import math

import torch
from extend_models import NATIVE, tiny_llama

from posenc.extend import patch_model, scaled_rope

LAYERS = 3
S = 4.0


def _received(model, ids) -> list[tuple[torch.Tensor, torch.Tensor]]:
    """The (cos, sin) each layer's attention was given in one forward pass."""
    seen: dict[int, tuple[torch.Tensor, torch.Tensor]] = {}
    hooks = []
    for i, layer in enumerate(model.model.layers):
        def hook(module, args, kwargs, i=i):
            seen[i] = tuple(t.detach().clone() for t in kwargs["position_embeddings"])
        hooks.append(layer.self_attn.register_forward_pre_hook(hook, with_kwargs=True))
    try:
        with torch.no_grad():
            model(input_ids=ids[None])
    finally:
        for h in hooks:
            h.remove()
    return [seen[i] for i in range(len(model.model.layers))]


def test_every_layer_rotates_with_the_patched_frequencies(ids):
    model = tiny_llama(num_hidden_layers=LAYERS)
    rope = scaled_rope(model.config, "yarn", S, native_len=NATIVE)
    before = _received(model, ids[:16])
    patch_model(model, rope)
    after = _received(model, ids[:16])
    inv_freq, factor = rope.frequencies()
    angles = torch.arange(16, dtype=torch.float64)[:, None] * inv_freq.double()[None, :]  # [T, R/2]
    angles = torch.cat([angles, angles], dim=-1)  # half pairing: channel i and i + R/2 share a frequency
    assert math.isclose(factor, 0.1 * math.log(S) + 1.0, rel_tol=1e-12)  # YaRN's attention factor, by hand
    assert len(after) == LAYERS
    for layer, (cos, sin) in enumerate(after):
        torch.testing.assert_close(cos[0].double(), torch.cos(angles) * factor, rtol=1e-5, atol=1e-6,
                                   msg=f"layer {layer}")
        torch.testing.assert_close(sin[0].double(), torch.sin(angles) * factor, rtol=1e-5, atol=1e-6,
                                   msg=f"layer {layer}")
        assert not torch.allclose(cos, before[layer][0])  # the check can fail: the patch changed what it sees


def test_each_layer_keeps_its_own_modules_and_parameters():
    model = tiny_llama(num_hidden_layers=LAYERS)
    names_before = {name: p.shape for name, p in model.named_parameters()}
    patch_model(model, scaled_rope(model.config, "linear", S, native_len=NATIVE))
    assert {name: p.shape for name, p in model.named_parameters()} == names_before  # nothing added, lost or merged
    layers = list(model.model.layers)
    per_layer = [sum(p.numel() for p in layer.parameters()) for layer in layers]
    # one Llama layer of the tiny model, by hand: q 64x64, k and v 64x32 (2 of 4 heads' width), o 64x64, the MLP
    # 3 x 64x128, two RMSNorm weights of 64
    assert per_layer == [64 * 64 + 2 * 64 * 32 + 64 * 64 + 3 * 64 * 128 + 2 * 64] * LAYERS
    for a in range(LAYERS):
        for b in range(a + 1, LAYERS):
            assert not {id(m) for m in layers[a].modules()} & {id(m) for m in layers[b].modules()}
            assert not {id(p) for p in layers[a].parameters()} & {id(p) for p in layers[b].parameters()}
