"""Fixtures of the context-extension tests."""

import pytest
import torch
from extend_models import NATIVE


@pytest.fixture
def ids() -> torch.Tensor:
    return torch.randint(0, 128, (4 * NATIVE,), generator=torch.Generator().manual_seed(1))
