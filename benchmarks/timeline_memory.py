"""Memory and time of `acptrace timeline` on big transcripts (issue #15 item 7).

For each size, generates a transcript (`benchmarks/generate.py`, cached in `benchmarks/out/`),
runs `acptrace timeline FILE -o /dev/null` and `acptrace analyze FILE` in fresh processes, and
prints each one's peak RSS next to the file size, and the timeline's wall and CPU time (user +
system, its worker processes included), the CPU time also as a ratio to the analysis of the
same file in the same round (shared machines drift in wall time; CPU time and ratio less).
`--stdin` feeds the timeline through a pipe instead (read once, no first pass).

    .venv/bin/python benchmarks/timeline_memory.py --mb 200
    .venv/bin/python benchmarks/timeline_memory.py --mb 30 200 1000 --reps 1
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.bytecode import use_installed_bytecode
from benchmarks.run import PYTHON, Contender, transcripts

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


def measure(contender: Contender) -> tuple[float, float, float]:
    """Wall seconds, CPU seconds and peak RSS (MB) of one run, output discarded (the rusage
    of the child and of the workers it waited for)."""
    start = time.perf_counter()
    process = subprocess.Popen(contender.command, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(process.pid, 0)
    elapsed = time.perf_counter() - start
    code = os.waitstatus_to_exitcode(status)
    if code not in contender.ok_codes:
        raise SystemExit(f"{contender.name} failed with exit code {code}")
    return elapsed, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mb", type=float, nargs="+", default=[200.0], help="sizes in MB")
    parser.add_argument("--reps", type=int, default=1, help="rounds per size")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--stdin", action="store_true", help="pipe the timeline's input")
    args = parser.parse_args()
    use_installed_bytecode()
    print(
        "| file MB | timeline peak RSS MB | analyze peak RSS MB | timeline s | CPU s | x analyze |"
    )
    print("|---:|---:|---:|---:|---:|---:|")
    for mb in args.mb:
        (path,) = transcripts(mb, 1, args.seed)
        timeline, analyze = commands(path, args.stdin)
        rounds = []
        for _ in range(args.reps):
            wall, cpu, peak = measure(timeline)
            _, analysed_cpu, analysed_peak = measure(analyze)
            rounds.append((wall, cpu, peak, analysed_peak, cpu / analysed_cpu))
        size = path.stat().st_size / 1e6
        wall = statistics.median(r[0] for r in rounds)
        cpu = statistics.median(r[1] for r in rounds)
        peak = max(r[2] for r in rounds)
        analysed_peak = max(r[3] for r in rounds)
        ratio = statistics.median(r[4] for r in rounds)
        print(
            f"| {size:,.0f} | {peak:,.0f} | {analysed_peak:,.0f} | {wall:,.1f} | {cpu:,.1f} "
            f"| {ratio:.1f} |"
        )
        sys.stdout.flush()


if __name__ == "__main__":
    main()
