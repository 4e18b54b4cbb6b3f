"""Shared CLI helpers: ``-o key=value`` options into Python values, the rule for ``--threads``, shared help texts.

``KEY=VALUE`` items (``-o``, ``--set``): the value is read as JSON when it is JSON (``4``, ``0.5``, ``true``,
``[1, 2]``, ``{"type": "yarn"}``), else as text; ``true``/``false``/``none`` in any case are booleans and None. A key
given twice is an error (never "the last one wins"), as is an item without ``=`` or with an empty key.

``--threads N`` means the same in every command that takes it: torch's CPU threads, ``0`` keeps torch's own choice
(every core), a negative number is an error (:func:`check_threads`).
"""

from __future__ import annotations

import json
from typing import Any

from posenc.errors import PosencError

__all__ = ["parse_options", "check_threads", "THREADS_HELP", "DOWNLOAD_HELP"]

#: the help of every ``--threads`` option
THREADS_HELP = "torch CPU threads (0: torch's own choice, every core)"
#: the help of ``--download`` (``probe`` and ``extend``)
DOWNLOAD_HELP = ("fetch a hub id (org/name) from the Hugging Face hub first: configs, tokenizer files and safetensors "
                 "weights; without it posenc never uses the network")


def _value(text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        lowered = text.lower()
        if lowered in ("true", "false"):
            return lowered == "true"
        if lowered in ("none", "null"):
            return None
        return text


def parse_options(pairs: list[str] | None, option: str = "-o", example: str = "base=500000") -> dict[str, Any]:
    """``["base=500000", "pairing=interleaved", 'scaling={"type":"yarn","factor":4}']`` -> a dict of values.

    ``option`` and ``example`` are what the errors show (``--set`` and ``lr=3e-3`` for ``--set``).
    """
    options: dict[str, Any] = {}
    given: dict[str, str] = {}
    for pair in pairs or []:
        key, sep, text = pair.partition("=")
        key = key.strip().replace("-", "_")
        if not sep or not key:
            raise PosencError(f"{option} {pair!r} is not of the form KEY=VALUE; write e.g. {option} {example}")
        if key in options:
            raise PosencError(f"{option} gives {key} twice ({given[key]!r} and {pair!r}); give each key once")
        options[key], given[key] = _value(text.strip()), pair
    return options


def check_threads(threads: int | None, option: str = "--threads") -> int | None:
    """The torch thread count to set: ``None`` for 0 or no value (torch's own choice); a negative count raises."""
    if threads is None or threads == 0:
        return None
    if threads < 0:
        raise PosencError(f"{option} must be an integer >= 0 (0: torch's own choice, every core), got {threads}")
    return threads
