"""`acptrace report`: latency, outcome and finding statistics over many transcripts."""

# (no `from __future__ import annotations`: typer reads each option from its annotation,
# and would evaluate the annotations' text again on every run)

from collections.abc import Iterator
from contextlib import contextmanager
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from acptrace.cli.common import (
    EXIT_ERROR,
    EXIT_FINDINGS,
    EXIT_OK,
    fail,
    print_error,
    print_note,
    rich_bytes,
)
from acptrace.cli.output import check_output, write_output
from acptrace.cli.progress import progress, shows_progress
from acptrace.cli.root import app
from acptrace.cli.settings import AnalysisFlags
from acptrace.cli.typer_options import (
    FORMAT,
    JobsOption,
    ReportQuietOption,
    analysis_options,
    output_option,
)
from acptrace.model.errors import UsageError
from acptrace.read.formats import format_named
from acptrace.render.text import inert
from acptrace.report import analyze_files, assemble, charts, gather
from acptrace.report.baseline import (
    Baseline,
    BaselineError,
    Comparison,
    Threshold,
    check_grouping,
    compare,
    load_baseline,
    parse_thresholds,
)
from acptrace.report.collect import Progress as OnDone
from acptrace.report.document import dumps
from acptrace.report.html import chart_count, render_html
from acptrace.report.markdown_page import render_markdown
from acptrace.report.numbers import count_text
from acptrace.report.own_files import split_own_files
from acptrace.report.summaries import FileError, GroupBy, Report
from acptrace.report.terminal import terminal_report


class StdoutFormat(StrEnum):
    """What `report` writes to stdout (`--format`): the terminal summary, or a file's kind."""

    RICH = "rich"
    JSON = "json"
    MARKDOWN = "markdown"


class Kind(StrEnum):
    """What `-o` writes."""

    JSON = "json"
    MARKDOWN = "markdown"
    HTML = "html"


SUFFIXES = {
    ".json": Kind.JSON,
    ".md": Kind.MARKDOWN,
    ".markdown": Kind.MARKDOWN,
    ".html": Kind.HTML,
    ".htm": Kind.HTML,
}
"""What `-o` writes, by the file's suffix."""


@app.command("report")
# (its exit code is of unread files and --max-regression, not of findings)
@analysis_options(omit=("fail_on", "strict"))
def report_command(
    paths: Annotated[
        list[str],
        typer.Argument(
            metavar="FILE...",
            help="Transcripts, directories, globs (`.gz` too) or folders `export` wrote.",
        ),
    ],
    by: Annotated[GroupBy, typer.Option("--by", help="What makes a group.")] = GroupBy.AGENT,
    stdout_format: Annotated[StdoutFormat, FORMAT] = StdoutFormat.RICH,
    output: Annotated[
        list[str] | None,
        output_option(
            "Also write the report to this file, its suffix picking the kind: .json, .md, "
            ".html (repeatable)."
        ),
    ] = None,
    baseline: Annotated[
        str | None,
        typer.Option(
            metavar="FILE", help="An earlier report.json to compare with (per-group deltas)."
        ),
    ] = None,
    max_regression: Annotated[
        list[str] | None,
        typer.Option(
            metavar="LIMIT",
            help="Exit 1 when a group got worse than this against --baseline: "
            "[METRIC.]STAT=N%|Nms|Ns or OUTCOME=Npp, e.g. p90=20%, complete=1pp (repeatable).",
        ),
    ] = None,
    jobs: JobsOption = None,
    quiet: ReportQuietOption = False,
    *,
    flags: AnalysisFlags,
) -> None:
    """Latency report over many transcripts, by group.

    Outcomes, findings and latency percentiles per group, with an optional comparison
    against an earlier report.json.

    A summary goes to stdout (--format json or markdown: report.json's or report.md's
    text instead, for `| jq` or a CI step summary); each -o (repeatable) also writes the
    report to a file whose suffix picks the kind: .json, .md, .html.
    """
    summary = stdout_format is StdoutFormat.RICH  # (-f json or markdown: stdout is the report)
    if quiet and summary and not output:
        fail(
            "-q without -o writes nothing: name a report file with -o (.json, .md, .html), "
            "or -f json or markdown for the report on stdout"
        )
    kinds = [_kind(path) for path in output or ()]
    for path in output or ():
        check_output(path)
    old = _baseline(baseline, by, max_regression or [])
    thresholds = _thresholds(max_regression or [])
    timeouts = flags.idle_timeouts_ms()
    options = flags.policy(quiet=quiet, judged=False).options
    if flags.input_format is not None:
        try:
            format_named(flags.input_format)
        except UsageError as error:
            fail(str(error))
    files, unmatched = gather(paths)
    files, own = split_own_files(files, output or ())
    if own:
        typer.echo(
            f"acptrace: skipped {count_text(len(own), 'report')} written by acptrace report "
            f"(not transcripts): {', '.join(inert(p).plain for p in own)}",
            err=True,
        )
    for missing in unmatched:
        print_error(f"{missing.path}: {missing.message}")
    with _progress(len(files), quiet) as on_done:
        collection = analyze_files(files, options, jobs=jobs, progress=on_done)
    report = assemble(by, collection, unmatched, timeouts)
    if not report.files:
        fail("no transcript could be analysed; nothing written")
    comparison = None
    if old is not None:
        try:
            comparison = compare(report, old, thresholds)
        except BaselineError as error:
            fail(str(error))
    for path, kind in zip(output or (), kinds, strict=True):
        with _drawing(path, kind, report, quiet):
            write_output(_render(kind, report, comparison), path)
    if not (quiet and summary):
        write_output(_stdout(stdout_format, report, comparison), None)
    if comparison is not None:
        for limit in comparison.unchecked:  # (a gate that checks nothing fails)
            print_error(f"--max-regression {comparison.unchecked_note(limit)}")
    raise typer.Exit(_exit_code(report, comparison))


def _kind(path: str) -> Kind:
    kind = SUFFIXES.get(Path(path).suffix.lower())
    if kind is None:
        fail(f"-o {path}: the suffix must be one of {', '.join(sorted(SUFFIXES))}")
    return kind


def _baseline(path: str | None, by: GroupBy, limits: list[str]) -> Baseline | None:
    if path is None:
        if limits:
            fail("--max-regression needs --baseline OLD_REPORT.json to compare with")
        return None
    try:
        old = load_baseline(path)
        check_grouping(old, by)
    except BaselineError as error:
        fail(str(error))
    if old.note is not None:
        print_note(old.note)
    return old


def _thresholds(texts: list[str]) -> tuple[Threshold, ...]:
    try:
        return parse_thresholds(texts)
    except ValueError as error:
        fail(f"--max-regression {error}")


@contextmanager
def _progress(total: int, quiet: bool) -> Iterator[OnDone]:
    """Files analysed, on stderr when it is a terminal (`cli.progress`); errors as they come,
    above the bar."""
    with progress("analysing", total, quiet, "files") as meter:

        def on_done(path: str, error: FileError | None) -> None:
            del path  # (`OnDone`'s signature: the error names its file)
            if error is not None:
                meter.note(inert(f"acptrace: error: {error.path}: {error.message}").plain)
            meter.advance()

        yield on_done


@contextmanager
def _drawing(path: str, kind: Kind, report: Report, quiet: bool) -> Iterator[None]:
    """The charts drawn of report.html's (`charts.DRAWN`): they take seconds for many groups;
    .json and .md are written at once."""
    if kind is not Kind.HTML or not shows_progress(quiet):
        yield
        return
    with progress(f"drawing {Path(path).name}", chart_count(report), quiet, "charts") as meter:
        token = charts.DRAWN.set(meter.advance)
        try:
            yield
        finally:
            charts.DRAWN.reset(token)


def _stdout(stdout_format: StdoutFormat, report: Report, comparison: Comparison | None) -> bytes:
    """What stdout gets: the terminal summary, or the text a .json or .md file would hold."""
    match stdout_format:
        case StdoutFormat.RICH:
            return rich_bytes(*terminal_report(report, comparison))
        case StdoutFormat.JSON:
            return _render(Kind.JSON, report, comparison)
        case StdoutFormat.MARKDOWN:
            return _render(Kind.MARKDOWN, report, comparison)


def _render(kind: Kind, report: Report, comparison: Comparison | None) -> bytes:
    match kind:
        case Kind.JSON:
            return dumps(report, comparison)
        case Kind.MARKDOWN:
            return render_markdown(report, comparison)
        case Kind.HTML:
            return render_html(report, comparison)


def _exit_code(report: Report, comparison: Comparison | None) -> int:
    """2 when a file could not be read (the report is still written) or a limit could check
    nothing (a gate that can check nothing fails: rules.md §11), else 1 on a regression."""
    if report.errors or (comparison is not None and comparison.unchecked):
        return EXIT_ERROR
    if comparison is not None and comparison.regressions:
        return EXIT_FINDINGS
    return EXIT_OK
