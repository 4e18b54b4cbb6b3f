"""``posenc.inspection``: each warning on a config written to trigger it, and not on its corrected twin; the schedule
of every model with an encoding per layer, read from a saved config."""

import json

import pytest
from transformers import (
    Gemma3TextConfig,
    Llama4TextConfig,
    LlamaConfig,
    ModernBertConfig,
    Qwen3VLConfig,
    SmolLM3Config,
)

from posenc.errors import PosencError
from posenc.inspection import FINDINGS, inspect_config, inspect_model


def _write(tmp_path, name, data):
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(data))
    return path


def _llama(**fields):
    return {"model_type": "llama", "hidden_size": 64, "num_attention_heads": 4, "num_hidden_layers": 2,
            "max_position_embeddings": 4096, **fields}


def _codes(tmp_path, data, name="config"):
    return inspect_model(_write(tmp_path, name, data)).codes()


# -- rope-theta -------------------------------------------------------------------------------------------------------


def test_a_base_kept_only_in_rope_parameters_warns():
    found = inspect_config(LlamaConfig(rope_theta=500000.0)).findings
    assert [f.code for f in found] == ["rope-theta"]
    assert "500000" in found[0].message and "getattr(config, 'rope_theta', 10000)" in found[0].message
    assert inspect_config(LlamaConfig()).codes() == []  # base 10000: the fallback is right


@pytest.mark.parametrize(("base", "codes"), [(9999.0, ["rope-theta"]), (10000.0, []), (10001.0, ["rope-theta"])])
def test_a_base_kept_only_in_rope_parameters_warns_unless_it_is_the_fallback_of_10000(base, codes):
    # code that reads getattr(config, "rope_theta", 10000) is right only at exactly 10000
    assert inspect_config(LlamaConfig(rope_theta=base)).codes() == codes


def test_contradicting_bases_warn(tmp_path):
    data = _llama(rope_theta=10000.0, rope_parameters={"rope_type": "default", "rope_theta": 500000.0})
    messages = [f.message for f in inspect_model(_write(tmp_path, "c", data)).findings if f.code == "rope-theta"]
    assert any("10000 at the top level but 500000 in rope_parameters" in m for m in messages)


def test_an_entry_without_a_base_warns(tmp_path):
    data = _llama(rope_parameters={"rope_type": "default"})
    found = inspect_model(_write(tmp_path, "c", data)).findings
    assert any(f.code == "rope-theta" and "has no rope_theta" in f.message for f in found)
    fixed = _llama(rope_parameters={"rope_type": "default", "rope_theta": 10000.0})
    assert "rope-theta" not in _codes(tmp_path, fixed)


@pytest.mark.parametrize("model_type, filled", [
    ("llama", "10000"),  # LlamaConfig's default base
    ("smollm3", "2e+06"),  # SmolLM3Config's default base, 2000000
    ("gpt2", "nothing"),  # learned positions: transformers reads no rope_parameters and fills in no base
])
def test_an_entry_without_a_base_says_what_transformers_fills_in(tmp_path, model_type, filled):
    data = _llama(model_type=model_type, rope_parameters={"rope_type": "default"})
    found = [f.message for f in inspect_model(_write(tmp_path, "c", data)).findings if f.code == "rope-theta"]
    assert any(m.startswith("rope_parameters in the config has no rope_theta") and
               f"(transformers fills in {filled} for this model type, other code usually 10000)" in m for m in found), found


def test_gemma3s_local_base_in_its_old_field_warns(tmp_path):
    data = {**Gemma3TextConfig(num_hidden_layers=6).to_dict(), "rope_local_base_freq": 10000.0}
    del data["rope_parameters"]
    data["rope_theta"] = 1000000.0
    found = inspect_model(_write(tmp_path, "g", data))
    assert any("rope_local_base_freq = 10000" in f.message for f in found.findings)
    # the schedule still gets each layer type its own base (transformers moves the field where it belongs)
    assert {x.encoding.base for x in found.schedule} == {10000.0, 1000000.0}


# -- yarn-factor ------------------------------------------------------------------------------------------------------


def test_yarn_without_its_original_length_warns(tmp_path):
    data = _llama(rope_parameters={"rope_type": "yarn", "rope_theta": 10000.0, "factor": 4.0})
    found = [f for f in inspect_model(_write(tmp_path, "y", data)).findings if f.code == "yarn-factor"]
    assert len(found) == 1 and "without original_max_position_embeddings" in found[0].message
    good = _llama(rope_parameters={"rope_type": "yarn", "rope_theta": 10000.0, "factor": 4.0,
                                   "original_max_position_embeddings": 1024})
    assert "yarn-factor" not in _codes(tmp_path, good)  # 4 x 1024 = 4096


def test_yarn_factor_against_the_lengths_warns(tmp_path):
    data = _llama(rope_parameters={"rope_type": "yarn", "rope_theta": 10000.0, "factor": 4.0,
                                   "original_max_position_embeddings": 2048})
    found = [f for f in inspect_model(_write(tmp_path, "y", data)).findings if f.code == "yarn-factor"]
    assert len(found) == 1 and "4096 / 2048 = 2" in found[0].message


# -- partial-rotary ---------------------------------------------------------------------------------------------------


def test_a_partial_rotary_factor_warns(tmp_path):
    found = inspect_model(_write(tmp_path, "p", _llama(model_type="phi", partial_rotary_factor=0.5))).findings
    partial = [f.message for f in found if f.code == "partial-rotary"]
    assert partial and "only 8 of the 16 channels" in partial[0]
    assert "partial-rotary" not in _codes(tmp_path, _llama(model_type="phi", partial_rotary_factor=1.0))


def test_a_rotary_dim_the_code_never_reads_warns(tmp_path):
    found = inspect_model(_write(tmp_path, "p", _llama(rotary_dim=8))).findings
    assert any("rotary_dim = 8, which llama's code never reads: it rotates 16" in f.message for f in found)


def test_an_odd_rotary_width_warns(tmp_path):
    found = inspect_model(_write(tmp_path, "p", _llama(model_type="phi", partial_rotary_factor=0.3125))).findings
    assert any("= 5 is odd" in f.message for f in found)  # 16 x 0.3125


def test_contradicting_partial_factors_warn(tmp_path):
    # written 0.5 at the top level and 0.25 in rope_parameters: transformers 5 uses the entry, so 64 / 4 x 0.25 = 4
    # of the 16 channels of a head rotate
    data = _llama(model_type="phi", partial_rotary_factor=0.5,
                  rope_parameters={"rope_type": "default", "rope_theta": 10000.0, "partial_rotary_factor": 0.25})
    partial = [f.message for f in inspect_model(_write(tmp_path, "p", data)).findings if f.code == "partial-rotary"]
    assert len(partial) == 2
    assert "partial_rotary_factor is 0.5 at the top level but 0.25 in rope_parameters" in partial[0]
    assert "only 4 of the 16 channels" in partial[1]


@pytest.mark.parametrize("rope_parameters", [None, {"rope_type": "default", "rope_theta": 10000.0}],
                         ids=["no-rope-parameters", "an-entry-without-the-factor"])
def test_a_top_level_partial_factor_alone_warns_once(rope_parameters):
    # a config dict with the factor only at the top level: nothing contradicts it, and 64 / 4 x 0.5 = 8 of 16 rotate
    data = _llama(model_type="phi", partial_rotary_factor=0.5, rope_theta=10000.0)
    if rope_parameters is not None:
        data = {**data, "rope_parameters": rope_parameters}
    partial = [f.message for f in inspect_config(data).findings if f.code == "partial-rotary"]
    assert len(partial) == 1 and "only 8 of the 16 channels" in partial[0]


# -- pairing ----------------------------------------------------------------------------------------------------------


def test_interleaved_code_warns(tmp_path):
    assert "pairing" in inspect_config(Llama4TextConfig(num_hidden_layers=4)).codes()
    data = _llama(model_type="deepseek_v3", rope_interleave=True, qk_rope_head_dim=8, head_dim=8,
                  rope_parameters={"rope_type": "default", "rope_theta": 10000.0})
    found = [f.message for f in inspect_model(_write(tmp_path, "d", data)).findings if f.code == "pairing"]
    assert found and "its config sets rope_interleave" in found[0]
    assert "pairing" not in _codes(tmp_path, _llama(rope_theta=10000.0))


def test_the_pairing_warning_names_the_model_type_whose_code_interleaves(tmp_path):
    # Cohere's config has no rope_interleave; its modeling code rotates adjacent pairs, and the warning says whose
    found = [f.message for f in inspect_model(_write(tmp_path, "c", _llama(model_type="cohere", rope_theta=10000.0)))
             .findings if f.code == "pairing"]
    assert len(found) == 1 and "since cohere's code in transformers does so" in found[0]


def test_a_llama_gguf_file_warns_about_its_permuted_rows():
    found = [f.message for f in inspect_model("smollm2").findings if f.code == "pairing"]
    assert len(found) == 1 and "GGUF file (llama)" in found[0]
    assert "pairing" not in inspect_model("minilm").codes()


# -- dynamic-cache ----------------------------------------------------------------------------------------------------


def test_dynamic_ntk_warns_about_the_cache(tmp_path):
    data = _llama(rope_parameters={"rope_type": "dynamic", "rope_theta": 10000.0, "factor": 2.0})
    found = [f.message for f in inspect_model(_write(tmp_path, "n", data)).findings if f.code == "dynamic-cache"]
    assert len(found) == 1 and "#25306" in found[0]
    linear = _llama(rope_parameters={"rope_type": "linear", "rope_theta": 10000.0, "factor": 2.0})
    assert "dynamic-cache" not in _codes(tmp_path, linear)


#: each Hugging Face rope type's entry (head_dim 16: 8 pairs) and the findings it must give, written by hand from what
#: the type does: dynamic NTK and LongRoPE change their frequencies with the length (the cache warning), YaRN
#: stretches an original length by a fixed factor (its factor checked: 2 x 2048 = 4096 holds, so nothing to say),
#: proportional RoPE keeps the whole head turning (its partial factor is no partial rotary)
_BY_ROPE_TYPE = [
    ("default", {}, set()),
    ("linear", {"factor": 2.0}, set()),
    ("dynamic", {"factor": 2.0}, {"dynamic-cache"}),
    ("yarn", {"factor": 2.0, "original_max_position_embeddings": 2048}, set()),
    ("yarn", {"factor": 4.0, "original_max_position_embeddings": 2048}, {"yarn-factor"}),
    ("llama3", {"factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                "original_max_position_embeddings": 512}, set()),
    ("longrope", {"short_factor": [1.0] * 8, "long_factor": [2.0] * 8, "original_max_position_embeddings": 2048},
     {"dynamic-cache"}),
    ("proportional", {"partial_rotary_factor": 0.25}, set()),
]


@pytest.mark.parametrize(("rope_type", "params", "want"), _BY_ROPE_TYPE,
                         ids=[f"{t}-{i}" for i, (t, _, _) in enumerate(_BY_ROPE_TYPE)])
def test_each_rope_type_gets_the_findings_its_record_implies(rope_type, params, want):
    # the linter asks each type's Scaling record what it means, never its name: a length-dependent type warns about the
    # cache, a fixed stretch of an original length has its factor checked, a whole-head type is no partial rotary
    data = _llama(rope_parameters={"rope_type": rope_type, "rope_theta": 10000.0, **params})
    codes = set(inspect_config(data).codes()) & {"dynamic-cache", "yarn-factor", "partial-rotary"}
    assert codes == want


def test_the_inspection_names_the_model_type():
    assert inspect_config(LlamaConfig()).model_type == "llama"
    assert inspect_config(_llama(model_type="phi", rope_theta=10000.0)).model_type == "phi"
    assert inspect_config({"hidden_size": 64, "num_attention_heads": 4}).model_type == ""  # a dict without one


# -- the schedule of each model, from its saved config ----------------------------------------------------------------


@pytest.mark.parametrize("config, want", [
    (Gemma3TextConfig(num_hidden_layers=6, sliding_window=512),
     [("0-4", "base=10000", "window 512"), ("5", "base=1e+06", None)]),
    (ModernBertConfig(num_hidden_layers=3), [("0", "base=160000", None), ("1-2", "base=10000", "window 65")]),
    (Llama4TextConfig(num_hidden_layers=4), [("0-2", "pairing='interleaved'", "chunk 8192"),
                                             ("3", "nope + temperature(attn_scale=0.1, floor_scale=8192)", None)]),
    (SmolLM3Config(num_hidden_layers=4), [("0-2", "base=2e+06", None), ("3", "nope", None)]),
    (Qwen3VLConfig(), [(f"0-{Qwen3VLConfig().text_config.num_hidden_layers - 1}", "interleaved=True", None)]),
], ids=["gemma3", "modernbert", "llama4", "smollm3", "qwen3_vl"])
def test_each_models_schedule_from_its_saved_config(tmp_path, config, want):
    config.save_pretrained(tmp_path)
    rows = inspect_model(tmp_path).rows()
    assert [r[0] for r in rows] == [w[0] for w in want]
    for (_, text), (_, fragment, span) in zip(rows, want, strict=True):
        assert fragment in text and (span is None) == ("·" not in text) and (span is None or span in text)


def test_what_cannot_be_inspected(tmp_path):
    with pytest.raises(PosencError, match="does not exist"):
        inspect_model(tmp_path / "missing.json")
    with pytest.raises(PosencError, match="has no model_type"):
        inspect_model(_write(tmp_path, "x", {"hidden_size": 8}))
    found = inspect_model(_write(tmp_path, "h", _llama(num_hidden_layers=2, layer_types=["full_attention",
                                                                                        "linear_attention"])))
    assert found.schedule is None and found.codes()[0] == "schedule"


def test_a_config_whose_fields_differ_per_layer_is_reported_not_raised():
    from transformers.models.auto.configuration_auto import CONFIG_MAPPING

    found = inspect_config(CONFIG_MAPPING["gemma4_text"]())  # head_dim differs per layer (per_layer_config)
    assert found.schedule is None and found.codes()[0] == "schedule" and "head_dim" in found.findings[0].message


def test_llama4s_nope_layers_are_named_as_such(tmp_path):
    Llama4TextConfig(num_hidden_layers=4).save_pretrained(tmp_path)
    rows = dict(inspect_model(tmp_path).rows())
    assert rows["3"] == ("nope + temperature(attn_scale=0.1, floor_scale=8192) (no positional encoding, with "
                         "attention temperature)")
    assert rows["0-2"].startswith("rope(")  # a rotary layer keeps its own name


def test_a_config_without_a_base_warns_that_the_default_applies(tmp_path):
    # no rope_theta and no rope_parameters: transformers fills in its default, 10000 for llama, 2000000 for smollm3
    found = [f.message for f in inspect_model(_write(tmp_path, "l", _llama())).findings if f.code == "rope-theta"]
    assert len(found) == 1 and "has no rope_theta (and no rope_parameters)" in found[0]
    assert "10000 as transformers fills it in for model type 'llama'" in found[0]
    smol = {"model_type": "smollm3", "hidden_size": 64, "num_attention_heads": 4, "num_hidden_layers": 4}
    found = [f.message for f in inspect_model(_write(tmp_path, "s", smol)).findings if f.code == "rope-theta"]
    assert any("2e+06 as transformers fills it in for model type 'smollm3'" in m for m in found)
    assert "rope-theta" not in _codes(tmp_path, _llama(rope_theta=10000.0))  # written: nothing to say


def test_a_width_rope_cannot_turn_is_a_schedule_finding(tmp_path):
    # head_dim 63 is a well-formed integer: posenc cannot rotate every channel of it, and says which field
    found = inspect_config(_llama(head_dim=63, rope_theta=10000.0))
    assert found.schedule is None and found.codes()[0] == "schedule"
    assert 'config.json field "head_dim" = 63: RoPE turns pairs of channels' in found.findings[0].message
    # from a config.json, transformers refuses it first; posenc says so, naming the file
    from posenc.hf.fields import ConfigFieldError

    with pytest.raises(ConfigFieldError, match="transformers refuses the config in .*h.json .*`head_dim`=63"):
        inspect_model(_write(tmp_path, "h", _llama(head_dim=63, rope_theta=10000.0)))


def test_a_malformed_field_is_raised_not_reported(tmp_path):
    from posenc.hf.fields import ConfigFieldError

    with pytest.raises(ConfigFieldError, match='"sliding_window" = 512.7'):
        inspect_model(_write(tmp_path, "w", _llama(sliding_window=512.7)))
    with pytest.raises(ConfigFieldError, match='"no_rope_layer_interval" = -1'):
        inspect_config(_llama(no_rope_layer_interval=-1))  # a dict: checked as written
    with pytest.raises(ConfigFieldError, match='"rope_theta" = "abc"'):
        inspect_config(LlamaConfig(), raw=_llama(rope_theta="abc"))  # the config as written is checked too


def test_every_finding_code_is_listed():
    assert FINDINGS == ("schedule", "rope-theta", "yarn-factor", "partial-rotary", "pairing", "dynamic-cache")


def test_a_flat_entry_without_a_base_in_a_model_of_two_layer_types_names_each_type_s_base(tmp_path):
    """Gemma 3 written with one flat ``rope_parameters`` and no base: transformers fills in each layer type's own
    default (Gemma3TextConfig: 1e6 for full attention, 1e4 for sliding), so the warning names both, and the schedule
    gives each layer type that base (transformers leaves the flat field beside the per-type entries it adds)."""
    data = Gemma3TextConfig(num_hidden_layers=6).to_dict()
    data["rope_parameters"] = {"rope_type": "default"}
    found = inspect_model(_write(tmp_path, "g", data))
    messages = [f.message for f in found.findings if f.code == "rope-theta"]
    assert any(m.startswith("rope_parameters in the config has no rope_theta") and "(transformers fills in "
               "1e+06 (full_attention), 10000 (sliding_attention) for this model type" in m
               for m in messages), messages
    assert {x.encoding.base for x in found.schedule} == {10000.0, 1000000.0}
