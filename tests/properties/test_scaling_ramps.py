"""Dynamic NTK past its original length divides low frequencies by more than the factor."""

import pytest

from posenc.properties import check_encoding


def test_dynamic_ntk_past_its_original_length_falls_below_one_over_the_factor():
    # dynamic NTK: base' = base (s L / L0 - (s - 1))^(R/(R-2)); R = 4, s = 2, L0 = 8, L = 16: base' = 3^2 base, so
    # pair 1 turns at (9 base)^(-1/2) = base^(-1/2) / 3: ratio 1/3, below 1/s = 1/2 (pair 0 keeps ratio 1)
    result = check_encoding("rope", d_model=4, length=16, properties=["scaling_ramp"],
                            options={"scaling": {"type": "dynamic", "factor": 2.0, "original_max_len": 8}})
    ramp = result["scaling_ramp"]
    assert ramp.numbers["ratio_first"] == pytest.approx(1.0) and ramp.numbers["ratio_last"] == pytest.approx(1 / 3)
    assert ramp.verdict == "fails" and "outside [1/2, 1]" in ramp.reason
