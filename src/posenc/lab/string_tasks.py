"""Synthetic length-generalisation tasks (Kazemnejad et al. 2023, NoPE; Deletang et al. 2023; Ruoss et al. 2023).

Every task maps an input string of symbols to an output string. ``n`` is the task's *size*: the number of input
symbols (copy, reverse, sort, duplicate, parity, count), of digits per operand (addition) or of content symbols
among as many blanks (selective_copy). A model trained on sizes
``1..L`` is tested on sizes up to ``4L`` and beyond; the score is exact match (every output token right).

Each task is one small subclass of :class:`Task` (its lengths and its answer) and one row of :data:`TASKS`; a new
task is a new subclass and a new row, and no code outside its class asks which task it is. What the lab asks of
every task (training batches, evaluation by size, metrics) :mod:`posenc.lab.synthetic` answers the same way for all
of them.

Token ids, shared by every task (so one vocabulary of :data:`VOCAB_SIZE` serves them all)::

    0 PAD   1 SEP (end of input)   2 BLANK (an output slot, encoder format)   3 PLUS   4.. symbols 0..9

Two formats put a task into a Transformer (see :func:`format_batch`):

- ``decoder`` (causal, teacher forcing; Kazemnejad et al. 2023): ``x_1 .. x_m SEP y_1 .. y_k`` and the logits at
  ``SEP, y_1, .., y_{k-1}`` predict ``y_1 .. y_k``. Sequence length ``m + k``.
- ``encoder`` (bidirectional, one-shot output; Deletang et al. 2023, Ruoss et al. 2023): ``x_1 .. x_m SEP BLANK^k``
  and the logits at the ``k`` blanks predict ``y``. Sequence length ``m + 1 + k``.

Exact match under teacher forcing equals exact match of greedy decoding: if every teacher-forced argmax is right,
greedy decoding reproduces the same tokens; if one is wrong, greedy decoding is wrong at the first such token.

Example (copy, n = 3, decoder)::

    inputs  [[4, 6, 5]]            outputs [[4, 6, 5]]
    ids     [[4, 6, 5, 1, 4, 6]]   targets [[-100, -100, -100, 4, 6, 5]]
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from posenc.checks import whole_number
from posenc.errors import PosencError
from posenc.names import Registry

__all__ = ["Task", "Copy", "Reverse", "Sort", "Duplicate", "Parity", "Addition", "SelectiveCopy", "Count", "TASKS",
           "get_task", "format_batch", "sequence_length", "exact_match", "PAD", "SEP", "BLANK", "PLUS", "SYMBOL0",
           "N_SYMBOLS", "VOCAB_SIZE", "IGNORE", "FORMATS", "SELECTIVE_BLANK", "COUNT_MARK"]

PAD, SEP, BLANK, PLUS = 0, 1, 2, 3
SYMBOL0 = 4  #: id of symbol 0; symbol s has id SYMBOL0 + s
N_SYMBOLS = 10
VOCAB_SIZE = SYMBOL0 + N_SYMBOLS
IGNORE = -100  #: target id that the loss and the metric skip
FORMATS = ("decoder", "encoder")


@dataclass(frozen=True)
class Task:
    """A string-to-string task of size ``n``: one subclass per task says how long its strings are and what its
    answer is; the table :data:`TASKS` holds one of each.

    The base class draws ``n`` input symbols uniformly from the task's ``alphabet`` and asks :meth:`answer` for the
    output; a task whose inputs are not ``n`` plain symbols (addition) overrides :meth:`draw` instead.

    Attributes:
        name: registry name.
        description: one line, shown by ``posenc train --help``.
        alphabet: how many symbols the input draws from (outputs may use all ten).
        source: the paper whose suite the task comes from.
    """

    name: str
    description: str
    alphabet: int
    source: str

    def input_length(self, n: int) -> int:
        """Number of input tokens at size ``n``: ``n`` unless the task says otherwise."""
        return n

    def output_length(self, n: int) -> int:
        """Number of output tokens at size ``n``: ``n`` unless the task says otherwise."""
        return n

    def sample(self, batch: int, n: int, generator: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
        """``batch`` random examples of size ``n``: ``(inputs [B, m], outputs [B, k])`` as token ids."""
        if not whole_number(n):
            raise PosencError(f"task {self.name!r}: size n must be a positive integer, got {n!r}")
        return self.draw(batch, n, generator)

    def draw(self, batch: int, n: int, generator: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
        """Token ids ``(inputs [B, n], outputs [B, k])``: symbols drawn uniformly, outputs from :meth:`answer`."""
        x = torch.randint(0, self.alphabet, (batch, n), generator=generator)  # [B, n] symbols
        return x + SYMBOL0, self.answer(x) + SYMBOL0

    def answer(self, x: torch.Tensor) -> torch.Tensor:
        """The output symbols ``[B, k]`` for input symbols ``x [B, n]`` (symbols, not token ids)."""
        raise NotImplementedError(f"task {self.name!r} defines neither answer nor draw")


class Copy(Task):
    """The input string unchanged."""

    def answer(self, x: torch.Tensor) -> torch.Tensor:
        return x


class Reverse(Task):
    """The input string backwards."""

    def answer(self, x: torch.Tensor) -> torch.Tensor:
        return x.flip(1)


class Sort(Task):
    """The input symbols in ascending order."""

    def answer(self, x: torch.Tensor) -> torch.Tensor:
        return x.sort(dim=1).values


class Duplicate(Task):
    """The input string twice: ``2n`` output tokens."""

    def output_length(self, n: int) -> int:
        return 2 * n

    def answer(self, x: torch.Tensor) -> torch.Tensor:
        return torch.cat([x, x], dim=1)  # [B, 2n]


class Parity(Task):
    """The parity of the number of ones in a bit string: one output token."""

    def output_length(self, n: int) -> int:
        return 1

    def answer(self, x: torch.Tensor) -> torch.Tensor:
        return x.sum(dim=1, keepdim=True) % 2  # [B, 1]


class Addition(Task):
    """``a + b`` of two ``n``-digit numbers, digits least significant first (Kazemnejad et al. 2023 use the same
    reversed order so that each output digit depends on the digits to its left): ``a PLUS b`` in, ``n + 1`` digits
    out."""

    def input_length(self, n: int) -> int:
        return 2 * n + 1

    def output_length(self, n: int) -> int:
        return n + 1

    def draw(self, batch: int, n: int, generator: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
        a = torch.randint(0, self.alphabet, (batch, n), generator=generator)  # [B, n] digits, a[:, 0] the ones
        b = torch.randint(0, self.alphabet, (batch, n), generator=generator)
        out = torch.zeros(batch, n + 1, dtype=torch.long)
        carry = torch.zeros(batch, dtype=torch.long)
        for i in range(n):
            s = a[:, i] + b[:, i] + carry
            out[:, i], carry = s % 10, s // 10
        out[:, n] = carry
        plus = torch.full((batch, 1), PLUS, dtype=torch.long)
        return torch.cat([a + SYMBOL0, plus, b + SYMBOL0], dim=1), out + SYMBOL0  # [B, 2n+1], [B, n+1]


class SelectiveCopy(Task):
    """The ``n`` content symbols of a string in which ``n`` blanks are mixed at random places, without the blanks.

    Input: ``2n`` tokens, ``n`` of them content symbols drawn from ``0 .. alphabet - 1`` and ``n`` the blank symbol
    (the last of the ten, :data:`SELECTIVE_BLANK`), the blanks' places drawn uniformly. Output: the ``n`` content
    symbols in their order. The ``i``-th output is the ``i``-th *content* token, whose place in the input varies:
    an encoding that counts every token must find it by content, one that counts chosen tokens (CoPE) can count to
    it (the selective copying task of Gu and Dao 2023, §3.1, on which Golovneva et al. 2024 test CoPE).
    """

    def input_length(self, n: int) -> int:
        return 2 * n

    def draw(self, batch: int, n: int, generator: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
        content = torch.randint(0, self.alphabet, (batch, n), generator=generator)  # [B, n]
        places = torch.rand(batch, 2 * n, generator=generator).argsort(dim=1)[:, :n].sort(dim=1).values  # [B, n]
        x = torch.full((batch, 2 * n), SELECTIVE_BLANK, dtype=torch.long)
        x.scatter_(1, places, content)  # content at the chosen places, in order
        return x + SYMBOL0, content + SYMBOL0


class Count(Task):
    """How many marks are in a string of ``n`` symbols: one output token (the count, at most 9).

    The count ``c`` is drawn uniformly from ``0 .. min(9, n)``, the ``c`` marks (the last of the ten symbols,
    :data:`COUNT_MARK`) are put at random places, and the other places get symbols from ``0 .. alphabet - 1``.
    The answer stays a single digit at every size, so a model tested past its training sizes meets longer strings
    but no unseen answer: it must count the marks among more distractors. Golovneva et al. 2024 motivate CoPE with
    counting (a position that counts only chosen tokens); this is the smallest counting task with that property.
    """

    def output_length(self, n: int) -> int:
        return 1

    def draw(self, batch: int, n: int, generator: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
        top = min(COUNT_MARK, n)
        count = torch.randint(0, top + 1, (batch,), generator=generator)  # [B] marks per string
        rank = torch.rand(batch, n, generator=generator).argsort(dim=1).argsort(dim=1)  # [B, n] a random order
        x = torch.randint(0, self.alphabet, (batch, n), generator=generator)
        x = torch.where(rank < count[:, None], torch.full_like(x, COUNT_MARK), x)  # the first `count` in that order
        return x + SYMBOL0, count[:, None] + SYMBOL0


#: the blank of :class:`SelectiveCopy` and the mark of :class:`Count`: the last symbol, outside their alphabets
SELECTIVE_BLANK = COUNT_MARK = N_SYMBOLS - 1

#: every string task by name, in the order tables list them
TASKS: Registry[Task] = Registry("synthetic task")
for _task in (
    Copy("copy", "repeat the input string", N_SYMBOLS, "Kazemnejad et al. 2023"),
    Reverse("reverse", "the input string backwards", N_SYMBOLS, "Kazemnejad et al. 2023; Deletang et al. 2023"),
    Sort("sort", "the input symbols in ascending order", N_SYMBOLS, "Kazemnejad et al. 2023; Deletang et al. 2023"),
    Addition("addition", "sum of two n-digit numbers, digits least significant first", 10, "Kazemnejad et al. 2023"),
    Parity("parity", "parity of the number of ones in a bit string (one output token)", 2,
           "Kazemnejad et al. 2023; Deletang et al. 2023"),
    Duplicate("duplicate", "the input string twice (duplicate_string)", N_SYMBOLS, "Deletang et al. 2023"),
    SelectiveCopy("selective_copy", "the n content symbols of a string with n blanks mixed in, without the blanks",
                  N_SYMBOLS - 1, "Gu and Dao 2023; Golovneva et al. 2024 (CoPE)"),
    Count("count", "how many marks (at most 9) are among n symbols (one output token)", N_SYMBOLS - 1,
          "Golovneva et al. 2024 (CoPE)"),
):
    TASKS.register(_task.name, _task)
del _task


def get_task(name: str) -> Task:
    """The synthetic task called ``name``; an unknown name lists the valid ones (the lab's other tasks, such as the
    char-LM, are :func:`posenc.lab.lab_task.lab_task`'s)."""
    return TASKS.get(name)


def sequence_length(task: Task, n: int, fmt: str = "decoder") -> int:
    """Tokens the model sees for size ``n``: ``m + k`` (decoder) or ``m + 1 + k`` (encoder)."""
    extra = 0 if fmt == "decoder" else 1
    return task.input_length(n) + task.output_length(n) + extra


def format_batch(inputs: torch.Tensor, outputs: torch.Tensor, fmt: str = "decoder") -> tuple[torch.Tensor, torch.Tensor]:
    """Token ids and targets for a Transformer: ``inputs [B, m]``, ``outputs [B, k]`` -> ``(ids, targets)``, both
    ``[B, T]`` with ``T = m + k`` (decoder) or ``m + 1 + k`` (encoder); targets are :data:`IGNORE` off the output."""
    if fmt not in FORMATS:
        raise PosencError(f"format must be one of {FORMATS}, got {fmt!r}")
    B, m = inputs.shape
    k = outputs.shape[1]
    sep = torch.full((B, 1), SEP, dtype=torch.long)
    if fmt == "decoder":
        ids = torch.cat([inputs, sep, outputs[:, :-1]], dim=1)  # [B, m + k]
        targets = torch.full_like(ids, IGNORE)
        targets[:, m:] = outputs  # the logit at SEP predicts y_1, ...
    else:
        blanks = torch.full((B, k), BLANK, dtype=torch.long)
        ids = torch.cat([inputs, sep, blanks], dim=1)  # [B, m + 1 + k]
        targets = torch.full_like(ids, IGNORE)
        targets[:, m + 1:] = outputs
    return ids, targets


def exact_match(logits: torch.Tensor, targets: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """``(exact [B] bool, token_correct [B] int)`` from logits ``[B, T, V]`` and targets ``[B, T]``.

    A sequence is exact when the argmax is right at every target position (positions with :data:`IGNORE` count as
    right); ``token_correct`` counts right target tokens per sequence.
    """
    mask = targets != IGNORE  # [B, T]
    right = logits.argmax(dim=-1) == targets  # [B, T]
    return (right | ~mask).all(dim=1), (right & mask).sum(dim=1)
