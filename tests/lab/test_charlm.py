"""The char-LM as a lab task (:mod:`posenc.lab.charlm`): its batches, what it refuses, what its evaluation runs."""

import pytest
import torch

from posenc.errors import PosencError
from posenc.lab.charlm import CharLM
from posenc.lab.train import RunConfig


def test_a_char_lm_batch_predicts_each_next_character_of_its_window():
    config = RunConfig(task="charlm", train_len=12, batch_size=3)
    ids, targets = config.lab_task.sampler(config)(torch.Generator().manual_seed(0))
    assert ids.shape == targets.shape == (3, 12)
    assert torch.equal(ids[:, 1:], targets[:, :-1])  # one window, shifted by one


@pytest.mark.parametrize("settings,match", [
    ({"task": "charlm", "fmt": "encoder"}, "causal decoder"),
    ({"task": "charlm", "val_every": 5}, "fixed number of steps"),
])
def test_the_char_lm_refuses_the_settings_it_cannot_take(settings, match):
    with pytest.raises(PosencError, match=match):
        RunConfig.from_dict(settings)


def test_char_lm_evaluation_windows_counted_by_hand():
    # L = 8, 64 tokens: nonoverlap 64 / 8 = 8 windows; sliding stride 8 // 8 = 1: 1 + 64 windows
    config = RunConfig(task="charlm", train_len=8, eval_lengths=[8], eval_tokens=64)
    assert CharLM().eval_sequences(config) == [(8 + 65, 8)]
