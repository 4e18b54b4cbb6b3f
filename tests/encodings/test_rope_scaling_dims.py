"""NTK-family scalings on a single rotary pair: a clear PosencError, never a bare ZeroDivisionError.

Both NTK scalings raise the base to ``dim / (dim - 2)``, undefined at a rotary width of 2 (one pair). Found by the
property tests of tests/encodings/test_contract_properties.py under the deep profile: static NTK refused it with a
message, dynamic NTK crashed with ``ZeroDivisionError`` while building the encoding.
"""

import pytest

import posenc
from posenc.encodings import rope_scaling as rs
from posenc.errors import PosencError


@pytest.mark.parametrize("scaling", [{"type": "ntk", "factor": 2.0},
                                     {"type": "dynamic", "factor": 2.0, "original_max_len": 16}])
def test_ntk_scalings_refuse_one_rotary_pair_with_a_clear_error(scaling):
    with pytest.raises(PosencError, match="rotary dim > 2"):
        posenc.build("rope", head_dim=8, rotary_dim=2, scaling=scaling)
    with pytest.raises(PosencError, match="rotary dim > 2"):
        rs.compute_inv_freq(2, 10000.0, scaling, seq_len=64)
    assert posenc.build("rope", head_dim=8, rotary_dim=4, scaling=scaling).rotary_dim == 4  # two pairs are fine
