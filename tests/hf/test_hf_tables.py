"""Every table of model types in posenc.hf.config, entry by entry, on plain config dicts (no model is built).

The expected value of each entry is written here by hand from the model's code in transformers (the reason is in the
comment of each table below), not read from posenc's tables: an entry dropped from, added to or moved between
posenc's tables fails one named case. The comparisons with the models' own rotations are in test_config_rotary.py (a
representative per rule in the fast suite, every model type in the slow one).
"""

from __future__ import annotations

import pytest

import posenc
from posenc.errors import PosencError
from posenc.hf.config import (
    AXIAL_MODEL_TYPES,
    INTERLEAVED_MODEL_TYPES,
    LOGIT_MSCALE_MODEL_TYPES,
    M_ROPE_LAYOUTS,
    M_ROPE_MODEL_TYPES,
    from_hf_config,
    rope_options_from_hf_config,
)


def _rotary(model_type: str, rope: dict | None = None, **fields) -> dict:
    return {"model_type": model_type, "hidden_size": 64, "num_attention_heads": 4, "head_dim": 8,
            "max_position_embeddings": 128, "rope_parameters": {"rope_type": "default", "rope_theta": 10000.0,
                                                                **(rope or {})}, **fields}


# rotate adjacent pairs in their modeling code whatever the config says: rotate_every_two (GPT-J, CodeGen); x[..., 0::2]
# and x[..., 1::2] (Cohere, ERNIE 4.5, GLM, Helium, Moonshine, BLT, OpenAI privacy filter, Ergo); complex products of
# (-1, 2) pairs (DeepSeek-V2, Llama 4); apply_rotary_pos_emb_interleave in every layer (the rest)
INTERLEAVED = ["gptj", "codegen", "cohere", "cohere2", "cohere2_moe", "ernie4_5", "ernie4_5_moe", "glm", "glm4",
               "helium", "moonshine", "moonshine_streaming", "blt", "blt_global_transformer", "blt_local_encoder",
               "blt_local_decoder", "blt_patcher", "openai_privacy_filter", "ergo", "deepseek_v2", "deepseek_v32", "llama4",
               "llama4_text", "glm_moe_dsa", "longcat_flash", "axk2", "bailing_hybrid", "dots3_note_text",
               "mistral_large4_text"]
# rotate_half over the two halves of the head
HALF = ["llama", "mistral", "mixtral", "qwen2", "qwen3", "gemma", "gemma2", "gemma3_text", "phi", "phi3", "gpt_neox",
        "stablelm", "olmo2", "starcoder2", "smollm3", "granite", "exaone4"]
# their config class defaults rope_interleave to True (DeepseekV3Config, Glm4MoeLiteConfig, ...), and the code reads it;
# SarvamMLAConfig subclasses DeepseekV3Config and transformers' auto mapping runs it with DeepseekV3Model
FIELD_DEFAULT_TRUE = ["deepseek_v3", "glm4_moe_lite", "mistral4", "youtu", "axk1", "sarvam_mla"]


@pytest.mark.parametrize("model_type", INTERLEAVED)
def test_types_whose_code_rotates_adjacent_pairs(model_type):
    assert rope_options_from_hf_config(_rotary(model_type))["pairing"] == "interleaved"
    assert rope_options_from_hf_config(_rotary(model_type, rope_interleave=False))["pairing"] == "half"  # the field wins


@pytest.mark.parametrize("model_type", HALF)
def test_types_whose_code_rotates_halves(model_type):
    assert rope_options_from_hf_config(_rotary(model_type))["pairing"] == "half"
    assert rope_options_from_hf_config(_rotary(model_type, rope_interleave=True))["pairing"] == "interleaved"


def test_the_interleaved_table_is_the_list_above():
    assert INTERLEAVED_MODEL_TYPES == set(INTERLEAVED)


@pytest.mark.parametrize(("release", "pairing"), [((5, 24), "half"), ((5, 25), "interleaved"), ((6, 0), "interleaved"),
                                                   (None, "interleaved")])
def test_a_type_whose_code_changed_pairing_follows_the_installed_transformers(monkeypatch, release, pairing):
    # HY-V4: rotate_half in transformers 5.24, apply_rotary_pos_emb_interleave from 5.25 (without transformers: the
    # newest rule); the config's own field still wins
    from posenc.hf import config as hf_config

    monkeypatch.setattr(hf_config, "transformers_release", lambda: release)
    assert rope_options_from_hf_config(_rotary("hy_v4"))["pairing"] == pairing
    assert rope_options_from_hf_config(_rotary("hy_v4", rope_interleave=False))["pairing"] == "half"


@pytest.mark.parametrize(("version", "release"), [("5.24.0", (5, 24)), ("5.25.0.dev0", (5, 25)), ("6.0rc1", (6, 0)),
                                                  ("7", (7, 0))])
def test_a_release_is_read_as_major_and_minor(version, release):
    from posenc.hf.config import release_of

    assert release_of(version) == release


def test_a_version_without_a_release_is_named():
    from posenc.hf.config import release_of

    with pytest.raises(PosencError, match=r"cannot read a release from the version 'main'; expected MAJOR.MINOR"):
        release_of("main")


@pytest.mark.parametrize("model_type", FIELD_DEFAULT_TRUE)
def test_a_config_json_without_rope_interleave_takes_the_config_classes_default(model_type):
    """A config.json read as a dict may lack the field; the config class fills in True, so the model rotates
    adjacent pairs and posenc must too (before: half, every logit of such a model differed)."""
    from transformers import CONFIG_MAPPING

    assert CONFIG_MAPPING[model_type]().rope_interleave is True  # the reference: what transformers fills in
    assert rope_options_from_hf_config(_rotary(model_type))["pairing"] == "interleaved"
    assert rope_options_from_hf_config(_rotary(model_type, rope_interleave=False))["pairing"] == "half"


def test_the_field_default_table_is_the_list_above():
    from posenc.hf.config import _INTERLEAVE_FIELD_DEFAULT

    assert _INTERLEAVE_FIELD_DEFAULT == set(FIELD_DEFAULT_TRUE)


@pytest.mark.slow  # imports every configuration module of transformers (about 6 s)
def test_every_config_class_defaulting_rope_interleave_to_true_is_in_the_table():
    # the reference: the class default of every config transformers knows (a plain dict of such a model's config.json
    # may leave the field out, and the model then rotates adjacent pairs)
    from transformers.models.auto.configuration_auto import CONFIG_MAPPING

    defaults_true = {t for t in CONFIG_MAPPING.keys() if getattr(CONFIG_MAPPING[t], "rope_interleave", None) is True}
    assert defaults_true == set(FIELD_DEFAULT_TRUE)


# attention multiplies the softmax scale by mscale(s, mscale_all_dim)^2 under YaRN (yarn_apply_mscale / softmax_scale)
LOGIT_MSCALE = ["deepseek_v2", "deepseek_v3", "deepseek_v32", "glm4_moe_lite", "glm_moe_dsa", "longcat_flash",
                "minicpm3", "mistral4", "mistral_large4", "mistral_large4_text", "youtu", "axk1", "axk2",
                "bailing_hybrid", "hy_v4", "sarvam_mla"]  # sarvam_mla: DeepseekV3Model's attention
YARN = {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32, "mscale": 1.0,
        "mscale_all_dim": 1.0}


@pytest.mark.parametrize("model_type", LOGIT_MSCALE)
def test_types_that_scale_the_logits_under_yarn(model_type):
    assert rope_options_from_hf_config(_rotary(model_type, YARN)).get("scale_logits") is True
    # only under a scaling with mscale_all_dim
    assert "scale_logits" not in rope_options_from_hf_config(_rotary(model_type))
    assert "scale_logits" not in rope_options_from_hf_config(_rotary(model_type, {**YARN, "mscale_all_dim": 0}))


@pytest.mark.parametrize("model_type", ["llama", "qwen2", "mistral", "gptj"])
def test_other_types_leave_the_logits_unscaled_under_the_same_yarn(model_type):
    assert "scale_logits" not in rope_options_from_hf_config(_rotary(model_type, YARN))


def test_the_logit_scale_table_is_the_list_above():
    assert LOGIT_MSCALE_MODEL_TYPES == set(LOGIT_MSCALE)


def _model_class(model_type: str) -> str | None:
    from transformers.models.auto.modeling_auto import MODEL_MAPPING_NAMES

    name = MODEL_MAPPING_NAMES.get(model_type)
    return name[0] if isinstance(name, tuple) else name


@pytest.mark.parametrize("table", ["interleaved", "field default", "logit scale", "M-RoPE"])
def test_model_types_that_run_the_same_model_class_share_their_table_entry(table):
    """transformers' auto mapping runs some model types with another type's model class (sarvam_mla runs
    DeepseekV3Model): such a type rotates and scales as that class does, so it belongs to the same tables. A type added
    to transformers this way fails here by name."""
    from transformers.models.auto.modeling_auto import MODEL_MAPPING_NAMES

    from posenc.hf.config import _INTERLEAVE_FIELD_DEFAULT

    types = {"interleaved": INTERLEAVED_MODEL_TYPES, "field default": _INTERLEAVE_FIELD_DEFAULT,
             "logit scale": LOGIT_MSCALE_MODEL_TYPES, "M-RoPE": M_ROPE_MODEL_TYPES}[table]
    classes = {_model_class(t) for t in types} - {None}
    sharing = {t for t in MODEL_MAPPING_NAMES if _model_class(t) in classes}
    assert sharing - set(types) == set()


# M-RoPE layouts posenc reproduces: (interleaved sections, the modeling code's default mrope_section)
M_ROPE = {"qwen2_vl_text": (False, (16, 24, 24)), "qwen2_5_vl_text": (False, (16, 24, 24)),
          "qwen3_vl_text": (True, (24, 20, 20)), "qwen3_vl_moe_text": (True, (24, 20, 20))}
# M-RoPE in their modeling code in a layout posenc has not checked: refused
M_ROPE_REFUSED = ["qwen3_5_text", "qwen3_5_moe_text", "qwen4_exp_text", "qwen2_5_omni_text", "qwen2_5_omni_talker",
                  "qwen3_omni_moe_text", "qwen3_omni_moe_talker_text", "glm4v_text", "glm4v_moe_text",
                  "glm_ocr_text", "glm_image_text", "ernie4_5_vl_moe_text", "paddleocr_vl_text", "hunyuan_vl_text",
                  "cohere_compass_text", "cosmos3_edge_text", "neomme"]


@pytest.mark.parametrize("model_type", sorted(M_ROPE))
def test_m_rope_layouts(model_type):
    interleaved, section = M_ROPE[model_type]
    encoding = from_hf_config(_rotary(model_type, head_dim=128))  # 2 * (24 + 20 + 20) = 2 * (16 + 24 + 24) = 128
    assert encoding.name == "mrope" and encoding.interleaved is interleaved
    assert tuple(encoding.mrope_section) == section
    given = from_hf_config(_rotary(model_type, {"mrope_section": [32, 16, 16]}, head_dim=128))
    assert tuple(given.mrope_section) == (32, 16, 16)  # the config's own sections win over the default


@pytest.mark.parametrize("model_type", M_ROPE_REFUSED)
def test_m_rope_layouts_not_checked_are_refused(model_type):
    with pytest.raises(PosencError, match=f"model type '{model_type}' uses multimodal M-RoPE"):
        from_hf_config(_rotary(model_type, head_dim=128))


def test_the_m_rope_tables_are_the_lists_above():
    assert M_ROPE_LAYOUTS == {t: (i, s) for t, (i, s) in M_ROPE.items()}
    assert M_ROPE_MODEL_TYPES == set(M_ROPE) | set(M_ROPE_REFUSED)


@pytest.mark.parametrize("model_type", ["qwen2_vl_vision", "qwen2_5_vl_vision"])
def test_axial_vision_towers(model_type):
    encoding = from_hf_config({"model_type": model_type, "embed_dim": 96, "num_heads": 4, "rope_theta": 10000.0})
    assert encoding.name == "axial_rope" and encoding.head_dim == 24  # 96 / 4
    assert AXIAL_MODEL_TYPES == {"qwen2_vl_vision", "qwen2_5_vl_vision"}


@pytest.mark.parametrize(("width", "heads"), [("embed_dim", "num_heads"), ("hidden_size", "num_heads"),
                                             ("hidden_size", "num_attention_heads")])
def test_an_axial_tower_reads_each_spelling_of_its_width_and_heads(width, heads):
    # Qwen2-VL's vision config spells them embed_dim / num_heads, Qwen2.5-VL's hidden_size / num_heads; a config
    # written with the text model's names (hidden_size / num_attention_heads) gives the same head width
    config = {"model_type": "qwen2_5_vl_vision", width: 96, heads: 4, "rope_theta": 10000.0}
    assert from_hf_config(config).head_dim == 24


@pytest.mark.parametrize(("model_type", "words"), [("nanochat", "-theta"), ("deepseek_v4", "trailing channels")])
def test_types_posenc_cannot_reproduce(model_type, words):
    with pytest.raises(PosencError, match=f"model type '{model_type}'.*{words}"):
        rope_options_from_hf_config(_rotary(model_type))


@pytest.mark.parametrize(("model_type", "rotary_dim"), [("gptj", 4), ("codegen", 4), ("", 4), ("llama", 8),
                                                        ("minimax_m3_vl_text", 8), ("qwen2", 8)])
def test_rotary_dim_is_read_by_gptj_codegen_and_typeless_dicts_only(model_type, rotary_dim):
    # head_dim 8; a config rotary_dim of 4 is what GPT-J's and CodeGen's code rotate; the others turn the whole head
    assert rope_options_from_hf_config(_rotary(model_type, rotary_dim=4))["rotary_dim"] == rotary_dim


def test_codegen_caps_the_rotary_dim_at_n_ctx_over_heads():
    # CodeGenModel: rotary_dim = min(rotary_dim, n_ctx // num_attention_heads) = min(6, 16 // 4) = 4
    assert rope_options_from_hf_config(_rotary("codegen", rotary_dim=6, n_ctx=16))["rotary_dim"] == 4
    assert rope_options_from_hf_config(_rotary("gptj", rotary_dim=6, n_ctx=16))["rotary_dim"] == 6


@pytest.mark.parametrize("model_type", ["bert", "roberta", "gpt2", "distilbert", "electra", "opt"])
def test_learned_table_types(model_type):
    encoding = from_hf_config({"model_type": model_type, "hidden_size": 48, "max_position_embeddings": 40})
    assert encoding.name == "learned" and encoding.max_len == 40


@pytest.mark.parametrize("model_type", ["t5", "mt5", "umt5", "longt5"])
def test_bucketed_bias_types(model_type):
    encoding = from_hf_config({"model_type": model_type, "num_heads": 4, "relative_attention_num_buckets": 16})
    assert encoding.name == "t5" and encoding.bidirectional is True and encoding.max_distance == 128  # the default
    decoder = from_hf_config({"model_type": model_type, "num_heads": 4, "relative_attention_num_buckets": 16,
                              "relative_attention_max_distance": 64, "is_decoder": True})
    assert decoder.bidirectional is False and decoder.max_distance == 64


def test_bloom_is_alibi():
    assert from_hf_config({"model_type": "bloom", "n_head": 4}).name == "alibi"


# each rope type of Hugging Face, and the posenc scaling it becomes (None: unscaled)
ROPE_TYPES = [
    ({"rope_type": "default"}, None),
    ({"rope_type": "linear", "factor": 2.0}, "linear"),
    ({"rope_type": "dynamic", "factor": 2.0}, "dynamic"),
    ({"rope_type": "yarn", "factor": 2.0, "original_max_position_embeddings": 64}, "yarn"),
    ({"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
      "original_max_position_embeddings": 64}, "llama3"),
    ({"rope_type": "longrope", "factor": 2.0, "short_factor": [1.0] * 4, "long_factor": [2.0] * 4,
      "original_max_position_embeddings": 64}, "longrope"),
    ({"rope_type": "proportional", "partial_rotary_factor": 0.5}, "proportional"),
]


@pytest.mark.parametrize(("rope", "scaling"), ROPE_TYPES, ids=[r["rope_type"] for r, _ in ROPE_TYPES])
def test_each_rope_type_becomes_its_scaling(rope, scaling):
    options = rope_options_from_hf_config(_rotary("llama", rope))
    assert (options["scaling"] or {}).get("type") == scaling
    assert posenc.build("rope", **options).name == "rope"


def test_dynamic_is_measured_against_max_position_embeddings():
    # Hugging Face's dynamic NTK ignores original_max_position_embeddings: L0 is max_position_embeddings (128 here)
    options = rope_options_from_hf_config(_rotary("llama", {"rope_type": "dynamic", "factor": 2.0,
                                                            "original_max_position_embeddings": 32}))
    assert options["scaling"]["original_max_len"] == 128


@pytest.mark.parametrize("kind", ["yarn", "longrope"])
def test_a_missing_factor_is_max_position_embeddings_over_the_original(kind):
    rope = {"rope_type": kind, "original_max_position_embeddings": 32}
    if kind == "longrope":
        rope.update(short_factor=[1.0] * 4, long_factor=[2.0] * 4)
    assert rope_options_from_hf_config(_rotary("llama", rope))["scaling"]["factor"] == 4.0  # 128 / 32
