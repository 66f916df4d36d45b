"""Latency reports over many transcripts: parallel analysis, groups, statistics, baselines.

Directories of tables that `acptrace export` wrote are read in place of their transcripts
(`acptrace.report.from_tables`), with the same numbers.

>>> from acptrace.report import GroupBy, Metric, build_report
>>> report = build_report(["runs/"], by=GroupBy.AGENT)
>>> report.groups[0].metrics[Metric.MARKER_TO_RESPONSE].p90
"""

from __future__ import annotations

import glob
from collections.abc import Sequence
from pathlib import Path

from acptrace.judge.idle_timers import DEFAULT_IDLE_TIMEOUTS_MS
from acptrace.model.options import Options
from acptrace.read.inputs import Skipped, Unmatched, expand
from acptrace.report.collect import Collection, Progress, analyze_files
from acptrace.report.from_tables import find_exports, is_export, is_table_file
from acptrace.report.groups import build_groups
from acptrace.report.own_files import split_own_files
from acptrace.report.summaries import FileError, Group, GroupBy, Metric, Report


def gather(arguments: Sequence[str]) -> tuple[list[str], list[FileError]]:
    """Command-line arguments (files, directories, globs) as transcript paths and export
    directories (`acptrace export` tables, found recursively in a directory), and an error for
    each argument that matches nothing and for what a directory held that was not read (a
    folder that cannot be listed, a link to outside it). The tables' files that a directory or
    a glob holds are left out of the transcripts; a file named is kept, whatever it is."""
    files: list[str] = []
    unmatched: list[FileError] = []
    for argument in arguments:
        exports = _exports(argument)
        expanded = list(expand([argument]))
        named = Path(argument).is_file()  # (a file named is read, even a table's)
        found = [
            path
            for path in expanded
            if isinstance(path, str) and (named or not is_table_file(path))
        ]
        if exports and not found:
            files += exports
            continue
        files += sorted([*found, *exports]) if exports else found
        unmatched += [FileError(u.argument, u.reason) for u in expanded if isinstance(u, Unmatched)]
        unmatched += [FileError(s.path, s.reason) for s in expanded if isinstance(s, Skipped)]
    return files, unmatched


def _exports(argument: str) -> list[str]:
    """The export directories an argument names: a directory's, or a glob's directories."""
    if argument == "-" or Path(argument).is_file():
        return []
    if Path(argument).is_dir():
        return find_exports(argument)
    return sorted(match for match in glob.glob(argument, recursive=True) if is_export(match))


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
