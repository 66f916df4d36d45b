"""Where the terminal views go (docs/analyze.md#output-width): colours only on a terminal; a pipe
or a file written with `-o` gets plain text, `PLAIN_WIDTH` (or `COLUMNS`) wide, with no spaces
at the ends of lines. The terminal runs are in a real pseudo-terminal."""

from __future__ import annotations

import fcntl
import os
import pty
import struct
import subprocess
import sys
import termios
from pathlib import Path

import pytest
from typer.testing import CliRunner

from acptrace.cli import app
from acptrace.cli.common import PLAIN_WIDTH
from tests.golden import ROOT

ACPTRACE = [sys.executable, "-m", "acptrace"]
SAMPLE = str(ROOT / "sample_traces" / "mixed-session.jsonl")
COMMANDS = {
    "analyze": ["analyze", SAMPLE],
    "timeline": ["timeline", SAMPLE],
    "fidelity": ["fidelity", SAMPLE],
    "rules": ["rules"],
}
ESCAPE = b"\x1b["
TIMEOUT_S = 120.0


def in_terminal(args: list[str], columns: int, cwd: Path) -> bytes:
    """What acptrace writes to a terminal `columns` wide (stderr and stdin are not one)."""
    main, side = pty.openpty()
    fcntl.ioctl(side, termios.TIOCSWINSZ, struct.pack("HHHH", 50, columns, 0, 0))
    unset = ("NO_COLOR", "FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE", "COLUMNS", "LINES")
    env = {k: v for k, v in os.environ.items() if k not in unset} | {"TERM": "xterm-256color"}
    process = subprocess.Popen(
        [*ACPTRACE, *args],
        stdin=subprocess.DEVNULL,
        stdout=side,
        stderr=subprocess.DEVNULL,
        cwd=cwd,
        env=env,
    )
    os.close(side)
    chunks = []
    while True:
        try:
            chunk = os.read(main, 65536)
        except OSError:  # (the terminal is gone: the process closed its side)
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(main)
    process.wait(TIMEOUT_S)
    return b"".join(chunks)


@pytest.mark.parametrize("command", COMMANDS)
def test_a_file_written_from_a_terminal_carries_no_escape_codes(
    tmp_path: Path, command: str
) -> None:
    shown = in_terminal(COMMANDS[command], 70, tmp_path)
    assert ESCAPE in shown  # (the terminal gets colours: this test can see them)
    in_terminal([*COMMANDS[command], "-o", "out.txt"], 70, tmp_path)
    written = (tmp_path / "out.txt").read_text()
    assert "\x1b" not in written
    piped = CliRunner().invoke(app, COMMANDS[command])
    assert written == piped.stdout  # (a file is what a pipe gets, whatever the terminal)


@pytest.mark.parametrize("command", COMMANDS)
def test_piped_output_is_plain_width_without_trailing_spaces(command: str) -> None:
    result = CliRunner().invoke(app, COMMANDS[command])
    lines = result.stdout.splitlines()
    assert lines
    assert [line for line in lines if line != line.rstrip()] == []
    assert max(len(line) for line in lines) <= PLAIN_WIDTH
    narrow = CliRunner().invoke(app, COMMANDS[command], env={"COLUMNS": "70"})
    assert max(len(line) for line in narrow.stdout.splitlines()) <= 70


def test_piped_report_has_no_trailing_spaces() -> None:
    result = CliRunner().invoke(app, ["report", str(ROOT / "sample_traces")])
    assert "Resumes by group" in result.stdout
    assert [line for line in result.stdout.splitlines() if line != line.rstrip()] == []
