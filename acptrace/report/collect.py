"""Analysing many transcripts in parallel, one process per core; a bad file is skipped.

Each worker analyses one file and sends back a `FileSummary` (rows and findings, never the
transcript). A file that cannot be read, or whose analysis fails, becomes a `FileError` and the
others go on.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass

from acptrace.model.domain import Analysis
from acptrace.model.errors import UnreadableInput, UsageError
from acptrace.model.options import Options
from acptrace.pipeline.analysis import analyze
from acptrace.report.summaries import FileError, FileSummary

Outcome = FileSummary | FileError
"""What analysing one file gives."""

Progress = Callable[[str, FileError | None], None]
"""Called in the calling process as each file is done (its path, and its error if it failed)."""


@dataclass(frozen=True, slots=True)
class Collection:
    """The summaries of the files that could be analysed and the errors of those that could not,
    each in the order the paths were given."""

    summaries: tuple[FileSummary, ...]
    """Analysed files."""
    errors: tuple[FileError, ...]
    """Files that could not be analysed."""


def default_jobs() -> int:
    """The cores this process may use."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def summarize(path: str, analysis: Analysis) -> FileSummary:
    """The part of an analysis a report needs."""
    return FileSummary(
        path=path,
        agent=analysis.connection.agent,
        client=analysis.connection.client,
        resumes=analysis.resumes,
        findings=analysis.findings,
        issues=len(analysis.issues),
    )


def analyze_file(path: str, options: Options) -> Outcome:
    """Analyse one file; any failure becomes a `FileError` (options that cannot work for any
    file, such as an unknown input format, are the caller's to check first)."""
    try:
        return summarize(path, analyze(path, options))
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
    """Analyse every path, in `jobs` processes (default: every core; 1 analyses in this process).
    `-` (stdin) is always read in this process."""
    jobs = jobs or default_jobs()
    results: dict[int, Outcome] = {}
    pooled = [i for i, path in enumerate(paths) if path != "-"]
    local = [i for i, path in enumerate(paths) if path == "-"]
    if jobs == 1 or len(pooled) <= 1:
        local, pooled = sorted(local + pooled), []
    for index in local:
        results[index] = _done(analyze_file(paths[index], options), progress)
    if pooled:
        results |= _in_pool(paths, pooled, options, min(jobs, len(pooled)), progress)
    ordered = [results[i] for i in range(len(paths))]
    return Collection(
        summaries=tuple(r for r in ordered if isinstance(r, FileSummary)),
        errors=tuple(r for r in ordered if isinstance(r, FileError)),
    )


def _in_pool(
    paths: Sequence[str],
    indices: Sequence[int],
    options: Options,
    workers: int,
    progress: Progress | None,
) -> dict[int, Outcome]:
    # spawn: no fork of a process that may run threads (rich's progress bar does)
    context = multiprocessing.get_context("spawn")
    results: dict[int, Outcome] = {}
    with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
        futures: dict[Future[Outcome], int] = {
            pool.submit(analyze_file, paths[i], options): i for i in indices
        }
        for future in as_completed(futures):
            index = futures[future]
            try:
                outcome = future.result()
            except BrokenProcessPool:
                outcome = FileError(paths[index], "the worker process analysing it died")
            results[index] = _done(outcome, progress)
    return results


def _done(outcome: Outcome, progress: Progress | None) -> Outcome:
    if progress is not None:
        error = outcome if isinstance(outcome, FileError) else None
        progress(outcome.path, error)
    return outcome
