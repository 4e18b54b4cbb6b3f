"""The scalings' records (posenc.encodings.rope_scaling.SCALINGS): what each says about itself holds for its function,
the Hugging Face config reader and ``posenc extend`` follow them, and every Hugging Face rope type has one."""

import warnings

import pytest
import torch
from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS

from posenc.encodings import rope_scaling as rs
from posenc.errors import PosencWarning
from posenc.extend.factors import SCALING_NAMES, scaling_spec
from posenc.hf.config import HF_ROPE_TYPES, POSENC_ROPE_TYPE, from_hf_config, rope_options_from_hf_config

RECORDS = list(rs.SCALINGS.values())


def test_every_rope_type_of_transformers_has_a_record():
    hf_types = set(ROPE_INIT_FUNCTIONS) - {POSENC_ROPE_TYPE}  # posenc.extend.patch_model registers its own
    assert hf_types <= set(rs.BY_HF_ROPE_TYPE)
    assert set(rs.BY_HF_ROPE_TYPE) - hf_types == {"default"}
    assert HF_ROPE_TYPES == tuple(rs.BY_HF_ROPE_TYPE)


@pytest.mark.parametrize("record", RECORDS, ids=lambda r: r.name)
def test_length_dependent_frequencies_change_with_the_length(record):
    # past the original length, a length-dependent scaling gives other frequencies at another length; the others
    # take no length at all
    if not record.length_dependent:
        assert "seq_len" not in record.parameters
        return
    params = {"factor": 4.0, "original_max_len": 64}
    if record.name == "longrope":
        params |= {"short_factor": [1.0] * 8, "long_factor": [float(i + 2) for i in range(8)]}
    at = [rs.compute_inv_freq(16, 10000.0, {"type": record.name, **params}, n)[0] for n in (32, 256)]
    assert not torch.equal(*at)


@pytest.mark.parametrize("record", RECORDS, ids=lambda r: r.name)
def test_a_spec_without_factor_warns_exactly_when_the_record_needs_one(record):
    params = {"original_max_len": 64} if "original_max_len" in record.parameters else {}
    if record.name == "longrope":
        params |= {"short_factor": [1.0] * 8, "long_factor": [1.0] * 8}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        scaling = rs.RopeScaling.parse({"type": record.name, **params})
    assert any("without a factor" in str(w.message) for w in caught) == record.needs_factor
    if record.needs_factor:  # and then it changes nothing (within the original length: 32 of 64 tokens)
        inv, _ = rs.compute_inv_freq(16, 10000.0, scaling, 32)
        torch.testing.assert_close(inv, rs.default_inv_freq(16)[0], rtol=1e-12, atol=0)
    if record.needs_factor and record.length_dependent:  # past it, the warning says, the base grows: at 128 of 64
        # tokens dynamic NTK's base is 10000 * (128/64)^(16/14) (Hugging Face's formula with factor 1), by hand
        inv, _ = rs.compute_inv_freq(16, 10000.0, scaling, 128)
        base = 10000.0 * 2.0 ** (16 / 14)
        want = base ** (-torch.arange(0, 16, 2, dtype=torch.float64) / 16)
        torch.testing.assert_close(inv.double(), want, rtol=1e-6, atol=0)
        assert any("past it the base still grows" in str(w.message) for w in caught)


@pytest.mark.parametrize("record", [r for r in RECORDS if r.extend_name], ids=lambda r: r.name)
def test_extend_builds_each_offered_scaling_without_warnings(record):
    assert record.extend_name in SCALING_NAMES
    with warnings.catch_warnings():
        warnings.simplefilter("error", PosencWarning)
        spec = scaling_spec(record.extend_name, 2.0, 64)
        if spec is None:
            assert record.name == "default"
            return
        assert spec["type"] == record.name and spec["factor"] == 2.0
        inv, _ = rs.compute_inv_freq(16, 10000.0, spec, 256)
    # stretched by 2: the lowest frequency is lower than the model's own
    assert float(inv[-1]) < float(rs.default_inv_freq(16)[0][-1])


@pytest.mark.parametrize("rope_type", ["mrope", "3d"])
def test_m_rope_names_of_older_configs_carry_the_unscaled_frequencies(rope_type):
    # Qwen2-VL's configs said {"type": "mrope"} before transformers renamed it "default"; both mean the same sections
    # over the unscaled frequencies
    def config(kind):
        return {"model_type": "qwen2_vl_text", "hidden_size": 1536, "num_attention_heads": 12,
                "max_position_embeddings": 4096,
                "rope_parameters": {"rope_type": kind, "mrope_section": [16, 24, 24], "rope_theta": 1e6}}

    assert rope_options_from_hf_config(config(rope_type)) == rope_options_from_hf_config(config("default"))
    assert repr(from_hf_config(config(rope_type))) == repr(from_hf_config(config("default")))
