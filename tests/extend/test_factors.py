"""The factor rule and the scaling specs handed to posenc's RoPE."""

from __future__ import annotations

import pytest

from posenc import PosencError
from posenc.extend.factors import SCALING_NAMES, check_scalings, factor_for, scaling_spec


def test_factor_is_target_over_native_and_never_below_one():
    assert factor_for(16384, 8192) == 2.0
    assert factor_for(12288, 8192) == 1.5
    assert factor_for(2048, 8192) == 1.0
    assert factor_for(2048, 8192, factor=4) == 4.0  # --factor fixes it for every length


@pytest.mark.parametrize("bad", [0.5, 0, -2, float("nan"), True, "2"])
def test_bad_factor_is_refused(bad):
    with pytest.raises(PosencError, match="--factor must be a number >= 1"):
        factor_for(4096, 8192, factor=bad)


def test_specs_name_posenc_scalings():
    assert scaling_spec("none", 2.0, 8192) is None
    assert scaling_spec("linear", 2.0, 8192) == {"type": "linear", "factor": 2.0}
    assert scaling_spec("ntk", 2.0, 8192) == {"type": "ntk", "factor": 2.0}
    assert scaling_spec("dynamic", 2.0, 8192) == {"type": "dynamic", "factor": 2.0, "original_max_len": 8192}
    assert scaling_spec("yarn", 2.0, 8192) == {"type": "yarn", "factor": 2.0, "original_max_len": 8192}
    assert scaling_spec("llama3", 2.0, 8192)["low_freq_factor"] == 1.0


@pytest.mark.parametrize("name", ["linear", "ntk", "yarn", "llama3"])
def test_factor_one_is_the_unscaled_rope(name):
    # s = 1: inv/1 (linear), base * 1 (ntk), inv*gamma + inv*(1-gamma) with mscale 1 (yarn), f/1 bands (llama3)
    import torch
    from extend_models import tiny_config

    from posenc.extend import scaled_rope
    from posenc.extend.factors import scaling_spec as spec

    assert spec(name, 1.0, 64) is None
    explicit = scaled_rope(tiny_config(), "none", 1.0).frequencies(256)[0]
    formula = {"linear": {"type": "linear", "factor": 1.0}, "ntk": {"type": "ntk", "factor": 1.0},
               "yarn": {"type": "yarn", "factor": 1.0, "original_max_len": 64},
               "llama3": {"type": "llama3", "factor": 1.0, "original_max_len": 64}}[name]
    import posenc

    direct, factor = posenc.build("rope", head_dim=16, scaling=formula).frequencies(256)
    torch.testing.assert_close(direct, explicit, rtol=1e-15, atol=1e-18)
    assert factor == 1.0


def test_dynamic_at_factor_one_still_grows_past_native():
    assert scaling_spec("dynamic", 1.0, 64) == {"type": "dynamic", "factor": 1.0, "original_max_len": 64}


def test_scaling_names_are_checked():
    assert check_scalings("yarn,none,yarn") == ["yarn", "none"]
    assert tuple(check_scalings(list(SCALING_NAMES))) == SCALING_NAMES
    with pytest.raises(PosencError, match="valid scalings are: none, linear, ntk, dynamic, yarn, llama3"):
        check_scalings(["linear", "longrope"])
    with pytest.raises(PosencError, match="Did you mean 'yarn'"):
        check_scalings(["yarm"])
