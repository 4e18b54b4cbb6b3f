"""Shared CLI helpers: parse ``-o key=value`` options into Python values."""

from __future__ import annotations

import json
from typing import Any

from posenc.errors import PosencError

__all__ = ["parse_options"]


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


def parse_options(pairs: list[str] | None) -> dict[str, Any]:
    """``["base=500000", "pairing=interleaved", 'scaling={"type":"yarn","factor":4}']`` -> a dict of values."""
    options: dict[str, Any] = {}
    for pair in pairs or []:
        if "=" not in pair:
            raise PosencError(f"option {pair!r} is not of the form key=value; write e.g. -o base=500000")
        key, text = pair.split("=", 1)
        options[key.strip().replace("-", "_")] = _value(text.strip())
    return options
