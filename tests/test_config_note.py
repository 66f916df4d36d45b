"""A config file that changes a verdict or an exit code says so, once, on stderr (#37 item 7),
as pytest prints `configfile:`: `acptrace: fail-on = "warning" from ./acptrace.toml`. Nothing
under -q, nothing for a setting the command line overrides or that is the default anyway."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from acptrace.cli import app
from tests.golden import ROOT

WARNS = str(ROOT / "sample_traces" / "outcome-truncated-disconnect.jsonl")
"""One warning (JR-UNANSWERED), no error: exit 0 by default, 1 with fail-on warning."""


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


def run(*args: str) -> tuple[int, list[str]]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.stderr.splitlines()


def test_a_config_that_fails_the_run_says_so_once(project: Path) -> None:
    (project / "acptrace.toml").write_text('fail-on = "warning"\n')
    assert run("analyze", WARNS) == (1, ['acptrace: fail-on = "warning" from ./acptrace.toml'])
    two = run("analyze", WARNS, WARNS)
    assert two == (1, ['acptrace: fail-on = "warning" from ./acptrace.toml'])


def test_quiet_says_nothing_and_the_verdict_stands(project: Path) -> None:
    (project / "acptrace.toml").write_text('fail-on = "warning"\n')
    assert run("analyze", "-q", WARNS) == (1, [])


def test_settings_that_change_nothing_are_not_named(project: Path) -> None:
    """A key the command line overrides, or one that says the default, changes nothing."""
    (project / "acptrace.toml").write_text('fail-on = "warning"\nstrict = false\n')
    assert run("analyze", "--fail-on", "error", WARNS) == (0, [])


def test_several_settings_in_one_line_from_a_pyproject_above(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (project / "pyproject.toml").write_text(
        '[tool.acptrace]\nselect = ["RC-", "JR-"]\nassume-closed = true\n'
    )
    below = project / "src"
    below.mkdir()
    monkeypatch.chdir(below)
    code, stderr = run("timeline", WARNS)
    assert stderr == [
        'acptrace: select = ["RC-", "JR-"], assume-closed = true from ../pyproject.toml'
    ]
    assert code == 0


def test_report_names_only_what_changes_its_analysis(project: Path) -> None:
    """report's exit code is not of findings: a fail-on there changes nothing it does."""
    (project / "acptrace.toml").write_text('fail-on = "warning"\n')
    assert run("report", WARNS)[1] == []
    (project / "acptrace.toml").write_text('fail-on = "warning"\nignore = ["JR-UNANSWERED"]\n')
    assert run("report", WARNS)[1] == ['acptrace: ignore = ["JR-UNANSWERED"] from ./acptrace.toml']
