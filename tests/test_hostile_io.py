"""Outputs and inputs that fail clearly (docs/hostile-inputs.md): every case in the docs table
has a test here, marked with `covers`, and the table lists exactly the cases tested."""

from __future__ import annotations

import gzip
import os
import re
import signal
import socket
import stat
import subprocess
import sys
import threading
import time
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar

import pytest
from typer.testing import CliRunner, Result

from acptrace.cli import app
from tests.outputs import REFUSED, refused_outputs
from tests.transcript import SESSION, Transcript, complete_connection

ROOT = Path(__file__).resolve().parent.parent
TABLE = ROOT / "docs" / "hostile-inputs.md"
ACPTRACE = [sys.executable, "-m", "acptrace"]
TIMEOUT_S = 120.0
"""Bound for one run in a subprocess: only reached when reading never ends (the bug)."""

runner = CliRunner()
TESTED: set[str] = set()
"""The case ids of the docs table that a test below covers."""

F = TypeVar("F", bound=Callable[..., object])


def covers(*ids: str) -> Callable[[F], F]:
    """Mark a test as the one for these rows of the docs table."""

    def mark(test: F) -> F:
        TESTED.update(ids)
        return test

    return mark


def good(tmp_path: Path, name: str = "good.jsonl") -> Path:
    t = complete_connection()
    path = tmp_path / name
    path.write_bytes(t.text())
    return path


def one_error_line(result: Result) -> str:
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("acptrace: error: "), lines[0]
    return lines[0]


def first_error_line(result: Result) -> str:
    """The first line on stderr (`report` adds that it wrote nothing), each one an error."""
    lines = result.stderr.splitlines()
    assert lines, result.output
    assert all(line.startswith("acptrace: error: ") for line in lines), result.stderr
    return lines[0]


def no_traceback(result: Result) -> None:
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert "Traceback" not in result.output


def files_under(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


# -- -o: the one rule of every command ---------------------------------------------------------

FILE_COMMANDS = ["analyze", "timeline", "report", "export-trace", "redact", "record", "fidelity"]


def file_command(command: str, source: Path, target: str) -> list[str]:
    """The arguments that write `source`'s result to the file `target` with this command."""
    match command:
        case "analyze" | "timeline" | "fidelity":
            return [command, str(source), "-o", target]
        case "report":
            return ["report", str(source), "-q", "-o", target]
        case "export-trace":
            return ["export", "-f", "trace-event", str(source), "-o", target]
        case "redact":
            return ["redact", str(source), "-o", target]
        case _:
            return ["record", "-o", target, "--", sys.executable, "-c", "pass"]


OUT_CASES = dict(
    zip(
        ("out-missing-folder", "out-onto-folder", "out-under-file", "out-read-only"),
        REFUSED,
        strict=True,
    )
)
"""The hostile-input table's names of the refused outputs (docs/hostile-inputs.md)."""


@covers("out-missing-folder", "out-onto-folder", "out-under-file", "out-read-only")
@pytest.mark.parametrize("command", FILE_COMMANDS)
@pytest.mark.parametrize(
    "case", ["out-missing-folder", "out-onto-folder", "out-under-file", "out-read-only"]
)
def test_an_output_file_that_cannot_be_written_is_one_line_and_exit_2(
    tmp_path: Path, command: str, case: str
) -> None:
    (tmp_path / "in").mkdir()
    source = good(tmp_path / "in")
    target, says = refused_outputs(tmp_path, ".json")[OUT_CASES[case]]
    before = files_under(tmp_path)
    result = runner.invoke(app, file_command(command, source, str(target)))

    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    line = one_error_line(result)
    assert "cannot write " in line
    assert f"{target}: {says}" in line
    assert files_under(tmp_path) == before  # nothing made, nothing left behind
    read_only = tmp_path / "read-only.json"
    assert read_only.read_text() == "keep me"
    assert stat.S_IMODE(read_only.stat().st_mode) == 0o444


FOLDER_COMMANDS = ["export", "drive"]


def folder_command(command: str, source: Path, target: str) -> list[str]:
    if command == "export":
        return ["export", str(source), "-o", target]
    return ["drive", "-o", target, "--", sys.executable, "-c", "pass"]


@covers("out-folder-is-file", "out-folder-parent-missing")
@pytest.mark.parametrize("command", FOLDER_COMMANDS)
def test_an_output_folder_that_cannot_be_made_is_one_line_and_exit_2(
    tmp_path: Path, command: str
) -> None:
    source = good(tmp_path)
    blocker = tmp_path / "a-file"
    blocker.write_text("mine")
    cases = {
        blocker: "it is a file, not a folder",
        tmp_path / "nope" / "tables": f"the folder {tmp_path / 'nope'} does not exist",
    }
    for target, says in cases.items():
        before = files_under(tmp_path)
        result = runner.invoke(app, folder_command(command, source, str(target)))
        assert result.exit_code == 2, result.output
        assert f"cannot write in {target}: {says}" in one_error_line(result)
        assert files_under(tmp_path) == before
    assert blocker.read_text() == "mine"


def test_an_output_folder_that_is_missing_is_made(tmp_path: Path) -> None:
    result = runner.invoke(app, ["export", str(good(tmp_path)), "-o", str(tmp_path / "tables")])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "tables" / "messages.parquet").is_file()


def char_device(path: str) -> str:
    if not os.path.exists(path) or not stat.S_ISCHR(os.stat(path).st_mode):
        pytest.skip(f"{path} is not a character device here")
    return path


def full_device(folder: Path, name: str) -> Path:
    """A device like /dev/full (every write fails: no space left) made in `folder`, so that a
    command that wrongly replaced it by a file would replace only this node."""
    path = folder / name
    try:
        os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, 7))
    except OSError as error:
        pytest.skip(f"cannot make a /dev/full device node here: {error.strerror}")
    return path


@covers("out-device-full")
@pytest.mark.parametrize("command", [*(c for c in FILE_COMMANDS if c != "record"), "rules"])
def test_a_write_that_fails_is_one_line_and_exit_2(tmp_path: Path, command: str) -> None:
    full = full_device(tmp_path, "full.json")
    good(tmp_path)
    args = ["rules", "-o", str(full)] if command == "rules" else None
    result = runner.invoke(app, args or file_command(command, good(tmp_path), str(full)))
    assert result.exit_code == 2, result.output
    says = "the redacted transcript " if command == "redact" else ""
    assert f"cannot write {says}{full}: No space left on device" in one_error_line(result)
    assert stat.S_ISCHR(full.stat().st_mode)  # written into, not replaced by a file
    assert files_under(tmp_path) == ["full.json", "good.jsonl"]  # no temporary file left


PRINTING_COMMANDS = ["analyze", "timeline", "report", "fidelity", "export-trace", "redact"]
"""The commands that print their result on stdout (with `rules` and `formats`)."""


def printing_command(command: str, source: Path) -> list[str]:
    match command:
        case "export-trace":
            return ["export", "-f", "trace-event", str(source)]
        case "drive":  # (its report, of one replay of a recording played back by `mock`)
            mock = [sys.executable, "-m", "acptrace", "mock", "--speed", "0"]
            recording = ROOT / "sample_traces" / "outcome-complete.jsonl"
            runs = ["-o", str(source.parent / "runs")]
            return ["drive", "-n", "1", "--linger", "20", *runs, "--", *mock, str(recording)]
        case "rules" | "formats":
            return [command]
        case _:
            return [command, str(source)]


@covers("out-stdout-full")
@pytest.mark.parametrize("command", [*PRINTING_COMMANDS, "rules", "formats", "drive"])
def test_stdout_on_a_full_disk_is_one_line_and_exit_2(tmp_path: Path, command: str) -> None:
    full = full_device(tmp_path, "full")
    with full.open("wb") as stdout:
        args = [*ACPTRACE, *printing_command(command, good(tmp_path))]
        done = subprocess.run(args, stdout=stdout, stderr=subprocess.PIPE, timeout=TIMEOUT_S)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.decode().splitlines()
    assert lines[-1] == "acptrace: error: cannot write stdout: No space left on device", lines
    assert b"Traceback" not in done.stderr


@covers("out-stdout-closed")
@pytest.mark.parametrize(
    "command", [*PRINTING_COMMANDS, "rules", "formats", "drive", "timeline-full"]
)
def test_stdout_closed_early_ends_quietly_with_exit_0(tmp_path: Path, command: str) -> None:
    """`| true` (the reader is gone before the first write) and `| head -c 100` (it goes after
    the first piece of a long output): exit 0, nothing on stderr, never 1 (findings)."""
    if command == "timeline-full":
        big = tmp_path / "big.jsonl"
        big.write_bytes(good(tmp_path).read_bytes() * 300)  # more than a pipe holds
        args, keep = ["timeline", "--full", str(big)], 100
    else:
        args, keep = printing_command(command, good(tmp_path)), 0
    with subprocess.Popen(
        [*ACPTRACE, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    ) as process:
        assert process.stdout is not None
        assert process.stderr is not None
        if keep:
            assert process.stdout.read(keep)
        process.stdout.close()
        stderr = process.stderr.read()
        code = process.wait(TIMEOUT_S)
    assert code == 0, stderr
    assert stderr == b""


@pytest.fixture
def tiny_disk(tmp_path: Path) -> Iterator[Path]:
    """A 64 KB file system (tmpfs), full after a few tables; skipped where it cannot be mounted
    (not root, or a container that may not mount)."""
    folder = tmp_path / "tiny"
    folder.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(folder)], capture_output=True
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tiny tmpfs here: {done.stderr.decode().strip()}")
    try:
        yield folder
    finally:
        subprocess.run(["umount", str(folder)], check=True)


TABLE_FORMATS = ["parquet", "csv", "ndjson", "json"]


@covers("out-disk-full")
@pytest.mark.parametrize("table_format", TABLE_FORMATS)
def test_tables_onto_a_full_disk_are_one_line_and_exit_2(
    tmp_path: Path, tiny_disk: Path, table_format: str
) -> None:
    source = good(tmp_path)
    source.write_bytes(source.read_bytes() * 200)
    tables = tiny_disk / "tables"
    result = runner.invoke(app, ["export", "-f", table_format, str(source), "-o", str(tables)])
    no_traceback(result)
    assert result.exit_code == 2, result.output
    line = one_error_line(result)
    assert line.endswith(f"cannot write in {tables}: No space left on device (nothing was written)")
    assert files_under(tiny_disk) == []  # the scratch folder is gone, nothing half-written


WRITERS = {
    "parquet": ("sink_parquet", "write_parquet"),
    "csv": ("sink_csv", "write_csv"),
    "ndjson": ("sink_ndjson", "write_ndjson"),
    "json": ("write_json",),
}
"""The polars methods that write each table format's files."""


@covers("out-disk-full")
@pytest.mark.parametrize("table_format", TABLE_FORMATS)
def test_a_table_that_meets_a_full_disk_is_one_line_and_exit_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, table_format: str
) -> None:
    """The disk fills while the final files are written (the spool fitted): each writer of
    the format fails as polars does on a full disk."""
    import polars as pl

    def full(*_args: object, **_kwargs: object) -> None:
        raise OSError("No space left on device (os error 28)")

    for method in WRITERS[table_format]:
        for frame in (pl.LazyFrame, pl.DataFrame):
            if hasattr(frame, method):
                monkeypatch.setattr(frame, method, full)
    tables = tmp_path / "tables"
    args = ["export", "-f", table_format, str(good(tmp_path)), "-o", str(tables), "-j", "1"]
    result = runner.invoke(app, args)
    no_traceback(result)
    assert result.exit_code == 2, result.output
    line = one_error_line(result)
    assert line.endswith(f"cannot write in {tables}: No space left on device (nothing was written)")
    assert files_under(tmp_path) == ["good.jsonl"]


@covers("out-device")
def test_a_device_or_fifo_output_is_written_into(tmp_path: Path) -> None:
    source = good(tmp_path)
    args = [*ACPTRACE, "analyze", "-f", "json", str(source), "-o", "/dev/stdout"]
    done = subprocess.run(args, capture_output=True, timeout=TIMEOUT_S)
    assert done.returncode == 0, done.stderr
    assert b'"schema_version"' in done.stdout


# -- temporary files: removed on signals, swept when stale ------------------------------------


def temporaries(folder: Path) -> list[str]:
    return [p.name for p in folder.iterdir() if p.name.startswith(".")]


def killed_while_writing(
    tmp_path: Path, number: int, command: str = "timeline"
) -> tuple[Path, int]:
    """`timeline -o` (or `export`'s tables) of a long transcript, sent `number` once its
    temporary file (folder) is there: the output folder, and how the process ended."""
    source = tmp_path / "long.jsonl"
    source.write_bytes(good(tmp_path).read_bytes() * 2000)
    out = tmp_path / "out"
    out.mkdir()
    args = [*ACPTRACE, "timeline", "--full", str(source), "-o", str(out / "view.txt")]
    if command == "export":
        args = [*ACPTRACE, "export", str(source), "-o", str(out), "-j", "1"]
    with subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE) as process:
        deadline = time.monotonic() + TIMEOUT_S
        while not temporaries(out) and process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.01)
        assert temporaries(out), "no temporary file appeared"
        process.send_signal(number)
        code = process.wait(TIMEOUT_S)
    return out, code


@covers("out-killed")
@pytest.mark.parametrize("command", ["timeline", "export"])
@pytest.mark.parametrize("number", [signal.SIGTERM, signal.SIGINT])
def test_a_run_stopped_by_sigterm_or_sigint_leaves_no_temporary_file(
    tmp_path: Path, number: int, command: str
) -> None:
    out, code = killed_while_writing(tmp_path, number, command)
    assert code == (130 if number == signal.SIGINT else -signal.SIGTERM)  # (130: never 1)
    assert sorted(p.name for p in out.iterdir()) == []  # no view.txt, no .view.txt.…, no tables


@covers("out-killed")
def test_a_trace_event_export_stopped_by_sigterm_leaves_no_scratch_folder(tmp_path: Path) -> None:
    """Its moments and events are parked in the system's temporary folder (TMPDIR)."""
    source = tmp_path / "long.jsonl"
    source.write_bytes(good(tmp_path).read_bytes() * 2000)
    scratch, out = tmp_path / "tmp", tmp_path / "out"
    scratch.mkdir()
    out.mkdir()
    args = [*ACPTRACE, "export", "-f", "trace-event", str(source), "-o", str(out / "t.json")]
    env = {**os.environ, "TMPDIR": str(scratch)}
    with subprocess.Popen(args, env=env, stderr=subprocess.PIPE) as process:
        deadline = time.monotonic() + TIMEOUT_S
        while not temporaries(scratch) and process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.01)
        assert temporaries(scratch), "no scratch folder appeared"
        process.send_signal(signal.SIGTERM)
        assert process.wait(TIMEOUT_S) == -signal.SIGTERM
    assert list(scratch.iterdir()) == []
    assert list(out.iterdir()) == []


@covers("out-killed")
@pytest.mark.parametrize("number", [signal.SIGTERM, signal.SIGINT])
def test_a_timeline_stopped_by_a_signal_leaves_no_scratch_folder(
    tmp_path: Path, number: int
) -> None:
    """Its findings are parked in the system's temporary folder (TMPDIR) as they are found."""
    source = tmp_path / "long.jsonl"
    source.write_bytes(good(tmp_path).read_bytes() * 2000)
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    args = [*ACPTRACE, "timeline", "--full", str(source)]
    env = {**os.environ, "TMPDIR": str(scratch)}
    with subprocess.Popen(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE) as run:
        deadline = time.monotonic() + TIMEOUT_S
        while not temporaries(scratch) and run.poll() is None and time.monotonic() < deadline:
            time.sleep(0.01)
        assert temporaries(scratch), "no scratch folder appeared"
        run.send_signal(number)
        assert run.wait(TIMEOUT_S) != 0
    assert list(scratch.iterdir()) == []


def dead_pid() -> int:
    process = subprocess.Popen(["true"])
    process.wait()
    return process.pid


@covers("out-stale-temporary")
def test_a_later_run_sweeps_the_temporary_file_sigkill_left(tmp_path: Path) -> None:
    out, code = killed_while_writing(tmp_path, signal.SIGKILL)
    assert code == -signal.SIGKILL
    [left] = temporaries(out)  # (SIGKILL cannot be caught)
    old = time.time() - 3600
    os.utime(out / left, (old, old))
    result = runner.invoke(app, ["analyze", str(good(tmp_path)), "-o", str(out / "a.txt")])
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in out.iterdir()) == ["a.txt"]


@covers("out-stale-temporary")
def test_only_stale_temporary_files_of_acptrace_are_swept(tmp_path: Path) -> None:
    """Swept: acptrace's name, its process gone, not written to for a while (a file, or a
    scratch folder). Kept: a live process's (here, this one's parent), a fresh one (a writer in
    another PID namespace), a folder with a fresh file in it, a name of another shape."""
    from acptrace.model.temporary import STALE_AFTER_S

    gone, alive = dead_pid(), os.getppid()
    names = {
        f".view.txt.acptrace-{gone}-abc_1234.tmp": True,
        f".report.json.acptrace-{gone}-zz99zz99.tmp": True,
        f".view.txt.acptrace-{alive}-abc_1234.tmp": False,
        f".fresh.txt.acptrace-{gone}-abc_1234.tmp": False,
        ".view.txt.abc_1234": False,
        f"view.txt.acptrace-{gone}-abc_1234.tmp": False,
        f".export.acptrace-{gone}-abc_1234.tmp": True,
        f".fresh.export.acptrace-{gone}-abc_1234.tmp": False,
    }
    old = time.time() - STALE_AFTER_S - 5
    for name in names:
        path = tmp_path / name
        if "export" in name:
            (path / "spool").mkdir(parents=True)
            (path / "spool" / "part.arrow").write_text("being written" if "fresh" in name else "")
            if "fresh" not in name:
                os.utime(path / "spool" / "part.arrow", (old, old))
            os.utime(path / "spool", (old, old))
        else:
            path.write_text("left")
        if not name.startswith(".fresh") or "export" in name:
            os.utime(path, (old, old))
    result = runner.invoke(app, ["rules", "-o", str(tmp_path / "rules.txt")])
    assert result.exit_code == 0, result.output
    kept = {p.name for p in tmp_path.iterdir()}
    assert kept == {name for name, swept in names.items() if not swept} | {"rules.txt"}


# -- files that are no transcript --------------------------------------------------------------

INPUT_COMMANDS = ["analyze", "timeline", "report", "export-trace", "export"]


def read_command(command: str, files: list[Path], out: Path) -> list[str]:
    """Arguments that read these files with this command (writing, if at all, into `out`)."""
    names = [str(f) for f in files]
    match command:
        case "analyze" | "timeline":
            return [command, *names]
        case "report":
            return ["report", "-q", *names, "-o", str(out / "report.json")]
        case "export-trace":
            return ["export", "-f", "trace-event", *names, "-o", str(out / "t.json")]
        case "redact" | "fidelity":
            return [command, *names]
        case _:
            return ["export", *names, "-o", str(out / "tables")]


PNG = bytes.fromhex("89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489")

NOT_TRANSCRIPTS: dict[str, tuple[bytes, str]] = {
    "in-empty": (b"", "it is empty"),
    "in-blank": (b"\n" * 3, "every line is blank"),
    "in-binary": (bytes(range(128, 256)) * 8 + b"\n" + bytes(range(256)), "binary; line 1: "),
    "in-image": (PNG, "binary; line 1: "),
    "in-nul": (b"\0" * 5000, "no line is a JSON-RPC message; line 1: "),
    "in-other-json": (b'{"name": "x", "version": "1.0"}\n', "JSON that is not JSON-RPC"),
    "in-deep": (b"[" * 20_000 + b"]" * 20_000 + b"\n", "nested deeper than"),
}
"""Files in which no line looks like a transcript, and what the error says about each."""


@covers(*NOT_TRANSCRIPTS)
@pytest.mark.parametrize("command", [*INPUT_COMMANDS, "fidelity"])
@pytest.mark.parametrize("case", sorted(NOT_TRANSCRIPTS))
def test_a_file_that_is_no_transcript_is_an_error_naming_it(
    tmp_path: Path, command: str, case: str
) -> None:
    data, says = NOT_TRANSCRIPTS[case]
    path = tmp_path / f"{case}.jsonl"
    path.write_bytes(data)
    (tmp_path / "out").mkdir()
    result = runner.invoke(app, read_command(command, [path], tmp_path / "out"))

    no_traceback(result)
    assert result.exit_code == 2, result.output
    line = first_error_line(result)
    assert f"{path}: not a transcript (" in line
    assert says in line
    assert result.stdout == ""
    assert files_under(tmp_path / "out") == []


@covers("in-several")
@pytest.mark.parametrize("command", ["analyze", "report", "export-trace", "export"])
def test_with_several_files_a_bad_one_is_named_and_the_others_go_on(
    tmp_path: Path, command: str
) -> None:
    transcript, image = good(tmp_path), tmp_path / "image.png"
    image.write_bytes(PNG)
    (tmp_path / "out").mkdir()
    result = runner.invoke(app, read_command(command, [image, transcript], tmp_path / "out"))

    assert result.exit_code == 2, result.output
    assert f"{image}: not a transcript (binary;" in one_error_line(result)
    written = files_under(tmp_path / "out")
    if command.startswith("export"):
        assert written == []  # export writes only when every transcript was read
    elif command == "report":
        report = (tmp_path / "out" / "report.json").read_text()
        assert str(transcript) in report
        assert "not a transcript" in report
    else:
        assert str(transcript) in result.stdout
        assert str(image) not in result.stdout


@covers("in-blank-million")
def test_a_million_blank_lines_are_not_a_transcript(tmp_path: Path) -> None:
    path = tmp_path / "blank.jsonl"
    path.write_bytes(b"\n" * 1_000_000)
    result = runner.invoke(app, ["analyze", str(path)])
    assert result.exit_code == 2
    assert "not a transcript (every line is blank)" in one_error_line(result)


@covers("in-deep-inside")
def test_deep_nesting_inside_a_transcript_is_one_issue(tmp_path: Path) -> None:
    path = good(tmp_path)
    with path.open("ab") as stream:
        stream.write(b"[" * 200_000 + b"]" * 200_000 + b"\n")
    result = runner.invoke(app, ["analyze", "-f", "json", str(path)])
    no_traceback(result)
    assert result.exit_code == 0, result.output
    assert '"kind": "too_deep"' in result.stdout


@covers("in-lone-surrogate")
@pytest.mark.parametrize(
    "command",
    [["analyze", "-f", "json"], ["analyze", "-f", "sarif"], ["timeline"], ["redact"]],
    ids=" ".join,
)
def test_a_lone_surrogate_is_read_and_said_in_every_view(
    tmp_path: Path, command: list[str]
) -> None:
    path = good(tmp_path)
    lines = path.read_bytes().splitlines(keepends=True)
    lines.insert(-1, b'{"jsonrpc":"2.0","method":"_x/note","params":{"text":"Done \\ud83d"}}\n')
    path.write_bytes(b"".join(lines))
    result = runner.invoke(app, [*command, str(path)])
    no_traceback(result)
    assert result.exit_code == 0, result.output
    if command[0] == "analyze":
        assert "lone_surrogate" in result.stdout
        assert "complete" in result.stdout


@covers("in-long-line")
def test_a_line_longer_than_the_limit_is_skipped_and_the_rest_read(tmp_path: Path) -> None:
    transcript = good(tmp_path).read_bytes()
    path = tmp_path / "long.jsonl"
    with path.open("wb") as stream:
        stream.write(b'{"jsonrpc":"2.0","method":"x","params":{"a":"')
        for _ in range(70):
            stream.write(b"x" * 1024 * 1024)
        stream.write(b'"}}\n' + transcript)
    result = runner.invoke(app, ["analyze", "-f", "json", str(path)])
    assert result.exit_code == 0, result.output
    assert '"kind": "line_too_long"' in result.stdout
    assert '"outcome": "complete"' in result.stdout


def gzip_of_zeros(path: Path, megabytes: int) -> None:
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)  # (31: the gzip container)
    with path.open("wb") as stream:
        for _ in range(megabytes):
            stream.write(packer.compress(bytes(1024 * 1024)))
        stream.write(packer.flush())


@covers("in-gzip-bomb")
def test_a_gzip_bomb_is_read_as_a_stream_and_refused(tmp_path: Path) -> None:
    bomb = tmp_path / "bomb.jsonl.gz"
    gzip_of_zeros(bomb, 100)
    assert bomb.stat().st_size < 1024 * 1024
    result = runner.invoke(app, ["analyze", str(bomb)])
    assert result.exit_code == 2, result.output
    assert "not a transcript" in one_error_line(result)
    assert "bytes skipped" in result.stderr


def broken_gzips(tmp_path: Path) -> dict[str, Path]:
    """A `.gz` cut in the middle, and one with its compressed bytes overwritten."""
    whole = gzip.compress(good(tmp_path).read_bytes() * 50)
    cut, corrupt = tmp_path / "cut.jsonl.gz", tmp_path / "corrupt.jsonl.gz"
    cut.write_bytes(whole[: len(whole) // 2])
    corrupt.write_bytes(whole[:10] + bytes(200) + whole[210:])
    return {"in-truncated-gzip": cut, "in-corrupt-gzip": corrupt}


@covers("in-truncated-gzip", "in-corrupt-gzip")
@pytest.mark.parametrize("command", [*INPUT_COMMANDS, "redact"])
@pytest.mark.parametrize("case", ["in-truncated-gzip", "in-corrupt-gzip"])
def test_a_broken_gzip_file_is_an_error_naming_it(tmp_path: Path, command: str, case: str) -> None:
    path = broken_gzips(tmp_path)[case]
    (tmp_path / "out").mkdir()
    result = runner.invoke(app, read_command(command, [path], tmp_path / "out"))
    no_traceback(result)
    assert result.exit_code == 2, result.output
    assert f"{path}: reading stopped" in first_error_line(result)
    assert files_under(tmp_path / "out") == []


@covers("in-missing")
@pytest.mark.parametrize("command", [*INPUT_COMMANDS, "redact"])
def test_a_missing_file_is_named(tmp_path: Path, command: str) -> None:
    missing = tmp_path / "nope.jsonl"
    (tmp_path / "out").mkdir()
    result = runner.invoke(app, read_command(command, [missing], tmp_path / "out"))
    no_traceback(result)
    assert result.exit_code == 2, result.output
    assert str(missing) in result.stderr


# -- devices, FIFOs, stdin ---------------------------------------------------------------------


def run(args: list[str] | list[str | bytes], **given: object) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(args, capture_output=True, timeout=TIMEOUT_S, **given)  # type: ignore[call-overload, no-any-return]


@covers("in-char-device")
@pytest.mark.parametrize("command", [*INPUT_COMMANDS, "redact"])
def test_a_character_device_is_refused_not_read_for_ever(tmp_path: Path, command: str) -> None:
    zero = Path(char_device("/dev/zero"))
    (tmp_path / "out").mkdir()
    done = run([*ACPTRACE, *read_command(command, [zero], tmp_path / "out")])
    assert done.returncode == 2, done.stderr
    assert b"/dev/zero: is a character device, not a transcript file" in done.stderr
    assert done.stdout == b""


@covers("in-socket")
def test_a_socket_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "s.sock"
    with socket.socket(socket.AF_UNIX) as listening:
        listening.bind(str(path))
        result = runner.invoke(app, ["analyze", str(path)])
    assert result.exit_code == 2, result.output
    assert f"{path}: is a socket, not a transcript file" in one_error_line(result)


@covers("in-stdin-device")
def test_stdin_from_a_character_device_is_refused() -> None:
    with open(char_device("/dev/zero"), "rb") as zero:
        done = run([*ACPTRACE, "analyze", "-"], stdin=zero)
    assert done.returncode == 2, done.stderr
    assert b"-: is a character device" in done.stderr


@pytest.fixture
def fifo(tmp_path: Path) -> Iterator[tuple[Path, Callable[[bytes], None]]]:
    """A FIFO, and a way to feed it once from a writer thread."""
    path = tmp_path / "pipe.jsonl"
    os.mkfifo(path)
    writers: list[threading.Thread] = []

    def feed(data: bytes) -> None:
        def write() -> None:
            with path.open("wb") as stream:
                stream.write(data)

        writer = threading.Thread(target=write, daemon=True)
        writer.start()
        writers.append(writer)

    yield path, feed
    for writer in writers:
        if writer.is_alive():  # (the reader never opened it: open it so the writer ends)
            with path.open("rb") as stream:
                stream.read()
        writer.join(TIMEOUT_S)


FIFO_COMMANDS = [
    "analyze",
    "timeline",
    "timeline-session",
    "redact",
    "report",
    "fidelity",
    "export-trace",
    "export",
]
"""Every command that takes a transcript's path."""


@covers("in-fifo")
@pytest.mark.parametrize("command", FIFO_COMMANDS)
def test_a_fifo_is_read_once(
    tmp_path: Path, fifo: tuple[Path, Callable[[bytes], None]], command: str
) -> None:
    path, feed = fifo
    data = good(tmp_path).read_bytes()
    feed(data)
    tables = tmp_path / "tables"
    args = {
        "analyze": ["analyze", "-f", "json", str(path)],
        "timeline": ["timeline", str(path)],
        "timeline-session": ["timeline", "--session", SESSION, str(path)],
        "redact": ["redact", str(path)],
        "report": ["report", str(path)],
        "fidelity": ["fidelity", "-f", "json", str(path)],
        "export-trace": ["export", "-f", "trace-event", str(path)],
        "export": ["export", str(path), "-o", str(tables)],
    }[command]
    done = run([*ACPTRACE, *args])  # (a second open of the FIFO would wait: TIMEOUT_S fails it)
    assert done.returncode == 0, done.stderr
    if command == "redact":
        assert done.stdout.count(b"\n") == data.count(b"\n")
    elif command == "export":
        assert (tables / "messages.parquet").is_file()
    elif command == "export-trace":
        assert b'"traceEvents"' in done.stdout
    elif command == "report":
        assert done.stdout.startswith(b"1 transcript")
    elif command == "fidelity":
        assert b'"session_id": "sess_1"' in done.stdout  # (no live history: fidelity null)
    else:
        assert str(path).encode() in done.stdout
        assert b"complete" in done.stdout


@covers("in-stdin-session")
def test_timeline_of_one_session_reads_stdin_once_like_a_file(tmp_path: Path) -> None:
    t = Transcript()
    t.open()
    t.initialize()
    t.resume(id=3)
    t.history()
    t.marker()
    t.update("agent_message_chunk", session="child", at_ms=5)  # speaks before it is announced
    t.announce("child")
    t.result(3)
    t.close()
    path = tmp_path / "tree.jsonl"
    path.write_bytes(t.text())
    quiet = ["--fail-on", "never"]  # (its findings are not the point here)
    from_file = run([*ACPTRACE, "timeline", *quiet, "--session", SESSION, str(path)])
    from_stdin = run([*ACPTRACE, "timeline", *quiet, "--session", SESSION, "-"], input=t.text())
    assert from_file.returncode == from_stdin.returncode == 0, from_stdin.stderr
    body = from_file.stdout.split(b"view:", 1)[1]  # (the heading names the file, or `-`)
    assert body == from_stdin.stdout.split(b"view:", 1)[1]
    assert b"agent_message_chunk" in body  # the child's update before its announcement


# -- control characters in names and messages --------------------------------------------------

EVIL = "evil\x1b[31mred"


@covers("in-control-chars-name")
@pytest.mark.parametrize("command", [*INPUT_COMMANDS, "redact"])
def test_control_characters_in_a_file_name_are_shown_escaped(tmp_path: Path, command: str) -> None:
    transcript = good(tmp_path, f"{EVIL}.jsonl")
    image = tmp_path / f"{EVIL}.png"
    image.write_bytes(PNG)
    (tmp_path / "out").mkdir()
    files = [transcript, image]
    if command == "redact":  # (redact refuses no file it can read: a missing one, then)
        files = [tmp_path / f"{EVIL}-missing.jsonl"]
    runs = [files] if command != "timeline" else [[transcript], [image]]  # (one file each)
    stdout, stderr = b"", b""
    for named in runs:
        args = read_command(command, named, tmp_path / "out")
        done = run([*ACPTRACE, *args], env={**os.environ, "COLUMNS": "200"})
        assert done.returncode in (0, 1, 2), done.stderr
        stdout, stderr = stdout + done.stdout, stderr + done.stderr
    assert b"\x1b" not in stdout
    assert b"\x1b" not in stderr
    assert b"evil\\x1b[31mred" in stderr
    if command in ("analyze", "timeline"):
        assert b"evil\\x1b[31mred" in stdout


@covers("in-undecodable-name")
def test_a_file_name_that_is_not_utf8_is_shown_escaped(tmp_path: Path) -> None:
    name = os.fsencode(tmp_path) + b"/bad\xff.png"
    with open(name, "wb") as stream:
        stream.write(PNG)
    args: list[str | bytes] = [*ACPTRACE, "analyze", name]
    done = run(args)
    assert done.returncode == 2, done.stderr
    assert b"bad\\xdcff.png: not a transcript" in done.stderr


# -- the bars: hostile inputs never give a traceback -------------------------------------------

BAR_COMMANDS = ["analyze", "timeline", "report", "export-trace", "export", "redact"]


@covers("bar-exit-codes")
@pytest.mark.parametrize("command", BAR_COMMANDS)
def test_hostile_inputs_give_exit_0_1_or_2_never_a_traceback(tmp_path: Path, command: str) -> None:
    inputs = {name: data for name, (data, _) in NOT_TRANSCRIPTS.items()}
    inputs.update({p.name: p.read_bytes() for p in broken_gzips(tmp_path).values()})
    inputs["crlf-nul.jsonl"] = good(tmp_path).read_bytes().replace(b"\n", b"\0\r\n")
    inputs["dir"] = b""
    for name, data in inputs.items():
        path = tmp_path / name
        if name == "dir":
            path.mkdir()
        else:
            path.write_bytes(data)
        out = tmp_path / f"out-{name}"
        out.mkdir()
        result = runner.invoke(app, read_command(command, [path], out))
        no_traceback(result)
        assert result.exit_code in (0, 1, 2), (name, result.output)


# -- the docs table ----------------------------------------------------------------------------


def table_ids() -> list[str]:
    return re.findall(r"^\| `([a-z0-9-]+)` \|", TABLE.read_text(), re.M)


def test_the_docs_table_lists_exactly_the_cases_tested() -> None:
    ids = table_ids()
    assert len(ids) == len(set(ids)), "a case is listed twice"
    assert set(ids) == TESTED


@covers("out-existing-recording")
def test_record_keeps_an_existing_recording_unless_forced(tmp_path: Path) -> None:
    earlier = tmp_path / "earlier.jsonl"
    earlier.write_bytes(b'{"dir":"meta","event":"open"}\n')
    agent = ["--", sys.executable, "-c", "pass"]
    refused = runner.invoke(app, ["record", "-o", str(earlier), *agent])
    assert refused.exit_code == 2, refused.output
    line = one_error_line(refused)
    assert f"cannot write the transcript {earlier}: it exists and holds 30 bytes" in line
    assert "--force" in line
    assert earlier.read_bytes() == b'{"dir":"meta","event":"open"}\n'
    forced = runner.invoke(app, ["record", "-o", str(earlier), "--force", *agent])
    assert forced.exit_code == 0, forced.output
    assert b'"event":"close"' in earlier.read_bytes()
