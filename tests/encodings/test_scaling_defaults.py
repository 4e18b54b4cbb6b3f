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
