"""Shared test settings: `--regen` rewrites golden outputs instead of comparing them."""

from __future__ import annotations

import os

import pytest
from hypothesis import settings

settings.register_profile("ci", max_examples=150, derandomize=True, deadline=None)
settings.register_profile("fuzz", max_examples=25_000, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--regen", action="store_true", help="Rewrite golden outputs instead of comparing them."
    )


@pytest.fixture
def regen(request: pytest.FixtureRequest) -> bool:
    """Whether golden outputs are being regenerated."""
    return bool(request.config.getoption("--regen"))
