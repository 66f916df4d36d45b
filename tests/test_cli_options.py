"""Options several commands share: one declaration, one help text, one meaning of `--jobs`."""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path

import pytest
import typer.main
from typer.core import TyperGroup, TyperOption
from typer.testing import CliRunner

from acptrace.cli import app

CLI = Path(__file__).resolve().parent.parent / "acptrace" / "cli"

SHARED = (
    "--format",
    "--output",
    "--jobs",
    "--config",
    "--select",
    "--ignore",
    "--protocol",
    "--assume-closed",
    "--quiet",
)
"""Options the issue names (and `--quiet`) that more than one command takes."""

OWN_MEANING = {("drive", "--protocol"), ("drive", "--session")}
"""Options that mean something else on one command, by design: `drive` is a Client; its
`--protocol` is the version it asks the Agent for (issue #16 names the flag), not the rules an
analysis applies, and its `--session` the session it replays, not the one a timeline shows."""


def options_by_name() -> dict[str, dict[str, TyperOption]]:
    """Each option name, and the option of each command that has it (from the click params)."""
    group = typer.main.get_command(app)
    assert isinstance(group, TyperGroup)
    found: dict[str, dict[str, TyperOption]] = defaultdict(dict)
    for command_name, command in group.commands.items():
        for param in command.params:
            if isinstance(param, TyperOption):
                for name in (*param.opts, *param.secondary_opts):
                    if (command_name, name) not in OWN_MEANING:
                        found[name][command_name] = param
    return found


def test_an_option_of_several_commands_has_one_help_text() -> None:
    shared = {name: by for name, by in options_by_name().items() if len(by) > 1}
    assert set(SHARED) <= set(shared)
    for name, by_command in shared.items():
        helps = {command: option.help for command, option in by_command.items()}
        assert len(set(helps.values())) == 1, (name, helps)


def test_an_option_of_several_commands_has_one_short_form_and_metavar() -> None:
    for name, by_command in options_by_name().items():
        forms = {(tuple(o.opts), tuple(o.secondary_opts), o.metavar) for o in by_command.values()}
        assert len(forms) == 1, (name, forms)


@pytest.mark.parametrize("name", ["--format", "--output", "--jobs", "--quiet", "--config"])
def test_a_shared_option_is_declared_once(name: str) -> None:
    sources = {path.name: path.read_text() for path in CLI.glob("*.py")}
    declared = [file for file, text in sources.items() if re.search(rf'"{name}\b', text)]
    assert len(declared) == 1, declared
    assert len(re.findall(rf'"{name}\b', sources[declared[0]])) == 1


def test_jobs_means_the_same_on_every_command_that_reads_many_files() -> None:
    jobs = options_by_name()["--jobs"]
    assert set(jobs) == {"analyze", "export", "report"}
    for option in jobs.values():
        assert option.default is None
        assert "-j" in option.opts


@pytest.mark.parametrize("command", ["analyze", "export", "report"])
def test_jobs_zero_is_chosen_and_a_negative_count_is_refused(command: str, tmp_path: Path) -> None:
    runner = CliRunner()
    result = runner.invoke(app, [command, str(tmp_path / "none.jsonl"), "-o", "x", "-j", "-1"])
    assert result.exit_code == 2
    assert "-1 is not in the range x>=0" in result.output
