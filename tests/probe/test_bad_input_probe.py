"""Bad input to ProbeConfig: one rule for seeds everywhere (0..2^32-1; probe --seed -1 used to end in NumPy's
traceback after the model had loaded) and whole numbers for counts."""

import pytest

from posenc.errors import PosencError
from posenc.probe.run import ProbeConfig


@pytest.mark.parametrize("settings, fragment", [
    pytest.param(dict(seed=-1), "seed must be an integer in 0..4294967295, got -1", id="issue-seed-negative"),
    pytest.param(dict(seed=2 ** 40), f"got {2 ** 40}", id="r3-seed-beyond-32-bits"),
    pytest.param(dict(n_pairs="1000"), "n_pairs must be an integer >= 100, got '1000'", id="r3-pairs-string"),
    pytest.param(dict(n_pairs=99), "got 99", id="r3-pairs-few"),
    pytest.param(dict(window=16), "window must be an integer >= 32 tokens, got 16", id="r3-window-short"),
    pytest.param(dict(windows=0), "windows must be a positive integer, got 0", id="r3-windows-zero"),
])
def test_bad_settings_raise_naming_the_value(settings, fragment):
    with pytest.raises(PosencError) as caught:
        ProbeConfig(**settings)
    assert fragment in str(caught.value) and "\n" not in str(caught.value)
