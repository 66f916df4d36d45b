"""Latency reports over many transcripts: parallel analysis, groups, statistics, baselines.

>>> from acptrace.report import GroupBy, Metric, build_report
>>> report = build_report(["runs/"], by=GroupBy.AGENT)
>>> report.groups[0].metrics[Metric.MARKER_TO_RESPONSE].p90
"""

from __future__ import annotations

from collections.abc import Sequence

from acptrace.judge.idle_timers import DEFAULT_IDLE_TIMEOUTS_MS
from acptrace.model.options import Options
from acptrace.read.inputs import Unmatched, expand
from acptrace.report.collect import Collection, Progress, analyze_files
from acptrace.report.groups import build_groups
from acptrace.report.own_files import split_own_files
from acptrace.report.summaries import FileError, Group, GroupBy, Metric, Report


def gather(arguments: Sequence[str]) -> tuple[list[str], list[FileError]]:
    """Command-line arguments (files, directories, globs) as transcript paths, and an error
    for each argument that matches nothing."""
    expanded = list(expand(arguments))
    files = [path for path in expanded if isinstance(path, str)]
    unmatched = [FileError(u.argument, u.reason) for u in expanded if isinstance(u, Unmatched)]
    return files, unmatched


def assemble(
    by: GroupBy,
    collection: Collection,
    unmatched: Sequence[FileError] = (),
    idle_timeouts_ms: Sequence[float] = DEFAULT_IDLE_TIMEOUTS_MS,
) -> Report:
    """The report of the collected files (idle timers judged for these timeouts)."""
    return Report(
        group_by=by,
        groups=build_groups(collection.summaries, by, idle_timeouts_ms),
        files=len({summary.path for summary in collection.summaries}),
        errors=(*unmatched, *collection.errors),
    )


def build_report(
    arguments: Sequence[str],
    options: Options | None = None,
    *,
    by: GroupBy = GroupBy.AGENT,
    jobs: int | None = None,
    progress: Progress | None = None,
    idle_timeouts_ms: Sequence[float] = DEFAULT_IDLE_TIMEOUTS_MS,
) -> Report:
    """Analyse the transcripts (files, directories or globs, as on the command line) in
    parallel and add them up by group; arguments that match nothing are errors of the report."""
    files, unmatched = gather(arguments)
    files, _ = split_own_files(files)  # earlier reports in a folder are not transcripts
    collection = analyze_files(files, options or Options(), jobs=jobs, progress=progress)
    return assemble(by, collection, unmatched, idle_timeouts_ms)


__all__ = [
    "Collection",
    "FileError",
    "Group",
    "GroupBy",
    "Metric",
    "Report",
    "analyze_files",
    "assemble",
    "build_report",
    "gather",
]
