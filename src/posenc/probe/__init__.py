"""Probe pretrained models: load them, measure word/position geometry against chance, decode positions, split the
first layer's attention logits into word/position terms, find positional heads, and see which RoPE frequencies a
trained model uses. :func:`run_probe` runs everything and writes ``probe.json`` and figures.

    >>> from posenc.probe import load_model, run_probe
    >>> result = run_probe("minilm", out_dir="probe-minilm")  # doctest: +SKIP
"""

from __future__ import annotations

from typing import Any

__all__ = ["run_probe", "load_model", "LoadedModel", "ProbeConfig", "shakespeare_text", "load_text"]

_WHERE = {"run_probe": "run", "ProbeConfig": "run", "load_model": "load", "LoadedModel": "load",
          "shakespeare_text": "corpus", "load_text": "corpus"}


def __getattr__(name: str) -> Any:  # imported on first use: loading a model should not import the probes
    if name in _WHERE:
        import importlib

        return getattr(importlib.import_module(f"posenc.probe.{_WHERE[name]}"), name)
    raise AttributeError(f"module 'posenc.probe' has no attribute {name!r}")
