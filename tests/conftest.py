"""Shared test settings: `--regen` rewrites golden outputs instead of comparing them; the `shared`
group (tests that read `../shared`) is deselected, with one summary line, when that folder is
absent; no terminal size comes from the environment.

The suite runs on every core (pytest-xdist, `-n auto` in pyproject.toml; `-n 0` runs it in one
process): the workers deselect the group and tell the controller how many they left out
(`workeroutput`), which says so once."""

from __future__ import annotations

import os

import pytest
from hypothesis import settings

from tests import shared

settings.register_profile("ci", max_examples=150, derandomize=True, deadline=None)
settings.register_profile("fuzz", max_examples=25_000, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

_LEFT_OUT = pytest.StashKey[int]()

# Tests that mean a width set COLUMNS themselves; one inherited from the shell, or set by
# pytest-xdist's workers (COLUMNS=80, LINES=24), would change what "piped" output is.
for _size in ("COLUMNS", "LINES"):
    os.environ.pop(_size, None)


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
    worker_output = getattr(config, "workeroutput", None)
    if worker_output is not None:  # (a pytest-xdist worker: the controller says it)
        worker_output["shared_left_out"] = len(group)


def pytest_testnodedown(node: object, error: object) -> None:
    """A pytest-xdist worker is done: keep how many `shared` tests it left out (each worker
    collects the whole suite, so each counts them all)."""
    config: pytest.Config = node.config  # type: ignore[attr-defined]
    left_out = node.workeroutput.get("shared_left_out", 0)  # type: ignore[attr-defined]
    config.stash[_LEFT_OUT] = max(config.stash.get(_LEFT_OUT, 0), left_out)


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
