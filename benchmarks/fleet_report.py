"""`acptrace report` at fleet scale: 10,000 exported recordings against their transcripts.

    python benchmarks/fleet_report.py                     # 10,000 exports, 300 transcripts
    python benchmarks/fleet_report.py --fleet 2000 --sample 100 --reps 1

Every CI job exports its own recording (`acptrace export trace.jsonl -o tables/`) and one job
reports over all of them. This builds such a fleet once, cached in `benchmarks/out/fleet/`:
`--templates` small transcripts from `benchmarks/generate.py` (3 to 12 sessions, faults at
20 %) are exported once each, then copied into `--fleet` export directories with polars, the
`file` column of every table renamed to the path the job would have recorded
(`jobs/job-00042/trace.jsonl`, job n holding template n mod templates). The first `--sample`
of those transcripts are also written out as files, at exactly those paths.

Then, round after round, in a fresh process each (wall time and the peak resident memory of
the process tree's largest process, from `getrusage(RUSAGE_CHILDREN)` in a wrapper):

- `acptrace report FLEET -o fleet.json` over the whole fleet of exports;
- `acptrace report SAMPLE... -o transcripts.json` over the sampled transcripts, scaled to the
  fleet's size (seconds per recording times the fleet);
- `acptrace report EXPORTS... -o exports.json` over the sample's own export directories,
  whose report.json must equal the transcripts' (checked every round).

The machine is shared: read the ratios, not the seconds.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import orjson
import polars as pl

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
OUT = HERE / "out" / "fleet"

WRAPPER = """
import resource, subprocess, sys, time
start = time.perf_counter()
code = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL).returncode
wall = time.perf_counter() - start
peak_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print(code, wall, peak_kb)
"""
"""Runs a command and prints its exit code, wall seconds and peak RSS (KiB, Linux)."""

TARGET_S = 60.0
TARGET_MB = 300.0


@dataclass(frozen=True, slots=True)
class Run:
    wall_s: float
    peak_mb: float


def templates(count: int) -> list[Path]:
    """Small generated transcripts, each exported once (cached)."""
    folder = OUT / "templates"
    folder.mkdir(parents=True, exist_ok=True)
    exports = []
    for n in range(count):
        transcript = folder / f"t{n:03d}.jsonl"
        tables = folder / f"t{n:03d}.tables"
        if not transcript.exists():
            generate = [sys.executable, str(HERE / "generate.py"), "--seed", str(n + 1)]
            generate += ["--sessions", str(3 + n % 10), "--faults", "0.2", "-o", str(transcript)]
            generate += ["--corpus", "large"]  # (what the figures in the README were measured on)
            subprocess.run(generate, check=True, capture_output=True)
        if not (tables / "connections.parquet").exists():
            export = [*acptrace(), "export", str(transcript), "-o", str(tables)]
            subprocess.run(export, check=True, capture_output=True)
        exports.append(tables)
    return exports


def acptrace() -> list[str]:
    return [sys.executable, "-m", "acptrace"]


def build_fleet(size: int, sample: int, template_count: int) -> tuple[Path, list[Path]]:
    """`size` export directories under `jobs/` and the first `sample` transcripts as files."""
    sources = templates(template_count)
    tag = f"{size}x{template_count}"
    fleet = OUT / f"jobs-{tag}"
    transcripts = OUT / f"transcripts-{tag}"
    done = fleet / ".complete"
    names = [f"{fleet.name}/job-{n:05d}/trace.jsonl" for n in range(size)]
    if not done.exists():
        frames = [
            {p.stem: pl.read_parquet(p) for p in sorted(source.glob("*.parquet"))}
            for source in sources
        ]
        for n, name in enumerate(names):
            target = fleet / f"job-{n:05d}"
            target.mkdir(parents=True, exist_ok=True)
            for table, frame in frames[n % len(frames)].items():
                renamed = frame.with_columns(pl.lit(name, pl.String).alias("file"))
                renamed.write_parquet(target / f"{table}.parquet")
        done.write_text("")
    paths = []
    for n, name in enumerate(names[:sample]):
        path = transcripts / name
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            template = OUT / "templates" / f"t{n % template_count:03d}.jsonl"
            path.write_bytes(template.read_bytes())
        paths.append(path)
    return fleet, paths


def measure(arguments: list[str], cwd: Path) -> Run:
    """One run in a fresh process: wall seconds and peak RSS of its largest process."""
    result = subprocess.run(
        [sys.executable, "-c", WRAPPER, *arguments],
        cwd=cwd,
        check=True,
        capture_output=True,
        text=True,
    )
    code, wall, peak_kb = result.stdout.split()
    if int(code) != 0:
        raise SystemExit(f"exit {code}: {' '.join(arguments)}")
    return Run(float(wall), int(peak_kb) / 1024)


def report_numbers(path: Path) -> dict[str, object]:
    document: dict[str, object] = orjson.loads(path.read_bytes())
    return document


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fleet", type=int, default=10_000, help="export directories")
    parser.add_argument("--sample", type=int, default=300, help="transcripts timed as well")
    parser.add_argument("--templates", type=int, default=20, help="distinct recordings")
    parser.add_argument("--reps", type=int, default=3, help="rounds")
    args = parser.parse_args()
    sys.path.insert(0, str(HERE.parent))
    from benchmarks.bytecode import use_installed_bytecode

    use_installed_bytecode()
    fleet, sample = build_fleet(args.fleet, args.sample, args.templates)
    exports = [fleet / path.parent.name for path in sample]
    transcripts_root = sample[0].parents[2]
    fleet_runs, transcript_runs, export_runs = [], [], []
    with tempfile.TemporaryDirectory() as scratch:
        out = Path(scratch)
        for _ in range(args.reps):
            report = [*acptrace(), "report", "-q", "--jobs", "1"]
            fleet_runs.append(measure([*report, fleet.name, "-o", str(out / "f.json")], OUT))
            relative = [str(p.relative_to(transcripts_root)) for p in sample]
            transcript_runs.append(
                measure([*report, *relative, "-o", str(out / "t.json")], transcripts_root)
            )
            export_runs.append(
                measure([*report, *map(str, exports), "-o", str(out / "e.json")], OUT)
            )
            same = report_numbers(out / "t.json") == report_numbers(out / "e.json")
            if not same:
                raise SystemExit("the sample's exports and transcripts gave different reports")
        files = report_numbers(out / "f.json")["files"]
        assert isinstance(files, dict)
        recordings = files["analysed"]
    fleet_s = statistics.median(r.wall_s for r in fleet_runs)
    fleet_mb = max(r.peak_mb for r in fleet_runs)
    per_transcript = statistics.median(r.wall_s for r in transcript_runs) / len(sample)
    per_export = statistics.median(r.wall_s for r in export_runs) / len(sample)
    scaled = per_transcript * args.fleet
    print(
        f"fleet: {args.fleet:,} exported recordings ({args.templates} distinct), "
        f"{recordings:,} reported"
    )
    print(
        f"  report over the exports: {fleet_s:.1f} s median of {args.reps}, "
        f"peak RSS {fleet_mb:.0f} MB "
        f"(target {TARGET_S:.0f} s and {TARGET_MB:.0f} MB: "
        f"{'met' if fleet_s <= TARGET_S and fleet_mb <= TARGET_MB else 'NOT met'})"
    )
    print(
        f"  over {len(sample)} transcripts: {per_transcript * 1000:.1f} ms per recording, "
        f"peak RSS {max(r.peak_mb for r in transcript_runs):.0f} MB; scaled to the fleet "
        f"{scaled:.0f} s"
    )
    print(
        f"  over the same {len(sample)} as exports: {per_export * 1000:.1f} ms per recording, "
        f"peak RSS {max(r.peak_mb for r in export_runs):.0f} MB; same report.json: yes"
    )
    print(f"  fleet from exports / transcripts scaled: {fleet_s / scaled:.3f}x")


if __name__ == "__main__":
    main()
