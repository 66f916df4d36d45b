"""Time how long `acptrace` takes to start: `--version`, and `analyze` of a small file.

    python benchmarks/startup.py --reps 21

Each command runs as its own process, once per round, next to `python -c pass` (the
interpreter's own start-up, the floor no Python program goes below); the table gives the
median and best wall time, the median over the rounds of the ratio to that round's
`python -c pass`, and the time above it (what acptrace's imports and work cost).

The commands run in an empty folder, as in a user's folder with no config file: found upward
(this repository's `pyproject.toml` names acptrace), a config file adds its reading, ~3 ms.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from benchmarks.bytecode import use_installed_bytecode  # noqa: E402
from benchmarks.run import Contender, measure  # noqa: E402

PYTHON = sys.executable
SMALL = HERE.parent / "sample_traces" / "mixed-session.jsonl"
BASELINE = "python -c pass"


def contenders() -> list[Contender]:
    """The interpreter alone, then the commands; the installed console script when there is
    one next to this Python (what a user runs), else `python -m acptrace`."""
    script = Path(PYTHON).with_name("acptrace")
    acptrace = [str(script)] if script.exists() else [PYTHON, "-m", "acptrace"]
    analyze = [*acptrace, "analyze", str(SMALL)]
    return [
        Contender(BASELINE, [PYTHON, "-c", "pass"]),
        Contender("acptrace --version", [*acptrace, "--version"]),
        Contender("acptrace analyze (terminal)", analyze, ok_codes=(0, 1)),
        Contender("acptrace analyze --format json", [*analyze, "--format", "json"], (0, 1)),
    ]


def run(reps: int) -> dict[str, list[float]]:
    """Wall seconds of every contender, `reps` rounds, the order turning by one each round."""
    found = contenders()
    for contender in found:  # (a warm-up: byte-code compiled, files in the page cache)
        measure(contender)
    timings: dict[str, list[float]] = {c.name: [] for c in found}
    for round_index in range(reps):
        turn = round_index % len(found)
        for contender in found[turn:] + found[:turn]:
            timings[contender.name].append(measure(contender)[0])
    return timings


def table(timings: dict[str, list[float]]) -> str:
    """The timings as a Markdown table, in milliseconds, with ratios to `python -c pass`."""
    base = timings[BASELINE]
    lines = [
        "| command | median ms | best ms | x python -c pass | above it ms |",
        "|---|---:|---:|---:|---:|",
    ]
    for name, runs in timings.items():
        ratio = statistics.median(t / b for t, b in zip(runs, base, strict=True))
        above = statistics.median(t - b for t, b in zip(runs, base, strict=True))
        lines.append(
            f"| {name} | {statistics.median(runs) * 1000:.0f} | {min(runs) * 1000:.0f} "
            f"| {ratio:.2f} | {above * 1000:.0f} |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=21, help="rounds (medians over them)")
    args = parser.parse_args()
    use_installed_bytecode()
    with tempfile.TemporaryDirectory() as empty:
        os.chdir(empty)
        timings = run(args.reps)
    print(f"\nstart-up, {args.reps} rounds, {SMALL.name} ({SMALL.stat().st_size:,} bytes)\n")
    print(table(timings))


if __name__ == "__main__":
    main()
