"""from_hf_config's warning that a config's layer types turn with different RoPE parameters (it returns one layer
type's encoding): silent wherever the entries give the same RoPE, however each is written, and once where they
differ."""

import warnings

import pytest

import posenc
from posenc.errors import PosencWarning

GEMMA = {"model_type": "gemma3_text", "hidden_size": 64, "num_attention_heads": 4, "head_dim": 16,
         "num_hidden_layers": 2, "sliding_window": 8, "layer_types": ["sliding_attention", "full_attention"]}


def _warnings(full, sliding, **options):
    config = {**GEMMA, "rope_parameters": {"full_attention": full, "sliding_attention": sliding}}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        posenc.from_hf_config(config, **options)
    return [w for w in caught if issubclass(w.category, PosencWarning)]


SAME = {
    "written alike": ({"rope_type": "default", "rope_theta": 1e4}, {"rope_type": "default", "rope_theta": 1e4}),
    "keys in another order": ({"rope_type": "default", "rope_theta": 1e4}, {"rope_theta": 1e4, "rope_type": "default"}),
    "an integer base and its float": ({"rope_type": "default", "rope_theta": 10000},
                                      {"rope_type": "default", "rope_theta": 10000.0}),
    "the default type left out": ({"rope_type": "default", "rope_theta": 1e4}, {"rope_theta": 1e4}),
    "type for rope_type": ({"rope_type": "linear", "factor": 2.0, "rope_theta": 1e4},
                           {"type": "linear", "factor": 2.0, "rope_theta": 1e4}),
    "an integer factor and its float": ({"rope_type": "linear", "factor": 2, "rope_theta": 1e4},
                                        {"rope_type": "linear", "factor": 2.0, "rope_theta": 1e4}),
}


@pytest.mark.parametrize("case", SAME)
def test_silent_where_every_layer_type_turns_alike(case):
    assert _warnings(*SAME[case]) == []


def test_silent_for_one_entry_and_for_a_layer_type_asked_for():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        posenc.from_hf_config({**GEMMA, "rope_parameters": {"rope_type": "default", "rope_theta": 1e4}})
    assert [w for w in caught if issubclass(w.category, PosencWarning)] == []
    differ = ({"rope_type": "default", "rope_theta": 1e6}, {"rope_type": "default", "rope_theta": 1e4})
    assert _warnings(*differ, layer_type="sliding_attention") == []  # the caller chose: nothing to say


@pytest.mark.parametrize(("full", "sliding"), [
    ({"rope_type": "default", "rope_theta": 1e6}, {"rope_type": "default", "rope_theta": 1e4}),  # Gemma 3's bases
    ({"rope_type": "linear", "factor": 8.0, "rope_theta": 1e6}, {"rope_type": "default", "rope_theta": 1e6}),
    ({"rope_type": "linear", "factor": 8.0, "rope_theta": 1e4}, {"rope_type": "linear", "factor": 4, "rope_theta": 1e4}),
])
def test_one_warning_where_the_layer_types_differ(full, sliding):
    found = _warnings(full, sliding)
    assert len(found) == 1
    message = str(found[0].message)
    assert "different RoPE parameters ('full_attention', 'sliding_attention')" in message
    assert "returns the 'full_attention' layers' encoding only" in message
