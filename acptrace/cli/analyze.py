"""`acptrace analyze`: resume outcomes, replay latencies and rule findings for transcripts."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated

import typer

from acptrace.analysis import analyze
from acptrace.cli.app import app
from acptrace.cli.common import (
    EXIT_ERROR,
    EXIT_FINDINGS,
    EXIT_OK,
    OutputOption,
    fail,
    print_error,
    rich_bytes,
)
from acptrace.errors import UnreadableInput, UsageError
from acptrace.inputs import Unmatched, expand
from acptrace.model import Analysis, Severity
from acptrace.options import Options
from acptrace.output import write_output
from acptrace.render import json_report
from acptrace.render.summary import summary


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


@app.command("analyze")
def analyze_command(
    files: Annotated[
        list[str], typer.Argument(help="Transcripts, directories or globs (`-` for stdin).")
    ],
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
    link: Annotated[
        str | None,
        typer.Option(help="Multi-hop traces: analyse this link (client, agent, or 'A,B')."),
    ] = None,
) -> None:
    """Analyse transcripts: resume outcomes, replay latencies and rule findings."""
    options = Options(
        input_format=input_format,
        link=link,
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
    for path in expand(files):
        if isinstance(path, Unmatched):
            print_error(f"{path.argument}: {path.reason}")
            exit_code = EXIT_ERROR
            continue
        try:
            analyses.append(analyze(path, options))
        except UsageError as error:
            fail(str(error))
        except UnreadableInput as error:
            print_error(str(error))
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
            return rich_bytes(*(summary(a) for a in analyses))


def _exit_code(analysis: Analysis, fail_on: FailOn, strict: bool) -> int:
    """1 when a finding reaches `--fail-on` (or, with `--strict`, when there is any issue)."""
    if strict and analysis.issues:
        return EXIT_FINDINGS
    if fail_on is FailOn.NEVER:
        return EXIT_OK
    threshold = Severity(fail_on.value).rank
    worst = analysis.worst_severity()
    return EXIT_FINDINGS if worst is not None and worst.rank >= threshold else EXIT_OK
