"""Instructions, not seconds: `acptrace analyze --jobs 1` against the bare orjson loop, counted by
valgrind's callgrind, which a shared machine's load does not move.

    python benchmarks/instructions.py                 # 20 MB slices of the realistic corpus
    python benchmarks/instructions.py --mb 5          # quicker, noisier in start-up's share
    python benchmarks/instructions.py --file X.jsonl  # your own transcript (and its ts-only copy)
    python benchmarks/instructions.py --extra=--schema=full  # analyze with other options

Two slices of one generated transcript (`generate.py --corpus realistic`): as generated (every
line has `ts` and `mono_ns`), and the same lines with `mono_ns` taken out (`ts` text only: what
the recordings of other tools, and every format without `mono_ns`, look like). For each, the
instructions of `acptrace analyze --jobs 1 --format json -o /dev/null SLICE` and of the orjson
loop (`for line in f: orjson.loads(line)`), each with its start-up taken away: acptrace's is
the same command on a three-line transcript, the loop's is the loop over an empty file. The
table gives both counts, their ratio, and acptrace's start-up (issue #35 asks for at most 1.5x
on both slices and a start-up of at most 300M instructions).

Each run starts in an empty folder, with the acptrace of the current folder first on the path:
where it starts, acptrace looks upward for its settings, and parses a `pyproject.toml` that names
it (this repository's does: ~13M instructions more), which is no part of its own start-up.

Needs valgrind (`apt-get install valgrind`); each run is some fifty times slower under it. The
package's bytecode is compiled first, as `pip install` does: where `PYTHONDONTWRITEBYTECODE` is
set (this workplace sets it) an editable install is otherwise compiled anew by every process,
and start-up counts twice what a user's does.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from benchmarks.run import ORJSON_LOOP, PYTHON, transcripts  # noqa: E402

COLLECTED = re.compile(rb"^==\d+== Collected : (\d+)$", re.M)
MONO_NS = re.compile(rb'"mono_ns":-?\d+,')
TINY = b"".join(
    line + b"\n"
    for line in (
        b'{"ts":"2026-12-02T10:00:00.000000Z","dir":"meta","event":"open","argv":["agent"]}',
        b'{"ts":"2026-12-02T10:00:00.010000Z","dir":"c2a","msg":{"jsonrpc":"2.0","id":0,'
        b'"method":"initialize","params":{"protocolVersion":2}}}',
        b'{"ts":"2026-12-02T10:00:00.020000Z","dir":"a2c","msg":{"jsonrpc":"2.0","id":0,'
        b'"result":{"protocolVersion":2,"capabilities":{"session":{}}}}}',
    )
)
"""A three-line transcript: what acptrace's start-up costs, with nothing to read."""


@dataclass(frozen=True)
class Counted:
    """The instructions of one slice, start-up taken away."""

    name: str
    lines: int
    acptrace: int
    loop: int

    @property
    def ratio(self) -> float:
        """acptrace's instructions over the loop's."""
        return self.acptrace / self.loop


def instructions(command: list[str], folder: Path) -> int:
    """The instructions callgrind counts for one run of `command` (its output discarded),
    started in `folder` (empty: no settings file above it is read), the acptrace of the
    current folder first on the path."""
    path = os.pathsep.join(filter(None, (os.getcwd(), os.environ.get("PYTHONPATH"))))
    done = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *command],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        check=False,
        cwd=folder,
        env={**os.environ, "PYTHONHASHSEED": "0", "PYTHONPATH": path},  # (hashes move costs)
    )
    if done.returncode not in (0, 1):  # (acptrace exits 1 when it has findings)
        raise SystemExit(f"{command[:4]} failed: {done.stderr.decode(errors='replace')[-400:]}")
    found = COLLECTED.search(done.stderr)
    if found is None:
        raise SystemExit("callgrind printed no count (is valgrind installed?)")
    return int(found[1])


def analyze(path: Path, extra: tuple[str, ...] = ()) -> list[str]:
    """The analysis timed (one process, JSON written nowhere; `extra`: more options)."""
    return [PYTHON, "-m", "acptrace", "analyze", "--jobs", "1", "--format", "json", "-o",
            "/dev/null", *extra, str(path)]  # fmt: skip


def loop(path: Path) -> list[str]:
    """The bare orjson loop over the file."""
    return [PYTHON, "-c", ORJSON_LOOP, str(path)]


def without_mono(source: Path, target: Path) -> None:
    """The same lines with their `mono_ns` member taken out (`ts` text only)."""
    with source.open("rb") as lines, target.open("wb") as out:
        for line in lines:
            out.write(MONO_NS.sub(b"", line, count=1))


def count(
    name: str,
    path: Path,
    startup: int,
    loop_startup: int,
    folder: Path,
    extra: tuple[str, ...] = (),
) -> Counted:
    """One slice's counts, start-up taken away."""
    with path.open("rb") as f:
        lines = sum(1 for _ in f)
    return Counted(
        name,
        lines,
        instructions(analyze(path.resolve(), extra), folder) - startup,
        instructions(loop(path.resolve()), folder) - loop_startup,
    )


def compile_package() -> None:
    """Write the bytecode of the acptrace that is measured (its own `compileall`)."""
    code = (
        "import acptrace, compileall, os; "
        "compileall.compile_dir(os.path.dirname(acptrace.__file__), quiet=1)"
    )
    subprocess.run(
        [PYTHON, "-c", code], check=True, env={**os.environ, "PYTHONDONTWRITEBYTECODE": ""}
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=20, help="the slice's size (10**6 bytes)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--file", type=Path, help="a transcript of your own instead")
    parser.add_argument(
        "--extra", action="append", default=[], help="an option for analyze (repeatable)"
    )
    args = parser.parse_args()
    extra = tuple(args.extra)
    source = args.file or transcripts(args.mb, 1, args.seed)[0]
    compile_package()
    with tempfile.TemporaryDirectory() as files, tempfile.TemporaryDirectory() as start:
        tiny, empty, ts_only = (Path(files) / n for n in ("tiny.jsonl", "empty", "ts.jsonl"))
        tiny.write_bytes(TINY)
        empty.write_bytes(b"")
        without_mono(source, ts_only)
        folder = Path(start)
        startup = instructions(analyze(tiny, extra), folder)
        loop_startup = instructions(loop(empty), folder)
        rows = [
            count("ts and mono_ns", source, startup, loop_startup, folder, extra),
            count("ts only", ts_only, startup, loop_startup, folder, extra),
        ]
    shown = f" (analyze {' '.join(extra)})" if extra else ""
    print(f"{source.name}: instructions (callgrind), start-up taken away{shown}")
    print(f"{'slice':<16} {'lines':>9} {'acptrace':>15} {'orjson loop':>15} {'ratio':>6}")
    for row in rows:
        print(f"{row.name:<16} {row.lines:>9,} {row.acptrace:>15,} {row.loop:>15,} "
              f"{row.ratio:>6.2f}")  # fmt: skip
    print(f"acptrace start-up: {startup:,} (the loop's: {loop_startup:,})")


if __name__ == "__main__":
    main()
