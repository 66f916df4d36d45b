"""Time `acptrace analyze` against what a user would write instead, on the same file, in one run.

    python benchmarks/run.py --mb 1000 --reps 3            # one big transcript
    python benchmarks/run.py --mb 1000 --files 8 --reps 3  # many files

acptrace runs with `--jobs 1` (one process) and `--jobs 2` (one file: split across two
processes; many files: two at a time).

Each contender runs as its own process on a warm page cache; the table gives the median wall
time, throughput, the peak resident memory of that process and the ratio to the bare orjson
loop (`for line in f: orjson.loads(line)`). jq, DuckDB and polars are timed only when they are
installed. Transcripts come from `benchmarks/generate.py` and are cached in `benchmarks/out/`.
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
    peak_rss_mb: float


def transcripts(mb: float, files: int, seed: int) -> list[Path]:
    """The benchmark input: `files` transcripts of `mb / files` MB each (generated once)."""
    sys.path.insert(0, str(HERE.parent))
    from benchmarks.generate import generate

    OUT.mkdir(exist_ok=True)
    paths = []
    for index in range(files):
        path = OUT / f"bench-{mb / files:g}mb-seed{seed + index}.jsonl"
        if not path.exists():
            print(f"generating {path.name} …", file=sys.stderr)
            partial = path.with_suffix(".partial")
            with partial.open("wb") as out:
                generate(out, mb=mb / files, sessions=None, seed=seed + index)
            partial.rename(path)
        paths.append(path)
    return paths


def contenders(paths: list[Path]) -> list[Contender]:
    """Everything to time, the tools that are not installed left out."""
    names = [str(p) for p in paths]
    acptrace = [PYTHON, "-m", "acptrace", "analyze", "--format", "json", "-o", os.devnull]
    found = [
        Contender("cat", ["cat", *names]),
        Contender("python line split", [PYTHON, "-c", LINE_SPLIT, *names]),
        Contender("orjson per line", [PYTHON, "-c", ORJSON_LOOP, *names]),
    ]
    for jobs in ("1", "2"):
        command = [*acptrace, "--jobs", jobs, *names]
        found.append(Contender(f"acptrace --jobs {jobs}", command, (0, 1)))
    if shutil.which("jq"):
        found.append(Contender("jq select", ["jq", "-c", JQ_FILTER, *names]))
    for module, script in (("duckdb", DUCKDB), ("polars", POLARS)):
        if _importable(module):
            found.append(Contender(f"{module} read (3 columns)", [PYTHON, "-c", script, *names]))
    return found


def _importable(module: str) -> bool:
    probe = subprocess.run([PYTHON, "-c", f"import {module}"], capture_output=True, check=False)
    return probe.returncode == 0


def measure(contender: Contender) -> tuple[float, float]:
    """Wall seconds and peak RSS (MB) of one run, output discarded.

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
    return elapsed, peak_kb / 1024


def run(paths: list[Path], reps: int) -> list[Result]:
    """Median of `reps` runs per contender, after one warm-up read of the files."""
    subprocess.run(["cat", *map(str, paths)], stdout=subprocess.DEVNULL, check=True)
    results = []
    for contender in contenders(paths):
        runs = [measure(contender) for _ in range(reps)]
        seconds = statistics.median(r[0] for r in runs)
        results.append(Result(contender.name, seconds, max(r[1] for r in runs)))
        print(f"  {contender.name}: {seconds:.2f} s", file=sys.stderr)
    return results


def table(results: list[Result], total_mb: float) -> str:
    """The results as a Markdown table, with ratios to the orjson loop."""
    baseline = next(r.seconds for r in results if r.name == "orjson per line")
    lines = [
        "| contender | median s | MB/s | peak RSS MB | x orjson loop |",
        "|---|---:|---:|---:|---:|",
    ]
    for r in results:
        lines.append(
            f"| {r.name} | {r.seconds:.2f} | {total_mb / r.seconds:,.0f} | "
            f"{r.peak_rss_mb:,.0f} | {r.seconds / baseline:.2f} |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=100, help="total size in MB (10**6 bytes)")
    parser.add_argument("--files", type=int, default=1, help="split the size over this many")
    parser.add_argument("--reps", type=int, default=3, help="runs per contender (median)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    paths = transcripts(args.mb, args.files, args.seed)
    total_mb = sum(p.stat().st_size for p in paths) / 1e6
    print(f"{len(paths)} file(s), {total_mb:,.0f} MB, {os.cpu_count()} cores", file=sys.stderr)
    results = run(paths, args.reps)
    print(f"\n{len(paths)} file(s), {total_mb:,.0f} MB, median of {args.reps}\n")
    print(table(results, total_mb))


if __name__ == "__main__":
    main()
