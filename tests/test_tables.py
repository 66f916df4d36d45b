"""The tables: fixed schemas (documented in docs/tables.md), rows that say what the transcript
says."""

from __future__ import annotations

import io
from datetime import UTC, datetime

import msgspec
import polars as pl
import pytest

from acptrace.model.domain import Finding, Issue, ResumeRow, SessionInfo
from acptrace.model.turns import PermissionRow, ToolCallRow, TurnRow
from acptrace.pipeline.transcripts import open_walk
from acptrace.tables.builder import (
    CONNECTIONS,
    FINDINGS,
    ISSUES,
    MESSAGES,
    PERMISSIONS,
    REQUESTS,
    RESUMES,
    SESSIONS,
    TABLES,
    TOOL_CALLS,
    TURNS,
    Table,
    frames,
    schema_markdown,
    walk_frames,
)
from tests.golden import ROOT, check_block
from tests.transcript import START_NS, Transcript


def test_docs_document_every_table_schema(regen: bool) -> None:
    check_block(ROOT / "docs" / "tables.md", "export-schemas", schema_markdown(), regen)


@pytest.mark.parametrize(
    ("table", "record"),
    [(SESSIONS, SessionInfo), (RESUMES, ResumeRow), (FINDINGS, Finding), (ISSUES, Issue)],
)
def test_tables_mirror_their_record(table: Table, record: type[msgspec.Struct]) -> None:
    columns = [c.name for c in table.columns]
    assert columns[0] == "file"
    missing = set(record.__struct_fields__) - set(columns)
    assert not missing, f"{table.name} lacks {missing}: add them to its schema"


@pytest.mark.parametrize(
    ("table", "struct"),
    [(TURNS, TurnRow), (TOOL_CALLS, ToolCallRow), (PERMISSIONS, PermissionRow)],
)
def test_the_turn_tables_mirror_their_rows(table: Table, struct: type[msgspec.Struct]) -> None:
    columns = [c.name for c in table.columns]
    assert columns[:2] == ["file", "connection"]  # (the keys every table joins on)
    assert columns[2:] == list(struct.__struct_fields__)


def test_every_table_has_a_file_column_and_documented_columns() -> None:
    assert [t.name for t in TABLES] == [
        "messages",
        "requests",
        "sessions",
        "resumes",
        "turns",
        "tool_calls",
        "permissions",
        "findings",
        "issues",
        "connections",
    ]
    for table in TABLES:
        assert table.columns[0].name == "file"
        assert all(column.doc for column in table.columns)
        assert len({c.name for c in table.columns}) == len(table.columns)


def test_an_empty_transcript_gives_typed_empty_tables() -> None:
    tables = frames([io.BytesIO(b"")])
    for table in TABLES:
        frame = tables[table.name]
        assert frame.height == (1 if table is CONNECTIONS else 0)
        assert frame.schema == table.schema


def test_the_connections_table_names_the_peers_and_counts_rows() -> None:
    transcript = Transcript()
    transcript.initialize()
    transcript.lines.append(b"not json")
    [row] = frames([io.BytesIO(transcript.text())])["connections"].to_dicts()
    assert (row["agent_name"], row["agent_version"]) == ("test-agent", "9.9")
    assert (row["client_name"], row["client_version"]) == ("zed", "1.0")
    assert (row["protocol_version"], row["protocol_source"]) == (2, "initialize")
    assert (row["lines"], row["messages"], row["issues"], row["resumes"]) == (3, 2, 1, 0)


def example() -> Transcript:
    t = Transcript()
    t.open()  # 1
    t.initialize()  # 2, 3
    t.resume(id=3)  # 4
    t.history()  # 5, 6
    t.marker()  # 7
    t.update("state_update")  # 8
    t.result(3, at_ms=900.0)  # 9
    t.raw(
        b'{"dir": "c2a", "msg": [{"jsonrpc": "2.0", "id": "a", "method": "session/prompt",'
        b' "params": {"sessionId": "sess_1"}}, {"jsonrpc": "2.0", "method": "x/ping"}]}'
    )  # 10: a batch of two, without timestamps
    t.error("a", -32002, at_ms=950.0)  # 11
    t.request("session/prompt", {"sessionId": "sess_1"}, id=7)  # 12: unanswered
    t.raw(b"not json")  # 13
    t.close()  # 14
    return t


@pytest.fixture(scope="module")
def tables() -> dict[str, pl.DataFrame]:
    return frames([io.BytesIO(example().text())])


def test_messages_rows(tables: dict[str, pl.DataFrame]) -> None:
    messages = tables["messages"]
    assert messages.height == 12
    assert messages["seq"].to_list() == list(range(12))
    assert messages["file"].unique().to_list() == ["<stream>"]
    first = messages.row(0, named=True)
    assert first["line"] == 2
    assert first["direction"] == "c2a"
    assert first["kind"] == "request"
    assert first["id"] == "0"
    assert first["method"] == "initialize"
    assert first["ts"] == datetime.fromtimestamp(START_NS / 1e9, UTC).replace(microsecond=20_000)
    assert first["mono_ns"] == 5_020_000_000
    marker = messages.filter(pl.col("line") == 7).row(0, named=True)
    assert (marker["kind"], marker["update_tag"], marker["session_id"]) == (
        "notification",
        "replay_complete",
        "sess_1",
    )
    batch = messages.filter(pl.col("line") == 10)
    assert batch["in_batch"].to_list() == [True, True]
    assert batch["id"].to_list() == ["a", None]
    assert batch["ts"].null_count() == 2
    error = messages.filter(pl.col("line") == 11).row(0, named=True)
    assert (error["is_error"], error["error_code"]) == (True, -32002)


def test_requests_rows_pair_and_time_each_request(tables: dict[str, pl.DataFrame]) -> None:
    requests = tables["requests"]
    rows = {r["request_line"]: r for r in requests.iter_rows(named=True)}
    assert set(rows) == {2, 4, 10, 12}
    resume = rows[4]
    assert (resume["response_line"], resume["outcome"], resume["id"]) == (9, "success", "3")
    assert resume["duration_ms"] == pytest.approx(860.0)  # 40 ms -> 900 ms
    prompt = rows[10]
    assert (prompt["outcome"], prompt["error_code"], prompt["duration_ms"]) == (
        "error",
        -32002,
        None,  # the batch line has no clock
    )
    assert rows[12]["outcome"] == "unanswered"
    assert rows[12]["response_line"] is None


def test_analysis_tables_match_the_analysis(tables: dict[str, pl.DataFrame]) -> None:
    resumes = tables["resumes"].row(0, named=True)
    assert resumes["outcome"] == "complete"
    assert resumes["replay_from"] == '{"type":"start"}'
    assert resumes["request_id"] == "3"
    assert tables["issues"]["kind"].to_list() == ["not_json"]
    assert tables["sessions"]["session_id"].to_list() == ["sess_1"]
    findings = tables["findings"].select("rule", "severity", "family", "line").rows()
    assert findings == [
        ("SCHEMA-INVALID", "error", "schema", 10),  # session/prompt without its prompt
        ("TR-BATCH", "note", "transport", 10),  # the batch of a session/prompt and a ping
        ("LC-ACTIVE-REJECTED", "error", "lifecycle", 11),  # its -32002 while sess_1 is active
        ("JR-UNANSWERED", "warning", "jsonrpc", 12),
    ]


def test_no_table_publishes_a_negative_duration_and_two_tables_agree() -> None:
    # rules.md §11: the requests table follows §9's "never negative" like the resumes table:
    # mono_ns went back between a resume and its response, the wall clock did not.
    t = Transcript()
    t.initialize()
    t.resume(id=3)
    t.marker()
    t.update("state_update")
    t.result(3, at_ms=500.0)
    t.lines[-1] = t.lines[-1].replace(b'"mono_ns":5500000000', b'"mono_ns":1')
    found = frames([io.BytesIO(t.text())])
    (resume,) = found["resumes"].iter_rows(named=True)
    (duration,) = found["requests"].filter(pl.col("method") == "session/resume")["duration_ms"]
    assert resume["request_to_response_ms"] == duration == 470.0  # (wall: 30 ms -> 500 ms)


def test_batches_concatenate_to_the_same_tables() -> None:
    text = example().text()
    whole = frames([io.BytesIO(text)])
    parts: dict[str, list[pl.DataFrame]] = {t.name: [] for t in TABLES}
    with open_walk(io.BytesIO(text)) as walk:
        for table, frame in walk_frames(walk, batch_rows=2):
            assert frame.height <= 2 or table not in (MESSAGES, REQUESTS)
            parts[table.name].append(frame)
    for name, found in parts.items():
        assert pl.concat(found).equals(whole[name]), name


def turn_example() -> Transcript:
    """A v2 turn whose every measure has a value: a first update, a tool call with a permission
    request answered, a first output and the `idle` that ends it."""
    t = Transcript()
    t.initialize()  # 1, 2
    t.new_session()  # 3, 4
    t.prompt(id=5, at_ms=100.0)  # 5
    t.update("user_message_chunk", at_ms=110.0, content={"type": "text", "text": "go on"})  # 6
    t.tool("t1", at_ms=130.0, kind="edit", title="Edit a.py", status="pending")  # 7
    t.permission("t1", id="p1", at_ms=140.0)  # 8
    t.choose("p1", "allow", at_ms=640.0)  # 9
    t.tool("t1", at_ms=700.0, status="completed")  # 10
    t.update("agent_message_chunk", at_ms=900.0, content={"type": "text", "text": "done"})  # 11
    t.state("idle", stop_reason="end_turn", at_ms=1100.0)  # 12
    return t


@pytest.mark.parametrize("table", [TURNS, TOOL_CALLS, PERMISSIONS], ids=lambda t: t.name)
def test_the_turn_tables_say_what_the_analysis_says(table: Table) -> None:
    [row] = frames([io.BytesIO(turn_example().text())])[table.name].to_dicts()
    empty = [name for name, value in row.items() if value is None]
    assert empty == ["connection"]  # (null: the file holds one connection)
    expected = {
        "turns": {
            "session_id": "sess_1",
            "request_id": "5",
            "request_line": 5,
            "protocol_version": 2,
            "end": "idle",
            "end_line": 12,
            "stop_reason": "end_turn",
            "first_update_ms": 10.0,
            "first_output_ms": 800.0,
            "duration_ms": 1000.0,
            "updates": 5,
            "tool_calls": 1,
            "permission_requests": 1,
            "permission_wait_ms": 500.0,
            "during_replay": False,
            "approximate": False,
        },
        "tool_calls": {
            "tool_call_id": "t1",
            "turn_request_id": "5",
            "first_line": 7,
            "kind": "edit",
            "title": "Edit a.py",
            "first_status": "pending",
            "last_status": "completed",
            "end_line": 10,
            "duration_ms": 570.0,
            "updates": 2,
            "permission_line": 8,
            "permission_wait_ms": 500.0,
        },
        "permissions": {
            "request_id": "p1",
            "request_line": 8,
            "tool_call_id": "t1",
            "turn_request_id": "5",
            "response_line": 9,
            "wait_ms": 500.0,
            "outcome": "selected",
            "option_id": "allow",
            "option_kind": "allow_once",
        },
    }[table.name]
    assert {name: row[name] for name in expected} == expected
    assert row["file"] == "<stream>"
