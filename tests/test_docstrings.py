"""The runnable examples in docstrings stay true."""

import doctest
import importlib

import pytest

MODULES = ["posenc", "posenc.encodings.rope", "posenc.encodings.sinusoidal", "posenc.hf.config", "posenc.model.transformer",
           "posenc.extend.patch", "posenc.extend.factors", "posenc.extend.perplexity", "posenc.properties", "posenc.lab.sweep",
           "posenc.device", "posenc.encodings.schedule", "posenc.encodings.temperature", "posenc.hf.schedule",
           "posenc.encodings.pope", "posenc.encodings.fox", "posenc.encodings.dape", "posenc.encodings.videorope",
           "posenc.configs", "posenc.lab.synthetic", "posenc.hf", "posenc.plots.kinds"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS)
    assert result.attempted > 0, f"{name} has no runnable example"
    assert result.failed == 0
