"""Shared fixtures of the probe tests (MiniLM and the tiny Llama, loaded once per session, are in tests/conftest.py)."""

import pytest


@pytest.fixture(scope="session")
def minilm_tables(minilm):
    embeddings = minilm.model.embeddings
    return embeddings.word_embeddings.weight.detach(), embeddings.position_embeddings.weight.detach()
