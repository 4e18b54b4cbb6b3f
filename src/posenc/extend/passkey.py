"""Passkey retrieval (Mohtashami & Jaggi 2023, "Landmark Attention"; used by Chen et al. 2023 and Peng et al. 2023):
a random number is hidden at a chosen depth in repetitive filler text and the model is asked to repeat it.

Prompt, assembled from token pieces so that its length is exact::

    <intro> <filler> x n_before  <needle: "The pass key is 48213. Remember it. 48213 is the pass key.">
            <filler> x n_after   <question: "What is the pass key? The pass key is">

``n_before = round(depth * n)`` of the ``n`` filler repeats that fit, so depth 0 puts the needle right after the
intro and depth 1 right before the question. The whole sequence (prompt plus the decoded answer) stays within the
target length. The answer is decoded greedily with a KV cache (``max_new_tokens`` tokens); the trial is correct when
the first run of digits in the answer equals the key.

Trials at one length and depth differ only from the needle on: the text before it is the same tokens. A
:class:`SharedPrefix` keeps the KV cache of the previous prompt's text before its needle, so the next trial computes
only what follows its longest common prefix with it. A prompt of ``L`` tokens whose needle starts at ``m`` then costs
``f(L) - f(m)`` instead of ``f(L)`` (``f`` the cost of a forward pass): the deeper the needle, the cheaper a trial.
The answer is the same as from a full prefill (the cached keys and values are the ones a full pass computes).
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass

import torch
from torch import nn

from posenc.errors import PosencError

__all__ = ["PasskeyPrompt", "SharedPrefix", "cache_kwargs", "build_passkey_prompt", "greedy_decode", "passkey_trial", "passkey_key",
           "INTRO", "FILLER", "QUESTION"]

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


def cache_kwargs(model: nn.Module, cache) -> dict:
    """``{name: cache}`` under the name the model's public ``forward`` takes a KV cache by: ``cache`` (transformers
    5.24 on) or ``past_key_values`` (earlier; kept by later ones behind a deprecation)."""
    import inspect

    parameters = inspect.signature(model.forward).parameters
    for name in ("cache", "past_key_values"):
        if name in parameters:
            return {name: cache}
    raise PosencError(f"{type(model).__name__}.forward takes neither 'cache' nor 'past_key_values' in transformers "
                      f"{_transformers_version()}; posenc cannot pass it a KV cache (tested versions: "
                      f"constraints.txt)")


def _transformers_version() -> str:
    import transformers

    return transformers.__version__


@torch.no_grad()
def _forward_cached(model: nn.Module, tokens: torch.Tensor, cache) -> torch.Tensor:
    """Run ``tokens [1, t]`` after the ``cache``'s positions, extend the cache; the last hidden state ``[D]``.

    Raises when the cache did not grow by exactly ``t`` tokens: a cache the model ignored would make every step
    restart at position 0 and give wrong answers with no error.
    """
    start = cache.get_seq_length()
    positions = torch.arange(start, start + tokens.shape[1], device=tokens.device)[None]  # [1, t]
    base = model.model
    hidden = base(input_ids=tokens, position_ids=positions, use_cache=True,
                  **cache_kwargs(base, cache)).last_hidden_state  # [1, t, D]
    grown = cache.get_seq_length() - start
    if grown != tokens.shape[1]:
        raise PosencError(f"the KV cache grew by {grown} tokens for {tokens.shape[1]} tokens fed: the model did not "
                          f"use it, so decoding would restart at position 0 and its answers would be wrong. This "
                          f"transformers version ({_transformers_version()}) passes the cache differently from the "
                          f"versions posenc was tested with (constraints.txt); install those "
                          f"(pip install -c constraints.txt -e .)")
    return hidden[0, -1]


@torch.no_grad()
def greedy_decode(model: nn.Module, ids: torch.Tensor, max_new_tokens: int = 8, cache=None) -> list[int]:
    """Greedy continuation of ``ids [T]`` with a KV cache; only the last position's logits are computed.

    ``cache``: a KV cache that already holds the tokens before ``ids`` (their positions come first); ``None`` starts
    from an empty one. The cache is extended in place.
    """
    from transformers import DynamicCache

    head = model.get_output_embeddings()
    device = next(model.parameters()).device
    cache = DynamicCache() if cache is None else cache
    tokens = ids.reshape(1, -1).to(device)  # [1, T]
    out: list[torch.Tensor] = []  # on the device: the tokens are read back once, after the last step
    for _ in range(max_new_tokens):
        nxt = head(_forward_cached(model, tokens, cache)).argmax()
        out.append(nxt)
        tokens = nxt.reshape(1, 1)
    return torch.stack(out).tolist() if out else []


class SharedPrefix:
    """The KV cache of the last prompt's tokens before its needle, reused by the next trial as far as they agree.

    Valid for one model and one encoding: call :meth:`reset` (or make a new one) after either changes.
    """

    def __init__(self, model: nn.Module):
        self.model = model
        self.reset()

    def reset(self) -> None:
        from transformers import DynamicCache

        self.cache = DynamicCache()
        self.ids: list[int] = []

    def _crop(self, keep: int) -> None:
        drop = self.cache.get_seq_length() - keep
        if drop > 0:
            self.cache.crop(-drop)  # a negative count removes that many tokens (transformers 4.50 and 5.x)

    def answer(self, prompt: PasskeyPrompt, max_new_tokens: int) -> list[int]:
        """Decode the answer to ``prompt``, computing only the tokens after the cached common prefix."""
        ids = prompt.ids.tolist()
        common = 0
        for a, b in zip(self.ids, ids[:prompt.needle_at], strict=False):
            if a != b:
                break
            common += 1
        common = min(common, len(ids) - 1)  # at least one token must run to give logits
        self._crop(common)
        device = next(self.model.parameters()).device
        if prompt.needle_at > common:  # extend the cache to the new prompt's needle, then keep it there
            _forward_cached(self.model, torch.tensor([ids[common:prompt.needle_at]], device=device), self.cache)
            common = prompt.needle_at
        self.ids = ids[:common]
        out = greedy_decode(self.model, prompt.ids[common:], max_new_tokens, cache=self.cache)
        self._crop(common)
        return out


def passkey_trial(model: nn.Module, tokenizer, prompt: PasskeyPrompt, max_new_tokens: int = 8,
                  shared: SharedPrefix | None = None) -> dict:
    """Decode an answer; ``{"key", "answer", "found", "correct", "prompt_tokens", "needle_at"}``.

    ``shared``: reuse the cached text before the needle across trials (see :class:`SharedPrefix`); ``None`` runs
    the whole prompt.
    """
    if shared is not None and shared.model is not model:
        raise PosencError("the SharedPrefix belongs to another model; make one per model (SharedPrefix(model))")
    answer_ids = (shared.answer(prompt, max_new_tokens) if shared is not None
                  else greedy_decode(model, prompt.ids, max_new_tokens))
    answer = tokenizer.decode(answer_ids, skip_special_tokens=True)
    match = re.search(r"\d+", answer)
    found = int(match.group()) if match else None
    return {"key": prompt.key, "answer": answer, "found": found, "correct": found == prompt.key,
            "prompt_tokens": int(prompt.ids.numel()), "needle_at": prompt.needle_at}
