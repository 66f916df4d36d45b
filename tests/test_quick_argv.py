"""`analyze` read without typer (`acptrace.cli.argv`, issue #35): the quick reader knows every
option typer knows for it, and nothing more, reads every well-formed command line as typer
does, and leaves every other line to typer, whose help, messages and exit codes are unchanged."""

from __future__ import annotations

import os
import subprocess
import sys
from enum import Enum
from pathlib import Path
from typing import Any

import msgspec
import pytest
import typer.main
from typer import _click as click
from typer._types import TyperChoice
from typer.core import TyperArgument, TyperGroup, TyperOption
from typer.models import TyperPath
from typer.testing import CliRunner

from acptrace.cli import analyze_command as command_module
from acptrace.cli import app
from acptrace.cli.analyze_run import AnalyzeLine
from acptrace.cli.argv import _spellings, read_line
from acptrace.cli.declare import REQUIRED, Argument, Field, Option, fields_of
from acptrace.cli.quick import quick_analyze
from tests.golden import ROOT

SMALL = ROOT / "sample_traces" / "mixed-session.jsonl"
HELP = {"-h", "--help"}
"""typer's own options on every command: the quick reader leaves them to typer."""


def typer_params() -> list[click.Parameter]:
    command = typer.main.get_command(app)
    assert isinstance(command, TyperGroup)
    return command.commands["analyze"].params


def typer_read(args: list[str], monkeypatch: pytest.MonkeyPatch) -> AnalyzeLine | int:
    """The line typer's command hands the work, or typer's exit code where it hands none."""
    seen: list[AnalyzeLine] = []

    def capture(line: AnalyzeLine) -> int:
        seen.append(line)
        return 0

    monkeypatch.setattr(command_module, "run_analyze", capture)
    result = CliRunner().invoke(app, ["analyze", *args])
    return seen[0] if seen else result.exit_code


# -- one declaration, two readers ---------------------------------------------------------------


def test_no_two_options_are_spelt_alike() -> None:
    """A name given to two options would be read as the later one's by the quick reader
    (`_spellings`), whatever typer made of it."""
    names = [
        name
        for field in fields_of(AnalyzeLine)
        if isinstance(field.spec, Option)
        for name in (*field.spec.names, *((field.spec.off,) if field.spec.off else ()))
    ]
    assert len(names) == len(set(names)), sorted(n for n in names if names.count(n) > 1)


def test_the_quick_reader_knows_every_name_typer_knows_and_no_other() -> None:
    names = {
        name
        for param in typer_params()
        if isinstance(param, TyperOption)
        for name in (*param.opts, *param.secondary_opts)
    }
    assert set(_spellings(AnalyzeLine)) == names
    assert not HELP & set(_spellings(AnalyzeLine))  # (typer's own: left to it)


def test_each_option_has_typers_type_default_and_multiple_ness() -> None:
    fields = {field.name: field for field in fields_of(AnalyzeLine)}
    params = typer_params()
    assert [param.name for param in params] == list(fields)
    for param in params:
        field = fields[str(param.name)]
        if isinstance(param, TyperArgument):
            assert isinstance(field.spec, Argument)
            assert (param.nargs, param.required, field.default) == (-1, True, REQUIRED)
            continue
        assert isinstance(param, TyperOption)
        assert isinstance(field.spec, Option)
        assert param.default == field.default, param.name
        assert param.multiple is field.multiple, param.name
        assert param.is_flag is (field.kind is bool), param.name
        assert described(param.type) == kind_of(field.kind, field.spec), param.name


def described(kind: click.types.ParamType) -> tuple[Any, ...]:
    """What typer checks a value against."""
    if isinstance(kind, click.types.IntRange):
        return ("int", kind.min, kind.max)
    if isinstance(kind, TyperChoice):
        return ("choice", tuple(map(str, kind.choices)))
    if isinstance(kind, TyperPath):
        return ("path", kind.dir_okay, kind.exists, kind.readable)
    return (kind.name,)


def kind_of(kind: Any, spec: Option) -> tuple[Any, ...]:
    """What the quick reader checks a value against (its declaration)."""
    if kind is int:
        return ("int", spec.minimum, spec.maximum)
    if isinstance(kind, type) and issubclass(kind, Enum):
        return ("choice", tuple(str(member.value) for member in kind))
    if kind is Path:
        return ("path", spec.dir_okay, False, True)
    return ({str: "str", bool: "boolean"}[kind],)


# -- the same lines read the same way -----------------------------------------------------------

EVERY_OPTION = [
    *("--format", "json", "-o", "out.json", "--fail-on", "warning", "--strict"),
    *("--assume-closed", "--protocol", "2", "--child-rules", "--marker-tag", "done"),
    *("--history-tag", "plan", "--live-tag", "usage_update", "--select", "RC-"),
    *("--ignore", "SCHEMA-", "--schema", "full", "--input-format", "acptrace"),
    *("--link", "client", "--config", "CONFIG", "--no-config", "--idle-timeouts", "1s"),
    *("--jobs", "2", "--quiet", "--summary"),
]
WELL_FORMED = [
    ["a.jsonl"],
    ["a.jsonl", "b.jsonl", "dir", "*.jsonl", "-"],
    [*EVERY_OPTION, "a.jsonl"],
    ["a.jsonl", *EVERY_OPTION, "b.jsonl"],
    ["--format=sarif", "--output=-", "--fail-on=never", "--protocol=1", "a.jsonl"],
    ["--marker-tag=x=y", "--select=RC-", "--select", "RC-HIST", "--ignore=", "a.jsonl"],
    ["-f", "markdown", "-o", "-", "-j", "0", "-q", "a.jsonl"],
    ["-fgithub", "-oout", "-j1", "a.jsonl"],
    ["--strict", "--no-strict", "--no-assume-closed", "--no-child-rules", "a.jsonl"],
    ["--no-strict", "--strict", "--assume-closed", "--no-assume-closed", "a.jsonl"],
    ["--format", "json", "--format", "junit", "-j", "3", "--jobs=1", "a.jsonl"],
    ["--history-tag", "a", "--history-tag=b", "--live-tag", "c", "--live-tag", "d", "x"],
    ["a.jsonl", "--", "--strict", "-q", "-"],
    ["--", "-x.jsonl"],
    ["--marker-tag", "--strict", "a.jsonl"],  # (a value is the next argument, as typer has it)
    ["-o", "--", "a.jsonl"],
    ["--link", "-h", "a.jsonl"],
    ["--config", "missing.toml", "a.jsonl"],
    ["--config=CONFIG", "--jobs", "007", "--protocol", "2", "a.jsonl"],
    ["--idle-timeouts", "", "--input-format", "", "a.jsonl"],
    ["", "a.jsonl"],
]


def sample(field: Field) -> str:
    """A value typer takes for this option (not its default)."""
    spec = field.spec
    assert isinstance(spec, Option)
    if isinstance(field.kind, type) and issubclass(field.kind, Enum):
        return str(list(field.kind)[-1].value)
    if field.kind is int:
        return str(spec.maximum or (spec.minimum or 0) + 1)
    return "CONFIG" if field.kind is Path else "text"


def spelled() -> list[list[str]]:
    """Each name of each option in each form typer reads it (`--name=value`, `--name value`,
    `-xVALUE`, `-x VALUE`; a flag alone), given twice where it may be, before a file."""
    lines = []
    for field in fields_of(AnalyzeLine):
        spec = field.spec
        if not isinstance(spec, Option):
            continue
        if field.kind is bool:
            lines += [[name, "a.jsonl"] for name in (*spec.names, spec.off) if name]
            continue
        for name in spec.names:
            joined = f"{name}={sample(field)}" if name.startswith("--") else name + sample(field)
            for given in ([joined], [name, sample(field)]):
                lines.append([*given, *(given if field.multiple else ()), "a.jsonl"])
    return lines


def read_alike(args: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AnalyzeLine:
    """The line the quick reader makes of `args`, asserted to be typer's (in a folder with the
    `CONFIG` file the lines name)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "CONFIG").write_text("[tool.acptrace]\n")
    quick = read_line(AnalyzeLine, args)
    assert quick is not None  # (read without typer)
    assert quick == typer_read(args, monkeypatch)
    return quick


@pytest.mark.parametrize("args", spelled(), ids=" ".join)
def test_every_option_in_every_form_is_read_as_typer_reads_it(
    args: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    quick = read_alike(args, tmp_path, monkeypatch)
    assert quick != AnalyzeLine(files=["a.jsonl"])  # (a value given, not the default)


@pytest.mark.parametrize("args", WELL_FORMED, ids=" ".join)
def test_a_well_formed_line_is_read_as_typer_reads_it(
    args: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    read_alike(args, tmp_path, monkeypatch)


def test_every_flag_and_value_reaches_the_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The line of every option differs from the defaults in each field (so the comparison
    above is of values given, not of defaults)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "CONFIG").write_text("[tool.acptrace]\n")
    line = read_line(AnalyzeLine, [*EVERY_OPTION, "a.jsonl"])
    assert line is not None
    values = {**msgspec.structs.asdict(line), **msgspec.structs.asdict(line.flags)}
    for field in fields_of(AnalyzeLine):
        assert values[field.name] != field.default, field.name


UNSURE = [
    ([], "missing argument 'FILE...'"),
    (["--help"], "Usage: acptrace analyze [OPTIONS] FILE..."),
    (["-h", "a.jsonl"], "Usage: acptrace analyze [OPTIONS] FILE..."),
    (["a.jsonl", "--stric"], "no such option: --stric (Possible options: --no-strict, --strict)"),
    (["a.jsonl", "--format", "yaml"], "'yaml' is not one of 'rich', 'json',"),
    (["a.jsonl", "--format", "JSON"], "'JSON' is not one of"),
    (["a.jsonl", "-j", "-1"], "-1 is not in the range x>=0"),
    (["a.jsonl", "--protocol", "3"], "3 is not in the range 1<=x<=2"),
    (["a.jsonl", "--protocol", "two"], "'two' is not a valid int range"),
    (["a.jsonl", "--schema"], "option '--schema' requires an argument"),
    (["a.jsonl", "--strict=yes"], "option '--strict' does not take a value"),
    (["a.jsonl", "--config", "."], "File '.' is a directory"),
    (["a.jsonl", "-x"], "no such option: -x"),
    (["a.jsonl", "-qx"], "no such option: -x"),
]
"""Lines the quick reader leaves to typer, and (part of) what typer says of each."""


@pytest.mark.parametrize(("args", "said"), UNSURE, ids=lambda a: " ".join(a) or "none")
def test_a_mistake_or_help_is_left_to_typer(args: list[str], said: str, tmp_path: Path) -> None:
    """typer's help, or its message and exit 2, from the console script as from typer."""
    assert read_line(AnalyzeLine, args) is None
    runs = [analyze_in_a_process(args, cwd=tmp_path, typer_route=t) for t in (False, True)]
    quick, typers = ((run.returncode, run.stdout, run.stderr) for run in runs)
    assert quick == typers
    code, out, err = quick
    if said.startswith("Usage:"):
        assert (code, err) == (0, b"")
        assert out.decode().startswith(said)
    else:
        assert (code, out) == (2, b"")
        assert said in err.decode()
        assert err.decode().splitlines()[-1].startswith("acptrace: error: ")


@pytest.mark.parametrize(
    ("args", "typers"),
    [
        (["-qj1", "a"], AnalyzeLine(["a"], quiet=True, jobs=1)),
        (["--jobs", "+1", "a"], AnalyzeLine(["a"], jobs=1)),
        (["--jobs", "1_0", "a"], AnalyzeLine(["a"], jobs=10)),
        (["-jq", "a"], 2),
    ],
    ids=lambda a: " ".join(a) if isinstance(a, list) else None,
)
def test_what_typer_reads_its_own_way_is_typers(
    args: list[str], typers: AnalyzeLine | int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Short flags run together, a number with a sign or a `_`: left to typer, which reads
    them (or refuses them) itself."""
    assert read_line(AnalyzeLine, args) is None
    assert typer_read(args, monkeypatch) == typers


def test_a_shells_completion_request_is_typers(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("_ACPTRACE_COMPLETE", "complete_bash")
    assert quick_analyze(["a.jsonl"]) is None
    monkeypatch.setenv("_ACPTRACE_COMPLETE", "")
    assert quick_analyze(["a.jsonl"]) is not None
    monkeypatch.setenv("SETUP_COMPLETE", "1")  # (a CI job's variable, not a shell's request)
    assert quick_analyze(["a.jsonl"]) is not None


# -- the same run, both ways --------------------------------------------------------------------

QUICK_ROUTE = """
import sys
from acptrace.cli import main
sys.argv = ["acptrace", "analyze", *sys.argv[1:]]
main()
"""
TYPER_ROUTE = """
import sys
from acptrace.cli import register
from acptrace.cli.root import main
register("analyze")
sys.argv = ["acptrace", "analyze", *sys.argv[1:]]
main()
"""


def analyze_in_a_process(
    args: list[str], *, cwd: Path, typer_route: bool = False, stdin: bytes = b""
) -> subprocess.CompletedProcess[bytes]:
    """`acptrace analyze ARGS` as the console script runs it (or, `typer_route`, by typer)."""
    code = TYPER_ROUTE if typer_route else QUICK_ROUTE
    env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "100"}
    return subprocess.run(
        [sys.executable, "-c", code, *args],
        cwd=cwd,
        input=stdin,
        capture_output=True,
        check=False,
        env=env,
    )


RUNS = [
    [str(SMALL)],
    [str(SMALL), "-f", "json"],
    [str(SMALL), str(SMALL), "--summary"],
    [str(SMALL), "-f", "json", "--summary"],
    [str(SMALL), "--strict", "--fail-on", "never", "-f", "sarif"],
    [str(SMALL), "--input-format", "no-such-format"],
    [str(SMALL), "--idle-timeouts", "soon"],
    [str(SMALL), "-o", "written.json", "-f", "json"],
    [str(SMALL), "-o", "no/such/folder/out.json"],
    ["missing.jsonl", str(SMALL), "-f", "junit"],
    ["-", "-f", "github"],
    [str(SMALL), "--select", "RC-", "-f", "markdown"],
]


@pytest.mark.parametrize("args", RUNS, ids=lambda a: " ".join(Path(x).name for x in a))
def test_a_run_without_typer_writes_what_typers_run_writes(args: list[str], tmp_path: Path) -> None:
    """The same stdout, stderr (the config file's note included), files and exit code."""
    runs = []
    for route in ("quick", "typer"):
        folder = tmp_path / route
        folder.mkdir()
        (folder / "acptrace.toml").write_text('fail-on = "warning"\n')
        done = analyze_in_a_process(
            args, cwd=folder, typer_route=route == "typer", stdin=SMALL.read_bytes()
        )
        written = sorted(p.name for p in folder.iterdir())
        runs.append((done.returncode, done.stdout, done.stderr, written))
    assert runs[0] == runs[1]
