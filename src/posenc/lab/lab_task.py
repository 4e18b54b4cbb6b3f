"""What the lab needs from a task, and the table of the lab's tasks.

A lab task is anything that answers :class:`LabTask`: how long its sequences are at a size ``n``, how a training
batch is drawn, how a model is scored at every test length, which metrics that score has and how they are laid out
in tables. The training loop (:func:`posenc.lab.train.train_run`), the size guard, sweeps and tables ask the task
these questions and never which task it is.

Two kinds answer it today:

- the string-to-string tasks of :mod:`posenc.lab.string_tasks` (copy, reverse, sort, addition, parity, duplicate,
  selective_copy, count), each wrapped by :class:`posenc.lab.synthetic.Synthetic`: exact match by size ``n``;
- the character-level Shakespeare language model of :mod:`posenc.lab.charlm` (``charlm``): perplexity by context
  length, under two protocols;
- the local-dependency tasks of :mod:`posenc.lab.local` (``local``, ``back2``): token accuracy by sequence length.

A new task is a class with these members in its own module and a row of :data:`LAB_TASKS` (docs/architecture.md).

Example::

    >>> lab_task("charlm").metrics
    ('ppl', 'bpc', 'nll')
    >>> lab_task("copy").sequence_length(3, "decoder")
    6
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol, runtime_checkable

import torch
from torch import nn

from posenc.lab.charlm import CharLM
from posenc.lab.local import BACK2, LOCAL
from posenc.lab.string_tasks import TASKS
from posenc.lab.synthetic import Synthetic
from posenc.names import Registry

__all__ = ["LabTask", "LAB_TASKS", "lab_task", "task_of_series"]

#: draws one training batch from the run's generator: ``(ids [B, T], targets [B, T])`` on the CPU
Sampler = Callable[[torch.Generator], tuple[torch.Tensor, torch.Tensor]]


@runtime_checkable
class LabTask(Protocol):
    """A task the lab trains on and tests at lengths. ``config`` is the run's
    :class:`~posenc.lab.train.RunConfig`; ``n`` a task size (the char-LM: a context length).

    Attributes:
        name: the task's name in a run config (``task="copy"``).
        description: one line, shown by ``posenc train --help``.
        metrics: the metrics its scores have, the default (what tables show unless told) first.
        vocab_bound: an upper bound of its vocabulary, known without reading any data (size estimates).
        rows_are_lengths: tables put one evaluation length per row and one encoding per column (Press et al.
            2022, Table 1) instead of one encoding per row.
        length_axis: what an evaluation length counts, for axis labels: ``"task size n"``.
    """

    name: str
    description: str
    metrics: tuple[str, ...]
    vocab_bound: int
    rows_are_lengths: bool
    length_axis: str

    def check_config(self, config: Any) -> None:
        """Refuse settings this task cannot take (a format, training to the ceiling)."""

    def check_data(self, config: Any) -> None:
        """Refuse lengths its data cannot give (without reading the data when possible)."""

    def vocab_size(self) -> int:
        """The vocabulary the model is built for (may read the data)."""

    def sequence_length(self, n: int, fmt: str) -> int:
        """Tokens the model reads at size ``n`` in format ``fmt``."""

    def default_eval_lengths(self, train_len: int) -> list[int]:
        """The sizes tested when a config names none."""

    def sampler(self, config: Any) -> Sampler:
        """The training batches of a run (reads the data once, here)."""

    def evaluate(self, model: nn.Module, config: Any, seed: int) -> dict[str, Any]:
        """The metrics at every length of ``config.eval_lengths``, keyed as :func:`train_run` documents."""

    def validate(self, model: nn.Module, config: Any, seed: int) -> tuple[float, float]:
        """In-distribution score to train to the ceiling: ``(score, tie-break)``, higher is better, ``score`` 1
        perfect. Only asked when :meth:`check_config` lets ``val_every`` through."""

    def eval_batch(self, config: Any) -> int:
        """Sequences per evaluation batch (size estimates)."""

    def eval_sequences(self, config: Any) -> list[tuple[float, int]]:
        """``(how many, tokens each)`` of the sequences the evaluation runs (size estimates)."""

    def series(self, by_length: dict[str, Any]) -> dict[str, dict[str, Any]]:
        """A run's ``by_length`` as table series: ``{key: {str(length): metrics}}``; a key is the task's name,
        or its name, ``/`` and a part (``charlm/sliding``)."""

    def heading(self, key: str, metric: str, train_len: int) -> str:
        """The title of a series' table."""


#: every task a run config may name: each string task of :data:`~posenc.lab.string_tasks.TASKS`, then the other kinds
LAB_TASKS: Registry[LabTask] = Registry("task")
for _name, _task in TASKS.items():
    LAB_TASKS.register(_name, Synthetic(_task))
for _other in (CharLM(), LOCAL, BACK2):
    LAB_TASKS.register(_other.name, _other)
del _name, _task, _other


def lab_task(name: str) -> LabTask:
    """The task called ``name``; an unknown name lists the valid ones."""
    return LAB_TASKS.get(name)


def task_of_series(key: str) -> LabTask:
    """The task of a table series key (``copy``, ``charlm/sliding``)."""
    return lab_task(key.split("/", 1)[0])
