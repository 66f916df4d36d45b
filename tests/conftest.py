"""Shared test settings: `--regen` rewrites golden outputs instead of comparing them."""

from __future__ import annotations

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--regen", action="store_true", help="Rewrite golden outputs instead of comparing them."
    )


@pytest.fixture
def regen(request: pytest.FixtureRequest) -> bool:
    """Whether golden outputs are being regenerated."""
    return bool(request.config.getoption("--regen"))
