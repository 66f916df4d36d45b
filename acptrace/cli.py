"""The `acptrace` command: options, exit codes and messages; the logic lives in the library."""

from __future__ import annotations

import io
from enum import StrEnum
from typing import Annotated

import typer
from rich.console import Console

from acptrace import __version__
from acptrace.analysis import analyze
from acptrace.errors import AcptraceError, UnreadableInput, UsageError
from acptrace.formats import FORMATS
from acptrace.model import Analysis, Severity
from acptrace.options import Options
from acptrace.output import write_output
from acptrace.render import json_report
from acptrace.render.rules_view import rules_json, rules_markdown, rules_table
from acptrace.render.summary import summary
from acptrace.rules import RULES

EXIT_OK, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2

app = typer.Typer(
    name="acptrace",
    help="Forensic analyzer for recorded Agent Client Protocol (ACP) traffic.",
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode=None,
)
PLAIN_WIDTH = 160
"""Width of the summary when stdout is not a terminal (files, pipes, CI logs)."""


class AnalyzeFormat(StrEnum):
    """Output formats of `analyze`."""

    RICH = "rich"
    JSON = "json"


class FailOn(StrEnum):
    """The lowest finding level that fails the run."""

    ERROR = "error"
    WARNING = "warning"
    NOTE = "note"
    NEVER = "never"


class RulesFormat(StrEnum):
    """Output formats of `rules`."""

    TABLE = "table"
    MARKDOWN = "markdown"
    JSON = "json"


OutputOption = Annotated[
    str | None, typer.Option("--output", "-o", help="Write to this file instead of stdout.")
]


def _version(value: bool) -> None:
    if value:
        typer.echo(f"acptrace {__version__}")
        raise typer.Exit()


@app.callback()
def main_callback(
    version: Annotated[
        bool,
        typer.Option("--version", callback=_version, is_eager=True, help="Show the version."),
    ] = False,
) -> None:
    """Forensic analyzer for recorded Agent Client Protocol (ACP) traffic."""


@app.command("analyze")
def analyze_command(
    files: Annotated[list[str], typer.Argument(help="Transcripts to analyse (`-` for stdin).")],
    output_format: Annotated[
        AnalyzeFormat, typer.Option("--format", "-f", help="Output format.")
    ] = AnalyzeFormat.RICH,
    output: OutputOption = None,
    fail_on: Annotated[
        FailOn, typer.Option(help="Exit 1 when a finding is at or above this level.")
    ] = FailOn.ERROR,
    strict: Annotated[
        bool, typer.Option("--strict", help="Exit 1 when the input has any issue.")
    ] = False,
    assume_closed: Annotated[
        bool,
        typer.Option(
            "--assume-closed", help="Treat a transcript that just stops as a recorded disconnect."
        ),
    ] = False,
    protocol: Annotated[
        int | None, typer.Option(min=1, max=2, help="Apply the rules of ACP v1 or v2.")
    ] = None,
    child_rules: Annotated[
        bool, typer.Option("--child-rules/--no-child-rules", help="Judge the RC-CHILD-* rules.")
    ] = True,
    marker_tag: Annotated[
        str, typer.Option(help="The sessionUpdate tag that marks the end of a replay.")
    ] = "replay_complete",
    history_tag: Annotated[
        list[str] | None,
        typer.Option(help="Treat a by-default never-history tag as history (repeatable)."),
    ] = None,
    live_tag: Annotated[
        list[str] | None, typer.Option(help="Treat another tag as never history (repeatable).")
    ] = None,
    select: Annotated[
        list[str] | None, typer.Option(help="Report only these rule IDs or prefixes (repeatable).")
    ] = None,
    ignore: Annotated[
        list[str] | None, typer.Option(help="Leave out these rule IDs or prefixes (repeatable).")
    ] = None,
    input_format: Annotated[
        str | None, typer.Option(help="Read the input as this format (see `acptrace formats`).")
    ] = None,
) -> None:
    """Analyse transcripts: resume outcomes, replay latencies and rule findings."""
    options = Options(
        input_format=input_format,
        assume_closed=assume_closed,
        protocol=protocol,
        child_rules=child_rules,
        marker_tag=marker_tag,
        history_tags=tuple(history_tag or ()),
        live_tags=tuple(live_tag or ()),
        select=tuple(select or ()),
        ignore=tuple(ignore or ()),
    )
    analyses: list[Analysis] = []
    exit_code = EXIT_OK
    for path in files:
        try:
            analyses.append(analyze(path, options))
        except UsageError as error:
            _fail(str(error))
        except UnreadableInput as error:
            _error(str(error))
            exit_code = EXIT_ERROR
    for analysis in analyses:
        exit_code = max(exit_code, _exit_code(analysis, fail_on, strict))
    if analyses:
        write_output(_render(analyses, output_format), output)
    raise typer.Exit(exit_code)


def _render(analyses: list[Analysis], output_format: AnalyzeFormat) -> bytes:
    match output_format:
        case AnalyzeFormat.JSON:
            return json_report.dumps(analyses)
        case AnalyzeFormat.RICH:
            return _rich_bytes(*(summary(a) for a in analyses))


def _rich_bytes(*renderables: object) -> bytes:
    """Render for the terminal when stdout is one, as plain text otherwise."""
    terminal = Console()
    buffer = io.StringIO()
    console = Console(
        file=buffer,
        force_terminal=terminal.is_terminal,
        width=terminal.width if terminal.is_terminal else PLAIN_WIDTH,
        color_system="auto" if terminal.is_terminal else None,
        highlight=False,
    )
    for renderable in renderables:
        console.print(renderable)
        console.print()
    return buffer.getvalue().encode()


def _exit_code(analysis: Analysis, fail_on: FailOn, strict: bool) -> int:
    """1 when a finding reaches `--fail-on` (or, with `--strict`, when there is any issue)."""
    if strict and analysis.issues:
        return EXIT_FINDINGS
    if fail_on is FailOn.NEVER:
        return EXIT_OK
    threshold = Severity(fail_on.value).rank
    worst = analysis.worst_severity()
    return EXIT_FINDINGS if worst is not None and worst.rank >= threshold else EXIT_OK


@app.command("rules")
def rules_command(
    output_format: Annotated[
        RulesFormat, typer.Option("--format", "-f", help="Output format.")
    ] = RulesFormat.TABLE,
    output: OutputOption = None,
) -> None:
    """List every rule with its ID, level, source and one-line help."""
    match output_format:
        case RulesFormat.TABLE:
            data = _rich_bytes(rules_table(RULES))
        case RulesFormat.MARKDOWN:
            data = rules_markdown(RULES).encode()
        case RulesFormat.JSON:
            data = rules_json(RULES)
    write_output(data, output)


@app.command("formats")
def formats_command() -> None:
    """List the input formats acptrace reads, with one example line each."""
    lines = []
    for known in FORMATS:
        lines.append(f"{known.name}: {known.summary}\n    {known.example}\n")
    write_output("".join(lines).encode(), None)


def _error(message: str) -> None:
    """One diagnostic line on stderr."""
    typer.echo(f"acptrace: error: {message}", err=True)


def _fail(message: str) -> None:
    _error(message)
    raise typer.Exit(EXIT_ERROR)


def main() -> None:
    """Console-script entry point."""
    try:
        app()
    except AcptraceError as error:  # pragma: no cover - commands handle their own
        _fail(str(error))
