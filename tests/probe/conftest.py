"""Shared fixtures of the probe tests (MiniLM itself, loaded once per session, is in tests/conftest.py)."""

import pytest


@pytest.fixture(scope="session")
def minilm_tables(minilm):
    embeddings = minilm.model.embeddings
    return embeddings.word_embeddings.weight.detach(), embeddings.position_embeddings.weight.detach()
