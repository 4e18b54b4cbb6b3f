"""posenc.checks.whole_number: which values count as whole numbers within bounds."""

import numpy as np
import pytest

from posenc.checks import whole_number


@pytest.mark.parametrize("value", [1, 2, 10**12])
def test_positive_ints_pass_the_default_bound(value):
    assert whole_number(value) is True


@pytest.mark.parametrize("value", [0, -1, -(10**12)])
def test_ints_below_the_default_bound_fail(value):
    assert whole_number(value) is False


@pytest.mark.parametrize("value", [True, False, 1.0, 2.5, float("nan"), "3", None, np.int64(3), [3]])
def test_non_ints_fail_even_when_their_value_is_in_range(value):
    assert whole_number(value, 0) is False


def test_the_low_bound_itself_passes_and_one_below_fails():
    assert whole_number(64, 64) is True
    assert whole_number(63, 64) is False
    assert whole_number(0, 0) is True
    assert whole_number(-1, 0) is False


def test_the_high_bound_is_exclusive():
    assert whole_number(7, 0, 8) is True
    assert whole_number(8, 0, 8) is False
    assert whole_number(-1, 0, 8) is False


def _callers():
    """Counts given by a caller, each checked through whole_number: True (== 1) used to pass several of them."""
    import posenc
    from posenc.extend.plan import ExtendConfig
    from posenc.model.input import TransformerInput
    from posenc.probe.run import ProbeConfig

    return {
        "alibi n_heads": lambda: posenc.build("alibi", n_heads=True),
        "t5 n_heads": lambda: posenc.build("t5", n_heads=True),
        "learned max_len": lambda: posenc.build("learned", dim=8, max_len=True),
        "randomized max_len": lambda: posenc.build("randomized", encoding="rope", head_dim=8, max_len=True),
        "extend trials": lambda: ExtendConfig(trials=True),
        "extend windows": lambda: ExtendConfig(windows=True),
        "probe windows": lambda: ProbeConfig(windows=True),
        "embedding vocab": lambda: TransformerInput(vocab_size=True, d_model=8, encoding=posenc.build("nope")),
    }


@pytest.mark.parametrize("name", sorted(_callers()))
def test_a_bool_is_refused_where_a_count_is_asked_for(name):
    from posenc.errors import PosencError

    with pytest.raises(PosencError, match="True"):
        _callers()[name]()


def _seeded():
    """Every setting that takes a seed, each built with only the seed given."""
    from posenc.extend.plan import ExtendConfig
    from posenc.kernels.bench import BenchConfig
    from posenc.lab.grid import Sweep
    from posenc.probe.run import ProbeConfig

    return {
        "extend": lambda seed: ExtendConfig(seed=seed),
        "probe": lambda seed: ProbeConfig(seed=seed),
        "bench": lambda seed: BenchConfig(seed=seed),
        "sweep": lambda seed: Sweep(name="s", base={}, grid={}, seeds=[seed]),
    }


@pytest.mark.parametrize("name", sorted(_seeded()))
@pytest.mark.parametrize(("seed", "accepted"), [(-1, False), (0, True), (2**32 - 1, True), (2**32, False)])
def test_seeds_are_accepted_from_0_to_2_to_the_32_minus_1(name, seed, accepted):
    from posenc.checks import SEED_LIMIT
    from posenc.errors import PosencError

    assert SEED_LIMIT == 2**32  # NumPy's legacy RandomState takes seeds up to 2^32 - 1
    if accepted:
        _seeded()[name](seed)
    else:
        with pytest.raises(PosencError, match=rf"0\.\.4294967295, got \[?{seed}\]?"):
            _seeded()[name](seed)


def test_wrong_flags_names_every_bool_field_that_is_not_a_bool():
    import dataclasses

    from posenc.checks import wrong_flags

    @dataclasses.dataclass
    class Settings:
        on: bool = True
        maybe: bool | None = None
        count: int = 1
        name: str = "x"

    assert wrong_flags(Settings()) == []
    assert wrong_flags(Settings(on=False, maybe=True)) == []
    # "no" would count as true; 1 is an int, not a flag; None only where the annotation allows it
    assert wrong_flags(Settings(on="no", maybe=1, count=True, name=None)) == [("on", "no"), ("maybe", 1)]
    assert wrong_flags(Settings(on=None)) == [("on", None)]
