"""`acptrace report -o report.html` (charts drawn by matplotlib) next to `-o report.md` (the same
report, no charts) over the same transcripts, each a child process, `--reps` rounds with the
order turning: median wall and CPU seconds (user + system of the child), and the median over
rounds of the HTML report's CPU over the Markdown one's, which is what to read on a shared
machine.

    python benchmarks/report_html.py                      # ../shared/real-world, or sample_traces
    python benchmarks/report_html.py DIR --reps 5
    python benchmarks/report_html.py --code DIR           # another checkout (main's: before/after)
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.run import Contender, measure_cpu  # noqa: E402

SHARED = ROOT.parent / "shared" / "real-world"
KINDS = ("html", "md")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    default = SHARED if SHARED.is_dir() else ROOT / "sample_traces"
    parser.add_argument("inputs", nargs="*", default=[str(default)])
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--code", default=str(ROOT), help="the checkout whose acptrace is timed")
    args = parser.parse_args()
    os.environ["PYTHONPATH"] = str(Path(args.code).resolve())
    inputs = [str(Path(name).resolve()) for name in args.inputs]
    walls: dict[str, list[float]] = {kind: [] for kind in KINDS}
    cpus: dict[str, list[float]] = {kind: [] for kind in KINDS}
    ratios = []
    with tempfile.TemporaryDirectory() as out:
        os.chdir(out)  # (`python -m` imports from the folder it starts in before PYTHONPATH)
        command = [sys.executable, "-m", "acptrace", "report", *inputs, "-q", "-o"]
        reports = {kind: Contender(kind, [*command, f"report.{kind}"]) for kind in KINDS}
        for rep in range(args.reps):
            for kind in KINDS if rep % 2 == 0 else KINDS[::-1]:
                wall, _, cpu = measure_cpu(reports[kind])
                walls[kind].append(wall)
                cpus[kind].append(cpu)
            ratios.append(cpus["html"][-1] / cpus["md"][-1])
            print(f"  round {rep + 1}: html {cpus['html'][-1]:.2f} s CPU, md "
                  f"{cpus['md'][-1]:.2f} s CPU", file=sys.stderr)  # fmt: skip
    print(f"{', '.join(args.inputs)} ({args.code}), {args.reps} rounds\n")
    print("| report | median wall s | median CPU s |\n|---|---:|---:|")
    for kind in KINDS:
        wall, cpu = statistics.median(walls[kind]), statistics.median(cpus[kind])
        print(f"| report.{kind} | {wall:.2f} | {cpu:.2f} |")
    print(f"\nreport.html's CPU over report.md's: {statistics.median(ratios):.1f}x (median)")


if __name__ == "__main__":
    main()
