"""Many transcripts at once: one process per core, results in the order the paths were given."""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor

from acptrace.analysis import analyze
from acptrace.errors import UnreadableInput
from acptrace.model import Analysis
from acptrace.options import Options


def analyze_many(
    paths: Sequence[str], options: Options, jobs: int = 0
) -> Iterator[Analysis | UnreadableInput]:
    """Analyse each path (in parallel when `jobs` > 1; 0 means one per core), in order.

    A file that cannot be read yields its `UnreadableInput` instead of stopping the others.
    """
    workers = min(jobs or os.cpu_count() or 1, len(paths))
    if workers <= 1:
        yield from (_analyze_one(path, options) for path in paths)
        return
    with ProcessPoolExecutor(max_workers=workers) as pool:
        yield from pool.map(_analyze_one, paths, [options] * len(paths))


def _analyze_one(path: str, options: Options) -> Analysis | UnreadableInput:
    try:
        return analyze(path, options)
    except UnreadableInput as error:
        return error
