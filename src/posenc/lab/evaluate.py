"""Evaluation by length: exact match on the synthetic tasks, perplexity / bits per character on the char-LM.

A length the model cannot run is a result, not a crash: a learned table asked for positions past its rows raises
:class:`posenc.encodings.learned.PositionOutOfRange`, and that length is recorded as :data:`CANNOT_RUN`.

Char-LM protocols (Press et al. 2022, ALiBi, §4 and appendix B): the validation text is cut into

- ``nonoverlap``: consecutive chunks of ``L_valid`` tokens, every token scored once (early tokens of a chunk see
  little context);
- ``sliding``: windows of ``L_valid`` tokens moved by ``stride``; the first window scores all its tokens, every later
  window only its last ``stride`` tokens, so each scored token (after the first window) sees at least
  ``L_valid - stride`` tokens of context. ``stride = 1`` is the paper's setting; a larger stride trades context for
  speed (cost is about ``L_valid / stride`` times the non-overlapping cost).

Both protocols score the same tokens ``x[1..N]`` (``N`` a multiple of the largest length) at every ``L_valid`` that
divides ``N``, so numbers at such lengths are comparable; under ``nonoverlap`` a length that does not divide ``N``
scores only its whole windows (lengths 8 and 12 with ``N = 12``: 8 tokens at 8). The presets' lengths divide it. ``nll`` is the mean negative log-likelihood in nats per character,
``ppl = exp(nll)``, ``bpc = nll / ln 2``.

Device: the strings are drawn on the CPU (seeded, the same everywhere) and copied to the model's device; counts and
sums stay on the device and are read once per length. The caller picks the precision (``with
posenc.device.autocast(device, dtype):`` around the call, as :func:`posenc.lab.train.train_run` does).
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn

from posenc.encodings.learned import PositionOutOfRange
from posenc.errors import PosencError
from posenc.extend.perplexity import PROTOCOLS, normalize_protocol
from posenc.lab.string_tasks import Task, exact_match, format_batch

__all__ = ["CANNOT_RUN", "evaluate_task", "evaluate_lm", "lm_windows", "PROTOCOLS"]

CANNOT_RUN = "cannot run"


def _device(model: nn.Module) -> torch.device:
    """Where the model's parameters are (the CPU for a model without any)."""
    first = next(iter(model.parameters()), None)
    return first.device if first is not None else torch.device("cpu")


@torch.no_grad()
def evaluate_task(model: nn.Module, task: Task, lengths: list[int], fmt: str, samples: int, seed: int,
                  batch_size: int = 128) -> dict[str, dict[str, float] | str]:
    """Exact match and token accuracy at each size ``n`` in ``lengths``.

    Returns ``{str(n): {"exact_match": float, "token_accuracy": float, "samples": int}}`` or ``{str(n): "cannot run"}``.
    The examples at size ``n`` are drawn from a generator seeded by ``(seed, n)``, so every encoding trained with the
    same seed is tested on the same strings.
    """
    model.eval()
    device = _device(model)
    results: dict[str, dict[str, float] | str] = {}
    for n in lengths:
        generator = torch.Generator().manual_seed(1_000_003 * (seed + 1) + n)
        counts = torch.zeros(2, dtype=torch.long, device=device)  # exact sequences, right tokens
        total_tokens = 0
        try:
            for start in range(0, samples, batch_size):
                inputs, outputs = task.sample(min(batch_size, samples - start), n, generator)
                ids, targets = format_batch(inputs, outputs, fmt)  # [B, T]
                ids, targets = ids.to(device, non_blocking=True), targets.to(device, non_blocking=True)
                is_exact, right = exact_match(model(ids), targets)
                counts += torch.stack([is_exact.sum(), right.sum()])
                total_tokens += outputs.numel()
        except PositionOutOfRange:
            results[str(n)] = CANNOT_RUN
            continue
        exact, tokens = counts.tolist()  # one read per length
        results[str(n)] = {"exact_match": exact / samples, "token_accuracy": tokens / total_tokens, "samples": samples}
    return results


def lm_windows(n_tokens: int, length: int, protocol: str, stride: int) -> list[tuple[int, int]]:
    """``(start, n_scored)`` of each window over targets ``1..n_tokens``: the window reads ``x[start:start+length]``
    and scores its last ``n_scored`` predictions. Together the windows score each target exactly once."""
    if normalize_protocol(protocol) == "nonoverlap":
        return [(s, length) for s in range(0, n_tokens - length + 1, length)]
    windows = [(0, length)]
    end = length  # targets 1..end are scored
    while end < n_tokens:
        step = min(stride, n_tokens - end)
        windows.append((end + step - length, step))
        end += step
    return windows


@torch.no_grad()
def evaluate_lm(model: nn.Module, text: torch.Tensor, lengths: list[int], protocols: tuple[str, ...] = PROTOCOLS.names(),
                max_tokens: int = 16384, stride: int | None = None, stride_fraction: int = 8,
                batch_size: int = 16) -> dict[str, dict[str, dict[str, float] | str]]:
    """Per protocol and evaluation length: ``{"nll", "ppl", "bpc", "tokens"}`` or ``"cannot run"``.

    Args:
        text: validation character ids ``[N_text]``.
        lengths: evaluation context lengths ``L_valid``.
        max_tokens: score the first ``max_tokens`` targets (rounded down to a multiple of ``max(lengths)``).
        stride: sliding-window stride; ``None`` uses ``max(1, L_valid // stride_fraction)``.
    """
    longest = max(lengths)
    if longest >= len(text):
        raise PosencError(f"evaluation length {longest} needs at least {longest + 1} characters of text, but the "
                          f"validation text has {len(text)}; use evaluation lengths below {len(text)}")
    model.eval()
    device = _device(model)
    # float64 sums, as Python floats were before; MPS has no float64, so float32 there
    total_dtype = torch.float32 if device.type == "mps" else torch.float64
    n_tokens = max(longest, (min(max_tokens, len(text) - 1) // longest) * longest)
    out: dict[str, dict[str, dict[str, float] | str]] = {p: {} for p in protocols}
    for protocol in protocols:
        for length in lengths:
            step = stride or max(1, length // stride_fraction)
            windows = lm_windows(n_tokens, length, protocol, step)
            nll_sum, count = torch.zeros((), dtype=total_dtype, device=device), 0
            try:
                for i in range(0, len(windows), batch_size):
                    chunk = windows[i:i + batch_size]
                    ids = torch.stack([text[s:s + length] for s, _ in chunk]).to(device)  # [B, L_valid]
                    targets = torch.stack([text[s + 1:s + length + 1] for s, _ in chunk]).to(device)  # [B, L_valid]
                    logp = F.log_softmax(model(ids).float(), dim=-1)  # [B, L_valid, V]
                    nll = -logp.gather(-1, targets[..., None])[..., 0]  # [B, L_valid]
                    for row, (_, scored) in enumerate(chunk):
                        nll_sum += nll[row, length - scored:].sum().to(total_dtype)  # stays on the device
                        count += scored
            except PositionOutOfRange:
                out[protocol][str(length)] = CANNOT_RUN
                continue
            mean = float(nll_sum) / count  # one read per length
            out[protocol][str(length)] = {"nll": mean, "ppl": math.exp(mean), "bpc": mean / math.log(2),
                                          "tokens": count}
    return out
