"""The RoPE scaling guard stays silent where nothing is assumed: every scaling given the parameters it needs (its
factor, its original length, LongRoPE's factor lists) warns nothing, built directly and through ``posenc.build``.
(The other side, a warning exactly when a parameter is missing: ``test_rope_scaling_records.py`` and
``test_scaling_defaults.py``.)"""

import warnings

import pytest

import posenc
from posenc.encodings.rope_scaling import SCALINGS, RopeScaling
from posenc.errors import PosencWarning


def _complete(name: str) -> dict:
    record, spec = SCALINGS[name], {"type": name}
    if record.needs_factor:
        spec["factor"] = 4.0
    if record.needs_original:
        spec["original_max_len"] = 64
    if name == "longrope":
        spec |= {"short_factor": [1.0] * 8, "long_factor": [float(i + 2) for i in range(8)]}
    return spec


@pytest.mark.parametrize("name", sorted(SCALINGS))
def test_a_scaling_given_what_it_needs_warns_nothing(name):
    spec = _complete(name)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        RopeScaling.parse(spec)
        posenc.build("rope", head_dim=16, scaling=spec)
    assert [str(w.message) for w in caught if issubclass(w.category, PosencWarning)] == []


@pytest.mark.parametrize("name", sorted(n for n, r in SCALINGS.items() if r.needs_factor or r.needs_original))
@pytest.mark.parametrize("left_out", ["factor", "original_max_len"])
def test_leaving_out_what_it_needs_is_what_warns(name, left_out):
    record = SCALINGS[name]
    needed = {"factor": record.needs_factor, "original_max_len": record.needs_original}[left_out]
    spec = {k: v for k, v in _complete(name).items() if k != left_out}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        RopeScaling.parse(spec)
    said = [str(w.message) for w in caught if issubclass(w.category, PosencWarning)]
    assert len(said) == (1 if needed else 0), said
    if needed:
        assert f"without {left_out}" in said[0] or (left_out == "factor" and "without a factor" in said[0])
