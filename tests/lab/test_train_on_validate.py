"""``train_run(..., on_validate=...)``: a caller's validation at step 0 and every ``validate_every`` steps, which may
stop the run; and ``lr_decay="constant"``, the schedule such callers train with."""

import math

import pytest
import torch

from posenc.errors import PosencError
from posenc.lab.train import RunConfig, _lr_at, build_model, train_run

TINY = {"task": "copy", "encoding": "rope", "train_len": 3, "d_model": 16, "n_layers": 1, "n_heads": 2,
        "batch_size": 4, "eval_samples": 4, "eval_lengths": [3]}


def _states(config, every, seed=0):
    """Run ``config``, keeping a copy of the weights at every validation (every ``every`` steps)."""
    seen = {}

    def keep(model, step):
        seen[step] = {k: v.detach().clone() for k, v in model.state_dict().items()}
        return False

    result = train_run(config, seed, progress=False, device="cpu", on_validate=keep, validate_every=every)
    return seen, result


def test_called_before_the_first_step_and_every_validate_every_steps_with_the_model_it_trains():
    seen, result = _states(RunConfig.from_dict({**TINY, "steps": 12}), 5)
    assert sorted(seen) == [0, 5, 10]
    initial = build_model(RunConfig.from_dict({**TINY, "steps": 12}), seed=0).state_dict()
    assert all(torch.equal(seen[0][k], initial[k]) for k in initial)  # step 0: the untrained model
    assert any(not torch.equal(seen[5][k], initial[k]) for k in initial)
    assert "val_curve" not in result.metrics  # no ceiling: the config does not ask for one


def test_the_ceiling_runs_beside_it_when_the_config_asks_for_one():
    seen, result = _states(RunConfig.from_dict({**TINY, "steps": 8, "val_every": 4, "patience": 9}), 2)
    assert sorted(seen) == [0, 2, 4, 6, 8]
    assert [row[0] for row in result.metrics["val_curve"]] == [4, 8]


def test_validate_every_must_be_a_positive_integer():
    with pytest.raises(PosencError, match="validate_every must be a positive integer, got 0"):
        train_run(RunConfig.from_dict({**TINY, "steps": 2, "warmup": 1}), progress=False, device="cpu",
                  on_validate=lambda model, step: False, validate_every=0)


def test_true_stops_the_run_there_and_the_weights_are_those_of_a_run_that_long():
    calls = []

    def stop_at_six(model, step):
        calls.append(step)
        return step == 6

    config = RunConfig.from_dict({**TINY, "steps": 30, "lr_decay": "constant", "warmup": 4})
    result = train_run(config, 0, progress=False, device="cpu", on_validate=stop_at_six, validate_every=3)
    assert calls == [0, 3, 6]
    assert result.metrics["loss_curve"][-1][0] == 6  # logged every 30 // 20 = 1 step, the last at the stop
    # with a constant rate after the warm-up, six steps of a 30-step run are the six steps of a 6-step run
    long, _ = _states(config, 3)
    short, _ = _states(RunConfig.from_dict({**TINY, "steps": 6, "lr_decay": "constant", "warmup": 4}), 3)
    assert all(torch.equal(long[6][k], short[6][k]) for k in short[6])


def test_stop_at_step_zero_trains_nothing():
    result = train_run(RunConfig.from_dict({**TINY, "steps": 5}), 0, progress=False, device="cpu",
                       on_validate=lambda model, step: True)
    assert result.metrics["loss_curve"] == [] and result.metrics["final_loss"] is None


def test_constant_decay_by_hand():
    config = RunConfig(lr=3e-3, warmup=30, steps=600, lr_decay="constant")
    assert _lr_at(0, config) == 3e-3 * (1 / 30)
    assert _lr_at(14, config) == 3e-3 * (15 / 30)
    assert _lr_at(29, config) == _lr_at(30, config) == _lr_at(599, config) == 3e-3
    cosine = RunConfig(lr=3e-3, warmup=30, steps=600)
    assert _lr_at(599, cosine) == pytest.approx(3e-3 * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * 569 / 570))))


def test_constant_decay_is_in_the_store_key_and_cosine_is_not():
    assert "lr_decay" not in RunConfig().earlier_keys()[-1]  # schema 1 left cosine out; schema 2 wrote it
    assert RunConfig().as_dict()["lr_decay"] == "cosine"
    assert RunConfig(lr_decay="constant").as_dict()["lr_decay"] == "constant"
    with pytest.raises(PosencError, match="lr_decay must be one of cosine, constant, got 'linear'"):
        RunConfig(lr_decay="linear")
