"""Every default of every registered encoding and RoPE scaling, written out beside the source it comes from.

A default changed by mistake changes every model built without the option, and is caught by nothing else when the
value still passes the constructor's checks (M-RoPE's contiguous section split did). The signature tables below are
compared with each ``__init__`` and each scaling function; the defaults an encoding derives when an option is left
out (M-RoPE's sections, VideoRoPE's temporal pairs, ALiBi's slopes, the rotated width) are built and compared too.
"""

import inspect

import pytest
import torch

import posenc
from posenc.encodings.mrope import mrope_axes
from posenc.encodings.rope_scaling import SCALINGS
from posenc.registry import available, get_class

#: encoding -> its constructor's defaults (source in the comment)
ENCODINGS = {
    "alibi": {"n_heads": 8, "slopes": None, "heads": None},  # slopes: Press et al. 2022's geometric 2^(-8h/H)
    "axial_rope": {"head_dim": 64, "base": 10000.0, "rotary_dim": None, "pairing": "half", "grid_width": 16},
    "binary": {"dim": None, "combine": "add"},
    "cope": {"head_dim": 64, "max_len": 512},
    "dape": {"n_heads": 8, "head_dim": 64, "encoding": "kerple", "options": None, "hidden": 32, "max_len": None},
    "fire": {"n_heads": 8, "hidden": 32, "c": 1.0, "threshold": 512.0},  # Li et al. 2024: c = 1, L learned from 512
    "fox": {"d_model": 512, "n_heads": 8, "bias_init": 5.0, "bidirectional": False},
    "integer": {"dim": None, "combine": "add", "start": 1},
    "kerple": {"n_heads": 8, "kernel": "log", "r1": 1.0, "r2": 1.0},  # Chi et al. 2022: the log kernel
    "learned": {"dim": 512, "max_len": 512, "combine": "add", "init_std": 0.02},  # GPT-2 / BERT: std 0.02, 512 rows
    "mrope": {"head_dim": 64, "mrope_section": None, "interleaved": False, "base": 10000.0, "pairing": "half",
              "rotary_dim": None, "scaling": None},  # Qwen2-VL: contiguous sections
    "nope": {},
    "normalized": {"dim": None, "combine": "add", "length": None},
    "p_rope": {"head_dim": 64, "p": 0.75, "base": 10000.0, "pairing": "half"},  # Barbero et al. 2025: p = 0.75
    "pope": {"head_dim": 64, "n_heads": 8, "base": 10000.0, "bias_init": "zero"},
    "randomized": {"encoding": "rope", "max_len": 2048, "options": None, "at_eval": True, "seed": 0,
                   "d_model": None, "n_heads": None, "head_dim": None},
    "rope": {"head_dim": 64, "base": 10000.0, "pairing": "half", "rotary_dim": None, "scaling": None,
             "scale_logits": False},  # Su et al. 2021: base 10000; rotate_half as in Hugging Face
    "sandwich": {"n_heads": 8, "dim": 128, "compress": True},
    "sinusoidal": {"dim": None, "combine": "add", "base": 10000.0, "layout": "interleaved"},  # Vaswani et al. 2017
    "t5": {"n_heads": 8, "num_buckets": 32, "max_distance": 128, "bidirectional": True, "scale": 1.0},  # T5: 32, 128
    "temperature": {"attn_scale": 0.1, "floor_scale": 8192},  # Llama4TextConfig's defaults
    "videorope": {"head_dim": 64, "temporal": None, "base": 10000.0, "pairing": "half", "rotary_dim": None},
    "xpos": {"head_dim": 64, "base": 10000.0, "pairing": "half", "rotary_dim": None, "scale_base": 512.0,
             "gamma": 0.4},  # Sun et al. 2023: scale base 512, gamma 0.4
}
#: RoPE scaling -> its frequency function's defaults (``dim`` has none)
SCALING_DEFAULTS = {
    "default": {"base": 10000.0},
    "linear": {"base": 10000.0, "factor": 1.0},
    "ntk": {"base": 10000.0, "factor": 1.0},
    "dynamic": {"base": 10000.0, "factor": 1.0, "original_max_len": 2048, "seq_len": None},
    # YaRN (Peng et al. 2023): beta_fast 32, beta_slow 1; attention factor 0.1 ln s + 1 unless given
    "yarn": {"base": 10000.0, "factor": 1.0, "original_max_len": 2048, "beta_fast": 32.0, "beta_slow": 1.0,
             "mscale": None, "mscale_all_dim": None, "truncate": True, "attention_factor": None},
    # Llama 3.1's config.json: rope_theta 500000, factor 8, low 1, high 4, original 8192
    "llama3": {"base": 500000.0, "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
               "original_max_len": 8192},
    "longrope": {"base": 10000.0, "short_factor": None, "long_factor": None, "factor": 1.0, "original_max_len": 4096,
                 "seq_len": None, "attention_factor": None},
    "proportional": {"base": 10000.0, "factor": 1.0, "partial_rotary_factor": 1.0},
}


def _defaults(fn):
    return {k: p.default for k, p in inspect.signature(fn).parameters.items()
            if k != "self" and p.default is not inspect.Parameter.empty}


def test_every_encoding_in_the_table_is_registered():
    """Each row here is a registered encoding; one added since checks its defaults in its own test file."""
    assert set(ENCODINGS) <= set(available())


@pytest.mark.parametrize("name", sorted(ENCODINGS))
def test_each_encodings_defaults(name):
    got = _defaults(get_class(name).__init__)
    assert got == ENCODINGS[name]
    assert {k: type(v) for k, v in got.items()} == {k: type(v) for k, v in ENCODINGS[name].items()}


def test_every_scaling_is_in_the_table():
    assert set(SCALING_DEFAULTS) <= set(SCALINGS)  # a scaling added since writes its defaults in its own test


@pytest.mark.parametrize("name", sorted(SCALING_DEFAULTS))
def test_each_scalings_defaults(name):
    assert _defaults(SCALINGS[name].frequencies) == SCALING_DEFAULTS[name]


@pytest.mark.parametrize(("head_dim", "sections"), [(128, (22, 21, 21)), (64, (12, 10, 10)), (12, (2, 2, 2)),
                                                    (16, (4, 2, 2))])
def test_mropes_default_sections_are_contiguous_thirds_with_the_rest_on_time(head_dim, sections):
    # without mrope_section: R/2 pairs split into thirds, the remainder on the temporal axis, in Qwen2-VL's
    # contiguous order (t pairs first, then h, then w)
    m = posenc.build("mrope", head_dim=head_dim)
    assert m.mrope_section == sections and m.interleaved is False and m.axes == 3
    want = [0] * sections[0] + [1] * sections[1] + [2] * sections[2]
    assert mrope_axes(m.mrope_section, m.interleaved).tolist() == want


def test_qwen2_vls_sections_rotate_contiguously():
    m = posenc.build("mrope", head_dim=128, mrope_section=[16, 24, 24])  # Qwen2-VL's config
    axes = mrope_axes(m.mrope_section, m.interleaved)
    assert axes[:16].eq(0).all() and axes[16:40].eq(1).all() and axes[40:].eq(2).all()
    # a text token (t = h = w) turns as plain RoPE
    t, zero = torch.arange(5), torch.zeros(5, dtype=torch.long)
    q, k = torch.randn(1, 1, 5, 128), torch.randn(1, 1, 5, 128)
    text = m.rotate(q, k, torch.stack([t, t, t])[:, None], torch.stack([t, t, t])[:, None])
    torch.testing.assert_close(text, posenc.build("rope", head_dim=128).rotate(q, k, t, t))
    # moving along h only turns pairs 16..39 (half pairing: channels i and i + 64), the t and w pairs stay
    qh, _ = m.rotate(q, k, torch.stack([zero, t, zero])[:, None], torch.stack([zero, t, zero])[:, None])
    moved = (qh - q).abs().amax(dim=(0, 1, 2))  # [128]
    pairs = torch.maximum(moved[:64], moved[64:])  # [64]
    assert pairs[16:40].min() > 0 and pairs[:16].max() == 0 and pairs[40:].max() == 0


def test_derived_defaults():
    assert posenc.build("videorope", head_dim=128).temporal == 16  # VideoRoPE: 16 temporal pairs of 64
    assert posenc.build("rope").rotary_dim == 64  # every channel turns
    slopes = posenc.build("alibi").slopes  # 8 heads: 2^-1 ... 2^-8
    torch.testing.assert_close(slopes, torch.tensor([2.0 ** -(h + 1) for h in range(8)], dtype=slopes.dtype))


@pytest.mark.parametrize("name", ["mrope", "rope", "videorope", "axial_rope", "xpos", "p_rope", "pope", "cope"])
def test_a_rotary_encoding_built_without_options_has_the_default_head_width(name):
    # the signature table reads the declared defaults; this builds one and reads what it holds
    assert posenc.build(name).head_dim == 64


def _state(module: torch.nn.Module) -> dict:
    """What a built encoding holds: its parameters and buffers, and the plain settings of each submodule."""
    plain = (bool, int, float, str, tuple, list, type(None))
    settings = {f"{prefix}.{k}": v for prefix, m in module.named_modules() for k, v in vars(m).items()
                if not k.startswith("_") and isinstance(v, plain)}
    tensors = {**dict(module.named_parameters()), **dict(module.named_buffers())}  # non-persistent buffers too
    return {"settings": settings, "tensors": tensors}


@pytest.mark.parametrize("name", sorted(ENCODINGS))
def test_an_encoding_built_without_options_is_the_one_built_with_its_written_defaults(name):
    # the body's defaults, not the signature's: a default changed where it is used (FIRE's initial c) builds another
    # module while the signature still reads as written
    torch.manual_seed(0)
    bare = _state(posenc.build(name))
    torch.manual_seed(0)
    written = _state(posenc.build(name, **ENCODINGS[name]))
    assert bare["settings"] == written["settings"]
    assert bare["tensors"].keys() == written["tensors"].keys()
    for key, tensor in bare["tensors"].items():
        torch.testing.assert_close(tensor, written["tensors"][key], rtol=0, atol=0, msg=key)


def test_fire_starts_where_the_paper_does():
    # Li et al. 2024 (FIRE, §3.3): c = 1 and the threshold L = 512 at initialisation
    fire = posenc.build("fire")
    assert fire.log_c.exp().item() == 1.0 and fire.threshold.item() == 512.0
