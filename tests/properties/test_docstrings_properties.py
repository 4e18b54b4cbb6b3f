"""The runnable examples in the properties' docstrings stay true."""

import doctest
import importlib

import pytest


@pytest.mark.parametrize("name", ["posenc.properties", "posenc.properties.check"])
def test_docstring_examples(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0
