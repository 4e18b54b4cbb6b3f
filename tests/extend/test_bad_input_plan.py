"""Bad input to ExtendConfig: a one-line PosencError naming the value (a string taken letter by letter, a depth that
float() choked on, a negative memory cap accepted silently, a string for a flag)."""

import pytest

from posenc.errors import PosencError
from posenc.extend import ExtendConfig
from posenc.names import UnknownName

CASES = [
    ("issue-protocols-none-is-documented", dict(protocols=("none",), passkey=False),
     ["nothing to run: no perplexity protocol and no passkey"]),  # "none" now means no protocol, as --help says
    ("r3-max-memory-negative", dict(max_memory_gb=-1), ["max_memory_gb must be a number > 0", "got -1"]),
    ("r3-max-memory-string", dict(max_memory_gb="8"), ["got '8'"]),
    ("r3-lengths-string", dict(lengths="4096"), ["lengths must be a list of numbers, got '4096'"]),
    ("r3-depths-string", dict(depths="0.5"), ["depths must be a list of numbers, got '0.5'"]),
    ("r3-depth-above-one", dict(depths=(0.5, 1.5)), ["passkey depths must be numbers in [0, 1], got 1.5"]),
    ("r3-stride-nan", dict(stride_fraction=float("nan")), ["stride_fraction must be in (0, 1], got nan"]),
    ("r3-stride-string", dict(stride_fraction="0.5"), ["got '0.5'"]),
    ("r3-quick-string", dict(quick="yes"), ["ExtendConfig.quick is a flag", "got 'yes'"]),
    ("r3-passkey-string", dict(passkey="no"), ["ExtendConfig.passkey is a flag", "got 'no'"]),
    ("r3-seed-negative", dict(seed=-1), ["seed must be an integer in 0..4294967295, got -1"]),
    ("r3-trials-zero", dict(trials=0), ["trials must be a positive integer, got 0"]),
    ("r3-scaling-unknown", dict(scalings=("yarnn",)), ["unknown scaling 'yarnn'"]),
    ("r3-length-short", dict(lengths=(16,)), ["lengths must be integers >= 64 tokens, got 16"]),
    ("factor-below-one", dict(factor=0.5), ["--factor must be a number >= 1, got 0.5"]),
    ("factor-string", dict(factor="2"), ["--factor must be a number >= 1, got '2'"]),
]


@pytest.mark.parametrize("settings, fragments", [pytest.param(s, f, id=name) for name, s, f in CASES])
def test_bad_settings_raise_one_line_naming_the_value(settings, fragments):
    with pytest.raises(PosencError) as caught:
        ExtendConfig(**settings)
    # PosencError itself, or UnknownName (a PosencError) for a name no table has
    assert type(caught.value) in (PosencError, UnknownName) and "\n" not in str(caught.value)
    for fragment in fragments:
        assert fragment in str(caught.value), str(caught.value)


def test_protocols_none_asks_for_the_passkey_alone():
    assert ExtendConfig(protocols=("none",)).protocols == ()
