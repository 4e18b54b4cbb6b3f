"""Probe pretrained models: measure word/position geometry against chance, decode positions, split the first layer's
attention logits into word/position terms, find positional heads, and see which RoPE frequencies a trained model
uses. :func:`run_probe` runs everything and writes ``probe.json`` and figures. Models come from :mod:`posenc.pretrained`
and text from :mod:`posenc.corpora`.

    >>> from posenc.probe import run_probe
    >>> result = run_probe("minilm", out_dir="probe-minilm")  # doctest: +SKIP
"""

from __future__ import annotations

from typing import Any

__all__ = ["run_probe", "ProbeConfig"]

_WHERE = {"run_probe": "run", "ProbeConfig": "run"}


def __getattr__(name: str) -> Any:  # imported on first use: the probes' dependencies load only when asked for
    if name in _WHERE:
        import importlib

        return getattr(importlib.import_module(f"posenc.probe.{_WHERE[name]}"), name)
    raise AttributeError(f"module 'posenc.probe' has no attribute {name!r}")
