"""How long redaction takes: a megabyte of one string, and `redact` of real recordings.

Two cases, each timed in CPU seconds of this process (a shared machine moves wall time more),
the best of `--reps`:

- ``one-string``: one string of a megabyte, hex and a URL (the input that once took 43 s for
  200 KB), redacted as free text;
- ``real``: `redact_transcript` of every real recording under ``../shared/real-world`` (the
  recordings as they are, canonical and the other formats; 2.6 MB), after a warm-up;
- ``generated``: the first `--mb` megabytes of a generated realistic transcript
  (`generate.py --seed 1`), made in a temporary folder.

``--code DIR`` times another checkout's package (main's, for a before/after); compare the
ratios of two runs made one after the other.

    .venv/bin/python benchmarks/redaction_speed.py --reps 5
    .venv/bin/python benchmarks/redaction_speed.py --reps 5 --code /work/main
"""

from __future__ import annotations

import argparse
import io
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
REAL = ROOT.parent / "shared" / "real-world"


def best(reps: int, work: Callable[[Any], object], setup: Callable[[], Any]) -> float:
    """The least CPU time of `reps` runs of `work`, each given what `setup` made (not timed:
    a new policy, so nothing one run remembers helps the next)."""
    times = []
    for _ in range(reps):
        made = setup()
        start = time.process_time()
        work(made)
        times.append(time.process_time() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--mb", type=int, default=5)
    parser.add_argument("--code", type=Path, default=ROOT)
    args = parser.parse_args()
    sys.path.insert(0, str(args.code.resolve()))
    from acptrace.record.redact import RedactionPolicy, redact_string
    from acptrace.record.rewrite import redact_transcript
    from acptrace.record.spans import Reading

    start = time.process_time()
    policy = RedactionPolicy.build()
    built = time.process_time() - start
    one = "0123456789abcdef" * (1_000_000 // 16) + " https://example.com/x"
    recordings = [p.read_bytes() for p in sorted(REAL.rglob("*.jsonl"))]

    def redact_all(sources: list[bytes], policy: RedactionPolicy) -> None:
        for data in sources:
            redact_transcript(io.BytesIO(data), io.BytesIO(), policy)

    with tempfile.TemporaryDirectory() as folder:
        generated = Path(folder) / "g.jsonl"
        command = [sys.executable, str(ROOT / "benchmarks" / "generate.py"), "--mb", str(args.mb)]
        subprocess.run([*command, "--seed", "1", "-o", str(generated)], check=True)
        made = [generated.read_bytes()]
    redact_all(recordings, policy)  # (warm-up: first compiles)
    fresh = RedactionPolicy.build
    print(f"code: {args.code.resolve()}  (policy built in {built * 1000:.0f} ms of CPU)")
    took = best(args.reps, lambda p: redact_string(one, p, Reading.FREE), fresh)
    print(f"one-string (1 MB): {took:.3f} s")
    print(f"real ({sum(map(len, recordings)) / 1e6:.1f} MB, {len(recordings)} files): "
          f"{best(args.reps, lambda p: redact_all(recordings, p), fresh):.3f} s")  # fmt: skip
    print(
        f"generated ({args.mb} MB): {best(args.reps, lambda p: redact_all(made, p), fresh):.3f} s"
    )


if __name__ == "__main__":
    main()
