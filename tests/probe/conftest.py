"""Shared fixtures of the probe tests: MiniLM, loaded once per session."""

import pytest

from posenc.probe.load import load_model


@pytest.fixture(scope="session")
def minilm():
    return load_model("minilm")


@pytest.fixture(scope="session")
def minilm_tables(minilm):
    embeddings = minilm.model.embeddings
    return embeddings.word_embeddings.weight.detach(), embeddings.position_embeddings.weight.detach()
