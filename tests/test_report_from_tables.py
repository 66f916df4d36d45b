"""`acptrace report` over the tables `acptrace export` wrote: the same report as over the
transcripts, for one export, a folder of many, and with a table missing or damaged."""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path
from typing import Any

import msgspec
import polars as pl
import pytest
from typer.testing import CliRunner

from acptrace.cli import app
from acptrace.export.exporter import ExportFormat, export_tables
from acptrace.model.domain import ResumeRow
from acptrace.model.options import Options
from acptrace.report import GroupBy, build_report, gather
from acptrace.report.collect import analyze_files
from acptrace.report.from_tables import find_exports, read_exports
from acptrace.report.summaries import FileError
from acptrace.tables.builder import id_value
from tests.golden import ROOT
from tests.test_report import ALPHA_1, BETA_1, GAP_MS, complete, transcript, write_corpus

runner = CliRunner()


def write_mixed_corpus(root: Path) -> Path:
    """Two adapters with known latencies, a transcript breaking rules, one with a bad line,
    one without `initialize`, and the sample transcripts (children, loads, every outcome)."""
    write_corpus(root, ALPHA_1, BETA_1)
    t = transcript("gamma-acp", "1", complete(500))
    t.lines.pop()  # reopen: traffic after the recorded close would not be analysed
    t.resume("sess_x", id=99, at_ms=GAP_MS * 3)
    t.update("user_message", "sess_x", at_ms=GAP_MS * 3 + 1)
    t.result(99, at_ms=GAP_MS * 3 + 10)  # no marker: RC-MISSING
    t.lines.append(b'{"truncated": ')
    t.close(at_ms=GAP_MS * 4)
    (root / "gamma.jsonl").write_bytes(t.text())
    (root / "anon.jsonl").write_bytes(transcript(None, "", complete(1000)).text())
    shutil.copytree(ROOT / "sample_traces", root / "samples")
    return root


ANALYSED = 5 + len(list((ROOT / "sample_traces").rglob("*.jsonl")))
"""The transcripts of the corpus: the five made above, and every sample (folders too)."""


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_mixed_corpus(tmp_path_factory.mktemp("corpus") / "runs")


@pytest.fixture(scope="module")
def exported(corpus: Path) -> Path:
    out = corpus.parent / "exported"
    result = runner.invoke(app, ["export", str(corpus), "-o", str(out)])
    assert result.exit_code == 0, result.output
    return out


def report_json(*arguments: str, by: GroupBy = GroupBy.AGENT) -> dict[str, Any]:
    """report.json of `acptrace report ARGUMENTS --by BY` (the command, as a user runs it)."""
    with tempfile.TemporaryDirectory() as scratch:
        out = Path(scratch) / "report.json"
        command = ["report", *arguments, "--by", by.value, "-q", "-o", str(out)]
        result = runner.invoke(app, command)
        assert result.exit_code in (0, 2), result.output
        document: dict[str, Any] = json.loads(out.read_text())
    return document


@pytest.mark.parametrize("by", list(GroupBy))
def test_a_report_over_the_export_equals_the_report_over_the_transcripts(
    corpus: Path, exported: Path, by: GroupBy
) -> None:
    over_transcripts = report_json(str(corpus), by=by)
    over_tables = report_json(str(exported), by=by)
    assert over_tables == over_transcripts
    # the corpus exercises what the tables must carry back
    groups = over_transcripts["groups"]
    assert over_transcripts["files"] == {"analysed": ANALYSED, "failed": 0}
    assert sum(g["replaying"] for g in groups) > 10
    assert sum(g["issues"] for g in groups) == 1
    assert {"RC-MISSING", "RC-NO-SNAPSHOT"} <= {r for g in groups for r in g["findings"]}
    assert sum(sum(o.values()) for o in (g["child_outcomes"] for g in groups)) > 0
    assert any(v["replays"] for g in groups for v in g["idle_timers"])
    # and the turns, tool calls and permission requests of the samples
    assert sum(g["metrics"]["first_output_ms"]["count"] for g in groups) > 3
    assert sum(g["metrics"]["tool_call_duration_ms"]["count"] for g in groups) > 3
    assert sum(g["metrics"]["permission_wait_ms"]["count"] for g in groups) > 0
    assert any(g["left_out"]["turn_duration_ms"]["unfinished"] for g in groups)
    assert any(g["slowest_tool_calls"] for g in groups)


@pytest.fixture(scope="module")
def exported_ndjson(corpus: Path) -> Path:
    out = corpus.parent / "exported-ndjson"
    result = runner.invoke(app, ["export", str(corpus), "-o", str(out), "-f", "ndjson"])
    assert result.exit_code == 0, result.output
    return out


def test_an_ndjson_export_gives_the_same_report_and_its_tables_are_no_transcripts(
    corpus: Path, exported_ndjson: Path, tmp_path: Path
) -> None:
    """NDJSON tables are read back as Parquet ones are; in a folder beside transcripts, the
    tables' files (a resumes row has a `method`) are never analysed as transcripts."""
    assert report_json(str(exported_ndjson)) == report_json(str(corpus))
    artifacts = tmp_path / "artifacts"
    shutil.copytree(exported_ndjson, artifacts / "tables")
    alpha = sorted(corpus.glob("alpha-*.jsonl"))
    for path in alpha:
        shutil.copy(path, artifacts)
    files, unmatched = gather([str(artifacts)])
    assert (files, unmatched) == (
        [*(str(artifacts / p.name) for p in alpha), str(artifacts / "tables")],
        [],
    )
    named = str(artifacts / "tables" / "resumes.ndjson")  # named, it is read: never dropped
    assert gather([named]) == ([named], [])
    result = runner.invoke(app, ["report", str(artifacts), "-q", "-o", str(tmp_path / "r.json")])
    assert result.exit_code == 0, result.output
    assert result.stderr == ""
    both = json.loads((tmp_path / "r.json").read_text())
    assert both["files"] == {"analysed": ANALYSED + len(alpha), "failed": 0}
    unknown = [g for g in both["groups"] if g["name"] == "unknown"]  # (no table rows in it)
    assert unknown == [g for g in report_json(str(corpus))["groups"] if g["name"] == "unknown"]


def test_a_recording_named_like_a_table_is_still_a_transcript(corpus: Path, tmp_path: Path) -> None:
    """Only a `connections` table (or any Parquet one) makes a folder an export: a raw log
    called `messages.ndjson` beside other recordings is read as what it is."""
    shutil.copy(corpus / "alpha-0.jsonl", tmp_path / "messages.ndjson")
    shutil.copy(corpus / "beta-0.jsonl", tmp_path / "b.jsonl")
    assert gather([str(tmp_path)]) == (
        [str(tmp_path / "b.jsonl"), str(tmp_path / "messages.ndjson")],
        [],
    )
    report = build_report([str(tmp_path)], jobs=1)
    assert [(g.name, g.connections) for g in report.groups] == [("alpha-acp", 1), ("beta-acp", 1)]


def damaged(exported_ndjson: Path, folder: Path, change: Any) -> Path:
    """A copy of the NDJSON export whose resumes rows went through `change`."""
    shutil.copytree(exported_ndjson, folder)
    table = folder / "resumes.ndjson"
    rows = [change(json.loads(line)) for line in table.read_text().splitlines()]
    table.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return folder


@pytest.mark.parametrize(
    ("change", "error"),
    [
        (
            lambda row: {k: v for k, v in row.items() if k != "marker_to_response_ms"},
            "exported tables of another schema: resumes.ndjson has no marker_to_response_ms",
        ),
        (
            lambda row: {**row, "outcome": None},
            "exported tables cannot be read: resumes.ndjson: outcome is empty in row 1",
        ),
    ],
)
def test_a_damaged_ndjson_table_is_an_error_of_its_directory_never_a_wrong_report(
    corpus: Path, exported_ndjson: Path, tmp_path: Path, change: Any, error: str
) -> None:
    folder = damaged(exported_ndjson, tmp_path / "tables", change)
    alpha = str(corpus / "alpha-0.jsonl")
    out = tmp_path / "report.json"
    result = runner.invoke(app, ["report", str(folder), alpha, "-q", "-o", str(out)])
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith(f"acptrace: error: {folder}: {error}")
    document = json.loads(out.read_text())
    assert document["files"] == {"analysed": 1, "failed": 1}


@pytest.mark.parametrize("table_format", ["json", "csv"])
def test_an_export_a_report_cannot_read_back_is_one_error_not_transcripts(
    corpus: Path, tmp_path: Path, table_format: str
) -> None:
    alpha = sorted(str(p) for p in corpus.glob("alpha-*.jsonl"))
    tables = tmp_path / "artifacts" / "tables"
    tables.parent.mkdir()
    command = ["export", *alpha, "-o", str(tables), "-f", table_format]
    assert runner.invoke(app, command).exit_code == 0
    out = tmp_path / "report.json"
    result = runner.invoke(app, ["report", str(tables.parent), *alpha, "-q", "-o", str(out)])
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [
        f"acptrace: error: {tables}: exported tables as {table_format.upper()} (a report reads "
        "Parquet or NDJSON exports: export the transcripts again with --format parquet)"
    ]
    document = json.loads(out.read_text())
    assert document["files"] == {"analysed": len(alpha), "failed": 1}
    assert [g["name"] for g in document["groups"]] == ["alpha-acp"]


def test_the_rows_come_back_as_they_were_analysed(corpus: Path, exported: Path) -> None:
    paths, _ = gather([str(corpus)])
    analysed = analyze_files(paths, Options(), jobs=1)
    [(directory, read)] = list(read_exports([str(exported)]))
    assert directory == str(exported)
    assert not isinstance(read, FileError)

    def as_text(row: ResumeRow) -> ResumeRow:  # ids are text in the tables
        return msgspec.structs.replace(row, request_id=id_value(row.request_id))

    assert [s.path for s in read] == [s.path for s in analysed.summaries]
    for back, original in zip(read, analysed.summaries, strict=True):
        assert back.resumes == tuple(as_text(row) for row in original.resumes)
        assert [msgspec.structs.replace(f, request_id=None) for f in back.findings] == [
            msgspec.structs.replace(f, request_id=None) for f in original.findings
        ]
        assert (back.agent, back.client, back.issues) == (
            original.agent,
            original.client,
            original.issues,
        )
        assert back.connection == original.connection
        assert back.turns == tuple(
            msgspec.structs.replace(t, request_id=id_value(t.request_id)) for t in original.turns
        )
        assert back.tool_calls == tuple(
            msgspec.structs.replace(c, turn_request_id=id_value(c.turn_request_id))
            for c in original.tool_calls
        )
        assert back.permissions == tuple(
            msgspec.structs.replace(
                p, request_id=id_value(p.request_id), turn_request_id=id_value(p.turn_request_id)
            )
            for p in original.permissions
        )
    assert sum(len(s.turns) for s in read) > 3


def test_a_folder_of_exports_is_found_recursively(corpus: Path, tmp_path: Path) -> None:
    alpha = sorted(str(p) for p in corpus.glob("alpha-*.jsonl"))
    beta = sorted(str(p) for p in corpus.glob("beta-*.jsonl"))
    (tmp_path / "fleet" / "ci").mkdir(parents=True)  # (an export makes its folder, not parents)
    export_tables(alpha, tmp_path / "fleet" / "ci" / "job-1", ExportFormat.PARQUET, jobs=1)
    export_tables(beta, tmp_path / "fleet" / "job-2", ExportFormat.PARQUET, jobs=1)
    (tmp_path / "fleet" / "README.md").write_text("not a transcript")
    assert find_exports(tmp_path / "fleet") == [
        str(tmp_path / "fleet" / "ci" / "job-1"),
        str(tmp_path / "fleet" / "job-2"),
    ]
    fleet = report_json(str(tmp_path / "fleet"))
    assert fleet == report_json(*alpha, *beta)
    assert [g["name"] for g in fleet["groups"]] == ["alpha-acp", "beta-acp"]
    assert report_json(str(tmp_path / "fleet" / "*" / "job-*")) == report_json(*alpha)


def test_transcripts_and_exports_mix_in_one_run(corpus: Path, tmp_path: Path) -> None:
    alpha = sorted(str(p) for p in corpus.glob("alpha-*.jsonl"))
    beta = sorted(str(p) for p in corpus.glob("beta-*.jsonl"))
    export_tables(beta, tmp_path / "beta-tables", ExportFormat.PARQUET, jobs=1)
    mixed = build_report([*alpha, str(tmp_path / "beta-tables")], jobs=1)
    direct = build_report([*alpha, *beta], jobs=1)
    assert mixed == direct


def test_one_path_exported_by_many_jobs_stays_apart(corpus: Path, tmp_path: Path) -> None:
    """Every CI job exports its own `trace.jsonl`: they are two files, not one."""
    trace = tmp_path / "trace.jsonl"
    shutil.copy(corpus / "alpha-0.jsonl", trace)
    (tmp_path / "fleet").mkdir()
    for job in ("job-1", "job-2"):
        export_tables([str(trace)], tmp_path / "fleet" / job, ExportFormat.PARQUET, jobs=1)
    report = build_report([str(tmp_path / "fleet")], by=GroupBy.FILE, jobs=1)
    assert report.files == 2
    names = [g.name for g in report.groups]
    assert names == [
        str(tmp_path / "fleet" / job / str(trace).lstrip("/")) for job in ("job-1", "job-2")
    ]
    assert [g.resumes for g in report.groups] == [5, 5]


def test_a_missing_or_damaged_table_is_an_error_of_that_directory(
    corpus: Path, exported: Path, tmp_path: Path
) -> None:
    good = shutil.copytree(exported, tmp_path / "exports" / "good")
    missing = shutil.copytree(exported, tmp_path / "exports" / "missing")
    (missing / "resumes.parquet").unlink()
    damaged = shutil.copytree(exported, tmp_path / "exports" / "damaged")
    (damaged / "findings.parquet").write_bytes(b"PAR1 not parquet")
    reshaped = shutil.copytree(exported, tmp_path / "exports" / "reshaped")
    pl.read_parquet(reshaped / "connections.parquet").drop("agent_name").write_parquet(
        reshaped / "connections.parquet"
    )
    result = runner.invoke(
        app, ["report", str(tmp_path / "exports"), "-q", "-o", str(tmp_path / "r.json")]
    )
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    document = json.loads((tmp_path / "r.json").read_text())
    errors = {Path(e["path"]).name: e["message"] for e in document["errors"]}
    assert set(errors) == {"missing", "damaged", "reshaped"}
    assert "without resumes.parquet" in errors["missing"]
    assert "cannot be read" in errors["damaged"]
    assert "agent_name" in errors["reshaped"]
    assert f"{missing}: exported tables without resumes.parquet" in result.output
    alone = report_json(str(good))
    assert document["groups"] == alone["groups"]
    assert document["files"] == {"analysed": ANALYSED, "failed": 3}


def test_the_duckdb_query_of_the_docs_gives_the_report_numbers(
    corpus: Path, exported: Path
) -> None:
    """docs/report.md's SQL over a folder of exports: the report's replaying counts,
    percentiles and rates (DuckDB is a dev dependency: CI runs this)."""
    duckdb = pytest.importorskip("duckdb")
    fleet = exported.parent / "artifacts"
    if not fleet.exists():
        shutil.copytree(exported, fleet / "job-1")
    page = (ROOT / "docs" / "report.md").read_text()
    sql = page.split("```sql\n", 1)[1].split("```", 1)[0].replace("artifacts/", f"{fleet}/")
    statements = [s for s in sql.split(";") if s.strip()]
    con = duckdb.connect()
    for statement in statements[:2]:
        con.execute(statement)
    percentiles = con.execute(statements[2]).fetchall()
    shares = con.execute(statements[3]).fetchall()
    report = report_json(str(fleet))
    replaying = [g for g in report["groups"] if g["replaying"]]
    assert percentiles == [
        (
            g["name"],
            g["replaying"],
            *(g["metrics"]["marker_to_response_ms"][p] for p in ("p50", "p90", "p99")),
        )
        for g in replaying
    ]
    assert {(agent, outcome): share for agent, outcome, _, share in shares if share} == {
        (g["name"], outcome): rate
        for g in replaying
        for outcome, rate in g["rates"].items()
        if rate
    }
    assert len(percentiles) >= 3
    assert all(row[2] is not None for row in percentiles[:2])


def test_a_file_exported_twice_in_one_export_counts_twice_like_its_transcript(
    corpus: Path, tmp_path: Path
) -> None:
    turns = str(corpus / "samples" / "mixed-session.jsonl")  # (4 turns, 8 tool calls)
    files = [str(corpus / "alpha-1.jsonl"), str(corpus / "gamma.jsonl"), turns] * 2
    export_tables(files, tmp_path / "twice", ExportFormat.PARQUET, jobs=1)
    over_tables = build_report([str(tmp_path / "twice")], jobs=1)
    assert over_tables == build_report(files, jobs=1)
    assert [g.resumes for g in over_tables.groups] == [12, 4, 4]
    assert [g.turns.turns for g in over_tables.groups] == [0, 8, 0]
    assert [g.turns.tool_calls for g in over_tables.groups] == [0, 16, 0]
