"""Two runs of `acptrace analyze` right after each other: the second must be as fast as the first.

    python benchmarks/back_to_back.py --mb 200 --pairs 5

Each pair runs the default (no `--jobs`) on one generated transcript twice in a row, with no
pause between; a pause of `--rest` seconds separates the pairs. The table gives the median
wall and CPU time (user + system, workers included) of the first and the second run, and the
median over the pairs of the second's wall time over the first's. (The default once read the
load average, which the first run raises: the second then took one process, ~1.8x slower.)
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from benchmarks.bytecode import use_installed_bytecode  # noqa: E402
from benchmarks.run import PYTHON, Contender, measure_cpu, transcripts  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=200, help="transcript size in MB")
    parser.add_argument("--pairs", type=int, default=5, help="pairs of runs (medians over them)")
    parser.add_argument("--rest", type=float, default=20.0, help="seconds between pairs")
    parser.add_argument("--corpus", choices=("realistic", "large"), default="realistic")
    args = parser.parse_args()
    use_installed_bytecode()
    (path,) = transcripts(args.mb, 1, 1, args.corpus)
    command = [PYTHON, "-m", "acptrace", "analyze", "--format", "json", "-o", os.devnull]
    analyze = Contender("acptrace (default jobs)", [*command, str(path)], (0, 1))
    firsts: list[tuple[float, float]] = []
    seconds: list[tuple[float, float]] = []
    for index in range(args.pairs):
        if index:
            time.sleep(args.rest)
        first_wall, _, first_cpu = measure_cpu(analyze)
        second_wall, _, second_cpu = measure_cpu(analyze)
        firsts.append((first_wall, first_cpu))
        seconds.append((second_wall, second_cpu))
        print(f"  pair {index + 1}: {first_wall:.2f} s then {second_wall:.2f} s", file=sys.stderr)
    ratio = statistics.median(b[0] / a[0] for a, b in zip(firsts, seconds, strict=True))
    load = os.getloadavg()[0]
    print(
        f"\n{path.stat().st_size / 1e6:,.0f} MB, {args.pairs} pairs, load average now {load:.1f}\n"
    )
    print("| run | median wall s | median CPU s |")
    print("|---|---:|---:|")
    for name, runs in (("first", firsts), ("second, right after", seconds)):
        wall = statistics.median(w for w, _ in runs)
        cpu = statistics.median(c for _, c in runs)
        print(f"| {name} | {wall:.2f} | {cpu:.2f} |")
    print(f"\nsecond / first (wall, median over pairs): {ratio:.2f}")


if __name__ == "__main__":
    main()
