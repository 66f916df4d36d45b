"""Analysing many transcripts for a report (`acptrace.pipeline.pool` runs them); a bad file is
skipped.

Each file's analysis sends back a `FileSummary` (rows and findings, never the
transcript). A file that cannot be read, or whose analysis fails, becomes a `FileError` and the
others go on. An export directory among the paths is read instead of analysed
(`acptrace.report.from_tables`): its tables give the same summaries.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from acptrace.correlate.correlator import Step
from acptrace.model.domain import Analysis, MessageKind
from acptrace.model.errors import UnreadableInput, UsageError
from acptrace.model.options import Execution, Options
from acptrace.pipeline.analysis import Walk
from acptrace.pipeline.pool import each_file
from acptrace.pipeline.transcripts import open_walks, require_transcript
from acptrace.report.from_tables import is_export, qualify, read_exports
from acptrace.report.summaries import FileError, FileSummary


@dataclass(frozen=True, slots=True)
class FileAnalysed:
    """A file that could be analysed: one summary per connection it holds."""

    path: str
    """The path as given."""
    summaries: tuple[FileSummary, ...]
    """Its connections' summaries, in file order (one for most formats)."""


Outcome = FileAnalysed | FileError
"""What analysing one file gives."""

Progress = Callable[[str, FileError | None], None]
"""Called in the calling process as each file is done (its path, and its error if it failed)."""


@dataclass(frozen=True, slots=True)
class Collection:
    """The summaries of the files that could be analysed and the errors of those that could not,
    each in the order the paths were given."""

    summaries: tuple[FileSummary, ...]
    """Analysed files (one summary per connection, in a file that holds several)."""
    errors: tuple[FileError, ...]
    """Files that could not be analysed."""


def summarize(path: str, analysis: Analysis, started_us: int | None = None) -> FileSummary:
    """The part of an analysis a report needs (and when its connection started)."""
    return FileSummary(
        path=path,
        agent=analysis.connection.agent,
        client=analysis.connection.client,
        resumes=analysis.resumes,
        findings=analysis.findings,
        issues=len(analysis.issues),
        connection=analysis.source.connection,
        started_us=started_us,
        turns=analysis.turns,
        tool_calls=analysis.tool_calls,
        permissions=analysis.permissions,
    )


def analyze_timed(
    path: str, options: Options, *, execution: Execution | None = None
) -> list[tuple[Analysis, int | None]]:
    """`acptrace.analyze_file`, each analysis with the wall-clock time of its connection's
    first request that has one (`FileSummary.started_us`), taken as the walk goes by."""
    with open_walks(path, options, each_message=False, execution=execution) as walks:
        return [_walked(walk) for walk in walks]


def _walked(walk: Walk) -> tuple[Analysis, int | None]:
    started = None
    for item in walk:
        if started is None and isinstance(item, Step):
            message = item.message
            if message.kind is MessageKind.REQUEST and message.ts_ns is not None:
                started = message.ts_ns // 1000  # (microseconds, as the requests table's)
    return walk.analysis, started


def analyze_one(path: str, options: Options, *, execution: Execution | None = None) -> Outcome:
    """Analyse one file; any failure becomes a `FileError` (options that cannot work for any
    file, such as an unknown input format, are the caller's to check first)."""
    try:
        timed = analyze_timed(path, options, execution=execution)
        analyses = [analysis for analysis, _ in timed]
        require_transcript(path, analyses, quoting=False)  # (empty, binary: errors; unquoted)
        return FileAnalysed(path, tuple(summarize(path, *each) for each in timed))
    except (UnreadableInput, UsageError) as error:
        return FileError(path, str(error).removeprefix(f"{path}: "))
    except Exception as error:
        return FileError(path, f"analysis failed: {type(error).__name__}: {error}")


def analyze_files(
    paths: Sequence[str],
    options: Options,
    *,
    jobs: int | None = None,
    progress: Progress | None = None,
) -> Collection:
    """Analyse every path in the processes `jobs` asks for (`acptrace.pipeline.pool.plan`:
    None or 0 chooses, 1 is this process only); `-` (stdin) is read in this process. Export
    directories (`is_export`) are read, in this process, for the summaries they hold."""
    summaries: list[FileSummary] = []
    errors: list[FileError] = []
    for outcome in _outcomes(paths, options, jobs):
        if progress is not None:
            progress(outcome.path, outcome if isinstance(outcome, FileError) else None)
        if isinstance(outcome, FileError):
            errors.append(outcome)
        else:
            summaries.extend(outcome.summaries)
    return Collection(summaries=tuple(summaries), errors=tuple(errors))


def _outcomes(paths: Sequence[str], options: Options, jobs: int | None) -> Iterator[Outcome]:
    """Each path's outcome in the order given: transcripts analysed, export directories read."""
    exported = [path != "-" and is_export(path) for path in paths]
    transcripts = [path for path, export in zip(paths, exported, strict=True) if not export]
    directories = [path for path, export in zip(paths, exported, strict=True) if export]
    analysed = each_file(analyze_one, transcripts, options, jobs, crashed=FileError)
    read = iter(qualify(list(read_exports(directories))) if directories else [])
    for export in exported:
        if not export:
            yield next(analysed)
            continue
        directory, found = next(read)
        yield found if isinstance(found, FileError) else FileAnalysed(directory, found)
