"""`acptrace analyze`: resume outcomes, replay latencies and rule findings for transcripts."""

# (no `from __future__ import annotations`: typer reads each option from its annotation,
# and would evaluate the annotations' text again on every run)

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from enum import StrEnum
from typing import Annotated, NamedTuple

import typer

from acptrace.cli.common import (
    EXIT_ERROR,
    EXIT_FINDINGS,
    EXIT_OK,
    fail,
    note_skipped,
    print_error,
    rich_bytes,
)
from acptrace.cli.options import FORMAT, FilesArgument, JobsOption, QuietOption, output_option
from acptrace.cli.output import check_output, write_output
from acptrace.cli.progress import Meter, progress, reading
from acptrace.cli.root import app
from acptrace.cli.settings import AnalysisFlags, analysis_options
from acptrace.judge.policy import Policy
from acptrace.model.domain import Analysis
from acptrace.model.errors import UnreadableInput, UsageError
from acptrace.pipeline.pool import analyze_many
from acptrace.pipeline.transcripts import is_multi_connection, transcript_refusal
from acptrace.read.inputs import Skipped, Unmatched, expand, names_one_file


class AnalyzeFormat(StrEnum):
    """Output formats of `analyze`."""

    RICH = "rich"
    JSON = "json"
    JUNIT = "junit"
    SARIF = "sarif"
    GITHUB = "github"
    MARKDOWN = "markdown"


@app.command("analyze")
@analysis_options()
def analyze_command(
    files: FilesArgument,
    output_format: Annotated[AnalyzeFormat, FORMAT] = AnalyzeFormat.RICH,
    output: Annotated[
        str | None,
        output_option("Write the result, in --format, to this file instead of stdout."),
    ] = None,
    *,
    flags: AnalysisFlags,
    jobs: JobsOption = None,
    quiet: QuietOption = False,
    summary_only: Annotated[
        bool,
        typer.Option(
            "--summary",
            help="Print only the summary across all files (files, connections, outcomes, "
            "findings by level and rule, the files with most findings), not each file's.",
        ),
    ] = False,
) -> None:
    """Analyse transcripts: outcomes, latencies, findings.

    Resume outcomes, replay latencies and rule findings for each connection.

    The result goes to stdout, or to the file -o names. Over several files (or connections)
    the terminal view ends with a summary across them all; --summary prints that alone.
    """
    check_output(output)
    if summary_only and output_format is not AnalyzeFormat.RICH:
        fail(f"--summary is a terminal view: --format {output_format.value} lists everything")
    policy = flags.policy(quiet=quiet)
    timeouts = flags.idle_timeouts_ms()
    analyses: list[Analysis] = []
    read_any = False
    exit_code = EXIT_OK
    paths: list[str] = []
    for path in expand(files):
        if isinstance(path, Unmatched):
            print_error(f"{path.argument}: {path.reason}")
            exit_code = EXIT_ERROR
        elif isinstance(path, Skipped):  # (an error under --strict: input left unread)
            note_skipped(path)
            exit_code = EXIT_ERROR if policy.strict else exit_code
        else:
            paths.append(path)
    try:
        with _progress(paths, quiet) as meter:
            for path, result in zip(paths, analyze_many(paths, policy.options, jobs), strict=True):
                meter.advance()
                if not isinstance(result, UnreadableInput):  # (an empty or a binary file: no)
                    result = transcript_refusal(path, result) or result
                if isinstance(result, UnreadableInput):
                    print_error(str(result))
                    exit_code = EXIT_ERROR
                else:
                    read_any = True
                    analyses.extend(result)
    except UsageError as error:
        fail(str(error))
    for analysis in analyses:
        exit_code = max(exit_code, EXIT_FINDINGS if policy.fails(analysis) else EXIT_OK)
    if read_any:
        one = names_one_file(files) and len(analyses) == 1 and not is_multi_connection(analyses)
        several = not one
        view = _View(output_format, several, summary_only)
        write_output(_render(analyses, view, policy, timeouts, output), output)
    raise typer.Exit(exit_code)


class _View(NamedTuple):
    """What `analyze` writes: the format, whether for several connections, and (terminal
    view) whether only the summary across them."""

    output_format: AnalyzeFormat
    several: bool
    summary_only: bool


def _render(
    analyses: list[Analysis],
    view: _View,
    policy: Policy,
    timeouts: tuple[float, ...],
    output: str | None,
) -> bytes | Iterable[bytes]:
    # (each renderer imported when asked for: a run pays for the one it uses)
    match view.output_format:
        case AnalyzeFormat.JSON:
            from acptrace.render import json_report

            return json_report.chunks(analyses, as_array=view.several, idle_timeouts_ms=timeouts)
        case AnalyzeFormat.RICH:
            return _terminal(analyses, view, timeouts, output)
        case AnalyzeFormat.JUNIT:
            from acptrace.render.junit import junit_xml

            return junit_xml(analyses, policy)
        case AnalyzeFormat.SARIF:
            from acptrace.render.sarif import sarif_chunks

            return sarif_chunks(analyses)
        case AnalyzeFormat.GITHUB:
            from acptrace.render.github import github_annotations

            return github_annotations(analyses)
        case AnalyzeFormat.MARKDOWN:
            from acptrace.render.markdown import markdown_summary

            return markdown_summary(analyses, policy)


def _terminal(
    analyses: list[Analysis], view: _View, timeouts: tuple[float, ...], output: str | None
) -> bytes:
    """Each connection's section, then (over several) the summary across them; or that
    summary alone (`--summary`)."""
    if view.summary_only:
        from acptrace.render.across_files import across_files

        return rich_bytes(across_files(analyses), output=output)
    from acptrace.render.summary import summaries

    sections = list(summaries(analyses, timeouts))
    if len(analyses) > 1:
        from acptrace.render.across_files import across_files

        sections.append(across_files(analyses))
    return rich_bytes(*sections, output=output)


@contextmanager
def _progress(paths: list[str], quiet: bool) -> Iterator[Meter]:
    """Files analysed of several, or the bytes read of one (a big file takes seconds)."""
    if len(paths) == 1:
        with reading(quiet):
            yield Meter()
    else:
        with progress("analysing", len(paths), quiet, "files") as meter:
            yield meter
