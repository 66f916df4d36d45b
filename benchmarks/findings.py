"""Time and peak memory of `acptrace analyze` on a transcript with a million findings.

    python benchmarks/findings.py --findings 1000000 --reps 1

The transcript is `--findings` responses that answer no request (one JR-ORPHAN-RESPONSE
each, ~97 bytes a line). Each output format runs as its own process with `--jobs 1`, its
output written to a file, and so does `timeline` (two lines shown, and the whole view); next
to them, the analysis alone (`acptrace.analyze` in a script, nothing written): what any output
needs to hold, the floor of the formats' peak. `--only timeline` runs the runs so named.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from benchmarks.bytecode import use_installed_bytecode  # noqa: E402
from benchmarks.run import OUT, Contender, measure  # noqa: E402

PYTHON = sys.executable
ANALYSIS_ONLY = "import sys, acptrace; acptrace.analyze(sys.argv[1])"


def orphans(count: int) -> Path:
    """`count` responses to no request (made once, in `benchmarks/out/`)."""
    OUT.mkdir(exist_ok=True)
    path = OUT / f"orphans-{count}.jsonl"
    if not path.exists():
        with path.open("w") as stream:
            for index in range(count):
                stream.write(
                    f'{{"ts":"2026-12-02T15:16:30.{index % 1_000_000:06d}Z","dir":"a2c",'
                    f'"msg":{{"jsonrpc":"2.0","id":{index + 1},"result":{{}}}}}}\n'
                )
    return path


def contenders(path: Path, out: Path) -> list[Contender]:
    analyze = [PYTHON, "-m", "acptrace", "analyze", str(path), "--jobs", "1", "-q", "--no-config"]
    found = [Contender("analysis only (library)", [PYTHON, "-c", ANALYSIS_ONLY, str(path)])]
    for fmt in ("json", "sarif", "rich"):
        command = [*analyze, "-f", fmt, "-o", str(out / f"out.{fmt}")]
        found.append(Contender(f"analyze --format {fmt}", command, ok_codes=(1,)))
    timeline = [PYTHON, "-m", "acptrace", "timeline", str(path), "--no-config"]
    for view in (["--lines", "1-2"], []):  # (every finding read, two rows drawn; every row)
        command = [*timeline, *view, "-o", str(out / "timeline.txt")]
        found.append(Contender(" ".join(["timeline", *view]), command, ok_codes=(1,)))
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--findings", type=int, default=1_000_000)
    parser.add_argument("--reps", type=int, default=1, help="rounds (medians over them)")
    parser.add_argument("--only", default="", help="only the runs whose name holds this")
    args = parser.parse_args()
    use_installed_bytecode()
    path = orphans(args.findings)
    with tempfile.TemporaryDirectory() as out:
        found = [c for c in contenders(path, Path(out)) if args.only in c.name]
        runs: dict[str, list[tuple[float, float]]] = {c.name: [] for c in found}
        for round_index in range(args.reps):
            turn = round_index % len(found)
            for contender in found[turn:] + found[:turn]:
                runs[contender.name].append(measure(contender))
    size = path.stat().st_size / 1e6
    print(f"\n{args.findings:,} findings ({size:,.0f} MB transcript), {args.reps} rounds\n")
    print("| run | median s | peak RSS MB |")
    print("|---|---:|---:|")
    for name, timings in runs.items():
        seconds = statistics.median(s for s, _ in timings)
        print(f"| {name} | {seconds:.1f} | {max(rss for _, rss in timings):,.0f} |")


if __name__ == "__main__":
    main()
