"""The native length of a model to extend, however its config says it: ``original_max_position_embeddings`` inside
``rope_parameters`` (transformers 5) or ``rope_scaling`` (4.x), at the top level, else ``max_position_embeddings``;
each as a config object and as its ``config.json`` dict (``scaled_rope`` takes both, as ``check_rope_model`` does).
A config.json dict was refused with "the model config has no max_position_embeddings" although it had one."""

from types import SimpleNamespace

import pytest

from posenc.errors import PosencError
from posenc.extend.patch import native_length, scaled_rope

YARN = {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 1024}
LLAMA = {"model_type": "llama", "hidden_size": 64, "num_attention_heads": 4, "num_hidden_layers": 2,
         "rope_theta": 10000.0}

SPELLINGS = [
    ({"max_position_embeddings": 4096, "rope_parameters": YARN}, 1024),
    ({"max_position_embeddings": 4096, "rope_scaling": YARN}, 1024),
    ({"max_position_embeddings": 4096, "original_max_position_embeddings": 2048}, 2048),
    ({"max_position_embeddings": 4096, "rope_parameters": {"rope_type": "default"}}, 4096),
    ({"max_position_embeddings": 4096}, 4096),
]


@pytest.mark.parametrize("as_dict", [False, True], ids=["object", "config.json"])
@pytest.mark.parametrize("fields, native", SPELLINGS)
def test_each_spelling_gives_the_native_length(fields, native, as_dict):
    config = dict(fields) if as_dict else SimpleNamespace(**fields)
    assert native_length(config) == native


@pytest.mark.parametrize("as_dict", [False, True], ids=["object", "config.json"])
def test_no_length_at_all_is_refused_for_both(as_dict):
    config = {"rope_parameters": {"rope_type": "default"}}
    with pytest.raises(PosencError, match="the model config has no max_position_embeddings"):
        native_length(config if as_dict else SimpleNamespace(**config))


def test_a_config_json_dict_is_scaled_as_its_config_object():
    fields = {**LLAMA, "max_position_embeddings": 2048}
    from_dict = scaled_rope(dict(fields), "linear", 2.0)
    from_object = scaled_rope(SimpleNamespace(**fields), "linear", 2.0)
    assert from_dict.scaling.as_dict() == from_object.scaling.as_dict()
    assert from_dict.scaling.as_dict()["factor"] == 2.0
    assert (from_dict.head_dim, from_dict.base) == (from_object.head_dim, from_object.base) == (16, 10000.0)
