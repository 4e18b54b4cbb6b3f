"""The synthetic tasks as lab tasks (:mod:`posenc.lab.synthetic`): their batches and what their evaluation runs."""

import torch

from posenc.lab.train import RunConfig


def test_a_synthetic_batch_has_one_size_in_the_runs_format():
    config = RunConfig(task="copy", min_train_len=3, train_len=3, batch_size=5, fmt="encoder")
    ids, targets = config.lab_task.sampler(config)(torch.Generator().manual_seed(0))
    assert ids.shape == targets.shape == (5, 7)  # 3 symbols, SEP, 3 blanks
    assert torch.equal(targets[:, 4:], ids[:, :3])  # the copy's answer, in the blanks' places


def test_synthetic_evaluation_counts_eval_samples_strings_per_size():
    copy = RunConfig(task="copy", train_len=2, eval_lengths=[2, 4], eval_samples=10)
    assert copy.lab_task.eval_sequences(copy) == [(10, 4), (10, 8)]
