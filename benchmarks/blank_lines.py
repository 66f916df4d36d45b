"""Time `acptrace analyze` of a file of blank lines against `wc -l` and a Python line loop.

    python benchmarks/blank_lines.py --lines 100000000 --reps 3

A file of nothing but line ends (100 MB for 100 million) is analysed with `--jobs 1` next to
`wc -l` (how fast lines can be counted) and `for line in f: pass` (line splitting in Python),
each as its own process, once per round; the table gives the median time, peak RSS and the
median over the rounds of the ratio to that round's Python line loop.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from benchmarks.bytecode import use_installed_bytecode  # noqa: E402
from benchmarks.run import LINE_SPLIT, OUT, Contender, measure  # noqa: E402

PYTHON = sys.executable
BASELINE = "python line split"


def blank_file(lines: int) -> Path:
    """A file of `lines` empty lines (made once, in `benchmarks/out/`)."""
    OUT.mkdir(exist_ok=True)
    path = OUT / f"blank-{lines}.jsonl"
    if not path.exists() or path.stat().st_size != lines:
        chunk = b"\n" * (1 << 20)
        with path.open("wb") as stream:
            for _ in range(lines // len(chunk)):
                stream.write(chunk)
            stream.write(b"\n" * (lines % len(chunk)))
    return path


def contenders(path: Path) -> list[Contender]:
    """The line counters, and acptrace, which reads every line before it refuses the file
    (exit 2: "not a transcript (every line is blank)")."""
    acptrace = [PYTHON, "-m", "acptrace", "analyze", "--jobs", "1", "-q", "--no-config"]
    refused = (2,)
    return [
        Contender("wc -l", ["wc", "-l", str(path)]),
        Contender(BASELINE, [PYTHON, "-c", LINE_SPLIT, str(path)]),
        Contender("acptrace analyze", [*acptrace, str(path)], refused),
        Contender("acptrace analyze --format json", [*acptrace, "-f", "json", str(path)], refused),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=100_000_000, help="blank lines in the file")
    parser.add_argument("--reps", type=int, default=3, help="rounds (medians over them)")
    args = parser.parse_args()
    use_installed_bytecode()
    path = blank_file(args.lines)
    found = contenders(path)
    runs: dict[str, list[tuple[float, float]]] = {c.name: [] for c in found}
    for round_index in range(args.reps):
        turn = round_index % len(found)
        for contender in found[turn:] + found[:turn]:
            runs[contender.name].append(measure(contender))
    base = [seconds for seconds, _ in runs[BASELINE]]
    print(
        f"\n{args.lines:,} blank lines ({path.stat().st_size / 1e6:,.0f} MB), {args.reps} rounds\n"
    )
    print("| contender | median s | peak RSS MB | x python line split |")
    print("|---|---:|---:|---:|")
    for name, timings in runs.items():
        seconds = statistics.median(s for s, _ in timings)
        ratio = statistics.median(s / b for (s, _), b in zip(timings, base, strict=True))
        peak = max(rss for _, rss in timings)
        print(f"| {name} | {seconds:.2f} | {peak:,.0f} | {ratio:.2f} |")


if __name__ == "__main__":
    main()
