"""Progress on long work (#37 item 2): on a terminal, every command that reads one big file
shows the bytes read of its size, `drive` its connections and the request under way, `report`
its files; on stderr, gone when the work is done, never with -q nor when stderr is a pipe. The
terminal runs are in a real pseudo-terminal."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from acptrace.report import GroupBy, build_report
from acptrace.report.html import chart_count
from benchmarks.generate import generate
from tests.golden import ROOT
from tests.terminal import ACPTRACE, ESCAPES, in_terminal

ERASED = b"\x1b[1A\x1b[2K"
"""Up a line and erase it: a transient bar's last act."""
SAMPLES = ROOT / "sample_traces"
MOCK = [
    sys.executable,
    "-m",
    "acptrace",
    "mock",
    str(ROOT / "sample_traces/outcome-complete.jsonl"),
]


@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A recording that takes more than a second to read (about 24 MB)."""
    path = tmp_path_factory.mktemp("progress") / "big.jsonl"
    with path.open("wb") as out:
        generate(out, mb=24, sessions=None, seed=1)
    return path


def shown(args: list[str]) -> bytes:
    """What the terminal got, stdout and stderr, from acptrace run from this checkout."""
    return in_terminal(args, 100, ROOT, stderr=True)


def gone(terminal: bytes, label: bytes) -> bool:
    """The bar (a line with `label`) was erased once the work ended: after its last drawing,
    the cursor goes up a line and erases it."""
    return ERASED in terminal[terminal.rindex(label) :]


def plain(terminal: bytes) -> bytes:
    """The terminal's text without its escape codes."""
    return ESCAPES.sub(b"", terminal)


@pytest.mark.parametrize(
    "command",
    [
        ["fidelity", "{big}", "-o", "{out}"],
        ["timeline", "{big}", "-o", "{out}"],
        ["redact", "{big}", "-o", "{out}"],
        ["export", "{big}", "--format", "trace-event", "-o", "{out}"],
    ],
    ids=["fidelity", "timeline", "redact", "export"],
)
def test_one_big_file_shows_the_bytes_read_then_goes(
    big: Path, tmp_path: Path, command: list[str]
) -> None:
    args = [part.format(big=big, out=tmp_path / "out") for part in command]
    terminal = shown(args)
    assert b"reading big.jsonl" in terminal
    assert re.search(rb" \d+\.\d/24\.\d MB ", plain(terminal))  # (of its size)
    assert gone(terminal, b"big.jsonl")


@pytest.fixture(scope="module")
def huge(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A recording big enough to be split into pieces decoded by other processes
    (`Execution.split_min_bytes`), and read for more than a second (about 96 MB)."""
    path = tmp_path_factory.mktemp("progress") / "huge.jsonl"
    with path.open("wb") as out:
        generate(out, mb=96, sessions=None, seed=1)
    return path


@pytest.mark.parametrize(
    "command",
    [["analyze", "{huge}", "-o", "{out}"], ["export", "{huge}", "-o", "{out}"]],
    ids=["analyze", "export"],
)
def test_one_file_read_in_pieces_shows_the_bytes_joined_then_goes(
    huge: Path, tmp_path: Path, command: list[str]
) -> None:
    """Other processes decode the pieces, this one's handle stays at the file's head: the bar
    counts the bytes of the pieces joined so far, not a pulse. (The bar drawn at once: the
    96 MB take less than a second now, not long after its usual delay.)"""
    args = [part.format(huge=huge, out=tmp_path / "out") for part in command]
    terminal = in_terminal(args, 100, ROOT, stderr=True, env=_drawn_at_once(tmp_path))
    assert re.search(rb" [1-9]\d*\.\d/9\d\.\d MB ", plain(terminal))  # (some of its size)
    assert gone(terminal, b"huge.jsonl")


def _drawn_at_once(folder: Path) -> dict[str, str]:
    """The environment of an acptrace whose bars are drawn from the start (`DELAY_S` 0, set by
    a `sitecustomize` module before the command runs)."""
    site = folder / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(
        "import acptrace.cli.progress as progress\nprogress.DELAY_S = 0.0\n", encoding="utf-8"
    )
    path = os.pathsep.join(filter(None, [str(site), str(ROOT), os.environ.get("PYTHONPATH")]))
    return {"PYTHONPATH": path}


def test_no_bytes_joined_shown_with_quiet_or_in_a_pipe(huge: Path, tmp_path: Path) -> None:
    quiet = shown(["analyze", str(huge), "-q", "-o", str(tmp_path / "quiet")])
    assert b"huge.jsonl" not in quiet
    assert b" MB " not in plain(quiet)
    run = subprocess.run(
        [sys.executable, "-m", "acptrace", "export", str(huge), "-q", "-o", str(tmp_path / "t")],
        capture_output=True,
        cwd=ROOT,
        check=False,
    )
    assert run.returncode == 0
    assert run.stderr == b""
    piped = subprocess.run(
        [sys.executable, "-m", "acptrace", "analyze", str(huge), "-o", str(tmp_path / "out")],
        capture_output=True,
        cwd=ROOT,
        check=False,
    )
    assert piped.stderr == b""


def test_no_progress_with_quiet(big: Path, tmp_path: Path) -> None:
    terminal = shown(["timeline", str(big), "-q", "-o", str(tmp_path / "out")])
    assert b"big.jsonl" not in terminal


def test_no_progress_when_stderr_is_a_pipe(big: Path, tmp_path: Path) -> None:
    run = subprocess.run(
        [sys.executable, "-m", "acptrace", "fidelity", str(big), "-o", str(tmp_path / "out")],
        capture_output=True,
        cwd=ROOT,
        check=False,
    )
    assert run.returncode == 0
    assert run.stderr == b""


def test_drive_shows_its_connections_and_the_request_under_way(tmp_path: Path) -> None:
    terminal = shown(["drive", "-n", "2", "-o", str(tmp_path / "runs"), "--", *MOCK])
    assert re.search(rb"connection [23] of 3: (initialize|session/resume)", terminal)
    assert re.search(rb"[12]/3 connections", plain(terminal))
    assert gone(terminal, b" connections ")
    quiet = shown(["drive", "-q", "-n", "2", "-o", str(tmp_path / "quiet"), "--", *MOCK])
    assert b"connections" not in quiet


def test_one_helper_makes_every_bar() -> None:
    """No command draws a bar of its own (`cli.progress` is the one place)."""
    drawn = [
        path.name
        for path in (ROOT / "acptrace").rglob("*.py")
        if "rich.progress" in path.read_text() and path.name != "progress.py"
    ]
    assert drawn == []


def test_report_html_shows_its_charts_drawn_of_their_count_then_goes(tmp_path: Path) -> None:
    page = tmp_path / "report.html"
    total = chart_count(build_report([str(SAMPLES)], by=GroupBy.FILE, jobs=1))
    terminal = shown(["report", "--by", "file", str(SAMPLES), "-o", str(page)])
    assert re.search(rb"drawing report\.html .* [1-9]\d*/%d charts " % total, plain(terminal))
    assert gone(terminal, b" charts ")
    assert page.read_bytes().count(b"<figure") == total


def test_no_charts_counted_with_quiet_or_in_a_pipe(tmp_path: Path) -> None:
    quiet = shown(["report", "-q", "--by", "file", str(SAMPLES), "-o", str(tmp_path / "q.html")])
    assert b"charts" not in quiet
    run = subprocess.run(
        [*ACPTRACE, "report", "--by", "file", str(SAMPLES), "-o", str(tmp_path / "p.html")],
        capture_output=True,
        cwd=ROOT,
        check=False,
    )
    assert run.returncode == 0
    assert b"charts" not in run.stderr
    assert (tmp_path / "p.html").read_bytes().count(b"<figure")
