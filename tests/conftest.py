"""Shared test settings: `--regen` rewrites golden outputs instead of comparing them; the `shared`
group (tests that read `../shared`) is deselected, with one summary line, when that folder is
absent."""

from __future__ import annotations

import os

import pytest
from hypothesis import settings

from tests import shared

settings.register_profile("ci", max_examples=150, derandomize=True, deadline=None)
settings.register_profile("fuzz", max_examples=25_000, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

_LEFT_OUT = pytest.StashKey[int]()


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--regen", action="store_true", help="Rewrite golden outputs instead of comparing them."
    )


@pytest.fixture
def regen(request: pytest.FixtureRequest) -> bool:
    """Whether golden outputs are being regenerated."""
    return bool(request.config.getoption("--regen"))


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Without `../shared`, leave out the `shared` group (or refuse to run where it is needed)."""
    if shared.present():
        return
    group = [item for item in items if item.get_closest_marker("shared")]
    if not group:
        return
    if os.environ.get(shared.NEED_SHARED):
        raise pytest.UsageError(
            f"{shared.SHARED} is absent, but {shared.NEED_SHARED} says the {len(group)} tests "
            "that read it must run"
        )
    config.hook.pytest_deselected(items=group)
    items[:] = [item for item in items if not item.get_closest_marker("shared")]
    config.stash[_LEFT_OUT] = len(group)


def pytest_terminal_summary(
    terminalreporter: pytest.TerminalReporter, config: pytest.Config
) -> None:
    """One line for the whole left-out group, not one per test."""
    left_out = config.stash.get(_LEFT_OUT, 0)
    if left_out:
        terminalreporter.write_line(
            f"shared: {left_out} tests deselected: {shared.SHARED} is absent "
            "(third-party recordings and the spec; CI has it and runs them)"
        )
