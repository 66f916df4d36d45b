"""Start-up: a run imports what it uses, nothing more (times are measured by
`benchmarks/startup.py`, never here).

Each case runs the console entry point in a fresh interpreter and lists the modules it
imported.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.golden import ROOT

SMALL = ROOT / "sample_traces" / "mixed-session.jsonl"
PROBE = """
import gc, json, sys
from acptrace.cli import main
sys.argv = ["acptrace", *sys.argv[1:]]
try:
    main()
except SystemExit:
    pass
sys.stdout.flush()
gc_after = {"enabled": gc.isenabled(), "frozen": gc.get_freeze_count()}
sys.stderr.write(json.dumps({"modules": sorted(sys.modules), "gc": gc_after}))
"""
HEAVY = (
    *("polars", "pyarrow", "multiprocessing", "concurrent.futures", "tomllib", "tempfile"),
    *("secrets", "hashlib", "gzip", "glob", "acptrace.pipeline.pieces", "acptrace.read.probes"),
)
"""Libraries a run that does not use them must not pay for (gzip: a plain file is read; glob: the
arguments name files; the file splitter and its clock probes: a small file is never split)."""
UNDER_TYPER = ("shutil", "bz2", "lzma", "heapq")
"""What typer (and multiprocessing) import anyway, but an analysis must not: a program that
calls the library imports neither (shutil, and the compressors it brings, copies stdin; heapq
merges a `.traffic` file's issues)."""
OTHER_COMMANDS = (
    *("acptrace.tables", "acptrace.export", "acptrace.report", "acptrace.record"),
    *("acptrace.mock", "acptrace.drive", "acptrace.render.timeline"),
)
"""What other commands use."""


def probed(*args: str, cwd: Path) -> dict[str, Any]:
    """What the probe saw of a run of `acptrace ARGS` in `cwd`: `modules`, `gc`."""
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *args], cwd=cwd, capture_output=True, check=True
    )
    found: dict[str, Any] = json.loads(done.stderr.decode().splitlines()[-1])
    return found


def imported(*args: str, cwd: Path) -> set[str]:
    """The modules a run of `acptrace ARGS` imported (from `cwd`: a directory with no config)."""
    return set(probed(*args, cwd=cwd)["modules"])


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
        assert "rich._emoji_codes" not in modules  # (`:name:` codes are never replaced)
    else:
        assert loaded(modules, ("rich",)) == []


TYPER_ONLY = ("typer", "click", "subprocess", "shutil", "difflib", "gettext", "shellingham")
"""What typer imports (its vendored click among it) and an analysis does not."""


@pytest.mark.parametrize("fmt", ["rich", "json"])
def test_a_well_formed_analyze_is_read_and_run_without_typer(tmp_path: Path, fmt: str) -> None:
    """`analyze` of a well-formed command line is read by its declaration, not by typer
    (`acptrace.cli.quick`): none of typer's imports, nor typer's side of the options."""
    modules = imported("analyze", "--jobs", "1", "-f", fmt, str(SMALL), cwd=tmp_path)
    assert "acptrace.pipeline.analysis" in modules  # (the probe did run the analysis)
    assert loaded(modules, (*TYPER_ONLY, *UNDER_TYPER)) == []
    assert loaded(modules, ("acptrace.cli.root", "acptrace.cli.typer_options")) == []
    assert "acptrace.cli.analyze_command" not in modules


def test_analyze_help_and_its_mistakes_are_typers(tmp_path: Path) -> None:
    for args in (("analyze", "--help"), ("analyze", str(SMALL), "--no-such-option")):
        modules = imported(*args, cwd=tmp_path)
        assert "typer" in modules
        assert "acptrace.cli.analyze_command" in modules


WORKER_PROBE = """
import json, os, sys, time
from multiprocessing import parent_process

from acptrace.cli import main  # (all the console script imports: a spawned worker runs it again)

FLAG = "a-worker-analysed-one"


def modules_after_analysing(path, options, *, execution):
    \"\"\"Analyse the file as `analyze` does; in a worker, then say which modules it holds.\"\"\"
    from acptrace.pipeline.pool import _analyze_one

    _analyze_one(path, options, execution=execution)
    if parent_process() is not None:
        open(FLAG, "w").close()
        return sorted(sys.modules)
    waited = 0  # (this process waits for a worker's first file: not a time limit on it)
    while not os.path.exists(FLAG) and waited < 1200:
        time.sleep(0.05)
        waited += 1
    return None


if __name__ == "__main__":
    from acptrace.model.options import Options
    from acptrace.pipeline.pool import each_file

    paths = sys.argv[1:]
    found = [m for m in each_file(modules_after_analysing, paths, Options(), jobs=2) if m]
    print(json.dumps(found[0] if found else None))
"""


def test_a_spawned_worker_imports_the_pipeline_and_no_command(tmp_path: Path) -> None:
    """A worker of `analyze --jobs N` (started with `spawn`) imports the console script again,
    which imports only `acptrace.cli` itself, and the analysis: no typer, rich, polars, no
    command module nor renderer."""
    script = tmp_path / "probe.py"
    script.write_text(WORKER_PROBE)
    done = subprocess.run(
        [sys.executable, str(script), *[str(SMALL)] * 4],
        cwd=tmp_path,
        capture_output=True,
        check=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    found = json.loads(done.stdout.decode().splitlines()[-1])
    assert found is not None, "no worker analysed a file"
    modules = set(found)
    assert "acptrace.pipeline.analysis" in modules  # (the worker did analyse)
    assert loaded(modules, ("typer", "click", "rich", "polars", "acptrace.render")) == []
    assert loaded(modules, OTHER_COMMANDS) == []
    assert sorted(m for m in modules if m.startswith("acptrace.cli.")) == []


def test_the_split_worker_entry_imports_no_command() -> None:
    """Where workers are spawned rather than forked (macOS, Windows), a worker decoding pieces
    of one big file imports `acptrace.pipeline.pieces`: the pipeline below the commands only."""
    probe = "import json, sys, acptrace.pipeline.pieces; print(json.dumps(sorted(sys.modules)))"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, check=True)
    modules = set(json.loads(done.stdout))
    assert loaded(modules, ("typer", "click", "rich", "polars", "acptrace.cli")) == []
    assert loaded(modules, ("acptrace.render", *OTHER_COMMANDS)) == []


def test_a_pyproject_toml_that_does_not_name_acptrace_is_not_parsed(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "someone-else"\n')
    assert "tomllib" not in imported("analyze", str(SMALL), cwd=tmp_path)
    (tmp_path / "pyproject.toml").write_text("[tool.acptrace]\nstrict = false\n")
    assert "tomllib" in imported("analyze", str(SMALL), cwd=tmp_path)


TWICE = """
import atexit, gc, sys
from acptrace.cli import main
atexit.register(lambda: print("at exit", gc.get_freeze_count()))  # (runs after acptrace's)
frozen, path = [], sys.argv[-1]
for _ in range(3):
    sys.argv = ["acptrace", "analyze", path, "-f", "json"]
    try:
        main()
    except SystemExit:
        pass
    gc.collect()
    frozen.append(gc.get_freeze_count())
print("after each", *frozen)
"""


def test_a_program_that_calls_main_again_and_again_sets_nothing_more_aside(
    tmp_path: Path,
) -> None:
    """Only the first call sets the imports aside; everything else only when Python exits."""
    done = subprocess.run(
        [sys.executable, "-c", TWICE, str(SMALL)], cwd=tmp_path, capture_output=True, check=True
    )
    lines = done.stdout.decode().splitlines()
    after = [int(n) for n in lines[-2].split()[2:]]
    assert lines[-2].startswith("after each")
    assert after[0] > 10_000
    assert after[0] >= after[1] >= after[2]  # (what was set aside may still be freed)
    at_exit = int(lines[-1].split()[-1])
    assert at_exit > after[-1]


def test_the_command_runs_with_the_collector_on_and_start_up_set_aside(tmp_path: Path) -> None:
    """The console entry keeps the collector off while it imports, then sets those objects
    aside (`gc.freeze`) and turns it back on: a long analysis still collects its garbage."""
    seen = probed("analyze", str(SMALL), "-f", "json", cwd=tmp_path)["gc"]
    assert seen["enabled"] is True
    assert seen["frozen"] > 10_000  # (the imported modules' objects)


def test_a_library_analysis_of_a_small_file_imports_only_what_it_uses() -> None:
    """`acptrace.analyze` in a program of its own: no command, typer, rich, nor what typer or
    multiprocessing would bring anyway."""
    probe = (
        f"import json, sys, acptrace; acptrace.analyze({str(SMALL)!r}); "
        "print(json.dumps(sorted(sys.modules)))"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, check=True)
    modules = set(json.loads(done.stdout))
    assert "acptrace.pipeline.analysis" in modules  # (the probe did analyse)
    assert loaded(modules, ("typer", "click", "rich", "acptrace.cli", "acptrace.render")) == []
    assert loaded(modules, HEAVY + OTHER_COMMANDS + UNDER_TYPER) == []


def test_the_library_names_resolve_on_first_use() -> None:
    probe = (
        "import sys, acptrace\n"
        "assert 'acptrace.pipeline.analysis' not in sys.modules\n"
        "assert callable(acptrace.analyze) and acptrace.Analysis.__name__ == 'Analysis'\n"
        "from acptrace import analyze_file, Severity\n"
        "assert set(acptrace.__all__) <= set(dir(acptrace))\n"
    )
    subprocess.run([sys.executable, "-c", probe], check=True)


def test_no_module_of_an_analysis_builds_a_big_value_at_import() -> None:
    """Every process pays for what a module builds at import (a spawned worker too): a
    megabyte of newlines to compare blank reads with cost each ~0.5 ms; it is made on first
    use."""
    probe = (
        "import sys, acptrace.pipeline.pool, acptrace.pipeline.pieces\n"
        "for name, module in list(sys.modules.items()):\n"
        "    if name.startswith('acptrace'):\n"
        "        for key, value in vars(module).items():\n"
        "            if isinstance(value, (bytes, bytearray, str)) and len(value) > 65536:\n"
        "                print(name, key, len(value))\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, check=True)
    assert done.stdout.decode() == ""


def test_the_commands_every_run_reads_have_no_annotations_as_text() -> None:
    """typer reads each option from its annotation; as text (`from __future__ import
    annotations`) it evaluates them all again on every run (~1.5 ms for analyze's options)."""
    from acptrace.cli.analyze_command import analyze_command
    from acptrace.cli.root import main_callback

    for command in (main_callback, analyze_command):
        as_text = [name for name, kind in command.__annotations__.items() if isinstance(kind, str)]
        assert as_text == [], command.__name__


DATACLASSES_PROBE = """
import dataclasses, json, sys
import acptrace.pipeline.pool, acptrace.pipeline.pieces, acptrace.read.probes
import acptrace.cli.analyze_command, acptrace.render.json_report

own = []
for name, module in list(sys.modules.items()):
    if not name.startswith("acptrace"):
        continue
    for value in list(vars(module).values()):
        if not (isinstance(value, type) and value.__module__ == name):
            continue
        if dataclasses.is_dataclass(value):
            own.append(f"{name}.{value.__qualname__}")
print(json.dumps(sorted(own)))
"""


def test_an_analysis_declares_no_dataclass() -> None:
    """A frozen dataclass compiles its methods from source when its module is imported (Python
    3.11: each on its own, ~0.1 ms, ~3M instructions for six fields): the public records, and
    what only the pipeline carries (the file splitter's plans, pieces and workers), are msgspec
    Structs, made in C."""
    probe = [sys.executable, "-c", DATACLASSES_PROBE]
    done = subprocess.run(probe, capture_output=True, check=True)
    assert json.loads(done.stdout) == []
