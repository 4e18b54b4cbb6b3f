"""``posenc.hf.fields``: every field of a model's config read through one place and checked, each error naming the
field as config.json spells it; the cases of a bad config.json, each through the library and through
``posenc inspect`` (status 2, one line, no traceback); transformers' own refusals said in posenc's words."""

import json
import time
import warnings

import pytest
from transformers import (
    DeepseekV3Config,
    Gemma3Config,
    Gemma3TextConfig,
    Llama4TextConfig,
    LlamaConfig,
    MistralConfig,
    Qwen3VLConfig,
    SmolLM3Config,
)

import posenc
from posenc.cli import main
from posenc.errors import PosencError, PosencWarning
from posenc.hf.fields import (
    FIELDS,
    MAX_LAYERS,
    ROPE_FIELDS,
    ConfigFieldError,
    ConfigFields,
    check_written,
    config_from_dict,
    transformers_errors,
)
from posenc.hf.schedule import schedule_from_hf_config


def _real(config_class, drop=(), **fields):
    """A real model type's tiny config as config.json holds it, with ``fields`` written over it."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        data = json.loads(config_class(**({"num_hidden_layers": 4} if config_class not in (Gemma3Config,
                                                                                          Qwen3VLConfig) else {}))
                          .to_json_string())
    for name in drop:
        data.pop(name, None)
    return {**data, **fields}


def gemma3(**fields):
    return _real(Gemma3TextConfig, **fields)


def llama4(**fields):
    return _real(Llama4TextConfig, **fields)


def smollm3(**fields):
    return _real(SmolLM3Config, drop=("no_rope_layers",), **fields)


def llama(drop=(), **fields):
    return _real(LlamaConfig, drop=drop, **fields)


def qwen3_vl(**rope):
    data = _real(Qwen3VLConfig)
    data["text_config"]["rope_parameters"] = {**data["text_config"]["rope_parameters"], **rope}
    return data


#: issue 40's config cases: (name, config.json, fragments of the message). Each is refused by the library (the
#: schedule, which reads every field the encoding needs too) and by ``posenc inspect`` with status 2
CASES = [
    # tracebacks before: transformers' strict-dataclass errors, ZeroDivisionError, ValueError / TypeError
    ("layer-types-wrong-length", gemma3(layer_types=["sliding_attention"] * 3),
     ['config.json field "layer_types" = ["sliding_attention", "sliding_attention", "sliding_atten...: expected a '
      "list of 4 entries", "it has 3 entries but num_hidden_layers is 4"]),
    ("layer-types-a-string", gemma3(layer_types="full_attention"),
     ['config.json field "layer_types" = "full_attention" (a string): expected a list of 4 entries, each a string, '
      "one per layer", 'write a JSON list such as ["sliding_attention", "full_attention"]']),
    ("no-rope-layers-an-int", llama4(no_rope_layers=3),
     ['config.json field "no_rope_layers" = 3: expected a list of 4 entries, each 0 or 1']),
    ("no-rope-layers-a-string", llama4(no_rope_layers="1110"),
     ['config.json field "no_rope_layers" = "1110" (a string): expected a list of 4 entries']),
    ("rope-scaling-a-string", llama(drop=("rope_parameters",), rope_scaling="linear"),
     ['config.json field "rope_scaling" = "linear" (a string): expected an object, a JSON dict',
      'write an object such as {"rope_type": "linear", "factor": 2.0}']),
    ("rope-scaling-a-list", llama(drop=("rope_parameters",), rope_scaling=["linear", 2.0]),
     ['config.json field "rope_scaling" = ["linear", 2.0]: expected an object']),
    ("head-dim-a-string", llama(head_dim="64"),
     ['config.json field "head_dim" = "64" (a string): expected an integer >= 0', "fix: write 64 without quotes"]),
    ("text-config-a-string", {**_real(Gemma3Config), "text_config": "abc"},
     ['config.json field "text_config" = "abc" (a string): expected an object, a JSON dict']),
    ("heads-zero", llama(num_attention_heads=0),
     ['config.json field "num_attention_heads" = 0: expected an integer >= 1 (the number of attention heads)']),
    ("no-rope-interval-zero", smollm3(no_rope_layer_interval=0),
     ['config.json field "no_rope_layer_interval" = 0: expected an integer >= 1 (every that many-th layer has no '
      "RoPE)", "fix: set it to e.g. 4 (SmolLM3)"]),
    ("rope-theta-abc", llama(drop=("rope_parameters",), rope_theta="abc"),
     ['config.json field "rope_theta" = "abc" (a string): expected a finite number > 1 (the RoPE base)']),
    ("mrope-section-a-string-inside", qwen3_vl(mrope_section=["24", 20, 20]),
     ['config.json field "text_config.rope_parameters.mrope_section" = ["24", 20, 20]', 'entry 0 is "24" (a string)']),
    # silently wrong before
    ("rope-interleave-a-string", _real(DeepseekV3Config, rope_interleave="false"),
     ['config.json field "rope_interleave" = "false" (a string): expected true or false',
      "fix: write false without quotes"]),
    ("mrope-section-a-float", qwen3_vl(mrope_section=[24.7, 20, 20]),
     ['config.json field "text_config.rope_parameters.mrope_section" = [24.7, 20, 20]', "entry 0 is 24.7"]),
    ("sliding-window-a-float", _real(MistralConfig, sliding_window=512.7),
     ['config.json field "sliding_window" = 512.7: expected an integer >= 0', "write a whole number, e.g. 512"]),
    ("layers-a-float", llama(num_hidden_layers=2.5),
     ['config.json field "num_hidden_layers" = 2.5: expected an integer from 1 to 10000']),
    ("temperature-floor-zero", llama4(floor_scale=0),
     ['config.json field "floor_scale" = 0: expected an integer >= 1 (the positions per step of the attention '
      "temperature)"]),
    ("temperature-scale-negative", llama4(attn_scale=-1),
     ['config.json field "attn_scale" = -1: expected a finite number >= 0']),
    ("no-rope-interval-negative", smollm3(no_rope_layer_interval=-1),
     ['config.json field "no_rope_layer_interval" = -1: expected an integer >= 1']),
    # misleading before: posenc's own arguments (window=, chunk=, qk_norm) named instead of the config's fields
    ("sliding-window-zero", gemma3(sliding_window=0), ['config.json field "sliding_window" = 0']),
    ("chunk-zero", llama4(attention_chunk_size=0), ['config.json field "attention_chunk_size" = 0']),
    ("rms-norm-eps-negative", llama4(rms_norm_eps=-1e-5), ['config.json field "rms_norm_eps" = -1e-05']),
    # slow before: no bound on the layer count (inspect still running at 60 s)
    ("layers-1e9", llama(num_hidden_layers=1e9),
     ['config.json field "num_hidden_layers" = 1000000000.0: expected an integer from 1 to 10000',
      "posenc reads at most 10000 layers"]),
    ("layers-int-1e9", gemma3(num_hidden_layers=10 ** 9), ['"num_hidden_layers" = 1000000000: expected an integer']),
    # the fields of a multimodal config's language model carry its path
    ("text-config-head-dim-a-string", {**_real(Qwen3VLConfig), "text_config": {
        **_real(Qwen3VLConfig)["text_config"], "head_dim": "128"}},
     ['config.json field "text_config.head_dim" = "128" (a string)', "write 128 without quotes"]),
]


@pytest.mark.parametrize("config, fragments", [pytest.param(c, f, id=n) for n, c, f in CASES])
def test_the_library_names_the_field(config, fragments):
    start = time.perf_counter()
    with pytest.raises(ConfigFieldError) as caught:
        schedule_from_hf_config(config)
    assert time.perf_counter() - start < 5  # no work per layer before the check
    message = str(caught.value)
    assert "\n" not in message and "fix: " in message
    for fragment in fragments:
        assert fragment in message, message


@pytest.mark.parametrize("config, fragments", [pytest.param(c, f, id=n) for n, c, f in CASES])
def test_posenc_inspect_names_the_field(tmp_path, capsys, config, fragments):
    path = tmp_path / "config.json"
    path.write_text(json.dumps(config))
    assert main(["inspect", str(path)]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    for fragment in fragments:
        assert fragment in " ".join(err.split()), err


@pytest.mark.parametrize("command", ["probe", "extend"])
def test_probe_and_extend_read_a_folders_config_through_the_same_checks(tmp_path, capsys, command):
    (tmp_path / "config.json").write_text(json.dumps(llama(head_dim="16")))
    assert main([command, str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert 'config.json field "head_dim" = "16" (a string)' in err and "Traceback" not in err


def test_a_model_folder_is_checked_before_transformers_reads_it(tmp_path, capsys):
    (tmp_path / "config.json").write_text(json.dumps(smollm3(no_rope_layer_interval=0)))
    from posenc.pretrained import model_config

    with pytest.raises(ConfigFieldError, match='"no_rope_layer_interval" = 0'):
        model_config(str(tmp_path))  # transformers itself would divide by it
    assert main(["inspect", str(tmp_path)]) == 2
    assert '"no_rope_layer_interval" = 0' in capsys.readouterr().err


# -- transformers' own validation, in posenc's words -------------------------------------------------------------------


def test_a_field_posenc_does_not_read_is_refused_by_transformers_and_named(tmp_path, capsys):
    data = gemma3(attn_logit_softcapping="x")
    with pytest.raises(ConfigFieldError) as caught:
        config_from_dict(data, "my/config.json")
    message = str(caught.value)
    assert message.startswith('config.json field "attn_logit_softcapping" in my/config.json: transformers refuses it')
    assert "\n" not in message and "fix: " in message
    path = tmp_path / "config.json"
    path.write_text(json.dumps(data))
    assert main(["inspect", str(path)]) == 2
    err = capsys.readouterr().err
    assert '"attn_logit_softcapping"' in err and "Traceback" not in err


@pytest.mark.parametrize("error", [ZeroDivisionError("integer modulo by zero"), TypeError("bad"), ValueError("no")])
def test_transformers_errors_become_config_field_errors(error):
    with pytest.raises(ConfigFieldError, match="transformers refuses the config in folder/config.json") as caught:
        with transformers_errors("folder/config.json"):
            raise error
    assert caught.value.__cause__ is error


def test_an_unknown_model_type_is_named():
    with pytest.raises(ConfigFieldError, match='config.json field "model_type" = "lama" .*expected a model type'):
        config_from_dict({"model_type": "lama"})


def test_whole_numbers_written_as_floats_reach_transformers_as_ints():
    # 64.0 is a whole number: posenc reads it as 64, and hands transformers (whose int fields refuse floats) an int;
    # "attn_scale": 1 (an int) reaches Llama 4's float field as 1.0
    config = config_from_dict(llama(hidden_size=64.0, num_attention_heads=4, head_dim=16.0, num_hidden_layers=2.0))
    assert (config.hidden_size, config.head_dim, config.num_hidden_layers) == (64, 16, 2)
    assert config_from_dict(llama4(attn_scale=1)).attn_scale == 1.0
    data = llama(num_hidden_layers=2.0)
    config_from_dict(data)
    assert data["num_hidden_layers"] == 2.0  # the caller's dict stays as written


# -- the readers, one kind at a time ----------------------------------------------------------------------------------


@pytest.mark.parametrize("value, expected", [(64, 64), (64.0, 64), (1, 1)])
def test_an_integer_field_takes_whole_numbers(value, expected):
    read = ConfigFields({"head_dim": value}).get("head_dim")
    assert read == expected and type(read) is int


@pytest.mark.parametrize("value, fix", [
    (True, "set it to e.g. 128"), ("64", "write 64 without quotes"), (64.5, "write a whole number, e.g. 64"),
    (-1, "set it to e.g. 128"), ("sixty", "set it to e.g. 128"), (float("nan"), "set it to e.g. 128"),
    ([64], "set it to e.g. 128"),
])
def test_an_integer_field_refuses_the_rest(value, fix):
    with pytest.raises(ConfigFieldError) as caught:
        ConfigFields({"head_dim": value}).get("head_dim")
    assert str(caught.value).startswith('config.json field "head_dim" = ') and str(caught.value).endswith(fix)


@pytest.mark.parametrize("letters, shown", [
    (57, '"' + "a" * 57 + '"'),  # 59 characters of JSON (the letters and two quotes): shown whole
    (58, '"' + "a" * 58 + '"'),  # 60 characters: still whole, the cut is for longer values
    (59, '"' + "a" * 56 + "..."),  # 61 characters: cut to its first 57 and "..."
], ids=["59-chars", "60-chars", "61-chars"])
def test_a_value_is_shown_whole_up_to_60_characters(letters, shown):
    with pytest.raises(ConfigFieldError) as caught:
        ConfigFields({"head_dim": "a" * letters}).get("head_dim")
    assert str(caught.value).startswith(f'config.json field "head_dim" = {shown} (a string): expected an integer')


@pytest.mark.parametrize("value, fix", [("false", "write false without quotes"), ("True", "write true without quotes"),
                                        (1, "write true or false"), (None, None)])
def test_a_flag_is_a_json_boolean(value, fix):
    fields = ConfigFields({"rope_interleave": value})
    if fix is None:
        assert fields.get("rope_interleave", default=False) is False  # absent: the default
        return
    with pytest.raises(ConfigFieldError, match=f"expected true or false, a JSON boolean .*fix: {fix}$"):
        fields.get("rope_interleave")


def test_a_per_layer_list_is_checked_against_the_layer_count():
    fields = ConfigFields({"num_hidden_layers": 3, "no_rope_layers": [1, 1, 0], "layer_types": ["full_attention"]})
    assert fields.get("no_rope_layers") == [1, 1, 0]
    with pytest.raises(ConfigFieldError, match="it has 1 entries but num_hidden_layers is 3"):
        fields.get("layer_types")
    assert ConfigFields({"num_hidden_layers": 3, "no_rope_layers": []}).get("no_rope_layers") == []  # unset
    with pytest.raises(ConfigFieldError, match="entry 2 is 2; write each entry as 0 or 1"):
        ConfigFields({"num_hidden_layers": 3, "no_rope_layers": [1, 1, 2]}).get("no_rope_layers")


def test_the_layer_count_is_bounded():
    assert ConfigFields({"num_hidden_layers": MAX_LAYERS}).layer_count() == MAX_LAYERS
    with pytest.raises(ConfigFieldError, match=f"from 1 to {MAX_LAYERS}"):
        ConfigFields({"n_layer": MAX_LAYERS + 1}).layer_count()
    assert ConfigFields({"model_type": "llama"}).layer_count() is None


def test_rope_entries_in_both_schemas_and_per_layer_type():
    flat = ConfigFields({"rope_scaling": {"type": "linear", "factor": 2}, "rope_theta": 1e4}).rope_entries()
    assert list(flat) == [None] and flat[None].prefix == "rope_scaling."
    per_type = ConfigFields(Gemma3TextConfig()).rope_entries()
    assert set(per_type) == {"full_attention", "sliding_attention"}
    assert per_type["sliding_attention"].get("rope_theta") == 10000.0
    bad = {"rope_parameters": {"full_attention": {"rope_type": "default", "rope_theta": 0.5}}}
    with pytest.raises(ConfigFieldError, match='"rope_parameters.full_attention.rope_theta" = 0.5: expected a '
                                               'finite number > 1'):
        check_written(bad)


def test_a_missing_field_is_a_plain_posenc_error_naming_it():
    with pytest.raises(PosencError) as caught:
        ConfigFields({"model_type": "bloom"}).require("num_attention_heads", "n_head")
    assert not isinstance(caught.value, ConfigFieldError)
    assert 'config.json field "num_attention_heads" or "n_head", found none of them' in str(caught.value)


def test_every_record_says_what_it_holds():
    for name, spec in {**FIELDS, **ROPE_FIELDS}.items():
        assert spec.kind in ("int", "number", "flag", "text", "list", "dict"), name
        assert spec.what and spec.example, name
        assert spec.kind != "list" or spec.element in ("int", "number", "text", "flag01"), name


def test_the_memory_estimate_reads_through_the_same_fields():
    from posenc.extend.memory import estimate_memory

    with pytest.raises(ConfigFieldError, match='"num_hidden_layers" = "2" \\(a string\\)'):
        estimate_memory({"hidden_size": 64, "num_attention_heads": 4, "num_hidden_layers": "2", "vocab_size": 10}, 8)
    with pytest.raises(PosencError, match='needs the vocabulary size .* "vocab_size", found none'):
        estimate_memory({"hidden_size": 64, "num_attention_heads": 4, "num_hidden_layers": 2}, 8)


# -- one layer type taken for the whole model ------------------------------------------------------------------------


def test_from_hf_config_warns_when_layer_types_turn_differently():
    with pytest.warns(PosencWarning, match="from_hf_config returns the 'full_attention' layers' encoding only. Pass "
                                           "layer_type= \\('sliding_attention'\\).*schedule_from_hf_config"):
        rope = posenc.from_hf_config(Gemma3TextConfig())
    assert rope.base == 1e6
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert posenc.from_hf_config(Gemma3TextConfig(), layer_type="sliding_attention").base == 1e4
        posenc.from_hf_config(LlamaConfig())  # one entry: nothing to say
        same = {"rope_type": "default", "rope_theta": 1e4}
        posenc.from_hf_config({"model_type": "gemma3_text", "head_dim": 16, "rope_parameters": {
            "full_attention": same, "sliding_attention": same}})  # equal entries: the one encoding is every layer's
        schedule_from_hf_config(Gemma3TextConfig(num_hidden_layers=6))  # reads each type with its layer_type


# -- head_dim 63: the field at fault, and a fix that is itself valid --------------------------------------------------


def test_an_odd_head_width_is_blamed_on_head_dim():
    with pytest.raises(PosencError) as caught:
        posenc.from_hf_config(llama(head_dim=63))
    message = str(caught.value)
    assert message.startswith('config.json field "head_dim" = 63: RoPE turns pairs of channels')
    assert "correct head_dim (e.g. 64)" in message and "partial_rotary_factor" in message
    assert "0.9" not in message and "1.01" not in message  # no factor above 1 is offered


@pytest.mark.parametrize("head_dim, factor, fix", [(63, 0.5, "0.507937"), (16, 0.1875, "0.25"), (6, 0.9, "1")])
def test_the_suggested_partial_factor_gives_an_even_width(head_dim, factor, fix):
    # 63 x 0.5 = 31.5, truncated to 31 channels, odd: the nearest even width to 31.5 is 32, 32 / 63 = 0.507937;
    # 16 x 0.1875 = 3: 2 and 4 are as near, the wider one, 4 / 16 = 0.25; 6 x 0.9 = 5.4: 6 is nearest, 6 / 6 = 1
    config = llama(head_dim=head_dim, partial_rotary_factor=factor)
    with pytest.raises(PosencError, match=f"fix: use a factor such as {fix}$"):
        posenc.from_hf_config(config)
    suggested = float(fix)
    assert 0 < suggested <= 1 and int(head_dim * suggested) % 2 == 0


# -- well-formed configs of other kinds of model are not refused as malformed -----------------------------------------


@pytest.mark.parametrize("model_type, why", [
    ("swin", "num_heads is a list, one per stage"),
    ("gemma3n_text", "intermediate_size is a list, one per layer"),
    ("qwen2_moe", "sliding_window is 0 with the window off"),
    ("glm5_next_text", "head_dim is 0 (derived by the model's code)"),
    ("lxmert", "num_hidden_layers counts three stacks"),
    ("musicgen", "two language models (text encoder and decoder)"),
])
def test_other_shapes_of_a_field_are_not_malformed(model_type, why):
    from transformers.models.auto.configuration_auto import CONFIG_MAPPING

    from posenc.inspection import inspect_config

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        config = CONFIG_MAPPING[model_type]()
    check_written(config.to_dict())  # nothing a config of this kind holds is refused as malformed
    try:
        inspect_config(config, config.to_dict())
    except ConfigFieldError as exc:  # pragma: no cover - the failure names the field
        pytest.fail(f"{model_type} ({why}): {exc}")
    except PosencError:
        pass  # posenc may not describe this model; it says so without calling the config malformed


def test_a_window_of_0_on_sliding_layers_is_named():
    config = gemma3(sliding_window=0)
    with pytest.raises(ConfigFieldError, match='"sliding_window" = 0: expected an integer >= 1 .* where the config '
                                               "has sliding_attention layers"):
        schedule_from_hf_config(config)
    off = llama(sliding_window=0, use_sliding_window=False)  # Qwen2-MoE's way of leaving it off
    assert all(layer.window is None for layer in schedule_from_hf_config(off))
