"""Recordings joined into one file (`cat *.jsonl > one.jsonl`, what bug reports attach): each
`open` record after traffic starts another connection, analysed on its own (#37 item 5)."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import orjson
import polars as pl
import pytest
from typer.testing import CliRunner

import acptrace
from acptrace.cli import app
from acptrace.export.exporter import ExportFormat, export_tables
from acptrace.model.domain import Analysis
from acptrace.model.options import Execution
from acptrace.report import build_report
from acptrace.tables import frames
from tests.golden import ROOT
from tests.test_fastpath import padded
from tests.transcript import Transcript

SAMPLES = ROOT / "sample_traces"
PARTS = ("outcome-complete.jsonl", "rules-lifecycle.jsonl", "mixed-session.jsonl")


def joined(*names: str) -> bytes:
    return b"".join((SAMPLES / name).read_bytes() for name in names)


def verdict(analysis: Analysis, offset: int = 0) -> dict[str, Any]:
    """What an analysis concluded, its lines moved by `offset` (where its recording starts)."""
    return {
        "messages": analysis.source.messages,
        "end": analysis.source.connection_end,
        "resumes": [(r.request_line - offset, r.outcome, r.end) for r in analysis.resumes],
        "findings": [(f.line - offset, f.rule, f.severity) for f in analysis.findings],
        "issues": [(i.line - offset, i.kind) for i in analysis.issues],
        "turns": [(t.request_line - offset, t.end, t.duration_ms) for t in analysis.turns],
    }


def test_each_recording_of_a_joined_file_is_its_own_connection_judged_as_alone() -> None:
    analyses = acptrace.analyze_file(io.BytesIO(joined(*PARTS)))
    assert [a.source.connection for a in analyses] == ["1", "2", "3"]
    offset = 0
    for analysis, name in zip(analyses, PARTS, strict=True):
        alone = acptrace.analyze(SAMPLES / name)
        assert verdict(analysis, offset) == verdict(alone)
        offset += alone.source.lines
        assert analysis.source.lines == offset  # (its lines: up to the next recording's open)


def test_a_file_of_one_recording_is_one_unnamed_connection() -> None:
    (analysis,) = acptrace.analyze_file(SAMPLES / PARTS[0])
    assert analysis.source.connection is None


def test_an_open_before_any_traffic_starts_nothing_new() -> None:
    data = SAMPLES.joinpath(PARTS[0]).read_bytes()
    first = data.split(b"\n", 1)[0] + b"\n"
    (analysis,) = acptrace.analyze_file(io.BytesIO(first + data))
    assert analysis.source.connection is None
    assert analysis.issues == ()


def test_a_later_recording_whose_clock_is_earlier_is_no_time_going_back() -> None:
    t = Transcript()
    t.open()
    t.initialize()
    t.new_session()
    later = Transcript()  # (its clock starts where the first's did: earlier than its end)
    later.open()
    later.initialize()
    analyses = acptrace.analyze_file(io.BytesIO(t.text() + later.text()))
    assert [a.issues for a in analyses] == [(), ()]


def test_traffic_after_a_close_and_before_the_next_open_is_after_close() -> None:
    t = Transcript()
    t.open()
    t.initialize()
    t.close()
    stray = t.update("usage_update")
    first, second = acptrace.analyze_file(
        io.BytesIO(t.text() + SAMPLES.joinpath(PARTS[0]).read_bytes())
    )
    assert [(i.line, i.kind) for i in first.issues] == [(stray, "after_close")]
    assert second.issues == ()


def test_one_transcript_calls_refuse_a_joined_file() -> None:
    data = joined(*PARTS[:2])
    with pytest.raises(acptrace.SeveralConnections, match="holds 2 connections"):
        acptrace.analyze(io.BytesIO(data))
    with (
        pytest.raises(acptrace.SeveralConnections),
        acptrace.open_walk(io.BytesIO(data)) as walk,
    ):
        list(walk)


def test_the_split_reading_of_a_big_joined_file_finds_the_same(tmp_path: Path) -> None:
    path = tmp_path / "joined.jsonl"
    path.write_bytes(joined(*PARTS) * 4)
    one = acptrace.analyze_file(path, execution=Execution(split=1))
    split = acptrace.analyze_file(path, execution=Execution(split=2, split_min_bytes=1000))
    assert len(one) == 12
    assert one == split


def test_the_cli_reports_each_connection(tmp_path: Path) -> None:
    path = tmp_path / "bug-report.jsonl"
    path.write_bytes(joined(*PARTS))
    result = CliRunner().invoke(app, ["analyze", str(path), "--format", "json"])
    document = orjson.loads(result.stdout)
    assert [a["source"]["connection"] for a in document] == ["1", "2", "3"]
    assert result.exit_code == 1  # (rules-lifecycle.jsonl has errors)
    shown = CliRunner().invoke(app, ["analyze", str(path)], env={"COLUMNS": "100"})
    assert "3 connections" in shown.stdout
    assert "after_close" not in shown.stdout


@pytest.mark.parametrize("batch_rows", [3, 100_000])
def test_every_exported_row_of_a_joined_file_names_its_connection(
    tmp_path: Path, batch_rows: int
) -> None:
    """Every table's rows of each recording carry its number, the first's as well: its rows
    are streamed before the file shows that another recording follows (small batches: some
    are written out before its end)."""
    source = tmp_path / "joined.jsonl"
    source.write_bytes(joined(*PARTS))
    exported = export_tables([str(source)], tmp_path / "out", ExportFormat.PARQUET,
                             batch_rows=batch_rows, jobs=1)  # fmt: skip
    counts = {}
    for path in exported.files:
        table = pl.read_parquet(path)
        assert table["connection"].null_count() == 0, path.name
        counts[path.stem] = table["connection"].value_counts(sort=True)["connection"].to_list()
    assert set(counts["messages"]) == {"1", "2", "3"}
    assert sorted(counts["connections"]) == ["1", "2", "3"]
    assert build_report([str(tmp_path / "out")], jobs=1) == build_report([str(source)], jobs=1)
    in_memory = frames([source])
    for name, table in in_memory.items():
        assert table["connection"].null_count() == 0, name
    assert in_memory["messages"]["connection"].unique().sort().to_list() == ["1", "2", "3"]


def test_a_file_of_one_recording_exports_a_null_connection(tmp_path: Path) -> None:
    source = SAMPLES / PARTS[0]
    exported = export_tables([str(source)], tmp_path / "out", ExportFormat.PARQUET, jobs=1)
    for path in exported.files:
        assert pl.read_parquet(path)["connection"].null_count() == pl.read_parquet(path).height


def test_each_recording_of_a_joined_file_has_the_updates_in_its_runs_schema_checked() -> None:
    def recording(t: Transcript, title: bytes) -> int:
        t.initialize()
        t.new_session()
        t.update("agent_message_chunk")
        t.update("agent_message_chunk")  # (a run: the tool update below is inside it)
        line = t.tool("c1", status="completed", title="Read it")
        t.update("agent_message_chunk")
        t.lines[line - 1] = t.lines[line - 1].replace(b'"Read it"', title)
        return line

    t = padded()
    recording(t, b'"Read it"')
    t.open()
    t.next_id = 100
    invalid = recording(t, b"-7")  # (a title that is no string: SCHEMA-INVALID)
    general = acptrace.analyze_file(io.BytesIO(t.text()), execution=Execution(fast=False))
    assert [(f.rule, f.line) for f in general[1].findings] == [("SCHEMA-INVALID", invalid)]
    hot = acptrace.analyze_file(io.BytesIO(t.text()))
    assert [(f.rule, f.line) for f in hot[1].findings] == [("SCHEMA-INVALID", invalid)]
