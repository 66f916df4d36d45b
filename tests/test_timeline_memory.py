"""`acptrace timeline` streams: its peak memory stays flat on a transcript many times the size
that used to fill it (issue #15 item 7; the figures for 200 MB and 1 GB are in
benchmarks/README.md). No timing: only the peak RSS of a subprocess."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

MB = 15
"""The transcript's size: the timeline that held every row took about 9 MB per MB of it."""
BOUND_MB = 100
"""The peak allowed: what the interpreter, the imports and the look-ahead need, with room."""


@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from benchmarks.generate import generate

    path = tmp_path_factory.mktemp("timeline") / "big.jsonl"
    with path.open("wb") as out:
        generate(out, mb=MB, seed=3, faults=0.2)  # (with findings: under rows and late)
    return path


MEASURE = """
import resource, subprocess, sys
code = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL).returncode
print(code, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
"""
"""Runs a command and prints its exit code and peak RSS (KB): from a small process, since a
forked child's peak counts the pages of its parent (here, a test run's) before the exec."""


def peak_rss_mb(command: list[str], stdin: Path | None = None) -> float:
    """The peak RSS of the command's process (MB), its output thrown away."""
    with open(stdin or os.devnull, "rb") as given:
        measured = subprocess.run(
            [sys.executable, "-c", MEASURE, *command], stdin=given, capture_output=True, check=True
        )
    code, peak_kb = measured.stdout.split()
    assert int(code) in (0, 1), measured.stderr
    return int(peak_kb) / 1024  # (kilobytes on Linux)


@pytest.mark.parametrize("source", ["file", "stdin"])
def test_peak_memory_does_not_grow_with_the_transcript(big: Path, source: str) -> None:
    assert big.stat().st_size >= MB * 1e6
    argument = str(big) if source == "file" else "-"
    command = [sys.executable, "-m", "acptrace", "timeline", argument, "--no-config"]
    peak = peak_rss_mb(command, big if source == "stdin" else None)
    assert peak < BOUND_MB, f"{source}: peak RSS {peak:.0f} MB"


FINDINGS = 100_000
"""Responses that answer no request, one finding each (issue #25 item 9: a million of them took
the timeline past 470 MB)."""
FINDINGS_BOUND_MB = 70
"""Measured: 80 MB when the walk that draws the rows judged every line again (a second copy of
the findings), 57 MB when only the first pass did, 42 MB since the findings are parked on disk
(`test_peak_memory_does_not_grow_with_the_findings` checks that it is flat)."""


def write_orphans(path: Path, count: int) -> Path:
    """A session, then `count` responses to no request (one finding each)."""
    with path.open("w") as out:
        out.write(
            '{"dir":"c2a","msg":{"jsonrpc":"2.0","id":"new","method":"session/new",'
            '"params":{"cwd":"/","mcpServers":[]}}}\n'
            '{"dir":"a2c","msg":{"jsonrpc":"2.0","id":"new","result":{"sessionId":"s1"}}}\n'
        )
        out.writelines(
            f'{{"dir":"a2c","msg":{{"jsonrpc":"2.0","id":{i},"result":{{}}}}}}\n'
            for i in range(1, count + 1)
        )
    return path


@pytest.fixture(scope="module")
def orphans(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A session, then `FINDINGS` responses to no request."""
    return write_orphans(tmp_path_factory.mktemp("timeline") / "orphans.jsonl", FINDINGS)


def test_the_findings_are_held_once(orphans: Path) -> None:
    """The session's view (no finding is in it, so the rows are few) of a file: the findings
    come from the first pass; the walk that draws the rows does not judge again."""
    command = [sys.executable, "-m", "acptrace", "timeline", "--session", "s1", str(orphans)]
    peak = peak_rss_mb([*command, "--no-config"])
    assert peak < FINDINGS_BOUND_MB, f"peak RSS {peak:.0f} MB"


FEW_FINDINGS = 50_000
MANY_FINDINGS = 5 * FEW_FINDINGS
GROWTH_BOUND_MB = 12
"""The most the peak may grow from `FEW_FINDINGS` to `MANY_FINDINGS` (issue #25 item 1). When
the first pass held every finding (about 0.3 KB each) it grew by about 60 MB (measured: 57 MB
at 100,000 findings, 183 MB at 500,000); parked on disk, the findings leave a batch in memory
at most (`acptrace.model.spill.BATCH`), whatever their number."""


@pytest.mark.parametrize("source", ["file", "stdin"])
def test_peak_memory_does_not_grow_with_the_findings(
    tmp_path_factory: pytest.TempPathFactory, source: str
) -> None:
    """Two lines shown, every finding read past them (on lines not shown): a file's first pass
    finds them all, a pipe's one walk too."""
    folder = tmp_path_factory.mktemp("findings")
    peaks = []
    for count in (FEW_FINDINGS, MANY_FINDINGS):
        path = write_orphans(folder / f"orphans-{count}.jsonl", count)
        argument = str(path) if source == "file" else "-"
        command = [sys.executable, "-m", "acptrace", "timeline", argument, "--lines", "1-2"]
        peaks.append(peak_rss_mb([*command, "--no-config"], path if source == "stdin" else None))
    few, many = peaks
    assert many - few < GROWTH_BOUND_MB, f"{source}: {few:.0f} MB, then {many:.0f} MB"
