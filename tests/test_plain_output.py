"""Where the terminal views go (docs/analyze.md#output-width): colours only on a terminal; a pipe
or a file written with `-o` gets plain text, `PLAIN_WIDTH` (or `COLUMNS`) wide, with no spaces
at the ends of lines. The terminal runs are in a real pseudo-terminal."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from acptrace.cli import app
from acptrace.cli.common import PLAIN_WIDTH
from tests.golden import ROOT
from tests.terminal import in_terminal

SAMPLE = str(ROOT / "sample_traces" / "mixed-session.jsonl")
COMMANDS = {
    "analyze": ["analyze", SAMPLE],
    "timeline": ["timeline", SAMPLE],
    "fidelity": ["fidelity", SAMPLE],
    "rules": ["rules"],
}
ESCAPE = b"\x1b["


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
