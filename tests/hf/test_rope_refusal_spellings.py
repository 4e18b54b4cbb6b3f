"""Every refusal of a config's RoPE parameters, under every spelling a config.json can give them: the field
``rope_parameters`` (transformers 5) or ``rope_scaling`` (transformers 4), the type under ``rope_type`` or ``type``,
and the parameters given once or per layer type (``{"full_attention": {...}, "sliding_attention": {...}}``).

A refusal that reads only one spelling would let the others through to a wrong encoding; each spelling of an
accepted scaling gives the same encoding as the others (so each spelling is read, not skipped)."""

import math

import pytest
import torch

import posenc
from posenc.errors import PosencError

LLAMA = {"model_type": "llama", "hidden_size": 64, "num_attention_heads": 4, "num_hidden_layers": 2,
         "max_position_embeddings": 4096, "rope_theta": 10000.0}


def _flat(field: str, type_key: str):
    return lambda params: {**LLAMA, field: {type_key: params.pop("kind"), **params}}


def _per_layer(field: str):
    return lambda params: {**LLAMA, field: {"full_attention": {"rope_type": params.pop("kind"), "rope_theta": 1e4,
                                                               **params}}}


#: spelling -> a function of the RoPE parameters (``kind``: the type) giving a config.json dict
SPELLINGS = {
    "rope_parameters.rope_type": _flat("rope_parameters", "rope_type"),
    "rope_parameters.type": _flat("rope_parameters", "type"),
    "rope_scaling.rope_type": _flat("rope_scaling", "rope_type"),
    "rope_scaling.type": _flat("rope_scaling", "type"),
    "rope_parameters per layer type": _per_layer("rope_parameters"),
    "rope_scaling per layer type": _per_layer("rope_scaling"),
}

#: refusal -> (the RoPE parameters, what the message says)
REFUSALS = {
    "unknown type": ({"kind": "su"}, "RoPE type 'su', which posenc does not implement"),
    "M-RoPE on a 1-D model": ({"kind": "mrope", "mrope_section": [4, 2, 2]}, "uses multimodal M-RoPE"),
    "axial on a 1-D model": ({"kind": "axial"}, "asks for RoPE type 'axial' (2-D rotary"),
    "linear without a factor": ({"kind": "linear"}, "rope type 'linear' needs 'factor'"),
    "llama3 without its bands": ({"kind": "llama3", "factor": 8.0}, "rope type 'llama3' needs 'low_freq_factor'"),
}


@pytest.mark.parametrize("spelling", SPELLINGS)
@pytest.mark.parametrize("refusal", REFUSALS)
def test_every_spelling_of_each_refusal_is_refused(spelling, refusal):
    params, message = REFUSALS[refusal]
    config = SPELLINGS[spelling](dict(params))
    with pytest.raises(PosencError, match=message.replace("(", r"\(")):
        posenc.from_hf_config(config)


@pytest.mark.parametrize("spelling", SPELLINGS)
def test_every_spelling_of_a_linear_scaling_gives_the_same_encoding(spelling):
    encoding = posenc.from_hf_config(SPELLINGS[spelling]({"kind": "linear", "factor": 2.0}))
    inv_freq, factor = encoding.frequencies()
    # head width 16, base 10^4: 10^(-4 i / 8) for i < 8, each halved by the linear factor 2 (positions / 2)
    by_hand = torch.tensor([10.0 ** (-4 * i / 8) / 2 for i in range(8)], dtype=torch.float64)
    assert encoding.head_dim == 16
    torch.testing.assert_close(inv_freq.double(), by_hand, rtol=1e-12, atol=0)
    assert math.isclose(float(factor), 1.0)


@pytest.mark.parametrize("field", ["rope_parameters", "rope_scaling"])
def test_a_refused_type_in_another_layer_types_entry_is_refused_for_that_layer_type(field):
    # per layer type, the full layers' entry is fine and the sliding layers' is not: the sliding entry is refused
    # where it is read (its layer type, and the whole schedule), whichever field holds the entries
    config = {**LLAMA, "model_type": "gemma3_text", "head_dim": 16, "sliding_window": 8,
              "layer_types": ["sliding_attention", "full_attention"],
              field: {"full_attention": {"rope_type": "default", "rope_theta": 1e6},
                      "sliding_attention": {"rope_type": "su", "rope_theta": 1e4}}}
    with pytest.raises(PosencError, match="RoPE type 'su', which posenc does not implement"):
        posenc.from_hf_config(config, layer_type="sliding_attention")
    with pytest.raises(PosencError, match="RoPE type 'su', which posenc does not implement"):
        posenc.schedule_from_hf_config(config)
