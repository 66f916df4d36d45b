"""Options several commands share: one declaration, one help text, one meaning of `--jobs`."""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path

import pytest
import typer.main
from typer import _click as click
from typer.core import TyperGroup, TyperOption
from typer.testing import CliRunner

from acptrace.cli import MODULES, app
from acptrace.cli.settings import AnalysisFlags
from acptrace.cli.typer_options import ANALYSIS_OPTIONS, analysis_options

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

OWN_HELP = {"--output", "-o", "--force"}
"""Declared once, with help that is each command's own: what it writes there (-o), what it
replaces there (--force: a recording for `record`, a folder's files for `drive`)."""

OWN_MEANING = {
    ("drive", "--protocol"),
    ("drive", "--session"),
    ("export", "--timeout"),
    ("report", "--quiet"),
    ("report", "-q"),
}
"""Options that mean something else on one command, by design: `drive` is a Client; its
`--protocol` is the version it asks the Agent for (issue #16 names the flag), not the rules an
analysis applies, and its `--session` the session it replays, not the one a timeline shows;
`report -q` drops the summary on stdout too; `export --timeout` bounds the sending of traces
to `--endpoint`, every retry included, not the wait for one response."""


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
        expected = len(by_command) if name in OWN_HELP else 1
        assert len(set(helps.values())) == expected, (name, helps)


def test_an_option_of_several_commands_has_one_short_form_and_metavar() -> None:
    for name, by_command in options_by_name().items():
        forms = {(tuple(o.opts), tuple(o.secondary_opts)) for o in by_command.values()}
        assert len(forms) == 1, (name, forms)
        if name not in OWN_HELP:  # (-o: a file, or a directory for `export` and `drive`)
            assert len({o.metavar for o in by_command.values()}) == 1, name


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


def help_records() -> list[tuple[str, str, str]]:
    """(command, the parameter's names and placeholder, its help) as `--help` shows them."""
    group = typer.main.get_command(app)
    assert isinstance(group, TyperGroup)
    root = click.Context(group, info_name="acptrace")
    records = []
    for name, command in group.commands.items():
        context = click.Context(command, info_name=name, parent=root)
        for param in command.params:
            record = param.get_help_record(context)
            if record is not None:
                records.append((name, *record))
    return records


PLACEHOLDER = re.compile(
    r"(?:[A-Z][A-Z0-9_]*(?:[-.:|][A-Z0-9_]+)*(?:\[:[A-Z]+\])?(?:\.\.\.)?"  # FILE, A-B, NAME[:ARG]
    r"|\[[A-Z]+\]"  # [REPLAYED]: an optional argument
    r"|1\|2"  # the protocol versions
    r"|<[a-z-]+(?:\|[a-z-]+)+>)"  # a closed set: its values, as typer lists them
)


def test_placeholders_are_one_style() -> None:
    """An upper-case word for a value, the values for a closed set; never typer's `<str>`."""
    seen = set()
    for command, names, _ in help_records():
        placeholder = names.rsplit(" ", 1)[-1] if " " in names else names
        if placeholder.startswith("-"):
            continue  # (a flag)
        seen.add(placeholder)
        assert PLACEHOLDER.fullmatch(placeholder), (command, names)
    assert {"FILE", "FILE...", "DIR", "N", "MS", "ID", "<rich|json>"} <= seen


def test_every_output_option_says_what_its_command_writes() -> None:
    helps = {command: text for command, names, text in help_records() if "--output" in names}
    assert set(helps) == {c for c in MODULES if c != "mock"}
    for command, text in helps.items():
        assert "the command's description" not in text, command
        assert re.search(r"\b(stdout|stderr|directory|suffix)\b", text), (command, text)
    assert "DIR" in next(n for c, n, _ in help_records() if c == "export" and "--output" in n)


PRINTING = ("analyze", "timeline", "fidelity", "report", "export", "record", "redact", "drive")
"""The commands that print more than their output (a progress bar, notes): each takes -q."""


@pytest.mark.parametrize("command", PRINTING)
def test_every_printing_command_takes_q(command: str) -> None:
    assert "-q, --quiet" in {n for c, n, _ in help_records() if c == command}


# -- the analysis options: one declared group ---------------------------------------------------

ANALYSING = {
    "analyze": (),
    "timeline": ("strict", "idle_timeouts"),
    "export": ("fail_on", "strict", "idle_timeouts"),
    "report": ("fail_on", "strict"),
    "fidelity": (
        "fail_on",
        "strict",
        "assume_closed",
        "protocol",
        "child_rules",
        "select",
        "ignore",
        "schema",
        "idle_timeouts",
    ),
}
"""Each command that analyses, and the options of the group it does not take (as before the
group was declared once: a command's set is pinned here, so that changing it is deliberate)."""


def described(param: click.Parameter) -> tuple[object, ...]:
    """What `--help` and the parsing of one option depend on."""
    assert isinstance(param, TyperOption)
    return (
        *(param.name, param.opts, param.secondary_opts, param.help, param.metavar),
        *(
            param.default,
            param.multiple,
            param.is_flag,
            param.show_default,
            type(param.type),
            vars(param.type),
        ),
    )


def group_options() -> list[click.Parameter]:
    """The group's options as typer makes them, from their one declaration (`AnalysisFlags`)."""
    probe = typer.Typer(add_completion=False)

    @probe.command()
    @analysis_options()
    def every(*, flags: AnalysisFlags) -> None:
        del flags  # (never run: only its options are read)

    return typer.main.get_command(probe).params


def test_the_group_is_the_analysis_flags_in_order() -> None:
    names = [param.name for param in group_options()]
    assert names == [option.name for option in ANALYSIS_OPTIONS]
    assert names == list(AnalysisFlags.__struct_fields__)


@pytest.mark.parametrize("command", sorted(ANALYSING))
def test_every_analysing_command_takes_the_options_of_the_one_group(command: str) -> None:
    """The same options, help, placeholders and defaults as the group declares them, in its
    order and side by side, but those the command leaves out."""
    group = typer.main.get_command(app)
    assert isinstance(group, TyperGroup)
    names = {option.name for option in ANALYSIS_OPTIONS}
    params = group.commands[command].params
    taken = [i for i, param in enumerate(params) if param.name in names]
    assert taken == list(range(taken[0], taken[0] + len(taken)))  # (one block, as declared)
    expected = [p for p in group_options() if p.name not in ANALYSING[command]]
    assert [described(params[i]) for i in taken] == [described(p) for p in expected]


def test_no_other_command_takes_an_analysis_option() -> None:
    """`drive` reads the config file but takes no analysis option (its `--protocol` is the
    version it asks for: `OWN_MEANING`)."""
    group = typer.main.get_command(app)
    assert isinstance(group, TyperGroup)
    names = {option.name for option in ANALYSIS_OPTIONS}
    opts = {name for param in group_options() for name in (*param.opts, *param.secondary_opts)}
    for command_name, command in group.commands.items():
        if command_name in ANALYSING:
            continue
        for param in command.params:
            assert param.name not in names, (command_name, param.name)
            if isinstance(param, TyperOption):
                shared = set(param.opts) & opts
                assert all((command_name, n) in OWN_MEANING for n in shared), (command_name, param)


def test_a_command_states_where_the_group_goes() -> None:
    with pytest.raises(TypeError, match=r"\*, flags: AnalysisFlags"):

        @analysis_options()
        def no_place(quiet: bool = False) -> None:
            del quiet

    with pytest.raises(ValueError, match="not analysis options: stric"):
        analysis_options(omit=("stric",))
