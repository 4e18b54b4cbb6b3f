"""The local-dependency tasks (``local``, ``back2``): targets by hand, and what they answer as lab tasks."""

import numpy as np
import pytest
import torch

from posenc.lab.evaluate import CANNOT_RUN
from posenc.lab.local import BACK2, LOCAL, back2_batch, local_batch, token_accuracy
from posenc.lab.string_tasks import IGNORE, SYMBOL0, VOCAB_SIZE
from posenc.lab.train import RunConfig, build_model, train_run

TINY = {"d_model": 16, "n_layers": 1, "n_heads": 2, "batch_size": 4}


def test_local_targets_by_hand():
    ids, targets = local_batch(2, 5, torch.Generator().manual_seed(0))
    x = (ids - SYMBOL0).tolist()
    for row, target in zip(x, targets.tolist(), strict=True):
        assert target == [IGNORE] + [(a + b) % 10 + SYMBOL0 for a, b in zip(row[1:], row[:-1], strict=True)]


def test_back2_targets_by_hand():
    ids, targets = back2_batch(2, 5, torch.Generator().manual_seed(0))
    for row, target in zip(ids.tolist(), targets.tolist(), strict=True):
        assert target == [IGNORE, IGNORE, row[0], row[1], row[2]]


def test_a_run_config_names_them_and_reads_train_len_tokens():
    config = RunConfig(task="local", train_len=12, batch_size=3)
    assert config.eval_lengths == [12, 24, 48] and config.sequence_length(12) == 12
    ids, targets = config.lab_task.sampler(config)(torch.Generator().manual_seed(4))
    expected = local_batch(3, 12, torch.Generator().manual_seed(4))
    assert torch.equal(ids, expected[0]) and torch.equal(targets, expected[1])


def test_token_accuracy_counts_only_scored_positions():
    class Echo(torch.nn.Module):  # predicts each token itself: right exactly where the target is the input token
        def forward(self, ids):
            return torch.nn.functional.one_hot(ids, 20).float()

    ids = torch.tensor([[5, 6, 7, 8]])
    targets = torch.tensor([[IGNORE, 6, 0, 8]])  # 2 of the 3 scored positions are the token itself
    assert token_accuracy(Echo(), ids, targets) == pytest.approx(2 / 3)


def test_a_learned_table_past_its_rows_cannot_run_and_a_run_reports_token_accuracy():
    config = RunConfig.from_dict({"task": "back2", "encoding": "learned", "train_len": 6, "eval_lengths": [6, 12],
                                  "eval_samples": 8, "steps": 3, **TINY})
    by_length = train_run(config, seed=0, progress=False, device="cpu").metrics["by_length"]
    assert by_length["12"] == CANNOT_RUN and set(by_length["6"]) == {"token_accuracy", "samples"}
    assert 0.0 <= by_length["6"]["token_accuracy"] <= 1.0


def test_validation_scores_the_trained_length_on_its_own_strings():
    config = RunConfig.from_dict({"task": "local", "encoding": "nope", "train_len": 5, "val_samples": 7,
                                  "val_every": 1, **TINY})
    model = build_model(config, seed=0)
    score, tie = LOCAL.validate(model, config, seed=2)
    ids, targets = local_batch(7, 5, torch.Generator().manual_seed(10_000 + 2))
    assert score == tie == token_accuracy(model, ids, targets)
    assert BACK2.metrics == ("token_accuracy",)


class _Back2Oracle(torch.nn.Module):
    """Predicts the token two places back (right at every scored position of ``back2``), except at the last
    position, where it predicts PAD (never a target). Its token accuracy at length T is known by hand: T - 2 scored
    positions, T - 3 of them right."""

    def __init__(self):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.zeros(1))  # a device to read, as the task asks the model for one

    def forward(self, ids):
        answer = torch.zeros_like(ids)  # PAD at the first two (ignored) positions and the last
        answer[:, 2:-1] = ids[:, :-3]
        return torch.nn.functional.one_hot(answer, VOCAB_SIZE).float()


@pytest.mark.parametrize("length,accuracy", [(3, 0.0), (4, 0.5), (6, 0.75), (12, 0.9)])  # (T - 3) / (T - 2)
def test_back2_scores_only_the_positions_with_an_answer(length, accuracy):
    # counting the two ignored positions would give (T - 3) / T: 0.5 at 6; counting the wrong last one as right, 1
    config = RunConfig(task="back2", train_len=length, eval_lengths=[length], eval_samples=5)
    assert BACK2.evaluate(_Back2Oracle(), config, seed=0) == {str(length): {"token_accuracy": pytest.approx(accuracy),
                                                                            "samples": 5}}


def test_local_task_targets_by_hand():
    from posenc.lab.string_tasks import IGNORE, SYMBOL0

    ids, targets = local_batch(4, 12, torch.Generator().manual_seed(0))
    x = ids.numpy() - SYMBOL0
    assert (targets[:, 0] == IGNORE).all()
    assert np.array_equal(targets[:, 1:].numpy() - SYMBOL0, (x[:, 1:] + x[:, :-1]) % 10)


def test_back2_targets_by_hand_in_numpy():
    from posenc.lab.string_tasks import IGNORE, SYMBOL0

    ids, targets = back2_batch(3, 10, torch.Generator().manual_seed(1))
    x = ids.numpy() - SYMBOL0
    assert (targets[:, :2] == IGNORE).all()
    assert np.array_equal(targets[:, 2:].numpy() - SYMBOL0, x[:, :-2])
