"""``posenc.from_hf_config`` against the rotary code of the installed ``transformers``, model type by model type.

Each check builds a tiny random-initialised model of a type (no download, never ``trust_remote_code``), records the
model's own rotation of q and k (:mod:`rotary_cases`) and requires posenc's rotation of the same tensors to agree
to 1e-5 (relative to the largest value), with the other pairing off by far more. The fast tests take one
representative of each pairing rule; the slow test walks every model type whose config carries rotary parameters,
and every type it does not match is listed below with its reason. The lists name the types of the locked transformers
and of newer releases (``make test-latest``); a type the installed release lacks is printed as absent.
"""

import math

import pytest
import torch
from rotary_cases import (
    ATOL,
    Outcome,
    T,
    build,
    check,
    default_config,
    has_rotary_parameters,
    small_configs,
    uses_m_rope,
)

import posenc
from posenc.errors import PosencError, PosencWarning
from posenc.hf.config import (
    AXIAL_MODEL_TYPES,
    INTERLEAVED_MODEL_TYPES,
    M_ROPE_LAYOUTS,
    M_ROPE_MODEL_TYPES,
    rope_options_from_hf_config,
)

# -- what the walk cannot match, and why ------------------------------------------------------------------------------

AXIAL = ("'axial'", "2-D axial RoPE in a layout posenc has not checked for this model type")
M_ROPE = ("M-RoPE", "multimodal M-RoPE in a layout posenc has not checked for this model type")
PER_LAYER = ("cannot read 'head_dim'", "proportional RoPE, but the head width differs per layer (per_layer_config)")

#: from_hf_config must raise a PosencError whose message holds the fragment (checked on the default config)
REFUSED = {
    **{t: AXIAL for t in (
        "cohere_compass_vision", "dots3_note_vision_encoder", "edgetam_video", "ernie4_5_vl_moe_vision",
        "exaone4_5_vision", "gemma4_vision", "glm4v_moe_vision", "glm4v_vision", "glm5_next_vision", "glm_ocr_vision",
        "inkling2_vision", "kimi_k25_vision", "lfm3_vl_vision", "llava_onevision1_5_vision", "minimax_m3_vl_vision",
        "mlcd", "mlcd_vision_model", "muse_glimmer_vision", "muse_spark_vision", "ovis2_5_vision", "paddleocr_vl_vision", "pixtral", "qwen2_5_omni_vision_encoder",
        "qwen3_5_moe_vision", "qwen3_5_vision", "qwen3_omni_moe_vision_encoder",
        "qwen3_vl_moe_vision", "qwen3_vl_vision", "qwen4_exp_vision", "sam2_video", "sam3_tracker_video",
        "sam3_vit_model", "step3p5_vision", "video_llama_3_vision")},
    **{t: M_ROPE for t in M_ROPE_MODEL_TYPES if t not in M_ROPE_LAYOUTS},
    **{t: PER_LAYER for t in ("diffusion_gemma_text", "gemma4_text", "gemma4_unified_text")},
    "nanochat": ("-theta", "its rotate_half returns (x2, -x1): a rotation by -theta"),
    "deepseek_v4": ("trailing channels", "rotates the trailing channels of each head ([nope | rope])"),
    "blt": ("cannot tell the rotary width", "byte-level composite: RoPE parameters but no head sizes (its blt_* "
                                            "parts carry them)"),
    "embedding_gemma2_text": ("cannot read 'head_dim'", "its head width differs per layer (per_layer_config)"),
}

#: from_hf_config builds another encoding: the default config does not use its rotary parameters
NOT_ROPE = {"esm": "position_embedding_type defaults to 'absolute' (learned positions); rope_theta is unused"}

#: M-RoPE types whose built model has no ``mrope_section`` attribute to confirm the refusal with
M_ROPE_WITHOUT_ATTRIBUTE = {"neomme": "row/column M-RoPE recomposed in its own rotary module"}

#: not attempted: no tiny model of the type runs on token ids alone
AUDIO = "speech/audio model: its forward takes input_values or input_features, not token ids"
VISION = "vision model: its forward takes pixel_values"
EMBEDS = "a part of a larger model: its forward takes embeddings or hidden states from the rest, not token ids"
HYBRID = "hybrid linear-attention layout: the one-layer config has no attention layer, and larger ones are rejected " \
         "by its config validator or exceed the size limit"
VALIDATOR = "its config validator rejects the shrunk sizes"
SKIP = {
    **{t: AUDIO for t in (
        "glmasr_encoder", "kyutai_speech_to_text", "lasr_encoder", "mimi", "mimi_decoder", "mimi_encoder", "moonshine",
        "moonshine_streaming", "nemotron3_5_transcribe_asr_audio", "nemotron3_diarization_audio", "neucodec",
        "pe_audio_encoder", "pocket_tts_audio_tokenizer", "pocket_tts_audio_tokenizer_decoder",
        "pocket_tts_audio_tokenizer_encoder", "voxtral_realtime_encoder", "xcodec2", "dots3_note_audio_encoder",
        "gradium_phonon_tts", "pocket_tts", "musicflamingo")},
    **{t: VISION + "; its axial RoPE is compared by test_axial_rope_equals_qwen2_vl_vision"
       for t in AXIAL_MODEL_TYPES},
    **{t: VISION for t in ("dinov3_vit", "sapiens2", "llama4_vision_model", "eomt_dinov3", "idefics",
                           "efficientloftr", "deepseek_ocr2_encoder")},
    "pe_video_encoder": "video model built on a timm backbone (timm is not installed)",
    "pe_audio_video_encoder": "audio-video model built on a timm backbone (timm is not installed)",
    "timesfm2_5": "time-series model: its forward takes past_values",
    **{t: EMBEDS for t in ("blt_global_transformer", "blt_local_decoder", "blt_local_encoder",
                           "nemotron3_5_transcribe_word_timestamp", "muse_glimmer_assistant", "qwen2_5_omni_dit",
                           "qwen3_omni_moe_talker_code_predictor", "dia_decoder")},
    **{t: HYBRID for t in ("bamba", "granitemoehybrid", "bailing_hybrid", "zamba2", "zaya")},
    **{t: VALIDATOR for t in ("esmc", "gemma3n_text", "lfm2_moe", "deepseek_ocr2_text", "hy_v4_vl_text")},
    "chameleon": "its default config has no vq_config, which the model needs to build",
    "dbrx": "rope_theta lives in a nested attn_config that the shrunk config does not rebuild",
    "t5_gemma_module": "no model class of its own (a stack inside T5Gemma)",
    "t5gemma2_decoder": "its config lacks the dropout_rate its model reads (built only inside T5Gemma2)",
    "t5gemma2_text": "its config lacks the dropout_rate its model reads (built only inside T5Gemma2)",
    "voxtral_realtime_text": "no model class is registered for it",
    "longcat_flash": "still about 70M parameters after shrinking (MoE and MLA sizes)",
    **{t: "composite model whose default-size parts (protein encoder; depth decoder and codec; vision and audio "
          "towers) keep it at hundreds of millions of parameters after shrinking"
       for t in ("EvollaModel", "evolla", "csm", "phi4_multimodal")},
}

#: rotations a model applies besides its attention's, not compared: DeepSeek sparse attention's indexer turns its own
#: q and k with half pairing while the attention itself rotates adjacent pairs
IGNORE = {"deepseek_v32": ("apply_rotary_pos_emb",), "axk2": ("apply_rotary_pos_emb",)}

# -- fast: one representative of each rule ----------------------------------------------------------------------------

REPRESENTATIVES = {
    "llama": "half",  # rotate_half
    "gpt_neox": "half",  # partial rotary, rotary slice inside apply_rotary_pos_emb
    "phi": "half",  # partial rotary, slice taken before the call
    "gemma3_text": "half",  # per-layer-type bases (the one layer is a sliding one)
    "gpt_oss": "half",  # yarn, its own _apply_rotary_emb over halves
    "gptj": "interleaved",  # rotate_every_two on [B, T, H, R] slices, one tensor per call
    "codegen": "interleaved",  # the same, with CodeGen's rotary_dim cap
    "cohere": "interleaved",  # rotate_half over x[..., ::2] / x[..., 1::2]
    "openai_privacy_filter": "interleaved",  # yarn, its _apply_rotary_emb over x[..., ::2]
    "deepseek_v2": "interleaved",  # complex products of (2i, 2i+1) pairs
    "llama4_text": "interleaved",  # the same
    "deepseek_v3": "interleaved, halves",  # rope_interleave=True: adjacent pairs written back as halves
    "deepseek_v32": "interleaved, halves",  # always interleaved; its indexer's half rotation is ignored
}


@pytest.mark.parametrize("model_type", REPRESENTATIVES)
def test_representative_model_types(model_type):
    outcome = check(model_type, ignore=IGNORE.get(model_type, ()))
    assert outcome == Outcome("match", REPRESENTATIVES[model_type])


def test_deepseek_v3_pairing_follows_rope_interleave():
    assert check("deepseek_v3", fields={"rope_interleave": False}) == Outcome("match", "half")
    assert posenc.from_hf_config(default_config("deepseek_v3")).pairing == "interleaved"  # the default: True


@pytest.mark.parametrize("model_type", ["nanochat", "glm4v_text", "pixtral", "deepseek_v4", "gemma4_text"])
def test_representative_refusals(model_type):
    fragment, _ = REFUSED[model_type]
    with pytest.raises(PosencError, match=fragment):
        posenc.from_hf_config(default_config(model_type))


def test_m_rope_refusal_is_what_the_model_does():
    # GLM-4V's text model builds an M-RoPE rotary embedding although its config names no mrope_section
    config = next(c for c in small_configs("glm4v_text") if not isinstance(c, Exception))
    assert "mrope_section" not in (config.rope_parameters or {})
    assert uses_m_rope(build(config))
    with pytest.raises(PosencError, match=r"'glm4v_text' uses multimodal M-RoPE .*posenc maps M-RoPE of qwen2_5_vl_text"):
        posenc.from_hf_config(config)


def _deepseek_dict(**fields):
    return {"model_type": "deepseek_v3", "hidden_size": 64, "num_attention_heads": 4, "head_dim": 8,
            "max_position_embeddings": 128, "rope_parameters": {"rope_type": "default", "rope_theta": 10000.0},
            **fields}


def test_pairing_rules_on_plain_dicts():
    assert rope_options_from_hf_config(_deepseek_dict(rope_interleave=True))["pairing"] == "interleaved"
    assert rope_options_from_hf_config(_deepseek_dict(rope_interleave=False))["pairing"] == "half"
    # the field wins over the type's default, and a type without it follows its code
    assert rope_options_from_hf_config(_deepseek_dict(model_type="cohere"))["pairing"] == "interleaved"
    assert rope_options_from_hf_config(_deepseek_dict(model_type="llama"))["pairing"] == "half"
    assert rope_options_from_hf_config(_deepseek_dict(model_type="cohere", rope_interleave=False))["pairing"] == "half"
    assert {"gptj", "codegen", "cohere", "glm", "deepseek_v2", "llama4_text"} <= INTERLEAVED_MODEL_TYPES


def test_rotary_dim_is_read_only_where_the_code_reads_it():
    # MiniMax-M3's config carries rotary_dim but its code turns the whole head (partial_rotary_factor 1)
    options = rope_options_from_hf_config(_deepseek_dict(model_type="minimax_m3_vl_text", rotary_dim=4))
    assert options["rotary_dim"] == 8
    assert rope_options_from_hf_config(_deepseek_dict(model_type="gptj", rotary_dim=4))["rotary_dim"] == 4


def test_the_width_and_the_base_are_read_under_their_other_names():
    # no head_dim: the head width is the model width over the heads, read as d_model / num_heads (T5's names) or
    # n_embd / n_head (GPT-2's): 64 / 4 = 16 and 96 / 3 = 32; the base as rotary_emb_base when rope_theta is absent
    t5_names = rope_options_from_hf_config({"d_model": 64, "num_heads": 4, "rotary_emb_base": 500000.0})
    assert (t5_names["head_dim"], t5_names["rotary_dim"], t5_names["base"]) == (16, 16, 500000.0)
    gpt2_names = rope_options_from_hf_config({"n_embd": 96, "n_head": 3})
    assert (gpt2_names["head_dim"], gpt2_names["base"]) == (32, 10000.0)  # no base given: the usual 10000


def test_layer_type_selects_per_layer_parameters():
    params = {"full_attention": {"rope_type": "default", "rope_theta": 1e6},
              "sliding_attention": {"rope_type": "default", "rope_theta": 1e4}}
    config = _deepseek_dict(model_type="gemma3_text", rope_parameters=params)
    with pytest.warns(PosencWarning, match="returns the 'full_attention' layers' encoding only"):
        assert posenc.from_hf_config(config).base == 1e6
    assert posenc.from_hf_config(config, layer_type="sliding_attention").base == 1e4
    with pytest.raises(PosencError, match="layer_type 'chunked' has no RoPE parameters.*'full_attention', "
                                          "'sliding_attention'"):
        posenc.from_hf_config(config, layer_type="chunked")


def test_m_rope_named_in_the_config_is_refused_for_unchecked_types():
    config = _deepseek_dict(model_type="llama", rope_parameters={"rope_type": "default", "rope_theta": 1e4,
                                                                 "mrope_section": [2, 1, 1]})
    with pytest.raises(PosencError, match=r"M-RoPE \(rope type 'default', mrope_section \[2, 1, 1\]\)"):
        posenc.from_hf_config(config)


def test_a_field_that_refuses_to_be_read_is_a_clear_error():
    class PerLayer:
        model_type, num_attention_heads, rope_parameters = "x", 4, {"rope_type": "default", "rope_theta": 1e4}

        @property
        def head_dim(self):
            raise RuntimeError("'head_dim' is a per-layer attribute")

    with pytest.raises(PosencError, match="cannot read 'head_dim' from this PerLayer: 'head_dim' is a per-layer"):
        posenc.from_hf_config(PerLayer())


def test_the_comparison_can_fail():
    # the harness itself: posenc built with the wrong pairing or base is caught
    from rotary_cases import Rotated, T, compare

    config = next(c for c in small_configs("llama") if not isinstance(c, Exception))
    x = torch.randn(1, 4, T, 16)
    right = posenc.from_hf_config(config).rotate(x, x, torch.arange(T), torch.arange(T))[0]
    wrong = posenc.build("rope", head_dim=16, base=config.rope_parameters["rope_theta"], pairing="interleaved")
    wrong = wrong.rotate(x, x, torch.arange(T), torch.arange(T))[0]
    assert compare(config, [Rotated("f", 0, x, right)] * 2).status == "match"
    outcome = compare(config, [Rotated("f", 0, x, wrong)] * 2)
    assert outcome.status == "mismatch" and float(outcome.detail.split("off by ")[1].split()[0]) > 100 * ATOL


# -- slow: every model type -------------------------------------------------------------------------------------------


def _first_model(model_type: str):
    """The first tiny model of the type that builds, or ``None``."""
    for config in small_configs(model_type):
        if isinstance(config, Exception):
            continue
        try:
            return build(config)
        except Exception:
            continue
    return None


def _walk():
    from transformers.models.auto.configuration_auto import CONFIG_MAPPING

    rows, problems, walked = [], [], set()
    for model_type in sorted(CONFIG_MAPPING.keys()):
        try:
            config = default_config(model_type)
        except Exception as exc:
            rows.append((model_type, "skipped", f"its default config does not construct ({type(exc).__name__})"))
            continue
        if not has_rotary_parameters(config):
            continue
        walked.add(model_type)
        if model_type in REFUSED:
            fragment, reason = REFUSED[model_type]
            try:
                posenc.from_hf_config(config)
                problems.append(f"{model_type}: from_hf_config did not refuse ({reason})")
            except PosencError as exc:
                if fragment not in str(exc):
                    problems.append(f"{model_type}: refused for another reason than {fragment!r}: {exc}")
            if fragment == M_ROPE[0] and model_type not in M_ROPE_WITHOUT_ATTRIBUTE:
                model = _first_model(model_type)
                if model is not None and not uses_m_rope(model):
                    problems.append(f"{model_type}: listed as M-RoPE but its model has no mrope_section")
                reason += " (confirmed on the built model)" if model is not None else " (no tiny model builds)"
            rows.append((model_type, "refused", reason))
        elif model_type in NOT_ROPE:
            if posenc.from_hf_config(config).name == "rope":
                problems.append(f"{model_type}: expected a non-rotary encoding ({NOT_ROPE[model_type]})")
            rows.append((model_type, "not rope", NOT_ROPE[model_type]))
        elif model_type in SKIP:
            rows.append((model_type, "skipped", SKIP[model_type]))
        else:
            outcome = check(model_type, ignore=IGNORE.get(model_type, ()))
            if outcome.status != "match":
                problems.append(f"{model_type}: {outcome}")
            rows.append((model_type, outcome.status, outcome.detail))
    # the tables serve the locked transformers and newer ones (make test-latest): a type this release does not have
    # is listed, not a problem; a type it has that is not rotary (any more) is
    import transformers

    known = set(CONFIG_MAPPING.keys())
    for name, table in (("REFUSED", REFUSED), ("NOT_ROPE", NOT_ROPE), ("SKIP", SKIP), ("IGNORE", IGNORE)):
        stale = sorted((set(table) & known) - walked - {r[0] for r in rows})
        if stale:
            problems.append(f"{name} lists types that are not rotary model types here: {stale}")
        rows += [(t, "absent", f"{name} lists it; transformers {transformers.__version__} has no such model type")
                 for t in sorted(set(table) - known)]
    return rows, problems


@pytest.mark.slow
def test_every_rotary_model_type(capsys):
    rows, problems = _walk()
    with capsys.disabled():
        counts = {}
        for _, status, _ in rows:
            counts[status] = counts.get(status, 0) + 1
        print(f"\nrotary model types: {counts}")
        for model_type, status, detail in rows:
            print(f"  {model_type:40s} {status:9s} {detail}")
    assert not problems, "\n".join(problems)


# -- M-RoPE, axial, proportional, DeepSeek's YaRN softmax factor against the models' own code --------------------------


def _tiny(model_type: str):
    return next(c for c in small_configs(model_type) if not isinstance(c, Exception))


@pytest.mark.parametrize("model_type", sorted(M_ROPE_LAYOUTS))
def test_m_rope_equals_the_models_rotation_at_distinct_axes(model_type):
    import importlib

    config = _tiny(model_type)
    model = build(config)
    rotary = next(m for m in model.modules() if hasattr(m, "mrope_section"))
    modeling = importlib.import_module(type(rotary).__module__)
    gen = torch.Generator().manual_seed(1)
    thw = torch.randint(0, 50, (3, 2, T), generator=gen)  # distinct temporal, height, width positions per token
    head_dim = getattr(config, "head_dim", None) or config.hidden_size // config.num_attention_heads
    q = torch.randn(2, 4, T, head_dim, generator=gen)
    k = torch.randn(2, 2, T, head_dim, generator=gen)
    cos, sin = rotary(q, thw)
    want_q, want_k = modeling.apply_rotary_pos_emb(q, k, cos, sin)
    encoding = posenc.from_hf_config(config)
    assert encoding.name == "mrope" and encoding.interleaved == M_ROPE_LAYOUTS[model_type][0]
    got_q, got_k = encoding.rotate(q, k, thw, thw)
    torch.testing.assert_close(got_q, want_q, atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(got_k, want_k, atol=1e-5, rtol=1e-5)
    # the other section layout is a different rotation: the comparison can fail
    other = posenc.build("mrope", head_dim=encoding.head_dim, base=encoding.base,
                         mrope_section=list(encoding.mrope_section), interleaved=not encoding.interleaved)
    assert (other.rotate(q, k, thw, thw)[0] - want_q).abs().max() > 1e-2


def test_axial_rope_equals_qwen2_vl_vision():
    from transformers.models.qwen2_vl.modeling_qwen2_vl import (
        Qwen2VLVisionRotaryEmbedding,
        apply_rotary_pos_emb_vision,
    )

    config = default_config("qwen2_vl_vision")
    config.embed_dim, config.num_heads = 64, 4
    if hasattr(config, "num_attention_heads"):
        config.num_attention_heads = 4
    encoding = posenc.from_hf_config(config)
    assert encoding.name == "axial_rope" and encoding.head_dim == 16
    yx = torch.stack(torch.meshgrid(torch.arange(3), torch.arange(5), indexing="ij")).flatten(1)  # [2, 15]
    rotary = Qwen2VLVisionRotaryEmbedding(config)
    q, k = torch.randn(2, 15, 4, 16)  # [N, H, Dh] as the vision tower holds them
    cos, sin = rotary(q, yx.T)  # position_ids [N, 2]: (row, column)
    want_q, want_k = apply_rotary_pos_emb_vision(q, k, cos, sin)
    got_q, got_k = encoding.rotate(q.transpose(0, 1)[None], k.transpose(0, 1)[None], yx[:, None], yx[:, None])
    torch.testing.assert_close(got_q[0].transpose(0, 1), want_q, atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(got_k[0].transpose(0, 1), want_k, atol=1e-5, rtol=1e-5)
    swapped = encoding.rotate(q.transpose(0, 1)[None], k.transpose(0, 1)[None], yx.flip(0)[:, None],
                              yx.flip(0)[:, None])[0]  # rows and columns exchanged: must differ
    assert (swapped[0].transpose(0, 1) - want_q).abs().max() > 1e-2


def test_proportional_rope_matches_its_model():
    assert check("lfm3") == Outcome("match", "half")
    options = rope_options_from_hf_config(default_config("lfm3"))
    assert options["scaling"]["type"] == "proportional" and options["rotary_dim"] == options["head_dim"]


@pytest.mark.parametrize("model_type", ["deepseek_v3", "sarvam_mla"])  # sarvam_mla runs DeepseekV3Model
def test_deepseek_v3_yarn_logits_equal_the_models_attention_logits(model_type):
    import importlib

    from rotary_cases import _rotated, recording

    params = {"rope_type": "yarn", "rope_theta": 10000.0, "factor": 8.0, "original_max_position_embeddings": 16,
              "beta_fast": 32.0, "beta_slow": 1.0, "mscale": 0.8, "mscale_all_dim": 1.0}
    config = _tiny(model_type)
    config.rope_parameters = params
    config.max_position_embeddings = 128
    model = build(config)
    modeling = importlib.import_module(type(model).__module__)
    seen = []
    original = modeling.eager_attention_forward

    def spy(module, query, key, value, attention_mask, scaling, **kwargs):
        seen.append((query.detach().clone(), key.detach().clone(), scaling))
        return original(module, query, key, value, attention_mask, scaling, **kwargs)

    modeling.eager_attention_forward = spy
    try:
        with recording([modeling]) as calls, torch.no_grad():
            model(input_ids=torch.randint(0, config.vocab_size, (1, T)))
    finally:
        modeling.eager_attention_forward = original
    (query, key, scaling), = seen[:1]
    q_pe, k_pe = [r.x_in for r in _rotated(calls)[:2]]  # the rotary parts before rotation
    want = query @ key.transpose(-1, -2) * scaling  # the model's logits [B, H, T, T]

    encoding = posenc.from_hf_config(config)
    assert encoding.scale_logits and encoding.logit_factor == pytest.approx((0.1 * math.log(8.0) + 1) ** 2)
    positions = torch.arange(T)
    q_rot, k_rot = encoding.rotate(q_pe, k_pe, positions, positions)
    nope = config.qk_nope_head_dim
    head = nope + config.qk_rope_head_dim
    got = (query[..., :nope] @ key[..., :nope].transpose(-1, -2) + q_rot @ k_rot.transpose(-1, -2))
    got = got * encoding.logit_factor / math.sqrt(head)
    torch.testing.assert_close(got, want, atol=1e-5, rtol=1e-5)
    assert (got / encoding.logit_factor - want).abs().max() > 1e-3  # without the factor it differs
