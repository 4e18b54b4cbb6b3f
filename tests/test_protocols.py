"""The evaluation protocols' names: one canonical spelling for the lab and for extend, an alias, clear errors."""

import pytest

from posenc.errors import PosencError
from posenc.extend.plan import ExtendConfig
from posenc.lab.train import RunConfig
from posenc.protocols import PROTOCOLS, normalize_protocol, normalize_protocols


def test_canonical_names_pass_through_and_alias_maps():
    assert PROTOCOLS == ("nonoverlap", "sliding")
    for name in PROTOCOLS:
        assert normalize_protocol(name) == name
    assert normalize_protocol("nonoverlapping") == "nonoverlap"


def test_unknown_or_empty_is_an_error_naming_the_choices():
    with pytest.raises(PosencError, match=r"unknown protocol 'strided'.*nonoverlap, sliding"):
        normalize_protocol("strided")
    with pytest.raises(PosencError, match="at least one protocol"):
        normalize_protocols([])


def test_lab_and_extend_store_the_same_canonical_name():
    # The config hash keys the store, so both spellings must give the same config.
    a = RunConfig(task="charlm", train_len=16, protocols=["nonoverlapping", "sliding"])
    b = RunConfig(task="charlm", train_len=16, protocols=["nonoverlap", "sliding"])
    assert a.protocols == b.protocols == ["nonoverlap", "sliding"]
    assert a.as_dict() == b.as_dict()
    assert ExtendConfig(protocols=("nonoverlapping",)).protocols == ("nonoverlap",)
