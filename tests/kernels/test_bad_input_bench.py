"""Bad input to BenchConfig: a one-line PosencError naming the value, checked when the config is made (``--only`` with
an unknown name used to time only the baselines and exit 0; a negative thread count reached torch)."""

import pytest

from posenc.errors import PosencError
from posenc.kernels.bench import BenchConfig
from posenc.names import UnknownName

CASES = [
    ("issue-only-unknown", dict(only=("nosuch",)), ["--only 'nosuch' names no provider", "posenc:cpp"]),
    ("issue-only-typo", dict(only=("hf-eagre",)), ["Did you mean 'hf-eager'?"]),
    ("r3-threads-negative", dict(threads=-1), ["threads must be an integer >= 0", "got -1"]),
    ("r3-seed-negative", dict(seed=-1), ["seed must be an integer in 0..4294967295, got -1"]),
    ("r3-repeats-string", dict(repeats="3"), ["repeats must be an integer >= 1", "got '3'"]),
    ("r3-warmup-negative", dict(warmup=-1), ["warmup an integer >= 0", "got 21 and -1"]),
    ("r3-compile-string", dict(compile="no"), ["BenchConfig.compile is a flag", "got 'no'"]),
    ("r3-mode-unknown", dict(modes=("sideways",)), ["got 'sideways'"]),
    ("r3-dtype-unknown", dict(dtype="float64"), ["got 'float64'"]),
]


@pytest.mark.parametrize("settings, fragments", [pytest.param(s, f, id=name) for name, s, f in CASES])
def test_bad_settings_raise_one_line_naming_the_value(settings, fragments):
    with pytest.raises(PosencError) as caught:
        BenchConfig(**settings)
    # PosencError itself, or UnknownName (a PosencError) for a name no table has
    assert type(caught.value) in (PosencError, UnknownName) and "\n" not in str(caught.value)
    for fragment in fragments:
        assert fragment in str(caught.value), str(caught.value)


def test_one_name_given_as_a_string_is_one_name():
    assert BenchConfig(only="posenc:cpp", modes="in-place").only == ("posenc:cpp",)
