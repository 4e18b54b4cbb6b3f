"""The model patch's sliding-window refusal, for every way a supported model's config says "sliding window".

posenc's patched attention is full causal attention, so a model with sliding-window layers must be refused before
anything changes. Configs say so in several spellings, as a config object (what ``AutoConfig`` gives) and as the
``config.json`` dict: ``layer_types`` with ``"sliding_attention"``; Mistral's ``sliding_window`` (no layer types);
Qwen2's and Qwen3's ``use_sliding_window`` with ``sliding_window`` and ``max_window_layers`` (layers at or past
``max_window_layers`` slide). Each spelling is refused, and each config that only looks similar (a window field with
the switch off, every layer below ``max_window_layers``, ``sliding_window`` null) is accepted.
"""

import pytest
from transformers import LlamaConfig, MistralConfig, Qwen2Config, Qwen3Config

from posenc.errors import PosencError
from posenc.extend.patch import check_rope_model

SMALL = {"hidden_size": 32, "num_attention_heads": 4, "num_key_value_heads": 2, "num_hidden_layers": 4,
         "intermediate_size": 64, "vocab_size": 100, "max_position_embeddings": 256}
CLASSES = {"llama": LlamaConfig, "mistral": MistralConfig, "qwen2": Qwen2Config, "qwen3": Qwen3Config}

SLIDING = {
    "mistral sliding_window": ("mistral", {"sliding_window": 64}),
    "mistral default window (4096)": ("mistral", {}),
    "qwen2 use_sliding_window, every layer past max_window_layers": (
        "qwen2", {"use_sliding_window": True, "sliding_window": 64, "max_window_layers": 0}),
    "qwen2 use_sliding_window, the last layer past max_window_layers": (
        "qwen2", {"use_sliding_window": True, "sliding_window": 64, "max_window_layers": 3}),
    "qwen3 use_sliding_window": ("qwen3", {"use_sliding_window": True, "sliding_window": 64, "max_window_layers": 2}),
    "qwen2 layer_types": ("qwen2", {"layer_types": ["full_attention"] * 3 + ["sliding_attention"],
                                    "use_sliding_window": True, "sliding_window": 64}),
    "qwen3 layer_types": ("qwen3", {"layer_types": ["sliding_attention"] + ["full_attention"] * 3,
                                    "use_sliding_window": True, "sliding_window": 64}),
    "llama layer_types": ("llama", {"layer_types": ["sliding_attention"] * 4, "sliding_window": 64}),
}
FULL = {
    "llama": ("llama", {}),
    "mistral without a window": ("mistral", {"sliding_window": None}),
    "qwen2 window field, switch off (Qwen2's own config.json)": (
        "qwen2", {"use_sliding_window": False, "sliding_window": 4096, "max_window_layers": 0}),
    "qwen2 switch on, every layer below max_window_layers": (
        "qwen2", {"use_sliding_window": True, "sliding_window": 64, "max_window_layers": 4}),
    "qwen3 window field, switch off": ("qwen3", {"use_sliding_window": False, "sliding_window": 4096}),
    "qwen3 full layer_types": ("qwen3", {"layer_types": ["full_attention"] * 4}),
}


def _config(model_type, fields, as_dict):
    if as_dict:  # config.json as written: only the fields given
        return {"model_type": model_type, **SMALL, "rope_theta": 10000.0, **fields}
    return CLASSES[model_type](**SMALL, **fields)


@pytest.mark.parametrize("as_dict", [False, True], ids=["object", "dict"])
@pytest.mark.parametrize("case", sorted(SLIDING))
def test_every_spelling_of_a_sliding_window_is_refused(case, as_dict):
    model_type, fields = SLIDING[case]
    if as_dict and not fields:
        fields = {"sliding_window": 4096}  # a dict has no class default: Mistral 7B v0.1's config.json spells it
    with pytest.raises(PosencError, match=f"this {model_type} model uses sliding-window attention"):
        check_rope_model(_config(model_type, fields, as_dict))


@pytest.mark.parametrize("as_dict", [False, True], ids=["object", "dict"])
@pytest.mark.parametrize("case", sorted(FULL))
def test_configs_without_a_sliding_layer_are_accepted(case, as_dict):
    model_type, fields = FULL[case]
    check_rope_model(_config(model_type, fields, as_dict))  # no error
