"""Shared test set-up: offline Hugging Face, deterministic seeds, a headless matplotlib, Hypothesis profiles."""

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("MPLBACKEND", "Agg")
# the tests' Ray clusters are private to this machine: no token (a private ray.init() would otherwise write
# ~/.ray/auth_token, and every cluster started after it would then ask for the token)
os.environ.setdefault("RAY_AUTH_MODE", "disabled")

import pytest  # noqa: E402
import torch  # noqa: E402

from hypothesis_profiles import load_profile  # noqa: E402

HYPOTHESIS_PROFILE = load_profile()  # "ci" unless HYPOTHESIS_PROFILE says otherwise (tests/hypothesis_profiles.py)


@pytest.fixture(scope="session")
def minilm():
    """MiniLM (the offline package), loaded once per session."""
    from posenc.pretrained import load_model

    return load_model("minilm")


@pytest.fixture(autouse=True)
def _seed():
    torch.manual_seed(0)
    yield
