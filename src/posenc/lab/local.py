"""Local-dependency tasks: every token's answer depends only on it and its near neighbours (``task="local"``,
``task="back2"``).

A sequence is ``T`` random symbols ``x_0 .. x_{T-1}`` (token ids ``SYMBOL0 + x``, the vocabulary of
:mod:`posenc.lab.string_tasks`); the target at each position ``t`` is

- ``local``: ``(x_t + x_{t-1}) mod 10`` for ``t >= 1``,
- ``back2``: ``x_{t-2}`` (the token two places back) for ``t >= 2``,

and ignored before. Such a task needs positions only to tell a neighbour from any other token (tutorial 002: the fixed
sinusoid is weak on local dependencies). The "size" ``n`` of a run is the sequence length ``T``: training reads
``batch_size`` sequences of ``train_len`` tokens every step, and the test is token accuracy on sequences of every
length of ``eval_lengths`` (default ``L, 2L, 4L``); training to the ceiling scores ``val_samples`` sequences of
``train_len`` tokens drawn apart from the test ones.

Example (``local``, ``x = 3 5 1``)::

    ids     [[7, 9, 5]]            targets [[-100, 12, 10]]      # 3 + 5 = 8, 5 + 1 = 6
"""

from __future__ import annotations

from typing import Any

import torch
from torch import nn

from posenc.encodings.learned import PositionOutOfRange
from posenc.lab.evaluate import CANNOT_RUN
from posenc.lab.string_tasks import IGNORE, N_SYMBOLS, SYMBOL0
from posenc.lab.synthetic import VALIDATION_SEED_OFFSET, Drawn

__all__ = ["Local", "LOCAL", "BACK2", "local_batch", "back2_batch", "token_accuracy", "LOCAL_METRICS"]

LOCAL_METRICS = ("token_accuracy",)  #: what a local task scores (every position has an answer)


def local_batch(batch: int, length: int, generator: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
    """``local``: ids ``[B, T]`` (random symbols) and targets ``[B, T]`` with ``targets[:, t] = symbol((x_t +
    x_{t-1}) mod 10)`` for ``t >= 1``, ignored at ``t = 0``."""
    x = torch.randint(0, N_SYMBOLS, (batch, length), generator=generator)  # [B, T] symbols
    targets = torch.full((batch, length), IGNORE, dtype=torch.long)
    targets[:, 1:] = (x[:, 1:] + x[:, :-1]) % 10 + SYMBOL0
    return x + SYMBOL0, targets


def back2_batch(batch: int, length: int, generator: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
    """``back2``: ids ``[B, T]`` (random symbols) and targets ``[B, T]`` with ``targets[:, t] = x_{t-2}`` for
    ``t >= 2``, ignored before."""
    x = torch.randint(0, N_SYMBOLS, (batch, length), generator=generator)  # [B, T] symbols
    targets = torch.full((batch, length), IGNORE, dtype=torch.long)
    targets[:, 2:] = x[:, :-2] + SYMBOL0
    return x + SYMBOL0, targets


@torch.no_grad()
def token_accuracy(model: nn.Module, ids: torch.Tensor, targets: torch.Tensor) -> float:
    """The share of scored positions (targets not ignored) whose argmax is the target; the model is left in
    training mode."""
    mask = targets != IGNORE
    model.eval()
    predicted = model(ids).argmax(dim=-1)  # [N, T]
    model.train()
    return float((predicted[mask] == targets[mask]).double().mean())


class Local(Drawn):
    """A local-dependency task as a lab task (see the module docstring); a bidirectional encoder sees the neighbours
    too, so both formats take it."""

    metrics = LOCAL_METRICS
    length_axis = "sequence length T"

    def __init__(self, name: str, description: str, draw: Any) -> None:
        self.name, self.description, self.draw = name, description, draw

    def sequence_length(self, n: int, fmt: str) -> int:
        return n

    def default_eval_lengths(self, train_len: int) -> list[int]:
        return [train_len, 2 * train_len, 4 * train_len]

    def sampler(self, config: Any):
        batch, length, draw = config.batch_size, config.train_len, self.draw
        return lambda generator: draw(batch, length, generator)

    def _scores(self, model: nn.Module, lengths: list[int], samples: int, generator: torch.Generator
                ) -> dict[str, Any]:
        device = next(model.parameters()).device
        out: dict[str, Any] = {}
        for n in lengths:
            ids, targets = self.draw(samples, n, generator)
            try:
                out[str(n)] = {"token_accuracy": token_accuracy(model, ids.to(device), targets.to(device)),
                               "samples": samples}
            except PositionOutOfRange:
                out[str(n)] = CANNOT_RUN
        return out

    def evaluate(self, model: nn.Module, config: Any, seed: int) -> dict[str, Any]:
        """Token accuracy at each length, ``eval_samples`` sequences drawn from a generator seeded by ``seed``."""
        return self._scores(model, config.eval_lengths, config.eval_samples,
                            torch.Generator().manual_seed(1_000_003 * (seed + 1)))

    def validate(self, model: nn.Module, config: Any, seed: int) -> tuple[float, float]:
        score = self._scores(model, [config.train_len], config.val_samples,
                             torch.Generator().manual_seed(VALIDATION_SEED_OFFSET + seed))[str(config.train_len)]
        return score["token_accuracy"], score["token_accuracy"]

    def eval_batch(self, config: Any) -> int:
        return max(config.eval_samples, config.val_samples)

    def eval_sequences(self, config: Any) -> list[tuple[float, int]]:
        return [(config.eval_samples, n) for n in config.eval_lengths]

    def series(self, by_length: dict[str, Any]) -> dict[str, dict[str, Any]]:
        return {self.name: by_length}

    def heading(self, key: str, metric: str, train_len: int) -> str:
        return f"{key}: {metric} (trained on sequences of {train_len} tokens)"


LOCAL = Local("local", "(x_t + x_(t-1)) mod 10 at every position t >= 1", local_batch)
BACK2 = Local("back2", "the token two places back, at every position t >= 2", back2_batch)
