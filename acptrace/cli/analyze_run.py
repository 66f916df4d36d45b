"""The work of `acptrace analyze`, and its command line declared (`AnalyzeLine`): typer's command
(`acptrace.cli.analyze_command`) and the quick reader (`acptrace.cli.argv`) both read that
declaration and hand this module the one `AnalyzeLine`; nothing here imports typer.
"""

# (no `from __future__ import annotations`: the declaration is read from its annotations)

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from enum import StrEnum

import msgspec

from acptrace.cli.common import (
    EXIT_ERROR,
    EXIT_FINDINGS,
    EXIT_OK,
    fail,
    note_skipped,
    print_error,
    rich_bytes,
)
from acptrace.cli.declare import Annotated, Option
from acptrace.cli.options import FILES, FORMAT, JOBS, QUIET, output_option
from acptrace.cli.output import check_output, write_output
from acptrace.cli.progress import Meter, progress, reading
from acptrace.cli.settings import AnalysisFlags
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


class AnalyzeLine(msgspec.Struct, frozen=True):
    """The command line of `analyze`, declared (`acptrace.cli.declare`) in the order `--help`
    lists it, and read."""

    files: Annotated[list[str], FILES]
    output_format: Annotated[AnalyzeFormat, FORMAT] = AnalyzeFormat.RICH
    output: Annotated[
        str | None,
        output_option("Write the result, in --format, to this file instead of stdout."),
    ] = None
    flags: AnalysisFlags = AnalysisFlags()
    jobs: Annotated[int | None, JOBS] = None
    quiet: Annotated[bool, QUIET] = False
    summary_only: Annotated[
        bool,
        Option(
            "--summary",
            help="Print only the summary across all files (files, connections, outcomes, "
            "findings by level and rule, the files with most findings), not each file's.",
        ),
    ] = False


def run_analyze(line: AnalyzeLine) -> int:
    """Analyse the files of this command line and write the result; the exit code."""
    check_output(line.output)
    if line.summary_only and line.output_format is not AnalyzeFormat.RICH:
        fail(f"--summary is a terminal view: --format {line.output_format.value} lists everything")
    policy = line.flags.policy(quiet=line.quiet)
    timeouts = line.flags.idle_timeouts_ms()
    exit_code = EXIT_OK
    paths: list[str] = []
    for path in expand(line.files):
        if isinstance(path, Unmatched):
            print_error(f"{path.argument}: {path.reason}")
            exit_code = EXIT_ERROR
        elif isinstance(path, Skipped):  # (an error under --strict: input left unread)
            note_skipped(path)
            exit_code = EXIT_ERROR if policy.strict else exit_code
        else:
            paths.append(path)
    read = _analysed(paths, policy, line)
    exit_code = EXIT_ERROR if read.unreadable else exit_code
    for analysis in read.analyses:
        exit_code = max(exit_code, EXIT_FINDINGS if policy.fails(analysis) else EXIT_OK)
    if read.read_any:
        several = not (
            names_one_file(line.files)
            and len(read.analyses) == 1
            and not is_multi_connection(read.analyses)
        )
        write_output(_render(read.analyses, line, several, policy, timeouts), line.output)
    return exit_code


class _Read(msgspec.Struct):
    """What the files gave: their analyses, whether any was read, whether any was not."""

    analyses: list[Analysis] = msgspec.field(default_factory=list)
    read_any: bool = False
    unreadable: bool = False


def _analysed(paths: list[str], policy: Policy, line: AnalyzeLine) -> _Read:
    """Each file analysed (several at a time with `--jobs`), progress shown; an unreadable one
    said on stderr."""
    read = _Read()
    try:
        with _progress(paths, line.quiet) as meter:
            results = analyze_many(paths, policy.options, line.jobs)
            for path, result in zip(paths, results, strict=True):
                meter.advance()
                if not isinstance(result, UnreadableInput):  # (an empty or a binary file: no)
                    result = transcript_refusal(path, result) or result
                if isinstance(result, UnreadableInput):
                    print_error(str(result))
                    read.unreadable = True
                else:
                    read.analyses.extend(result)
                    read.read_any = True
    except UsageError as error:
        fail(str(error))
    return read


def _render(
    analyses: list[Analysis],
    line: AnalyzeLine,
    several: bool,
    policy: Policy,
    timeouts: tuple[float, ...],
) -> bytes | Iterable[bytes]:
    """The result in the line's format (`several`: of several connections, or files)."""
    # (each renderer imported when asked for: a run pays for the one it uses)
    match line.output_format:
        case AnalyzeFormat.JSON:
            from acptrace.render import json_report

            return json_report.chunks(analyses, as_array=several, idle_timeouts_ms=timeouts)
        case AnalyzeFormat.RICH:
            return _terminal(analyses, line, timeouts)
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


def _terminal(analyses: list[Analysis], line: AnalyzeLine, timeouts: tuple[float, ...]) -> bytes:
    """Each connection's section, then (over several) the summary across them; or that
    summary alone (`--summary`)."""
    if line.summary_only:
        from acptrace.render.across_files import across_files

        return rich_bytes(across_files(analyses), output=line.output)
    from acptrace.render.summary import summaries

    sections = list(summaries(analyses, timeouts))
    if len(analyses) > 1:
        from acptrace.render.across_files import across_files

        sections.append(across_files(analyses))
    return rich_bytes(*sections, output=line.output)


@contextmanager
def _progress(paths: list[str], quiet: bool) -> Iterator[Meter]:
    """Files analysed of several, or the bytes read of one (a big file takes seconds)."""
    if len(paths) == 1:
        with reading(quiet):
            yield Meter()
    else:
        with progress("analysing", len(paths), quiet, "files") as meter:
            yield meter
