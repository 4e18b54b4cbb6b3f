"""Training to the in-distribution ceiling: validation on in-distribution strings only, early stopping, and the
best weights are the ones tested."""

from __future__ import annotations

import pytest

from posenc.errors import PosencError
from posenc.lab import RunConfig, train_run


def test_no_improvement_stops_after_patience_validations():
    # lr 1e-12: the weights barely move, so the first validation is the best and every later one is stale
    config = RunConfig(task="copy", encoding="nope", train_len=4, steps=1000, lr=1e-12, warmup=1, val_every=10,
                       patience=2, d_model=16, n_heads=2, val_samples=16, eval_samples=16)
    m = train_run(config, seed=0, progress=False).metrics
    assert m["steps_trained"] == 30  # best at 10, stale at 20 and 30
    assert m["best_step"] == 10
    assert [row[0] for row in m["val_curve"]] == [10, 20, 30]
    assert len({(row[1], row[2]) for row in m["val_curve"]}) == 1  # identical scores: nothing trained


def test_a_perfect_validation_score_stops_training_and_its_weights_are_tested():
    # size 1 copy has ten strings: learnt within a few hundred steps
    config = RunConfig(task="copy", encoding="rope", train_len=1, eval_lengths=[1], steps=3000, lr=3e-3,
                       warmup=10, val_every=25, patience=40, d_model=32, n_heads=2, val_samples=32,
                       eval_samples=64)
    m = train_run(config, seed=0, progress=False).metrics
    assert m["val_exact_match"] == 1.0
    assert m["steps_trained"] == m["best_step"] < 3000
    # the restored best model is the one evaluated: all ten strings of size 1 are in-distribution
    assert m["by_length"]["1"]["exact_match"] == 1.0


def test_without_val_every_all_steps_run_and_no_validation_is_reported():
    m = train_run(RunConfig(task="copy", encoding="nope", train_len=2, steps=5, d_model=16, n_heads=2,
                            eval_samples=8), seed=0, progress=False).metrics
    assert "val_curve" not in m and "steps_trained" not in m


@pytest.mark.parametrize("settings,match", [
    ({"val_every": -1}, "val_every must be an integer >= 0"),
    ({"val_every": 1.5}, "val_every must be an integer >= 0"),
    ({"patience": 0}, "patience must be a positive integer"),
    ({"task": "charlm", "val_every": 10}, "applies to the synthetic tasks"),
])
def test_bad_ceiling_settings(settings, match):
    with pytest.raises(PosencError, match=match):
        RunConfig(**settings)
