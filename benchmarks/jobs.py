"""Time `--jobs` against one process for `analyze`, `report` and `export`, side by side in one run.

    python benchmarks/jobs.py                       # every set, every command, 3 rounds
    python benchmarks/jobs.py --sets many5,big100 --commands report --reps 5

For each set of transcripts and each command, the contenders run in turn, round after round
(one process each, on a warm page cache): the default (no `--jobs`), `--jobs 2` and
`--jobs 1`. The table gives, per contender, the median over the rounds of its wall time, CPU
time (user + system, its workers included) and peak resident memory of its largest process,
each as a ratio to `--jobs 1` in the same round: a wall ratio above 1 is slower than one
process. Seconds are printed only to show the scale; the machine is shared, so quote ratios.
Transcripts come from `benchmarks/generate.py` and are cached in `benchmarks/out/jobs/`.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE / "out" / "jobs"

SETS = {
    "one5": (1, 5),
    "few1": (4, 1),
    "many1": (100, 1),
    "many5": (40, 5),
    "big100": (8, 100),
}
"""Name: (files, megabytes each)."""
CONTENDERS = {"default": [], "jobs2": ["--jobs", "2"], "jobs1": ["--jobs", "1"]}
"""What is timed; `jobs1` is the yardstick."""


@dataclass(frozen=True, slots=True)
class Run:
    wall_s: float
    cpu_s: float
    peak_mb: float


def transcripts(name: str) -> list[Path]:
    """The set's files, generated on first use."""
    count, mb = SETS[name]
    folder = OUT / name
    folder.mkdir(parents=True, exist_ok=True)
    paths = [folder / f"t{n:03d}.jsonl" for n in range(count)]
    for n, path in enumerate(paths):
        if not path.exists():
            subprocess.run(
                [
                    *(sys.executable, str(HERE / "generate.py"), "--mb", str(mb)),
                    *("--seed", str(n + 1), "-o", str(path)),
                    *("--corpus", "large"),  # (what the figures in pool.py were measured on)
                ],
                check=True,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
    return paths


def command(name: str, paths: list[Path], scratch: Path) -> list[str]:
    base = [sys.executable, "-m", "acptrace"]
    files = [str(p) for p in paths]
    match name:
        case "analyze":
            return [*base, "analyze", "-q", "-f", "json", "-o", os.devnull, *files]
        case "report":
            return [*base, "report", "-q", *files]
        case "export":
            return [*base, "export", "-f", "parquet", "-o", str(scratch / "tables"), *files]
    raise SystemExit(f"unknown command {name}")


def timed(argv: list[str]) -> Run:
    """Run once; wall and CPU of the process and its workers, peak of the largest."""
    start = time.perf_counter()
    child = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - start
    child.returncode = os.waitstatus_to_exitcode(status)
    errors = child.stderr.read() if child.stderr else b""
    if child.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(argv[:6])} ... exit {child.returncode}: {errors[-500:]!r}")
    return Run(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024)  # (KiB on Linux)


def measure(set_name: str, command_name: str, reps: int) -> dict[str, list[dict[str, float]]]:
    paths = transcripts(set_name)
    ratios: dict[str, list[dict[str, float]]] = {name: [] for name in CONTENDERS}
    with tempfile.TemporaryDirectory(prefix="acptrace-jobs-") as scratch:
        for round_ in range(reps + 1):  # the first round warms the cache and is not counted
            runs = {}
            for name, extra in CONTENDERS.items():
                shutil.rmtree(Path(scratch) / "tables", ignore_errors=True)
                runs[name] = timed([*command(command_name, paths, Path(scratch)), *extra])
            if round_ == 0:
                continue
            one = runs["jobs1"]
            for name, run in runs.items():
                ratios[name].append(
                    {
                        "wall": run.wall_s / one.wall_s,
                        "cpu": run.cpu_s / one.cpu_s,
                        "peak": run.peak_mb / one.peak_mb,
                        "wall_s": run.wall_s,
                    }
                )
    return ratios


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", default=",".join(SETS), help="Comma-separated set names.")
    parser.add_argument("--commands", default="analyze,report,export")
    parser.add_argument("--reps", type=int, default=3)
    args = parser.parse_args()
    sys.path.insert(0, str(HERE.parent))
    from benchmarks.bytecode import use_installed_bytecode

    use_installed_bytecode()
    print(f"{'set':8} {'command':8} {'contender':9} {'wall':>6} {'cpu':>6} {'peak':>6} {'s':>7}")
    for set_name in args.sets.split(","):
        for command_name in args.commands.split(","):
            ratios = measure(set_name, command_name, args.reps)
            for name, rounds in ratios.items():
                med = {key: statistics.median(r[key] for r in rounds) for key in rounds[0]}
                print(
                    f"{set_name:8} {command_name:8} {name:9} {med['wall']:6.2f} "
                    f"{med['cpu']:6.2f} {med['peak']:6.2f} {med['wall_s']:7.2f}",
                    flush=True,
                )


if __name__ == "__main__":
    main()
