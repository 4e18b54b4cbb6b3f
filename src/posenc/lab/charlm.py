"""The character-level Shakespeare language model as a lab task (``task="charlm"``).

Training reads windows of ``train_len + 1`` characters at seeded random starts of the training plays
(:mod:`posenc.lab.corpus`) and predicts every next character; the test is perplexity on the held-out plays at every
context length ``L_valid`` of ``eval_lengths`` (default ``L, 2L, 4L, 8L``), under the protocols of
:func:`posenc.lab.evaluate.evaluate_lm` (Press et al. 2022, §4). The "size" ``n`` of a char-LM run is its context
length: the model reads ``n`` tokens. It is a causal decoder and trains for a fixed number of steps (no
in-distribution ceiling).

Its tables are laid out like Table 1 of Press et al. 2022: one row per evaluation length, one column per encoding,
one table per protocol (series ``charlm/nonoverlap``, ``charlm/sliding``).
"""

from __future__ import annotations

from typing import Any

import torch
from torch import nn

from posenc.errors import PosencError
from posenc.lab.evaluate import evaluate_lm

__all__ = ["CharLM", "LM_METRICS", "VOCAB_BOUND", "EVAL_BATCH"]

#: the metrics of a char-LM run, the default first
LM_METRICS = ("ppl", "bpc", "nll")
#: largest char-LM vocabulary the size estimate assumes (the plays have 84 characters)
VOCAB_BOUND = 128
#: windows per evaluation batch (:func:`~posenc.lab.evaluate.evaluate_lm`'s default)
EVAL_BATCH = 16


class CharLM:
    """The char-LM task (see the module docstring); one instance serves every run."""

    name = "charlm"
    description = "the character-level Shakespeare language model"
    metrics = LM_METRICS
    vocab_bound = VOCAB_BOUND
    rows_are_lengths = True
    length_axis = "L_valid (characters)"

    def check_config(self, config: Any) -> None:
        if config.fmt != "decoder":
            raise PosencError("the char-LM is a causal decoder; use fmt='decoder'")
        if config.val_every:
            raise PosencError("val_every (training to the in-distribution ceiling) applies to the synthetic tasks; "
                              "the char-LM trains for a fixed number of steps: set val_every=0")

    def check_data(self, config: Any) -> None:
        from posenc.lab.corpus import text_sizes

        train_chars, valid_chars = text_sizes()
        longest = max(config.eval_lengths)
        if longest >= valid_chars:
            raise PosencError(f"eval length {longest} is longer than the char-LM's validation text ({valid_chars} "
                              f"characters); use eval lengths below {valid_chars}")
        if config.train_len >= train_chars:
            raise PosencError(f"train_len {config.train_len} is longer than the char-LM's training text "
                              f"({train_chars} characters); use a train_len below {train_chars}")

    def vocab_size(self) -> int:
        from posenc.lab.corpus import load_corpus

        return load_corpus().vocab_size

    def sequence_length(self, n: int, fmt: str) -> int:
        return n

    def default_eval_lengths(self, train_len: int) -> list[int]:
        L = train_len
        return [L, 2 * L, 4 * L, 8 * L]

    def sampler(self, config: Any):
        from posenc.lab.corpus import load_corpus

        text, L, batch = load_corpus().train, config.train_len, config.batch_size

        def draw(generator: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
            starts = torch.randint(0, len(text) - L - 1, (batch,), generator=generator)
            window = torch.stack([text[s:s + L + 1] for s in starts.tolist()])  # [B, L + 1]
            return window[:, :-1], window[:, 1:]  # [B, L]: read L characters, predict the next L

        return draw

    def evaluate(self, model: nn.Module, config: Any, seed: int) -> dict[str, Any]:
        from posenc.lab.corpus import load_corpus

        return evaluate_lm(model, load_corpus().valid, config.eval_lengths, tuple(config.protocols),
                           max_tokens=config.eval_tokens, stride=config.stride, batch_size=EVAL_BATCH)

    def validate(self, model: nn.Module, config: Any, seed: int) -> tuple[float, float]:
        raise PosencError("the char-LM has no in-distribution ceiling; set val_every=0")

    def eval_batch(self, config: Any) -> int:
        return EVAL_BATCH

    def eval_sequences(self, config: Any) -> list[tuple[float, int]]:
        out = []
        for n in config.eval_lengths:
            stride = config.stride or max(1, n // 8)
            tokens = max(n, config.eval_tokens)
            windows = sum({"nonoverlap": tokens / n, "sliding": 1 + tokens / stride}[p] for p in config.protocols)
            out.append((windows, n))
        return out

    def series(self, by_length: dict[str, Any]) -> dict[str, dict[str, Any]]:
        return {f"{self.name}/{protocol}": values for protocol, values in by_length.items()}

    def heading(self, key: str, metric: str, train_len: int) -> str:
        return f"char-LM {metric}, {key.split('/', 1)[1]} (trained at L = {train_len})"
