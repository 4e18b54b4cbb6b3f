"""``posenc.schedule_from_hf_config`` against the models of the installed ``transformers`` whose positional scheme
differs by layer: each tiny model's own eager forward against the same model with every positional step done by
posenc's schedule (:mod:`schedule_cases`), for a full pass and for cached decoding, to 1e-5; and a schedule with
one thing wrong (a window, a base, a NoPE layer, the temperature, the section layout) is off by more than
10 times that (the matches are within 4e-7)."""

import dataclasses

import pytest
import torch
from schedule_cases import ATOL, T, compare, tiny_config

import posenc
from posenc.encodings.schedule import Layer, LayerSchedule
from posenc.errors import PosencError, PosencWarning
from posenc.hf.schedule import schedule_from_hf_config

LLAMA3 = {"rope_type": "llama3", "rope_theta": 500000.0, "factor": 8.0, "low_freq_factor": 1.0,
          "high_freq_factor": 4.0, "original_max_position_embeddings": 8}

#: name -> (model type, layers, config fields, decoder); windows and chunks shorter than the T = 11 tokens, Llama 4's
#: temperature past its floor within them (floor_scale 2)
CASES = {
    "gemma3": ("gemma3_text", 6, {"sliding_window": 4}, True),
    "gemma3-scaled": ("gemma3_text", 6, {"sliding_window": 4, "rope_scaling": {"rope_type": "linear", "factor": 8.0}},
                      True),
    "gemma3-bidirectional": ("gemma3_text", 6, {"sliding_window": 6, "use_bidirectional_attention": True}, False),
    "modernbert": ("modernbert", 6, {"local_attention": 4}, False),
    "llama4": ("llama4_text", 4, {"attention_chunk_size": 4, "floor_scale": 2, "attn_scale": 0.5,
                                  "rope_parameters": LLAMA3}, True),
    "smollm3": ("smollm3", 8, {}, True),
    "smollm3-sliding": ("smollm3", 8, {"use_sliding_window": True, "sliding_window": 4, "layer_types": None}, True),
    "qwen3_vl": ("qwen3_vl_text", 2, {}, True),
}


def _config(name):
    model_type, layers, fields, _ = CASES[name]
    return tiny_config(model_type, layers, fields)


def _thw(name):
    """Distinct temporal, height and width positions for the M-RoPE model, else None (text positions)."""
    if CASES[name][0] != "qwen3_vl_text":
        return None
    return torch.randint(0, 30, (3, 1, T), generator=torch.Generator().manual_seed(3))


def _replace(schedule, index_set, **changes):
    return LayerSchedule(tuple(dataclasses.replace(layer, **changes) if i in index_set else layer
                               for i, layer in enumerate(schedule)))


@pytest.mark.parametrize("name", CASES)
def test_the_schedule_equals_the_models_own_forward(name):
    result = compare(_config(name), rotary=_thw(name), decoder=CASES[name][3])
    assert result.full < ATOL
    if CASES[name][3]:
        assert result.cached < ATOL


def test_what_each_schedule_says():
    gemma = schedule_from_hf_config(_config("gemma3-scaled"))
    assert [x.window for x in gemma] == [4] * 5 + [None]
    assert {gemma[i].encoding.base for i in range(5)} == {10000.0} and gemma[5].encoding.base == 1e6
    assert gemma[0].encoding.scaling.type == "default" and gemma[5].encoding.scaling.params["factor"] == 8.0
    assert gemma[0].encoding is gemma[4].encoding  # one module per layer type, as the model's rotary has one table per type
    # EmbeddingGemma's bidirectional Gemma 3: transformers makes its sliding_window 6 // 2 + 1 = 4, |i - j| < 4
    assert [x.window for x in schedule_from_hf_config(_config("gemma3-bidirectional"))] == [4] * 5 + [None]
    bert = schedule_from_hf_config(_config("modernbert"))
    assert [x.window for x in bert] == [None, 3, 3, None, 3, 3]  # |i - j| <= local_attention / 2
    assert [x.encoding.base for x in bert] == [160000.0, 1e4, 1e4, 160000.0, 1e4, 1e4]
    llama = schedule_from_hf_config(_config("llama4"))
    assert [x.name for x in llama] == ["rope"] * 3 + ["temperature"]
    assert [x.chunk for x in llama] == [4, 4, 4, None] and llama[0].encoding.pairing == "interleaved"
    assert [x.qk_norm for x in llama] == [1e-5] * 3 + [None]  # rms_norm_eps, on the RoPE layers only
    assert llama[3].options == {"attn_scale": 0.5, "floor_scale": 2}
    smol = schedule_from_hf_config(_config("smollm3-sliding"))
    assert [x.name for x in smol] == ["rope", "rope", "rope", "nope"] * 2
    assert [x.window for x in smol] == [None, None, None, 4] * 2
    qwen = schedule_from_hf_config(_config("qwen3_vl"))
    assert qwen.is_uniform and qwen[0].name == "mrope" and qwen[0].encoding.interleaved


def _other_rope(schedule, i, **changes):
    rope = schedule[i].encoding
    options = {"head_dim": rope.head_dim, "base": rope.base, "pairing": rope.pairing, "scaling": rope.scaling}
    return _replace(schedule, {i}, encoding=posenc.build("rope", **{**options, **changes}))


#: name -> (what is wrong, the edit): each must be caught by the comparison
WRONG = {
    "gemma3": ("no windows", lambda s: _replace(s, range(6), window=None)),
    "gemma3-scaled": ("the global layer without its linear scaling", lambda s: _other_rope(s, 5, scaling=None)),
    "gemma3-bidirectional": ("windows one wider", lambda s: _replace(s, range(5), window=5)),
    "modernbert": ("windows one narrower (|i - j| < local_attention / 2)", lambda s: _replace(s, {1, 2, 4, 5},
                                                                                             window=2)),
    "llama4": ("the NoPE layer without its temperature", lambda s: _replace(s, {3}, encoding="nope", options={})),
    "smollm3": ("RoPE on the NoPE layers", lambda s: _replace(s, {3, 7}, encoding=s[0].encoding)),
    "smollm3-sliding": ("no window on the NoPE layers", lambda s: _replace(s, {3, 7}, window=None)),
    "qwen3_vl": ("contiguous M-RoPE sections", lambda s: LayerSchedule.uniform(2, "mrope", {
        "head_dim": 16, "base": s[0].encoding.base, "mrope_section": list(s[0].encoding.mrope_section),
        "interleaved": False})),
}


@pytest.mark.parametrize("name", WRONG)
def test_a_wrong_schedule_is_caught(name):
    _, edit = WRONG[name]
    result = compare(_config(name), rotary=_thw(name), decoder=CASES[name][3], edit=edit)
    assert result.full > 10 * ATOL


def test_llama4_chunks_qk_norm_and_the_global_base_matter_too():
    config = _config("llama4")
    assert compare(config, edit=lambda s: _replace(s, {0, 1, 2}, chunk=None)).full > 10 * ATOL
    assert compare(config, edit=lambda s: _replace(s, {0, 1, 2}, qk_norm=None)).full > 10 * ATOL
    config = _config("gemma3")
    assert compare(config, edit=lambda s: _other_rope(s, 5, base=1e4)).full > 10 * ATOL


# -- reading config dicts (config.json) -------------------------------------------------------------------------------


def _dict(**fields):
    return {"model_type": "llama", "hidden_size": 64, "num_attention_heads": 4, "num_hidden_layers": 8,
            "max_position_embeddings": 128, "rope_parameters": {"rope_type": "default", "rope_theta": 1e4}, **fields}


def test_no_rope_layers_or_their_interval():
    by_interval = schedule_from_hf_config(_dict(no_rope_layer_interval=4))
    assert [x.name for x in by_interval] == ["rope", "rope", "rope", "nope"] * 2
    empty = schedule_from_hf_config(_dict(no_rope_layers=[], no_rope_layer_interval=2))  # Llama 4: empty is unset
    assert [x.name for x in empty] == ["rope", "nope"] * 4
    listed = schedule_from_hf_config(_dict(no_rope_layers=[0, 1, 1, 1, 1, 1, 1, 0], no_rope_layer_interval=4))
    assert [x.name for x in listed] == ["nope"] + ["rope"] * 6 + ["nope"]
    with pytest.raises(PosencError, match="no_rope_layers\" = \\[1, 1, 0\\]: expected a list of 8 entries.*it has 3 "
                                          "entries but num_hidden_layers is 8"):
        schedule_from_hf_config(_dict(no_rope_layers=[1, 1, 0]))


def test_sliding_window_without_layer_types():
    assert [x.window for x in schedule_from_hf_config(_dict(sliding_window=32))] == [32] * 8  # Mistral
    assert [x.window for x in schedule_from_hf_config(_dict(sliding_window=32, use_sliding_window=False))] == \
        [None] * 8  # Qwen2 with the window off


@pytest.mark.parametrize(("model_type", "split", "windows"), [
    # Qwen2 and Qwen3: the layers from max_window_layers on slide (transformers' Qwen2Config)
    ("qwen2", 0, [64] * 4), ("qwen2", 2, [None, None, 64, 64]), ("qwen2", 4, [None] * 4),
    ("qwen3", 1, [None, 64, 64, 64]),
    # Qwen2-MoE: the even layers below max_window_layers slide
    ("qwen2_moe", 4, [64, None, 64, None]), ("qwen2_moe", 2, [64, None, None, None]),
])
def test_max_window_layers_splits_a_dicts_layers_as_the_config_class_does(model_type, split, windows):
    """A config.json dict with a window and max_window_layers but no layer_types: the same layers slide as in
    transformers' own config built from it (the window counted as each model's attention does)."""
    import transformers

    raw = {"model_type": model_type, "hidden_size": 64, "num_attention_heads": 4, "num_key_value_heads": 2,
           "num_hidden_layers": 4, "intermediate_size": 128, "vocab_size": 100, "rope_theta": 10000.0,
           "use_sliding_window": True, "sliding_window": 64, "max_window_layers": split}
    from_dict = [x.window for x in schedule_from_hf_config(raw)]
    built = transformers.AutoConfig.for_model(model_type, **{k: v for k, v in raw.items() if k != "model_type"})
    assert from_dict == [x.window for x in schedule_from_hf_config(built)]
    assert from_dict == windows


def test_unknown_layer_types_and_wrong_lengths_are_refused():
    with pytest.raises(PosencError, match="'linear_attention' in this config have no schedule"):
        schedule_from_hf_config(_dict(num_hidden_layers=2, layer_types=["full_attention", "linear_attention"]))
    with pytest.raises(PosencError, match="layer_types\" = \\[\"full_attention\"\\]: expected a list of 8 entries.*it "
                                          "has 1 entries but num_hidden_layers is 8"):
        schedule_from_hf_config(_dict(layer_types=["full_attention"]))
    with pytest.raises(PosencError, match="chunked_attention layers but no config.json field \"attention_chunk_size"):
        schedule_from_hf_config(_dict(num_hidden_layers=1, layer_types=["chunked_attention"]))
    with pytest.raises(PosencError, match="no config.json field \"num_hidden_layers\""):
        schedule_from_hf_config({"model_type": "llama", "rope_theta": 1e4, "hidden_size": 8, "num_attention_heads": 2})


def test_a_multimodal_config_is_read_through_its_text_model():
    from transformers import Gemma3Config, Llama4Config, Qwen3VLConfig

    assert schedule_from_hf_config(Qwen3VLConfig())[0].name == "mrope"
    assert [x.name for x in schedule_from_hf_config(Llama4Config())][:4] == ["rope"] * 3 + ["temperature"]
    gemma = schedule_from_hf_config(Gemma3Config())
    assert sum(x.window is None for x in gemma) == len(gemma) // 6
    assert schedule_from_hf_config({"text_config": _dict(num_hidden_layers=2)})[1].name == "rope"


def test_layers_of_one_encoding_share_it_and_the_rest_is_plain_data():
    schedule = schedule_from_hf_config(_dict(no_rope_layer_interval=4))
    built = schedule.build()
    assert built[0] is built[1] is schedule[0].encoding and built[3].name == "nope"
    with pytest.raises(PosencError, match="has no dict form"):
        schedule.as_dict()
    assert isinstance(schedule[3], Layer) and schedule[3].as_dict() == {"encoding": "nope", "options": {}}


def _ergo_dict(**fields):
    return _dict(model_type="ergo", num_hidden_layers=4, sliding_window=8,
                 layer_types=["sliding_attention"] * 3 + ["full_attention"],
                 rope_parameters={"sliding_attention": {"rope_type": "default", "rope_theta": 1e6},
                                  "full_attention": None}, **fields)


def test_a_layer_type_whose_rope_parameters_are_none_runs_without_rope():
    # Ergo (transformers 5.25): rope_parameters names the full-attention layers with None, and its rotary module
    # skips them: those layers have no positions
    schedule = schedule_from_hf_config(_ergo_dict())
    assert [(x.name, x.window) for x in schedule] == [("rope", 8)] * 3 + [("nope", None)]
    assert schedule[0].encoding.base == 1e6
    with pytest.warns(PosencWarning, match="'full_attention' layers have no RoPE parameters: the model runs them "
                                           "without positions"):
        assert posenc.from_hf_config(_ergo_dict()).base == 1e6  # the sliding layers', said so
    with pytest.raises(PosencError, match=r"layer_type 'full_attention' has no RoPE parameters in this config \(its "
                                          r"rope parameters give None for 'full_attention'.*posenc.build\('nope'\)"):
        posenc.from_hf_config(_ergo_dict(), layer_type="full_attention")


def _has_model_type(model_type: str) -> bool:
    from transformers.models.auto.configuration_auto import CONFIG_MAPPING

    return model_type in CONFIG_MAPPING


@pytest.mark.skipif(not _has_model_type("ergo"), reason="this transformers has no Ergo model (new in 5.25: make "
                                                          "test-latest runs this)")
def test_ergos_schedule_equals_its_own_forward():
    config = tiny_config("ergo", 4, {"sliding_window": 4})
    assert "full_attention" in config.layer_types and config.rope_parameters["full_attention"] is None
    result = compare(config, decoder=True)
    assert result.full < ATOL and result.cached < ATOL
