"""The synthetic tasks of :mod:`posenc.lab.string_tasks` as lab tasks (:class:`posenc.lab.lab_task.LabTask`).

One :class:`Synthetic` wraps each string-to-string task and answers the lab's questions the same way for all of
them: a training batch draws a size ``n`` uniformly from ``min_train_len..train_len`` and ``batch_size`` strings of
that size in the run's format (:func:`~posenc.lab.string_tasks.format_batch`); the test is exact match and token accuracy
at every size of ``eval_lengths`` (default ``L/2, L, 2L, 4L``, :func:`~posenc.lab.evaluate.evaluate_task`); training
to the ceiling scores the training sizes on strings drawn apart from the test strings.

Example::

    >>> from posenc.lab.string_tasks import get_task
    >>> Synthetic(get_task("duplicate")).sequence_length(3, "encoder")
    10
"""

from __future__ import annotations

from typing import Any

import torch
from torch import nn

from posenc.lab.evaluate import evaluate_task
from posenc.lab.string_tasks import VOCAB_SIZE, Task, format_batch

__all__ = ["Drawn", "Synthetic", "TASK_METRICS", "EVAL_BATCH", "VALIDATION_SEED_OFFSET"]

TASK_METRICS = ("exact_match", "token_accuracy")  #: the metrics of every synthetic task, the default first
EVAL_BATCH = 128  #: strings per evaluation batch (:func:`~posenc.lab.evaluate.evaluate_task`'s default)
#: validation strings are drawn from seeds offset by this, apart from the test strings (seeded by the run's seed)
VALIDATION_SEED_OFFSET = 10_000


class Drawn:
    """What the lab tasks whose sequences are drawn, not read, answer alike (:class:`Synthetic`,
    :class:`~posenc.lab.local.Local`): the symbols' vocabulary, known without data; no setting to refuse (both formats
    read the same tokens, and training to the ceiling works); data at every length."""

    name: str
    vocab_bound = VOCAB_SIZE
    rows_are_lengths = False

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"

    def check_config(self, config: Any) -> None:
        """Nothing to refuse."""

    def check_data(self, config: Any) -> None:
        """Sequences are drawn, not read: every length has data."""

    def vocab_size(self) -> int:
        return self.vocab_bound


class Synthetic(Drawn):
    """A string-to-string :class:`~posenc.lab.string_tasks.Task` as a lab task; ``config`` is a
    :class:`~posenc.lab.train.RunConfig`."""

    metrics = TASK_METRICS
    length_axis = "task size n"

    def __init__(self, task: Task) -> None:
        self.task = task
        self.name, self.description = task.name, task.description

    def sequence_length(self, n: int, fmt: str) -> int:
        """``m + k`` tokens (decoder) or ``m + 1 + k`` (encoder) at size ``n``."""
        return self.task.input_length(n) + self.task.output_length(n) + (0 if fmt == "decoder" else 1)

    def default_eval_lengths(self, train_len: int) -> list[int]:
        L = train_len
        return sorted({max(1, L // 2), L, 2 * L, 4 * L})

    def sampler(self, config: Any):
        low, high, batch, fmt = config.min_train_len, config.train_len, config.batch_size, config.fmt
        task = self.task

        def draw(generator: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
            n = int(torch.randint(low, high + 1, (1,), generator=generator))
            return format_batch(*task.sample(batch, n, generator), fmt)  # [B, T]

        return draw

    def evaluate(self, model: nn.Module, config: Any, seed: int) -> dict[str, Any]:
        return evaluate_task(model, self.task, config.eval_lengths, config.fmt, config.eval_samples, seed,
                             EVAL_BATCH)

    def validate(self, model: nn.Module, config: Any, seed: int) -> tuple[float, float]:
        """Mean exact match over the training sizes ``min_train_len..train_len`` (``val_samples`` strings each,
        drawn apart from the test strings); mean token accuracy breaks ties."""
        sizes = list(range(config.min_train_len, config.train_len + 1))
        scores = evaluate_task(model, self.task, sizes, config.fmt, config.val_samples, VALIDATION_SEED_OFFSET + seed,
                               EVAL_BATCH)
        return (sum(r["exact_match"] for r in scores.values()) / len(scores),
                sum(r["token_accuracy"] for r in scores.values()) / len(scores))

    def eval_batch(self, config: Any) -> int:
        return min(EVAL_BATCH, max(config.eval_samples, config.val_samples))

    def eval_sequences(self, config: Any) -> list[tuple[float, int]]:
        return [(config.eval_samples, self.sequence_length(n, config.fmt)) for n in config.eval_lengths]

    def series(self, by_length: dict[str, Any]) -> dict[str, dict[str, Any]]:
        return {self.name: by_length}

    def heading(self, key: str, metric: str, train_len: int) -> str:
        return f"{key}: {metric} (trained on sizes up to {train_len})"
