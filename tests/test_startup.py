"""Start-up: a run imports what it uses, nothing more (times are measured by
`benchmarks/startup.py`, never here).

Each case runs the console entry point in a fresh interpreter and lists the modules it
imported.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.golden import ROOT

SMALL = ROOT / "sample_traces" / "mixed-session.jsonl"
PROBE = """
import json, sys
from acptrace.cli import main
sys.argv = ["acptrace", *sys.argv[1:]]
try:
    main()
except SystemExit:
    pass
sys.stdout.flush()
sys.stderr.write(json.dumps(sorted(sys.modules)))
"""
HEAVY = (
    *("polars", "pyarrow", "multiprocessing", "concurrent.futures", "tomllib", "tempfile"),
    *("secrets", "hashlib", "acptrace.pipeline.pieces"),
)
"""Libraries a run that does not use them must not pay for (the file splitter: a small file
is never split)."""
OTHER_COMMANDS = (
    *("acptrace.tables", "acptrace.export", "acptrace.report", "acptrace.record"),
    *("acptrace.mock", "acptrace.drive", "acptrace.render.timeline"),
)
"""What other commands use."""


def imported(*args: str, cwd: Path) -> set[str]:
    """The modules a run of `acptrace ARGS` imported (from a directory with no config)."""
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *args], cwd=cwd, capture_output=True, check=True
    )
    modules: list[str] = json.loads(done.stderr.decode().splitlines()[-1])
    return set(modules)


def loaded(modules: set[str], names: tuple[str, ...]) -> list[str]:
    """Which of these packages (or modules under them) were imported."""
    return sorted(m for m in modules if any(m == n or m.startswith(n + ".") for n in names))


def test_version_imports_no_command_and_no_pipeline(tmp_path: Path) -> None:
    modules = imported("--version", cwd=tmp_path)
    ours = sorted(m for m in modules if m.startswith("acptrace"))
    assert ours == [
        "acptrace",
        "acptrace.cli",
        "acptrace.cli.common",
        "acptrace.cli.root",
        "acptrace.model",
        "acptrace.model.errors",
        "acptrace.model.excerpt",  # (the one escaping of what error lines print)
        "acptrace.model.version",
    ]
    assert loaded(modules, ("rich", "msgspec", *HEAVY)) == []


@pytest.mark.parametrize("fmt", ["rich", "json", "sarif"])
def test_analyze_of_a_small_file_imports_only_what_it_uses(tmp_path: Path, fmt: str) -> None:
    modules = imported("analyze", str(SMALL), "-f", fmt, cwd=tmp_path)
    assert "acptrace.pipeline.analysis" in modules  # (the probe did run the analysis)
    assert loaded(modules, HEAVY + OTHER_COMMANDS) == []
    if fmt == "rich":
        assert "rich.console" in modules
    else:
        assert loaded(modules, ("rich",)) == []


def test_the_library_names_resolve_on_first_use() -> None:
    probe = (
        "import sys, acptrace\n"
        "assert 'acptrace.pipeline.analysis' not in sys.modules\n"
        "assert callable(acptrace.analyze) and acptrace.Analysis.__name__ == 'Analysis'\n"
        "from acptrace import analyze_file, Severity\n"
        "assert set(acptrace.__all__) <= set(dir(acptrace))\n"
    )
    subprocess.run([sys.executable, "-c", probe], check=True)
