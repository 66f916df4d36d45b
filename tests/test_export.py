"""`acptrace export`: every format reads back with the documented schema and the JSON's counts."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

from acptrace.cli import app
from acptrace.export.exporter import ExportFormat, export_tables
from acptrace.model.outputs import OutputRefused
from acptrace.tables.builder import PERMISSIONS, TABLES, TOOL_CALLS, TURNS, frames, type_name
from tests.golden import ROOT, check_block
from tests.test_tables import turn_example
from tests.transcript import Transcript

SAMPLES = sorted((ROOT / "sample_traces").glob("*.jsonl"))
runner = CliRunner()


def read(path: Path, output_format: ExportFormat) -> pl.DataFrame:
    match output_format:
        case ExportFormat.PARQUET:
            return pl.read_parquet(path)
        case ExportFormat.CSV:
            return pl.read_csv(path)
        case ExportFormat.NDJSON:
            return pl.read_ndjson(path) if path.stat().st_size else pl.DataFrame()
        case ExportFormat.JSON:
            return pl.read_json(path)


def test_every_sample_exports_with_the_row_counts_of_the_json_output(tmp_path: Path) -> None:
    out = tmp_path / "tables"
    result = runner.invoke(app, ["export", *map(str, SAMPLES), "-o", str(out), "--no-config"])
    assert result.exit_code == 0, result.output
    documents = json.loads(
        runner.invoke(
            app, ["analyze", *map(str, SAMPLES), "-f", "json", "--no-config", "--fail-on", "never"]
        ).stdout
    )
    tables = {t.name: pl.read_parquet(out / f"{t.name}.parquet") for t in TABLES}
    for document in documents:
        path = document["source"]["path"]
        rows = {name: frame.filter(pl.col("file") == path).height for name, frame in tables.items()}
        assert rows["messages"] == document["source"]["messages"], path
        assert rows["resumes"] == len(document["resumes"]), path
        assert rows["findings"] == len(document["findings"]), path
        assert rows["issues"] == len(document["issues"]), path
        assert rows["sessions"] == len(document["sessions"]), path
        assert rows["turns"] == len(document["turns"]), path
        assert rows["tool_calls"] == len(document["tool_calls"]), path
        assert rows["permissions"] == len(document["permissions"]), path
    assert set(tables["messages"]["file"].unique()) == {d["source"]["path"] for d in documents}


@pytest.mark.parametrize("output_format", list(ExportFormat))
def test_every_format_reads_back_the_same_rows(tmp_path: Path, output_format: ExportFormat) -> None:
    sample = [str(ROOT / "sample_traces" / "rules-lifecycle.jsonl")]
    parquet = export_tables(sample, tmp_path / "p", ExportFormat.PARQUET)
    exported = export_tables(sample, tmp_path / "x", output_format)
    assert exported.rows == parquet.rows
    for table, path in zip(TABLES, exported.files, strict=True):
        assert path == tmp_path / "x" / f"{table.name}.{output_format.value}"
        assert read(path, output_format).height == exported.rows[table.name]
        assert read(path, output_format).columns in ([c.name for c in table.columns], [])


@pytest.mark.parametrize("output_format", list(ExportFormat))
def test_the_turn_tables_read_back_whole_in_every_format(
    tmp_path: Path, output_format: ExportFormat
) -> None:
    """A turn, its tool call and its permission request, every column filled, are the same rows
    after a round trip through each format as in the tables in memory."""
    path = tmp_path / "turn.jsonl"
    path.write_bytes(turn_example().text())
    exported = export_tables([str(path)], tmp_path / "x", output_format)
    in_memory = frames([str(path)])
    for table in (TURNS, TOOL_CALLS, PERMISSIONS):
        assert exported.rows[table.name] == 1
        file = tmp_path / "x" / f"{table.name}.{output_format.value}"
        match output_format:
            case ExportFormat.PARQUET:
                back = pl.read_parquet(file)
            case ExportFormat.CSV:
                back = pl.read_csv(file, schema=table.schema)
            case ExportFormat.NDJSON:
                back = pl.read_ndjson(file, schema=table.schema)
            case ExportFormat.JSON:
                back = pl.read_json(file, schema=table.schema)
        assert back.equals(in_memory[table.name]), table.name
        assert back.drop("connection").null_count().sum_horizontal().item() == 0


def test_empty_transcript_exports_typed_headed_tables(tmp_path: Path, regen: bool) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    lines = []
    for output_format in ExportFormat:
        result = export_tables([str(empty)], tmp_path / output_format.value, output_format)
        # an empty transcript is still one analysed connection
        assert result.rows == {t.name: int(t.name == "connections") for t in TABLES}
    for table in TABLES:
        frame = pl.read_parquet(tmp_path / "parquet" / f"{table.name}.parquet")
        assert frame.schema == table.schema
        header = (tmp_path / "csv" / f"{table.name}.csv").read_text().splitlines()[0]
        assert header == ",".join(c.name for c in table.columns)
        if table.name != "connections":
            assert (tmp_path / "json" / f"{table.name}.json").read_text().strip() == "[]"
        lines += [f"{table.name}:"]
        lines += [f"  {name}: {type_name(dtype)}" for name, dtype in frame.schema.items()]
    check_block(
        ROOT / "tests" / "golden" / "export-schemas.md", "schemas", "\n".join(lines) + "\n", regen
    )


def test_batches_do_not_change_the_tables(tmp_path: Path) -> None:
    sample = [str(ROOT / "sample_traces" / "mixed-session.jsonl")]
    whole = export_tables(sample, tmp_path / "whole", ExportFormat.PARQUET)
    batched = export_tables(sample, tmp_path / "batched", ExportFormat.PARQUET, batch_rows=7)
    for a, b in zip(whole.files, batched.files, strict=True):
        assert pl.read_parquet(a).equals(pl.read_parquet(b)), a.name


def test_nothing_is_written_when_an_input_cannot_be_read(tmp_path: Path) -> None:
    good = str(ROOT / "sample_traces" / "clean.jsonl")
    fresh = tmp_path / "fresh"
    result = runner.invoke(
        app, ["export", good, str(tmp_path / "missing.jsonl"), "-o", str(fresh), "--no-config"]
    )
    assert result.exit_code == 2
    assert "nothing was written" in result.stderr
    assert not fresh.exists()
    assert list(tmp_path.iterdir()) == []  # no scratch directory left behind either

    existing = tmp_path / "existing"
    existing.mkdir()
    (existing / "messages.parquet").write_bytes(b"old")
    result = runner.invoke(
        app, ["export", good, str(tmp_path / "missing.jsonl"), "-o", str(existing), "--no-config"]
    )
    assert result.exit_code == 2
    assert [p.name for p in existing.iterdir()] == ["messages.parquet"]
    assert (existing / "messages.parquet").read_bytes() == b"old"


def test_the_library_follows_the_output_rule_a_missing_parent_is_not_made(
    tmp_path: Path,
) -> None:
    """The folder itself may be missing (it is made), its parent not; a file in its place is
    refused: the rule of every `-o` (docs/cli.md), for the library as for the command."""
    sample = [str(ROOT / "sample_traces" / "clean.jsonl")]
    with pytest.raises(OutputRefused, match="does not exist"):
        export_tables(sample, tmp_path / "typo" / "out", ExportFormat.CSV)
    assert not (tmp_path / "typo").exists()
    (tmp_path / "file").write_text("x")
    with pytest.raises(OutputRefused, match="file"):
        export_tables(sample, tmp_path / "file", ExportFormat.CSV)
    assert (tmp_path / "file").read_text() == "x"
    made = export_tables(sample, tmp_path / "new", ExportFormat.CSV)
    assert (tmp_path / "new" / "messages.csv").is_file()
    assert len(made.files) == len(TABLES)


def test_export_into_an_existing_directory_replaces_the_tables(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "keep.txt").write_text("mine")
    (out / "messages.csv").write_text("stale")
    export_tables([str(ROOT / "sample_traces" / "clean.jsonl")], out, ExportFormat.CSV)
    assert sorted(p.name for p in out.iterdir()) == sorted(
        ["keep.txt"] + [f"{t.name}.csv" for t in TABLES]
    )
    assert (out / "messages.csv").read_text().startswith("file,connection,seq,line")


def test_export_honours_the_analysis_options(tmp_path: Path) -> None:
    t = Transcript()
    t.open()
    t.initialize()
    t.resume(id=3)
    t.history()
    t.result(3)  # RC-MISSING and RC-NO-SNAPSHOT
    t.close()
    path = tmp_path / "run.jsonl"
    path.write_bytes(t.text())
    out = tmp_path / "out"
    args = ["export", str(path), "-o", str(out), "-f", "ndjson", "--no-config"]
    assert runner.invoke(app, [*args, "--ignore", "RC-NO-SNAPSHOT"]).exit_code == 0
    findings = pl.read_ndjson(out / "findings.ndjson")
    assert findings["rule"].to_list() == ["RC-MISSING"]
    assert findings["file"].to_list() == [str(path)]


HOSTILE = ['=HYPERLINK("http://x")', "+cmd|' /C calc'!A0", "-2+3", "@SUM(A1)"]
CONTROLLING = {"\tx": "\\x09x", "\rx": "\\x0dx", "a\x1b[31mb\x9b2J": "a\\x1b[31mb\\x9b2J"}
"""Cells with control characters, and how CSV writes them."""


def test_csv_cells_that_a_spreadsheet_or_a_terminal_would_run_are_neutralised(
    tmp_path: Path,
) -> None:
    t = Transcript()
    t.open()
    for n, text in enumerate([*HOSTILE, *CONTROLLING, "plain", "a=b"]):
        t.request(text, id=f"{text}-{n}" if n % 2 else n)
    t.error(-1, -32601)
    path = tmp_path / "hostile.jsonl"
    path.write_bytes(t.text())
    for output_format in (ExportFormat.CSV, ExportFormat.NDJSON, ExportFormat.PARQUET):
        export_tables([str(path)], tmp_path / output_format.value, output_format)

    csv = pl.read_csv(tmp_path / "csv" / "messages.csv", infer_schema=False)
    exact = pl.read_ndjson(tmp_path / "ndjson" / "messages.ndjson")
    parquet = pl.read_parquet(tmp_path / "parquet" / "messages.parquet")
    assert exact["method"].to_list() == parquet["method"].to_list()
    methods = [m for m in exact["method"].to_list() if m is not None]
    assert methods == [*HOSTILE, *CONTROLLING, "plain", "a=b"]  # (NDJSON, Parquet: exact)
    assert [m for m in csv["method"].to_list() if m is not None] == [
        *("'" + text for text in HOSTILE),
        *CONTROLLING.values(),
        "plain",
        "a=b",
    ]
    assert csv["error_code"].drop_nulls().to_list() == ["-32601"]  # numbers stay numbers
    [messages] = [table for table in TABLES if table.name == "messages"]
    texts = [name for name, dtype in messages.schema.items() if dtype == pl.String]
    cells = [c for name in texts for c in csv[name].drop_nulls().to_list()]
    assert "'+cmd|' /C calc'!A0-1" in cells  # ids are text too
    assert not [c for c in cells if c.startswith(tuple("=+-@\t\r"))]
    assert not [c for c in cells if not c.isprintable()]
    assert b"\x1b" not in (tmp_path / "csv" / "messages.csv").read_bytes()


def test_the_export_note_counts_rows_in_words(tmp_path: Path) -> None:
    result = runner.invoke(
        app, ["export", str(ROOT / "sample_traces" / "clean.jsonl"), "-o", str(tmp_path / "t")]
    )
    assert result.exit_code == 0, result.output
    note = result.stderr
    assert "1 session," in note  # (one row: no plural s)
    assert "1 connection" in note
    assert "0 findings" in note
    assert "1 sessions" not in note
