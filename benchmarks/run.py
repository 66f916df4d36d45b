"""Time `acptrace analyze` against what a user would write instead, on the same file, in one run.

    python benchmarks/run.py --mb 1000 --reps 5            # one big transcript
    python benchmarks/run.py --mb 1000 --files 8 --reps 5  # many files
    python benchmarks/run.py --size 200MB --rounds 3 --contenders acptrace,orjson  # short
    python benchmarks/run.py --mb 200 --corpus large       # the large-payload mix

acptrace runs with `--jobs 1` (one process) and `--jobs 2` (one file: split across two
processes; many files: two at a time).

Each contender runs as its own process on a warm page cache, once per round; the table gives
the median and best wall time, throughput, the peak resident memory of that process and the
ratio to the bare orjson loop (`for line in f: orjson.loads(line)`) of the same round, median
over the rounds, and the same for CPU time (user + system, workers included: what the
processes cost when the machine is shared). jq, DuckDB and polars are timed only when they are
installed. Transcripts come from `benchmarks/generate.py` (`--corpus`: realistic by default,
or large) and are cached in `benchmarks/out/`. `--contenders` keeps those whose name starts
with one of the words given (the orjson loop always runs: the ratios are to it).
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
OUT = HERE / "out"
PYTHON = sys.executable
GNU_TIME = Path("/usr/bin/time").exists()

ORJSON_LOOP = """
import sys, orjson
for path in sys.argv[1:]:
    with open(path, "rb") as f:
        for line in f:
            orjson.loads(line)
"""
LINE_SPLIT = """
import sys
for path in sys.argv[1:]:
    with open(path, "rb") as f:
        for line in f:
            pass
"""
POLARS = """
import sys, polars as pl
schema = {"ts": pl.String, "mono_ns": pl.Int64, "dir": pl.String}
for path in sys.argv[1:]:
    pl.read_ndjson(path, schema=schema)
"""
DUCKDB = """
import sys, duckdb
for path in sys.argv[1:]:
    duckdb.sql(
        "select count(*) from read_json(?, format='newline_delimited', "
        "columns={'dir': 'VARCHAR', 'msg': 'JSON'})", params=[path]
    ).fetchall()
"""
BASELINE = "orjson per line"
JQ_FILTER = 'select(.msg.params.update.sessionUpdate? == "replay_complete") | .msg.params.sessionId'


@dataclass(frozen=True)
class Contender:
    """One way of reading the transcripts."""

    name: str
    command: list[str]
    ok_codes: tuple[int, ...] = (0,)
    """Exit codes of a successful run (acptrace exits 1 when it has findings)."""


@dataclass(frozen=True)
class Result:
    """The measurements of one contender."""

    name: str
    seconds: float
    """The median wall time."""
    best_seconds: float
    peak_rss_mb: float
    ratio: float
    """The median, over the rounds, of its time divided by the orjson loop's in that round."""
    cpu_seconds: float
    """The median CPU time (user + system, its child processes included)."""
    cpu_ratio: float
    """The median, over the rounds, of its CPU time over the orjson loop's in that round."""


def transcripts(mb: float, files: int, seed: int, corpus: str = "realistic") -> list[Path]:
    """The benchmark input: `files` transcripts of `mb / files` MB each (generated once)."""
    sys.path.insert(0, str(HERE.parent))
    from benchmarks.generate import REVISIONS, generate

    OUT.mkdir(exist_ok=True)
    paths = []
    for index in range(files):
        kind = "" if corpus == "large" else f"-{corpus}{REVISIONS[corpus]}"  # (large: as before)
        path = OUT / f"bench{kind}-{mb / files:g}mb-seed{seed + index}.jsonl"
        if not path.exists():
            print(f"generating {path.name} …", file=sys.stderr)
            partial = path.with_suffix(".partial")
            with partial.open("wb") as out:
                generate(out, mb=mb / files, sessions=None, seed=seed + index, corpus=corpus)
            partial.rename(path)
        paths.append(path)
    return paths


def contenders(paths: list[Path], wanted: list[str] | None = None) -> list[Contender]:
    """Everything to time, the tools that are not installed left out, and with `wanted` those
    whose name starts with none of its words (the orjson loop is always kept)."""
    names = [str(p) for p in paths]
    acptrace = [PYTHON, "-m", "acptrace", "analyze", "--format", "json", "-o", os.devnull]
    found = [
        Contender("cat", ["cat", *names]),
        Contender("python line split", [PYTHON, "-c", LINE_SPLIT, *names]),
        Contender(BASELINE, [PYTHON, "-c", ORJSON_LOOP, *names]),
    ]
    for jobs in ("1", "2"):
        command = [*acptrace, "--jobs", jobs, *names]
        found.append(Contender(f"acptrace --jobs {jobs}", command, (0, 1)))
    if shutil.which("jq"):
        found.append(Contender("jq select", ["jq", "-c", JQ_FILTER, *names]))
    for module, script in (("duckdb", DUCKDB), ("polars", POLARS)):
        if _importable(module):
            found.append(Contender(f"{module} read (3 columns)", [PYTHON, "-c", script, *names]))
    if wanted:
        found = [c for c in found if c.name == BASELINE or c.name.startswith(tuple(wanted))]
    return found


def _importable(module: str) -> bool:
    probe = subprocess.run([PYTHON, "-c", f"import {module}"], capture_output=True, check=False)
    return probe.returncode == 0


def measure(contender: Contender) -> tuple[float, float]:
    """Wall seconds and peak RSS (MB) of one run, output discarded (`measure_cpu`)."""
    wall, peak, _ = measure_cpu(contender)
    return wall, peak


def measure_cpu(contender: Contender) -> tuple[float, float, float]:
    """Wall seconds, peak RSS (MB) and CPU seconds (user + system, children included) of one
    run, output discarded.

    The peak comes from GNU time (`%M`) where it is installed: the rusage of a forked child
    would count the parent's pages from before the exec.
    """
    with tempfile.NamedTemporaryFile("r") as rss:
        wrapper = ["/usr/bin/time", "-f", "%M", "-o", rss.name] if GNU_TIME else []
        start = time.perf_counter()
        process = subprocess.Popen([*wrapper, *contender.command], stdout=subprocess.DEVNULL)
        _, status, usage = os.wait4(process.pid, 0)
        elapsed = time.perf_counter() - start
        code = os.waitstatus_to_exitcode(status)
        if code not in contender.ok_codes:
            raise SystemExit(f"{contender.name} failed with exit code {code}")
        peak_kb = int(rss.read().strip().splitlines()[-1]) if GNU_TIME else usage.ru_maxrss
    return elapsed, peak_kb / 1024, usage.ru_utime + usage.ru_stime


def run(paths: list[Path], reps: int, wanted: list[str] | None = None) -> list[Result]:
    """`reps` rounds, each timing every contender once, after one warm-up read of the files.

    The machine's speed drifts (by up to 2x within seconds on shared cloud machines), so each
    contender is compared with the orjson loop of the same round, and the order of the
    contenders turns by one every round: no contender always runs first after a pause.
    """
    subprocess.run(["cat", *map(str, paths)], stdout=subprocess.DEVNULL, check=True)
    found = contenders(paths, wanted)
    timings: dict[str, list[tuple[float, float, float]]] = {c.name: [] for c in found}
    for round_index in range(reps):
        turn = round_index % len(found)
        for contender in found[turn:] + found[:turn]:
            timings[contender.name].append(measure_cpu(contender))
        line = ", ".join(f"{name} {runs[-1][0]:.2f}" for name, runs in timings.items())
        print(f"  round {round_index + 1}: {line}", file=sys.stderr)
    baseline = timings[BASELINE]
    return [
        Result(
            name,
            statistics.median(seconds for seconds, _, _ in runs),
            min(seconds for seconds, _, _ in runs),
            max(rss for _, rss, _ in runs),
            statistics.median(r[0] / base[0] for r, base in zip(runs, baseline, strict=True)),
            statistics.median(cpu for _, _, cpu in runs),
            statistics.median(r[2] / base[2] for r, base in zip(runs, baseline, strict=True)),
        )
        for name, runs in timings.items()
    ]


def table(results: list[Result], total_mb: float) -> str:
    """The results as a Markdown table, with ratios to the orjson loop: the median of the
    rounds' ratios, and the best time over the orjson loop's best (what each does when the
    machine is at its fastest)."""
    best_baseline = next(r.best_seconds for r in results if r.name == BASELINE)
    lines = [
        "| contender | median s | best s | MB/s | peak RSS MB | x orjson loop | best x best "
        "| CPU s | CPU x orjson loop |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in results:
        lines.append(
            f"| {r.name} | {r.seconds:.2f} | {r.best_seconds:.2f} | {total_mb / r.seconds:,.0f} "
            f"| {r.peak_rss_mb:,.0f} | {r.ratio:.2f} | {r.best_seconds / best_baseline:.2f} "
            f"| {r.cpu_seconds:.2f} | {r.cpu_ratio:.2f} |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    size = parser.add_mutually_exclusive_group()
    size.add_argument("--mb", type=float, default=100, help="total size in MB (10**6 bytes)")
    size.add_argument("--size", type=_megabytes, dest="mb", help="the same as text: 200MB, 1GB")
    parser.add_argument("--files", type=int, default=1, help="split the size over this many")
    rounds = parser.add_mutually_exclusive_group()
    rounds.add_argument("--reps", type=int, default=5, help="rounds (medians over them)")
    rounds.add_argument("--rounds", type=int, dest="reps", help="the same as --reps")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--corpus", choices=("realistic", "large"), default="realistic", help="generate.py's mix"
    )
    parser.add_argument(
        "--contenders", help="comma-separated name starts to time (e.g. acptrace,orjson)"
    )
    args = parser.parse_args()
    sys.path.insert(0, str(HERE.parent))
    from benchmarks.bytecode import use_installed_bytecode

    use_installed_bytecode()
    paths = transcripts(args.mb, args.files, args.seed, args.corpus)
    total_mb = sum(p.stat().st_size for p in paths) / 1e6
    print(f"{len(paths)} file(s), {total_mb:,.0f} MB, {os.cpu_count()} cores", file=sys.stderr)
    wanted = args.contenders.split(",") if args.contenders else None
    results = run(paths, args.reps, wanted)
    print(f"\n{len(paths)} file(s), {total_mb:,.0f} MB, {args.corpus} corpus, {args.reps} rounds\n")
    print(table(results, total_mb))


def _megabytes(text: str) -> float:
    """`200MB`, `1GB` or `200` as MB (10**6 bytes)."""
    units = {"GB": 1000.0, "MB": 1.0}
    for unit, scale in units.items():
        if text.upper().endswith(unit):
            return float(text[: -len(unit)]) * scale
    return float(text)


if __name__ == "__main__":
    main()
