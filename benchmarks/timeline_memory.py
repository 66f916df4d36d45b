"""Memory and time of `acptrace timeline` on big transcripts (issue #15 item 7).

For each size, generates a transcript (`benchmarks/generate.py`, cached in `benchmarks/out/`),
runs `acptrace timeline FILE -o /dev/null` and `acptrace analyze FILE` in fresh processes, and
prints each one's peak RSS next to the file size, and the timeline's wall time as a ratio to
the analysis of the same file in the same round (the machine's speed drifts; the ratio less).
`--stdin` feeds the timeline through a pipe instead (read once, no first pass).

    .venv/bin/python benchmarks/timeline_memory.py --mb 200
    .venv/bin/python benchmarks/timeline_memory.py --mb 30 200 1000 --reps 1
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.run import PYTHON, Contender, measure, transcripts

ACPTRACE = [PYTHON, "-m", "acptrace"]


def commands(path: Path, stdin: bool) -> tuple[Contender, Contender]:
    """The timeline (exit 1 with findings is a success) and the analysis it is compared to."""
    if stdin:
        pipe = f"{' '.join(ACPTRACE)} timeline - -o /dev/null --no-config < '{path}'"
        timeline = Contender("timeline (stdin)", ["sh", "-c", pipe], (0, 1))
    else:
        args = ["timeline", str(path), "-o", "/dev/null", "--no-config"]
        timeline = Contender("timeline", [*ACPTRACE, *args], (0, 1))
    analyze = [*ACPTRACE, "analyze", str(path), "--no-config", "-o", "/dev/null"]
    return timeline, Contender("analyze", analyze, (0, 1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mb", type=float, nargs="+", default=[200.0], help="sizes in MB")
    parser.add_argument("--reps", type=int, default=1, help="rounds per size")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--stdin", action="store_true", help="pipe the timeline's input")
    args = parser.parse_args()
    print("| file MB | timeline peak RSS MB | analyze peak RSS MB | timeline s | x analyze |")
    print("|---:|---:|---:|---:|---:|")
    for mb in args.mb:
        (path,) = transcripts(mb, 1, args.seed)
        timeline, analyze = commands(path, args.stdin)
        rounds = []
        for _ in range(args.reps):
            shown_s, shown_mb = measure(timeline)
            analysed_s, analysed_mb = measure(analyze)
            rounds.append((shown_s, shown_mb, analysed_mb, shown_s / analysed_s))
        size = path.stat().st_size / 1e6
        seconds = statistics.median(r[0] for r in rounds)
        peak = max(r[1] for r in rounds)
        analysed = max(r[2] for r in rounds)
        ratio = statistics.median(r[3] for r in rounds)
        print(f"| {size:,.0f} | {peak:,.0f} | {analysed:,.0f} | {seconds:,.1f} | {ratio:.1f} |")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
