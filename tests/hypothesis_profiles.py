"""Hypothesis settings profiles for the property-based tests, picked with ``HYPOTHESIS_PROFILE`` (default ``ci``).

- ``ci``: few examples, no deadline (a busy machine makes timings meaningless), ``derandomize=True`` so every run of
  the suite draws the same examples and a failure in CI reproduces locally; no example database.
- ``deep``: many examples from a fresh random seed each run, for a long search by hand:
  ``HYPOTHESIS_PROFILE=deep .venv/bin/pytest -p no:xdist tests/encodings/test_contract_properties.py``.

Tests that name their own ``max_examples`` keep it under either profile; the rest take the profile's.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

PROFILES = {
    "ci": settings(max_examples=25, deadline=None, derandomize=True, database=None, print_blob=True,
                   suppress_health_check=[HealthCheck.too_slow]),
    "deep": settings(max_examples=400, deadline=None, derandomize=False, print_blob=True,
                     suppress_health_check=[HealthCheck.too_slow]),
}


def load_profile() -> str:
    """Register the profiles and load the one ``HYPOTHESIS_PROFILE`` names; returns its name."""
    for name, profile in PROFILES.items():
        settings.register_profile(name, profile)
    name = os.environ.get("HYPOTHESIS_PROFILE", "ci")
    if name not in PROFILES:
        raise ValueError(f"HYPOTHESIS_PROFILE={name!r} is not a profile of this suite; use one of {sorted(PROFILES)}")
    settings.load_profile(name)
    return name
