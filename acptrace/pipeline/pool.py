"""Many transcripts at once: one process per core, results in the order the paths were given.

One transcript alone gets the processes instead: a big one is split across them
(`acptrace.pipeline.pieces`).
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace

from acptrace.model.domain import Analysis
from acptrace.model.errors import UnreadableInput
from acptrace.model.options import Options
from acptrace.pipeline.connections import analyze_file
from acptrace.pipeline.pieces import USEFUL_PROCESSES


def analyze_many(
    paths: Sequence[str], options: Options, jobs: int = 0
) -> Iterator[list[Analysis] | UnreadableInput]:
    """Analyse each path (in parallel when `jobs` > 1; 0 means one per core), in order: the
    analyses of its connections (one, but for a file that holds several).

    With one path, the `jobs` processes go to that file (`Options.split`; 0 means one per
    core up to `USEFUL_PROCESSES`). A file that cannot be read yields its `UnreadableInput`
    instead of stopping the others.
    """
    cores = os.cpu_count() or 1
    if len(paths) == 1:
        options = replace(options, split=jobs or min(cores, USEFUL_PROCESSES))
    workers = min(jobs or cores, len(paths))
    if workers <= 1:
        yield from (_analyze_one(path, options) for path in paths)
        return
    with ProcessPoolExecutor(max_workers=workers) as pool:
        yield from pool.map(_analyze_one, paths, [options] * len(paths))


def _analyze_one(path: str, options: Options) -> list[Analysis] | UnreadableInput:
    try:
        return analyze_file(path, options)
    except UnreadableInput as error:
        return error
