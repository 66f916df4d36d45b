"""Time `acptrace timeline` next to `acptrace analyze --jobs 1 --format json` on one file.

    python benchmarks/timeline_speed.py benchmarks/out/bench-realistic-200mb-seed1.jsonl --reps 3

Each command runs as its own process, once per round, its output discarded (`/dev/null`, not a
terminal: the timeline writes plain text); the order of the two turns by one every round. The
table gives each command's median CPU seconds (user + system of the child) and wall seconds,
and the timeline's CPU ratio: the median over the rounds of the timeline's CPU over analyze's
of the same round (issue #22 asks for at most 5x). `--code` times another checkout's code
(e.g. main's, for a before/after), run with this Python.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from benchmarks.run import Contender, measure_cpu  # noqa: E402

PYTHON = sys.executable
ANALYZE = "analyze --jobs 1 --format json"
TIMELINE = "timeline"


def contenders(path: Path) -> list[Contender]:
    """The two commands on the same file (exit 1 is a finding, not a failure)."""
    acptrace = [PYTHON, "-m", "acptrace"]
    return [
        Contender(
            ANALYZE, [*acptrace, "analyze", str(path), "--jobs", "1", "--format", "json"], (0, 1)
        ),
        Contender(TIMELINE, [*acptrace, "timeline", str(path)], (0, 1)),
    ]


def run(path: Path, reps: int) -> dict[str, list[tuple[float, float]]]:
    """CPU and wall seconds of both commands, `reps` rounds, the order turning every round."""
    found = contenders(path)
    timings: dict[str, list[tuple[float, float]]] = {c.name: [] for c in found}
    for round_index in range(reps):
        turn = round_index % len(found)
        for contender in found[turn:] + found[:turn]:
            wall, _, cpu = measure_cpu(contender)
            timings[contender.name].append((cpu, wall))
        line = ", ".join(f"{name} {runs[-1][0]:.2f} s CPU" for name, runs in timings.items())
        print(f"  round {round_index + 1}: {line}", file=sys.stderr)
    return timings


def table(timings: dict[str, list[tuple[float, float]]]) -> str:
    """The medians as a Markdown table, with the timeline's CPU ratio to analyze's."""
    base = timings[ANALYZE]
    lines = ["| command | median CPU s | median wall s | CPU x analyze |", "|---|---:|---:|---:|"]
    for name, runs in timings.items():
        ratio = statistics.median(cpu / b for (cpu, _), (b, _) in zip(runs, base, strict=True))
        cpu = statistics.median(cpu for cpu, _ in runs)
        wall = statistics.median(wall for _, wall in runs)
        lines.append(f"| {name} | {cpu:.2f} | {wall:.2f} | {ratio:.2f} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file", type=Path, help="the transcript (e.g. the 200 MB corpus)")
    parser.add_argument("--reps", type=int, default=3, help="rounds (medians over them)")
    parser.add_argument("--code", type=Path, help="time the acptrace package of this checkout")
    args = parser.parse_args()
    if args.code is not None:
        os.environ["PYTHONPATH"] = str(args.code.resolve())
    path = args.file.resolve()
    os.chdir("/")  # (no config file found upward: both read the same defaults)
    print(table(run(path, args.reps)))


if __name__ == "__main__":
    main()
