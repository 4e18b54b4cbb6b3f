"""The task sizes a lab run trains on: every size from ``min_train_len`` to ``train_len`` is drawn, both ends included.

``train_run`` draws one size ``n`` per batch, uniformly from ``min_train_len..train_len``. An off-by-one there (an
exclusive upper bound) would never train at ``train_len`` and silently shift every "trained up to L" result; one at
the lower end would train on sizes the config excludes. The batches are recorded by wrapping the ``format_batch``
that the training batches of a synthetic task call (:mod:`posenc.lab.synthetic`; the evaluation has its own), over a fixed seed and enough steps that a size missed by a
uniform draw is impossible in practice: with 4 sizes and 120 steps, P(one given size never drawn) = (3/4)^120 < 1e-14.
"""

from collections import Counter

import pytest

from posenc.lab import synthetic
from posenc.lab.train import RunConfig, train_run
from posenc.model import ModelConfig


def _trained_sizes(monkeypatch, **settings) -> Counter:
    sizes: Counter = Counter()
    real = synthetic.format_batch

    def recording(inputs, outputs, fmt="decoder"):
        sizes[int(inputs.shape[1])] += 1  # copy: the input length is the size n
        return real(inputs, outputs, fmt)

    monkeypatch.setattr(synthetic, "format_batch", recording)
    config = RunConfig.from_dict({"task": "copy", "encoding": "nope", "d_model": 8, "n_layers": 1, "n_heads": 2,
                                  "batch_size": 2, "eval_samples": 2, "eval_lengths": [1], "warmup": 1, **settings})
    train_run(config, seed=3, progress=False)
    return sizes


@pytest.mark.parametrize("min_len,max_len", [(2, 5), (1, 4), (3, 3)])
def test_every_training_size_is_drawn_including_both_ends(monkeypatch, min_len, max_len):
    steps = 120
    sizes = _trained_sizes(monkeypatch, min_train_len=min_len, train_len=max_len, steps=steps)
    assert sum(sizes.values()) == steps  # one training batch per step
    assert set(sizes) == set(range(min_len, max_len + 1))  # the longest and the shortest included, nothing else
    assert max(sizes) == max_len and min(sizes) == min_len
    if max_len > min_len:  # uniform: each of k sizes near steps / k (a loose 3-sigma band)
        k = max_len - min_len + 1
        expected, sd = steps / k, (steps * (1 / k) * (1 - 1 / k)) ** 0.5
        assert all(abs(count - expected) <= 3 * sd + 1 for count in sizes.values()), sizes


def test_validation_covers_the_same_sizes_as_training(monkeypatch):
    scored = []

    def recording(model, task, lengths, *args):
        scored.append(list(lengths))
        return {str(n): {"exact_match": 0.0, "token_accuracy": 0.0, "samples": 1} for n in lengths}

    monkeypatch.setattr(synthetic, "evaluate_task", recording)
    config = RunConfig(task="copy", model=ModelConfig(encoding="nope"), min_train_len=2, train_len=6, steps=1)
    config.lab_task.validate(None, config, 0)
    assert scored == [[2, 3, 4, 5, 6]]
