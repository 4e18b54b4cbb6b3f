"""Passkey retrieval (Mohtashami & Jaggi 2023, "Landmark Attention"; used by Chen et al. 2023 and Peng et al. 2023):
a random number is hidden at a chosen depth in repetitive filler text and the model is asked to repeat it.

Prompt, assembled from token pieces so that its length is exact::

    <intro> <filler> x n_before  <needle: "The pass key is 48213. Remember it. 48213 is the pass key.">
            <filler> x n_after   <question: "What is the pass key? The pass key is">

``n_before = round(depth * n)`` of the ``n`` filler repeats that fit, so depth 0 puts the needle right after the
intro and depth 1 right before the question. The whole sequence (prompt plus the decoded answer) stays within the
target length. The answer is decoded greedily with a KV cache (``max_new_tokens`` tokens); the trial is correct when
the first run of digits in the answer equals the key.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass

import torch
from torch import nn

from posenc.errors import PosencError

__all__ = ["PasskeyPrompt", "build_passkey_prompt", "greedy_decode", "passkey_trial", "passkey_key", "INTRO",
           "FILLER", "QUESTION"]

INTRO = ("There is an important piece of information hidden inside a lot of irrelevant text. Find it and memorize "
         "it. I will quiz you about it.")
FILLER = " The grass is green. The sky is blue. The sun is yellow. Here we go. There and back again."
NEEDLE = " The pass key is {key}. Remember it. {key} is the pass key."
QUESTION = " What is the pass key? The pass key is"


@dataclass(frozen=True)
class PasskeyPrompt:
    """Token ids ``[T]`` of a passkey prompt, the key, and where the needle starts (token index)."""

    ids: torch.Tensor
    key: int
    needle_at: int
    depth: float


def passkey_key(length: int, depth: float, trial: int, seed: int = 0) -> int:
    """A reproducible 5-digit key for a (length, depth, trial)."""
    return random.Random(f"{seed}:{length}:{depth:.4f}:{trial}").randint(10000, 99999)


def _encode(tokenizer, text: str) -> list[int]:
    return list(tokenizer(text, add_special_tokens=False)["input_ids"])


def build_passkey_prompt(tokenizer, length: int, depth: float, key: int, answer_tokens: int = 8) -> PasskeyPrompt:
    """A prompt of at most ``length - answer_tokens`` tokens with ``key`` at relative ``depth`` in [0, 1]."""
    if not 0.0 <= depth <= 1.0:
        raise PosencError(f"passkey depth must be in [0, 1] (0 = start, 1 = end), got {depth}")
    intro = _encode(tokenizer, INTRO)
    bos = [tokenizer.bos_token_id] if getattr(tokenizer, "bos_token_id", None) is not None else []
    filler = _encode(tokenizer, FILLER)
    needle = _encode(tokenizer, NEEDLE.format(key=key))
    question = _encode(tokenizer, QUESTION)
    budget = length - answer_tokens - len(bos) - len(intro) - len(needle) - len(question)
    n = budget // len(filler)
    if n < 1:
        raise PosencError(f"a passkey prompt needs more than {length} tokens at this tokenizer (intro, needle, "
                          f"question and answer alone take {length - budget}); use a longer length")
    before = round(depth * n)
    head = bos + intro + filler * before
    ids = head + needle + filler * (n - before) + question
    return PasskeyPrompt(ids=torch.tensor(ids, dtype=torch.long), key=key, needle_at=len(head), depth=depth)


@torch.no_grad()
def greedy_decode(model: nn.Module, ids: torch.Tensor, max_new_tokens: int = 8) -> list[int]:
    """Greedy continuation of ``ids [T]`` with a KV cache; only the last position's logits are computed."""
    from transformers import DynamicCache

    base = model.model
    head = model.get_output_embeddings()
    device = next(model.parameters()).device
    cache = DynamicCache()
    tokens = ids.reshape(1, -1).to(device)  # [1, T]
    position = 0
    out: list[int] = []
    for _ in range(max_new_tokens):
        positions = torch.arange(position, position + tokens.shape[1], device=device)[None]  # [1, t]
        hidden = base(input_ids=tokens, position_ids=positions, past_key_values=cache,
                      use_cache=True).last_hidden_state  # [1, t, D]
        position += tokens.shape[1]
        nxt = int(head(hidden[0, -1]).argmax())
        out.append(nxt)
        tokens = torch.tensor([[nxt]], device=device)
    return out


def passkey_trial(model: nn.Module, tokenizer, prompt: PasskeyPrompt, max_new_tokens: int = 8) -> dict:
    """Decode an answer; ``{"key", "answer", "found", "correct", "prompt_tokens", "needle_at"}``."""
    answer_ids = greedy_decode(model, prompt.ids, max_new_tokens)
    answer = tokenizer.decode(answer_ids, skip_special_tokens=True)
    match = re.search(r"\d+", answer)
    found = int(match.group()) if match else None
    return {"key": prompt.key, "answer": answer, "found": found, "correct": found == prompt.key,
            "prompt_tokens": int(prompt.ids.numel()), "needle_at": prompt.needle_at}
