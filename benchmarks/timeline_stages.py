"""Time the stages of `acptrace timeline FILE` one by one, in this process, per line of FILE.

    PYTHONPATH=<checkout> python benchmarks/timeline_stages.py FILE --reps 5

The stages, each timed alone (CPU seconds, the least of `--reps` rounds): the first pass
(`analyze_parked`), the walk (its items, not kept), the entries (`TimelineBuilder` over the
walk's items, read once beforehand), the rows of cells (`TimelineStream` over the same items,
less the entries' time) and the plain text of the rows (`Rows.plain_text`, 160 wide). With
`PYTHONPATH` set to another checkout (main's, say), the same stages of its code; a walk that
has no `runs_whole` yields a step for each update, as the timeline's walk did before.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec

from acptrace.model.options import Execution, Options
from acptrace.pipeline.parked import analyze_parked
from acptrace.pipeline.transcripts import analyze, open_walks
from acptrace.render.entries import TimelineBuilder, View
from acptrace.render.timeline import Rows, TimelineStream

WIDTH = 160
EVERY_RULE = ("",)


def least(run: Callable[[], Any], reps: int) -> tuple[float, Any]:
    """The least CPU seconds of `reps` calls, and what the last returned."""
    best, value = float("inf"), None
    for _ in range(reps):
        start = time.process_time()
        value = run()
        best = min(best, time.process_time() - start)
    return best, value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file", type=Path)
    parser.add_argument("--reps", type=int, default=5)
    args = parser.parse_args()
    path, reps = str(args.file), args.reps
    with args.file.open("rb") as stream:
        known = analyze(stream)
    lines = known.source.lines
    walking = msgspec.structs.replace(Options(), select=(), ignore=EVERY_RULE)

    def first_pass() -> None:
        with tempfile.TemporaryDirectory() as scratch:
            analyze_parked(path, Options(), Path(scratch) / "ahead", name=path)

    def walk() -> list[Any]:
        execution = Execution(payloads=True)
        with open_walks(path, walking, name=path, each_message=False, execution=execution) as walks:
            (one,) = walks
            one.runs_whole = True  # (a walk without it never reads it)
            return list(one)

    items = walk()

    def entries() -> None:
        builder = TimelineBuilder(View())
        for item in items:
            builder.add(item)
            builder.take()

    def rows() -> list[Rows]:
        timeline = TimelineStream(TimelineBuilder(View()), known)
        blocks = [block for item in items for block in timeline.add(item)]
        blocks.extend(timeline.finish(known))
        return [block for block in blocks if isinstance(block, Rows)]

    timed = {"first pass": least(first_pass, reps)[0], "walk": least(walk, reps)[0]}
    timed["entries"] = least(entries, reps)[0]
    with_entries, blocks = least(rows, reps)
    timed["rows of cells"] = with_entries - timed["entries"]
    timed["plain text"] = least(lambda: [block.plain_text(WIDTH) for block in blocks], reps)[0]
    print(f"{lines:,} lines")
    print("| stage | CPU s | per line µs |\n|---|---:|---:|")
    for stage, seconds in timed.items():
        print(f"| {stage} | {seconds:.3f} | {seconds / lines * 1e6:.2f} |")


if __name__ == "__main__":
    main()
