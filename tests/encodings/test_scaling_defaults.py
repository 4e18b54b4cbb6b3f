"""A RoPE scaling given without the parameter that gives it meaning says what it assumed; a bad original length is
refused before any table is built."""

from __future__ import annotations

import warnings

import pytest

import posenc
from posenc.errors import PosencError, PosencWarning


@pytest.mark.parametrize("spec,match", [
    ({"type": "yarn", "factor": 4}, "assumes the model was trained at 2048 tokens"),
    ({"type": "dynamic", "factor": 2}, "assumes the model was trained at 2048 tokens"),
    ({"type": "linear"}, "changes nothing"),
    ("ntk", "changes nothing"),
])
def test_silent_defaults_are_explained(spec, match):
    with pytest.warns(PosencWarning, match=match):
        posenc.build("rope", head_dim=16, scaling=spec)


def test_explicit_parameters_raise_no_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        posenc.build("rope", head_dim=16, scaling={"type": "yarn", "factor": 4, "original_max_len": 2048})
        posenc.build("rope", head_dim=16, scaling={"type": "linear", "factor": 2})


@pytest.mark.parametrize("length", [-5, 0, 2.5, True, "2048"])
def test_bad_original_length_is_refused(length):
    with pytest.raises(PosencError, match="original_max_len must be a positive integer"):
        posenc.build("rope", head_dim=16, scaling={"type": "yarn", "factor": 4, "original_max_len": length})


# every scaling by name, written out by hand: (warns that factor=1 changes nothing, the trained length it assumes
# without original_max_len (None: it does not use one, or says nothing), whether its frequencies depend on the
# sequence length)
SCALING_TABLE = {
    "default": (False, None, False),
    "linear": (True, None, False),
    "ntk": (True, None, False),
    "dynamic": (True, 2048, True),
    "yarn": (True, 2048, False),
    "llama3": (False, None, False),  # its factor defaults to 8 (Llama 3.1) and its length to 8192, both silently
    "longrope": (False, 4096, True),
    "proportional": (False, None, False),
}


@pytest.mark.parametrize("name", sorted(SCALING_TABLE))
def test_each_scaling_says_what_it_assumes_and_whether_it_follows_the_length(name):
    from posenc.encodings.rope_scaling import RopeScaling

    warns_factor, assumed, length_dependent = SCALING_TABLE[name]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        scaling = RopeScaling.parse(name)
    said = " ".join(str(w.message) for w in caught if issubclass(w.category, PosencWarning))
    assert ("changes nothing" in said) is warns_factor
    assert ("assumes the model was trained at" in said) is (assumed is not None)
    if assumed is not None:
        assert f"trained at {assumed} tokens" in said
    assert scaling.length_dependent is length_dependent


def test_every_scaling_in_the_table_is_registered():
    from posenc.encodings.rope_scaling import SCALINGS

    assert set(SCALING_TABLE) <= set(SCALINGS)  # a scaling added since says what it assumes in its own test
    assert ({name for name, record in SCALINGS.items() if record.length_dependent and name in SCALING_TABLE}
            == {name for name, (_, _, dependent) in SCALING_TABLE.items() if dependent})
