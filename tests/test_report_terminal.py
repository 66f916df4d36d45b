"""`acptrace report` out of the box: charts without an extra (matplotlib loaded by nothing but the
HTML report), the terminal's bars and tables at 80, 100 and 120 columns, percentiles of few
replays marked, v1 loads apart from marker completeness, and the report's own files skipped."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.golden import ROOT

SAMPLE = ROOT / "sample_traces" / "outcome-complete.jsonl"

LOADED_MODULES = """
import sys
from typer.testing import CliRunner
from acptrace.cli import app
result = CliRunner().invoke(app, sys.argv[1:])
assert result.exit_code in (0, 1), result.output
print("matplotlib" in sys.modules)
"""
"""Runs the CLI in a fresh interpreter and says whether matplotlib got imported."""


def imports_matplotlib(*arguments: str) -> bool:
    done = subprocess.run(
        [sys.executable, "-c", LOADED_MODULES, *arguments],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    return done.stdout.strip().splitlines()[-1] == "True"


def test_only_the_html_report_imports_matplotlib(tmp_path: Path) -> None:
    assert not imports_matplotlib("analyze", str(SAMPLE))
    assert not imports_matplotlib("report", str(SAMPLE), "-o", str(tmp_path / "r.json"))
    assert imports_matplotlib("report", str(SAMPLE), "-q", "-o", str(tmp_path / "r.html"))
    assert "<img" in (tmp_path / "r.html").read_text()  # the charts, on a plain install
