"""Training to the in-distribution ceiling: validation on in-distribution strings only, early stopping, and the
best weights are the ones tested."""

from __future__ import annotations

import pytest
import torch

from posenc.device import Placement
from posenc.errors import PosencError
from posenc.lab import RunConfig, build_model, train_run
from posenc.lab.evaluate import evaluate_task
from posenc.lab.lab_task import lab_task
from posenc.lab.string_tasks import get_task
from posenc.lab.synthetic import VALIDATION_SEED_OFFSET
from posenc.lab.train import _Ceiling
from posenc.model import ModelConfig


def test_no_improvement_stops_after_patience_validations():
    # lr 1e-12: the weights barely move, so the first validation is the best and every later one is stale
    config = RunConfig(task="copy", model=ModelConfig(encoding="nope", d_model=16, n_heads=2), train_len=4, steps=1000,
                       lr=1e-12, warmup=1, val_every=10, patience=2, val_samples=16, eval_samples=16)
    m = train_run(config, seed=0, progress=False).metrics
    assert m["steps_trained"] == 30  # best at 10, stale at 20 and 30
    assert m["best_step"] == 10
    assert [row[0] for row in m["val_curve"]] == [10, 20, 30]
    assert len({(row[1], row[2]) for row in m["val_curve"]}) == 1  # identical scores: nothing trained


def test_a_perfect_validation_score_stops_training_and_its_weights_are_tested():
    # size 1 copy has ten strings: learnt within a few hundred steps
    config = RunConfig(task="copy", model=ModelConfig(encoding="rope", d_model=32, n_heads=2), train_len=1,
                       eval_lengths=[1], steps=3000, lr=3e-3, warmup=10, val_every=25, patience=40, val_samples=32,
                       eval_samples=64)
    m = train_run(config, seed=0, progress=False).metrics
    assert m["val_exact_match"] == 1.0
    assert m["steps_trained"] == m["best_step"] < 3000
    # the restored best model is the one evaluated: all ten strings of size 1 are in-distribution
    assert m["by_length"]["1"]["exact_match"] == 1.0


def test_the_validation_summary_reports_the_best_scores_under_their_names():
    # lr 1e-12: both validations score alike (exact match 0, token accuracy above it), the first is the best
    config = RunConfig(task="copy", model=ModelConfig(encoding="nope", d_model=16, n_heads=2), train_len=2, steps=20,
                       lr=1e-12, warmup=1, val_every=10, patience=5, val_samples=16, eval_samples=8)
    m = train_run(config, seed=0, progress=False, device="cpu").metrics
    assert set(m) == {"by_length", "loss_curve", "final_loss", "params", "val_curve", "best_step", "steps_trained",
                      "val_exact_match", "val_token_accuracy"}
    (first, exact, token), second = m["val_curve"]
    assert exact < token and second == [20, exact, token]
    assert (m["best_step"], m["steps_trained"]) == (first, 20) == (10, 20)
    assert (m["val_exact_match"], m["val_token_accuracy"]) == (exact, token)


def test_a_ceiling_given_no_device_validates_on_the_cpu_in_its_dtype():
    # the mean over sizes 1 and 2 of the seeded validation strings, scored under CPU autocast in bfloat16
    config = RunConfig(task="copy", model=ModelConfig(encoding="nope", d_model=16, n_heads=2), train_len=2,
                       val_every=1, val_samples=8)
    model, task = build_model(config, seed=0), get_task("copy")
    ceiling = _Ceiling(config, lab_task("copy"), 3, Placement(torch.device("cpu"), torch.bfloat16))
    ceiling.check(model, 1)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        scores = evaluate_task(model, task, [1, 2], "decoder", 8, VALIDATION_SEED_OFFSET + 3)
    exact = (scores["1"]["exact_match"] + scores["2"]["exact_match"]) / 2
    token = (scores["1"]["token_accuracy"] + scores["2"]["token_accuracy"]) / 2
    assert ceiling.curve == [[1, exact, token]]

def test_without_val_every_all_steps_run_and_no_validation_is_reported():
    m = train_run(RunConfig(task="copy", model=ModelConfig(encoding="nope", d_model=16, n_heads=2), train_len=2,
                            steps=5, eval_samples=8), seed=0, progress=False).metrics
    assert "val_curve" not in m and "steps_trained" not in m


@pytest.mark.parametrize("settings,match", [
    ({"val_every": -1}, "val_every must be an integer >= 0"),
    ({"val_every": 1.5}, "val_every must be an integer >= 0"),
    ({"patience": 0}, "patience must be a positive integer"),
    ({"task": "charlm", "val_every": 10}, "applies to the synthetic tasks"),
])
def test_bad_ceiling_settings(settings, match):
    with pytest.raises(PosencError, match=match):
        RunConfig.from_dict(settings)


class _Scripted:
    """A task whose validation scores are given in advance, so when the ceiling must stop is known by hand."""

    def __init__(self, scores):
        self.scores = iter(scores)

    def validate(self, model, config, seed):
        return next(self.scores)


def _stops(scores, patience):
    config = RunConfig(task="copy", model=ModelConfig(encoding="nope", d_model=16, n_heads=2), train_len=2,
                       val_every=1, patience=patience)
    ceiling = _Ceiling(config, _Scripted(scores), 0)
    model = build_model(config, seed=0)
    return [ceiling.check(model, step) for step in range(1, len(scores) + 1)], ceiling


def test_the_ceiling_stops_at_a_perfect_exact_match_and_not_just_below_it():
    stops, ceiling = _stops([(0.5, 0.5), (0.999, 0.9999), (1.0, 1.0)], patience=10)
    assert stops == [False, False, True]
    assert ceiling.best_step == 3 and ceiling.best == (1.0, 1.0)


def test_the_ceiling_stops_on_the_patience_th_stale_validation_and_not_before():
    # patience 2: improvement, stale 1 (same score), stale 2 -> stop; a lower score counts as stale too
    stops, ceiling = _stops([(0.5, 0.5), (0.5, 0.5), (0.4, 0.9)], patience=2)
    assert stops == [False, False, True] and ceiling.best_step == 1
    # patience 3 does not stop there
    assert _stops([(0.5, 0.5), (0.5, 0.5), (0.4, 0.9)], patience=3)[0] == [False, False, False]


def test_a_better_token_accuracy_at_equal_exact_match_is_an_improvement_that_resets_the_patience():
    # step 2 ties on exact match but has more tokens right: the best, and the stale count starts again
    stops, ceiling = _stops([(0.5, 0.5), (0.5, 0.6), (0.5, 0.6), (0.5, 0.6)], patience=2)
    assert stops == [False, False, False, True]
    assert ceiling.best_step == 2 and ceiling.best == (0.5, 0.6)


def test_training_to_the_ceiling_is_off_by_default_with_a_patience_of_4():
    assert (RunConfig().val_every, RunConfig().patience) == (0, 4)


def test_val_every_above_steps_is_refused_since_no_validation_would_fall_due():
    # 5 steps, a validation every 10: none would run, and the run used to report -1.0 as its scores
    with pytest.raises(PosencError, match=r"val_every \(10\) exceeds steps \(5\): no validation would fall due"):
        RunConfig(task="copy", model=ModelConfig(encoding="nope", d_model=16, n_heads=2), train_len=2, steps=5,
                  val_every=10)
    # at the boundary one validation falls due, after the last step
    RunConfig(task="copy", model=ModelConfig(encoding="nope", d_model=16, n_heads=2), train_len=2, steps=5, val_every=5)
