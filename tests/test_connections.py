"""Files that hold several connections: acp-inspector-trace exports and acp-tck reports."""

from __future__ import annotations

import gzip
import io
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

import acptrace
from acptrace import Options, Outcome
from acptrace.cli import app
from acptrace.read.cutjson import read_cut
from acptrace.render.json_report import dumps
from tests import shared
from tests.transcript import ADVERTISED, NO_SCHEMA

EXAMPLE = shared.SPEC / "examples" / "acp-tck-report.example.json"
EPOCH_MS = 1_785_312_000_000

INIT = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": 2}}
INIT_OK = {"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": 2, **ADVERTISED[True]}}
NEW = {"jsonrpc": "2.0", "id": 1, "method": "session/new", "params": {"cwd": "/"}}
NEW_OK = {"jsonrpc": "2.0", "id": 1, "result": {"sessionId": "s1"}}
RESUME = {"jsonrpc": "2.0", "id": 2, "method": "session/resume",
          "params": {"sessionId": "s1", "cwd": "/", "replayFrom": {"type": "start"}}}  # fmt: skip


def update(tag: str, **fields: Any) -> dict[str, Any]:
    params = {"sessionId": "s1", "update": {"sessionUpdate": tag, **fields}}
    return {"jsonrpc": "2.0", "method": "session/update", "params": params}


MARKER = update("replay_complete")
STATE = update("state_update")
HISTORY = update("user_message", messageId="m1", content=[{"type": "text", "text": "x" * 80}])
RESUME_OK = {"jsonrpc": "2.0", "id": 2, "result": {}}
EXCHANGE = [("c2a", INIT), ("a2c", INIT_OK), ("c2a", NEW), ("a2c", NEW_OK)]


def jsonl(records: list[Any]) -> bytes:
    return b"".join(orjson.dumps(record) + b"\n" for record in records)


# -- acp-inspector-trace ----------------------------------------------------------------------


def header(dropped: int = 0) -> dict[str, Any]:
    return {"type": "header", "format": "acp-inspector-trace", "version": 1, "at": EPOCH_MS,
            "frames": 0, "dropped": dropped, "warning": "nothing is redacted"}  # fmt: skip


def frame(connection: Any, direction: str, message: Any, at_ms: float) -> dict[str, Any]:
    words = {"c2a": "client -> agent", "a2c": "agent -> client"}
    text = message if isinstance(message, str) else orjson.dumps(message).decode()
    return {"type": "frame", "at": EPOCH_MS + at_ms, "connection": connection, "encoding": "utf8",
            "direction": words.get(direction, direction), "frame": text}  # fmt: skip


def frames(connection: Any, start_ms: float = 0.0) -> list[dict[str, Any]]:
    """A connection that resumes a session with its marker, 10 ms between frames."""
    messages = [*EXCHANGE, ("c2a", RESUME), ("a2c", MARKER), ("a2c", STATE), ("a2c", RESUME_OK)]
    return [frame(connection, d, m, start_ms + 10 * n) for n, (d, m) in enumerate(messages)]


def trace(*records: dict[str, Any], dropped: int = 0) -> list[acptrace.Analysis]:
    return acptrace.analyze_file(io.BytesIO(jsonl([header(dropped), *records])), NO_SCHEMA)


def test_an_inspector_trace_of_one_connection_is_one_named_analysis_with_epoch_ms_times() -> None:
    (analysis,) = trace(*frames(1))
    assert (analysis.source.format, analysis.source.connection) == ("acp-inspector-trace", "1")
    assert (analysis.source.lines, analysis.source.messages) == (9, 8)
    assert analysis.issues == ()
    (row,) = analysis.resumes
    assert row.outcome is Outcome.COMPLETE
    assert row.request_line == 6  # the header is line 1
    assert row.request_to_marker_ms == pytest.approx(10.0)
    assert analysis.source.connection_end.value == "unknown"


def test_a_frame_time_too_big_for_a_float_is_no_time_not_a_crash() -> None:
    # (found by fuzzing: dividing the integer by 1000 raised OverflowError)
    lines = jsonl([header(), *frames(1)]).split(b"\n")
    lines[7] = lines[7].replace(b'"at":%d.0' % (EPOCH_MS + 60), b'"at":-' + b"9" * 400)
    assert b"9" * 400 in lines[7]
    (analysis,) = acptrace.analyze_file(io.BytesIO(b"\n".join(lines)), NO_SCHEMA)
    assert analysis.source.messages == 8
    (row,) = analysis.resumes
    assert row.outcome is Outcome.COMPLETE


def test_dropped_frames_are_an_issue_with_the_count() -> None:
    (analysis,) = trace(*frames(1), dropped=3)
    assert [(i.line, i.kind) for i in analysis.issues] == [(1, "frames_dropped")]
    assert "3 frame(s)" in analysis.issues[0].message
    (clean,) = trace(*frames(1), dropped=0)
    assert not [i for i in clean.issues if i.kind == "frames_dropped"]


def test_each_connection_is_analysed_on_its_own_and_ends_when_a_later_one_starts() -> None:
    first, second = trace(*frames(1), *frames(2, start_ms=1000))
    assert [a.source.connection for a in (first, second)] == ["1", "2"]
    for analysis in (first, second):
        # ids restart in each connection: no duplicate, no orphan
        assert analysis.findings == ()
        assert analysis.source.messages == 8
        assert [r.outcome for r in analysis.resumes] == [Outcome.COMPLETE]
    assert first.resumes[0].request_line == 6
    assert second.resumes[0].request_line == 14
    assert (first.source.connection_end.value, second.source.connection_end.value) == (
        "recorded",
        "unknown",
    )
    (_, assumed) = acptrace.analyze_file(
        io.BytesIO(jsonl([header(), *frames(1), *frames(2)])),
        Options(assume_closed=True, ignore=("SCHEMA-",)),
    )
    assert assumed.source.connection_end.value == "assumed"


def test_a_connection_followed_only_by_a_lower_number_has_not_ended() -> None:
    later, earlier = trace(*frames(5), *frames(2, start_ms=1000))
    assert [a.source.connection for a in (later, earlier)] == ["5", "2"]
    assert later.source.connection_end.value == "unknown"


def test_a_frame_issue_goes_with_its_connection() -> None:
    bad = frame(2, "sideways", {"jsonrpc": "2.0", "method": "session/cancel"}, 2000)
    first, second = trace(*frames(1), *frames(2, start_ms=1000), bad)
    assert first.issues == ()
    assert [(i.line, i.kind) for i in second.issues] == [(18, "unknown_direction")]
    assert second.source.messages == 9


def test_a_frame_that_is_not_json_or_not_utf8_is_an_issue() -> None:
    odd = {**frame(1, "a2c", "x", 70), "encoding": "base64"}
    (analysis,) = trace(*frames(1), frame(1, "a2c", "Debug: hello", 60), odd)
    assert [(i.line, i.kind) for i in analysis.issues] == [(10, "not_json"), (11, "not_utf8")]


def test_a_header_alone_has_no_connection() -> None:
    assert trace() == []


def test_a_trace_none_of_whose_frames_reads_keeps_its_issues() -> None:
    """Not a silent pass: the header and the broken lines are analysed as one connection."""
    data = jsonl([header(), *frames(1)[:1]]).replace(b"}\n{", b"}\xf5{", 1)
    (analysis,) = acptrace.analyze_file(io.BytesIO(data), NO_SCHEMA)
    assert analysis.source.connection is None
    assert [(i.line, i.kind) for i in analysis.issues] == [(1, "not_utf8")]
    assert acptrace.analyze(io.BytesIO(data), NO_SCHEMA).issues == analysis.issues


# -- acp-tck reports --------------------------------------------------------------------------


def entries(messages: list[tuple[str, Any]], t0: float = 100.0) -> list[dict[str, Any]]:
    words = {"c2a": "sent", "a2c": "received"}
    return [
        {"dir": words[d], "t": t0 + n / 100,
         "raw": m if isinstance(m, str) else orjson.dumps(m).decode()}
        for n, (d, m) in enumerate(messages)
    ]  # fmt: skip


def tck_test(nodeid: str, transcript: list[Any] | None, status: str = "FAIL") -> dict[str, Any]:
    return {"nodeid": nodeid, "status": status, "message": "", "transcript": transcript,
            "stderr": None}  # fmt: skip


def report(*requirements: tuple[str, list[dict[str, Any]]]) -> bytes:
    document = {"tck_version": "0.1.0", "protocol_version": 2, "agent_info": {"name": "a"},
                "requirements": [{"id": rid, "tier": "MANDATORY", "status": "FAIL",
                                  "tests": tests} for rid, tests in requirements]}  # fmt: skip
    return orjson.dumps(document, option=orjson.OPT_INDENT_2) + b"\n"


def opening_line(data: bytes, needle: bytes) -> int:
    """The line of the transcript entry whose raw holds `needle` (its object opens a line up)."""
    lines = data.split(b"\n")
    return next(n for n, text in enumerate(lines, 1) if needle in text) - 3


MISSING_MARKER = entries([*EXCHANGE, ("c2a", RESUME), ("a2c", RESUME_OK)])
WITH_MARKER = entries(
    [*EXCHANGE, ("c2a", RESUME), ("a2c", MARKER), ("a2c", STATE), ("a2c", RESUME_OK)]
)


def test_each_test_transcript_is_one_connection_named_by_its_nodeid() -> None:
    data = report(
        ("ACP-INIT-001", [tck_test("t.py::test_pass", None, "PASS")]),
        ("ACP-RESUME-201", [tck_test("t.py::test_missing", MISSING_MARKER)]),
        ("ACP-RESUME-202", [tck_test("t.py::test_marked", WITH_MARKER, "XFAIL")]),
    )
    missing, marked = acptrace.analyze_file(io.BytesIO(data), NO_SCHEMA)
    assert [(a.source.connection, a.source.requirements, a.source.test_status) for a in (
        missing, marked)] == [
        ("t.py::test_missing", ("ACP-RESUME-201",), "FAIL"),
        ("t.py::test_marked", ("ACP-RESUME-202",), "XFAIL"),
    ]  # fmt: skip
    assert missing.source.format == "acp-tck"
    assert missing.source.lines == data.count(b"\n")
    assert [r.outcome for r in missing.resumes] == [Outcome.UNMARKED_SUCCESS]
    assert "RC-MISSING" in {f.rule for f in missing.findings}
    assert [r.outcome for r in marked.resumes] == [Outcome.COMPLETE]
    assert marked.findings == ()
    assert missing.source.connection_end.value == "recorded"  # the test stopped the Agent
    expected = opening_line(data, b"session/resume")
    assert data.split(b"\n")[expected - 1].strip() == b"{"
    assert missing.resumes[0].request_line == expected
    assert missing.resumes[0].request_to_response_ms == pytest.approx(10.0)


def test_sent_is_client_to_agent_and_another_dir_is_unknown_direction() -> None:
    ping = {"jsonrpc": "2.0", "id": 9, "method": "_ext/ping"}  # (no direction to infer)
    pong = {"jsonrpc": "2.0", "id": 9, "result": {}}
    known = entries([("c2a", ping), ("a2c", pong)])
    (analysis,) = acptrace.analyze_file(
        io.BytesIO(report(("R", [tck_test("t::k", known)]))), NO_SCHEMA
    )
    assert analysis.issues == ()
    odd = [{**known[0], "dir": "sideways"}, known[1]]
    (analysis,) = acptrace.analyze_file(
        io.BytesIO(report(("R", [tck_test("t::o", odd)]))), NO_SCHEMA
    )
    assert [i.kind for i in analysis.issues][:1] == ["unknown_direction"]
    assert '"sideways"' in analysis.issues[0].message


def test_a_test_listed_under_several_requirements_is_analysed_once() -> None:
    case = tck_test("t.py::test_missing", MISSING_MARKER)
    data = report(("ACP-A", [case]), ("ACP-B", [case]))
    (analysis,) = acptrace.analyze_file(io.BytesIO(data), NO_SCHEMA)
    assert analysis.source.requirements == ("ACP-A", "ACP-B")


def test_a_payload_cut_by_the_report_is_an_issue_and_its_envelope_still_counts() -> None:
    history = orjson.dumps(HISTORY).decode()
    cut = history[:-25] + "...[truncated 25 byte(s)]..."
    nothing = '{"jsonr...[truncated 300 byte(s)]...'
    messages = [*EXCHANGE, ("c2a", RESUME), ("a2c", cut), ("a2c", MARKER), ("a2c", STATE),
                ("a2c", RESUME_OK), ("a2c", nothing)]  # fmt: skip
    data = report(("ACP-R", [tck_test("t.py::test_cut", entries(messages))]))
    (analysis,) = acptrace.analyze_file(io.BytesIO(data), NO_SCHEMA)
    kinds = [(i.kind, "25 byte(s)" in i.message) for i in analysis.issues]
    assert kinds == [("truncated_payload", True), ("truncated_payload", False)]
    assert analysis.source.messages == 9  # the cut update is read; nothing is left of the last
    (row,) = analysis.resumes
    assert (row.outcome, row.replayed_updates) == (Outcome.COMPLETE, 1)


def test_a_report_without_transcripts_has_no_connection_and_json_says_so() -> None:
    data = report(("ACP-INIT-001", [tck_test("t.py::test_pass", None, "PASS")]))
    assert acptrace.analyze_file(io.BytesIO(data)) == []
    result = CliRunner().invoke(app, ["analyze", "-", "--format", "json"], input=data)
    assert result.exit_code == 0, result.output
    assert orjson.loads(result.stdout) == []


def test_a_report_that_is_cut_off_is_an_issue_not_a_crash() -> None:
    data = report(("ACP-R", [tck_test("t.py::test_missing", MISSING_MARKER)]))[:300]
    (analysis,) = acptrace.analyze_file(io.BytesIO(data), NO_SCHEMA)
    assert [i.kind for i in analysis.issues] == ["not_json"]


def test_cli_groups_a_report_by_connection_and_json_is_one_analysis_each(tmp_path: Path) -> None:
    path = tmp_path / "report.json"
    path.write_bytes(
        report(
            ("ACP-RESUME-201", [tck_test("t.py::test_missing", MISSING_MARKER)]),
            ("ACP-RESUME-202", [tck_test("t.py::test_marked", WITH_MARKER)]),
        )
    )
    rich = CliRunner().invoke(app, ["analyze", str(path)])
    assert rich.exit_code == 1  # the worst connection wins
    assert "2 connections" in rich.stdout
    assert rich.stdout.index("t.py::test_missing") < rich.stdout.index("t.py::test_marked")
    assert "requirements ACP-RESUME-201" in rich.stdout
    result = CliRunner().invoke(app, ["analyze", str(path), "--format", "json"])
    documents = orjson.loads(result.stdout)
    assert [(d["source"]["connection"], d["source"]["requirements"], d["source"]["test_status"])
            for d in documents] == [
        ("t.py::test_missing", ["ACP-RESUME-201"], "FAIL"),
        ("t.py::test_marked", ["ACP-RESUME-202"], "FAIL"),
    ]  # fmt: skip


def test_one_plain_file_is_still_one_json_object_with_no_connection(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(jsonl([m for _, m in EXCHANGE]))
    document = orjson.loads(CliRunner().invoke(app, ["analyze", str(path), "-f", "json"]).stdout)
    assert isinstance(document, dict)
    assert (document["source"]["connection"], document["source"]["requirements"]) == (None, None)


def test_an_inspector_trace_of_one_connection_is_still_a_json_array(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(jsonl([header(), *frames(1)]))
    result = CliRunner().invoke(app, ["analyze", str(path), "-f", "json"])
    assert [d["source"]["connection"] for d in orjson.loads(result.stdout)] == ["1"]


@pytest.mark.parametrize(
    ("cut", "expected"),
    [
        ('{"jsonrpc":"2.0","id":3,"result":{"text":"Par', {"jsonrpc": "2.0", "id": 3,
                                                           "result": {}}),
        ('{"jsonrpc":"2.0","id":3,"resu', {"jsonrpc": "2.0", "id": 3}),
        ('{"jsonrpc":"2.0","method":"x","params":[1,tr', {"jsonrpc": "2.0", "method": "x",
                                                          "params": [1]}),
        ('{"a":"x\\', {}),
        # A scalar the cut went through is never read: it may have been longer (rules.md §10).
        ('{"jsonrpc":"2.0","id":12', {"jsonrpc": "2.0"}),
        ('{"jsonrpc":"2.0","method":"session/up', {"jsonrpc": "2.0"}),
        ('{"jsonrpc":"2.', {}),
        ('{"a":{"b":1} ', {"a": {"b": 1}}),
        ('{"a":"}"', {}),
        ("garbage", None),
        ("", None),
    ],
)  # fmt: skip
def test_what_is_left_of_a_cut_json_text(cut: str, expected: Any) -> None:
    assert read_cut(cut) == expected


@pytest.mark.shared
@pytest.mark.skipif(not EXAMPLE.exists(), reason=f"no spec example at {EXAMPLE}")
def test_the_spec_example_report_gives_one_section_and_one_analysis_per_transcript() -> None:
    rich = CliRunner().invoke(app, ["analyze", str(EXAMPLE)])
    assert "test_resume.py::test_replay_complete_before_response" in rich.stdout
    assert "test_resume.py::test_history_has_message_ids" in rich.stdout
    assert "test_initialize.py::test_version" not in rich.stdout  # passed: no transcript
    documents = orjson.loads(
        CliRunner().invoke(app, ["analyze", str(EXAMPLE), "-f", "json"]).stdout
    )
    assert [len(d["resumes"]) for d in documents] == [1, 1]
    assert [d["source"]["issues"] for d in documents] == [0, 1]
    assert documents[1]["issues"][0]["kind"] == "truncated_payload"
    assert {d["resumes"][0]["outcome"] for d in documents} == {"unmarked_success"}


@pytest.mark.parametrize(
    ("output_format", "expected"),
    [
        ("junit", 'name="REPORT [t.py::test_missing]"'),
        ("markdown", "REPORT [t.py::test_marked]"),
        ("github", "title=RC-MISSING (error) in t.py%3A%3Atest_missing"),
    ],
)
def test_ci_formats_name_each_connection(tmp_path: Path, output_format: str, expected: str) -> None:
    path = tmp_path / "report.json"
    path.write_bytes(
        report(
            ("ACP-RESUME-201", [tck_test("t.py::test_missing", MISSING_MARKER)]),
            ("ACP-RESUME-202", [tck_test("t.py::test_marked", WITH_MARKER)]),
        )
    )
    result = CliRunner().invoke(app, ["analyze", str(path), "--format", output_format])
    assert expected.replace("REPORT", str(path)) in result.stdout


def test_ci_formats_name_a_plain_file_by_its_path_alone(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(jsonl([m for _, m in EXCHANGE]))
    result = CliRunner().invoke(app, ["analyze", str(path), "--format", "junit"])
    assert f'name="{path}"' in result.stdout
    assert f"{path} [" not in result.stdout


INSPECTOR_EXAMPLE = shared.REAL_WORLD / "acp-inspector-trace__doc-example.jsonl"


@pytest.mark.shared
@pytest.mark.skipif(not INSPECTOR_EXAMPLE.exists(), reason=f"no file at {INSPECTOR_EXAMPLE}")
def test_the_inspector_trace_doc_example_is_one_connection_read_whole() -> None:
    result = CliRunner().invoke(app, ["analyze", "--strict", "-f", "json", str(INSPECTOR_EXAMPLE)])
    assert result.exit_code == 0, result.output
    (document,) = orjson.loads(result.stdout)
    source = document["source"]
    assert (source["format"], source["connection"], source["messages"]) == (
        "acp-inspector-trace",
        "1",
        2,
    )
    assert document["connection"]["protocol_version"] == 1


@given(
    st.sampled_from([b'{"tck_version": "0.1.0",\n', b'{\n  "tck_version": 1, "requirements": [',
                     orjson.dumps(header()) + b"\n"]),
    st.binary(max_size=400) | st.text(max_size=200).map(str.encode),
)  # fmt: skip
def test_a_multi_connection_head_followed_by_anything_never_raises(
    head: bytes, rest: bytes
) -> None:
    for analysis in acptrace.analyze_file(io.BytesIO(head + rest)):
        # (a connection of the file, or, where no frame read, the issues of its lines)
        assert analysis.source.connection is not None or analysis.issues


def test_a_deeply_nested_report_is_an_issue_not_a_crash() -> None:
    data = b'{"tck_version": "0.1.0", "requirements": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    (analysis,) = acptrace.analyze_file(io.BytesIO(data), NO_SCHEMA)
    assert [i.kind for i in analysis.issues] == ["not_json"]


def test_a_gzipped_report_that_stops_midway_is_unreadable_not_a_crash(tmp_path: Path) -> None:
    data = gzip.compress(report(("ACP-R", [tck_test("t.py::test_missing", MISSING_MARKER)])))
    path = tmp_path / "report.json.gz"
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(acptrace.UnreadableInput):
        acptrace.analyze_file(path)
    result = CliRunner().invoke(app, ["analyze", str(path)])
    assert result.exit_code == 2
    assert "Traceback" not in result.output


# -- every view takes each connection on its own (input-formats.md, "several connections") ------


def two_tests(tmp_path: Path) -> Path:
    """An acp-tck report of two tests: one resume without its marker, one with."""
    path = tmp_path / "report.json"
    path.write_bytes(
        report(
            ("ACP-RESUME-201", [tck_test("t.py::test_missing", MISSING_MARKER)]),
            ("ACP-RESUME-202", [tck_test("t.py::test_marked", WITH_MARKER)]),
        )
    )
    return path


def test_analyze_refuses_a_file_of_several_connections_instead_of_merging_them(
    tmp_path: Path,
) -> None:
    path = two_tests(tmp_path)
    with pytest.raises(acptrace.SeveralConnections, match="holds 2 connections"):
        acptrace.analyze(path)
    with pytest.raises(acptrace.SeveralConnections, match="analyze_file"), acptrace.open_walk(path):
        pass
    with acptrace.open_walks(path) as walks:
        assert [walk.connection for walk in walks] == ["t.py::test_missing", "t.py::test_marked"]
    (one,) = acptrace.analyze_file(io.BytesIO(jsonl([header(), *frames(1)])))
    assert acptrace.analyze(io.BytesIO(jsonl([header(), *frames(1)]))) == one


def test_tables_have_one_set_of_rows_per_connection_with_its_name(tmp_path: Path) -> None:
    from acptrace.tables import frames as table_frames

    path = two_tests(tmp_path)
    tables = table_frames([path])
    resumes = tables["resumes"].select("connection", "outcome").rows()
    assert resumes == [
        ("t.py::test_missing", "unmarked_success"),
        ("t.py::test_marked", "complete"),
    ]
    assert set(tables["messages"]["file"]) == {str(path)}
    assert tables["messages"].filter(connection="t.py::test_marked")["seq"].min() == 0
    plain = table_frames([io.BytesIO(jsonl([("c2a", INIT)]))])  # (not a multi-connection file)
    assert plain["messages"]["connection"].to_list() == [None] * plain["messages"].height


def test_export_writes_every_connection_and_returns_an_analysis_each(tmp_path: Path) -> None:
    from acptrace.export.exporter import ExportFormat, export_tables

    path = two_tests(tmp_path)
    exported = export_tables([str(path)], tmp_path / "out", ExportFormat.CSV, jobs=1)
    assert [a.source.connection for a in exported.analyses] == [
        "t.py::test_missing",
        "t.py::test_marked",
    ]
    assert exported.rows["resumes"] == 2
    assert "t.py::test_marked" in (tmp_path / "out" / "resumes.csv").read_text()


def test_the_trace_event_export_has_a_process_per_connection(tmp_path: Path) -> None:
    from acptrace.export.trace_event import trace_events

    path = two_tests(tmp_path)
    names = [
        event["args"]["name"]
        for event in trace_events([path])["traceEvents"]
        if event["name"] == "process_name"
    ]
    assert names == [f"{path} [t.py::test_missing]", f"{path} [t.py::test_marked]"]


def test_report_counts_each_connection_and_names_it_in_references(tmp_path: Path) -> None:
    from acptrace.report import build_report

    path = two_tests(tmp_path)
    built = build_report([str(path)], jobs=1)
    assert built.files == 1
    (group,) = built.groups
    assert group.connections == 2
    assert [ref.path for ref in group.slowest] == [f"{path} [t.py::test_marked]"]
    # (the other test's resume lacks its marker: unmarked_success, counted on its own, rules.md
    # §11, not among the cut replays)
    assert (group.replay_outcomes[Outcome.UNMARKED_SUCCESS], group.cut) == (1, ())


def test_an_acp_tck_report_nested_too_deeply_is_one_issue_whatever_the_stack() -> None:
    # (found by fuzzing: the issue quoted Python's RecursionError, whose words depend on where
    # the stack ran out, so a walk and the analysis alone reported it differently)
    data = b'{"tck_version": "0.1.0", "requirements": ' + b"[" * 100_000 + b"\n"
    (alone,) = acptrace.analyze_file(io.BytesIO(data))
    with acptrace.open_walks(io.BytesIO(data)) as (walk,):
        for _ in walk:
            pass
    assert walk.analysis.issues == alone.issues
    assert [(i.line, i.kind, i.message) for i in alone.issues] == [
        (1, "not_json", "not a complete acp-tck report: nested too deeply to read")
    ]


def test_lone_surrogates_in_acp_tck_names_are_replaced_so_every_output_writes_them() -> None:
    # (found by fuzzing: the standard library reads `"\\ud800"` as is, and the JSON report
    # could not write the connection's name: an internal error)
    data = report(("ACP-RESUME-201", [tck_test("t.py::test_x", WITH_MARKER)]))
    data = data.replace(b"t.py::test_x", b"t.py::test_\\ud800").replace(b'"FAIL"', b'"\\udc00"')
    (analysis,) = acptrace.analyze_file(io.BytesIO(data))
    assert analysis.source.connection == "t.py::test_\ufffd"
    assert b"t.py::test_\xef\xbf\xbd" in dumps([analysis])


def test_an_acp_tck_report_states_the_version_of_its_tests() -> None:
    # rules.md §7: the report's own protocol_version comes first when a test has no initialize
    messages = [("c2a", RESUME), ("a2c", RESUME_OK)]
    data = orjson.loads(report(("ACP-R", [tck_test("t.py::test_v", entries(messages))])))
    for version in (1, 2):
        data["protocol_version"] = version
        (analysis,) = acptrace.analyze_file(io.BytesIO(orjson.dumps(data)))
        connection = analysis.connection
        assert (connection.protocol_version, connection.protocol_source.value) == (
            version,
            "inferred",
        )
        assert connection.protocol_reason == "the acp-tck report's protocol_version"


def test_an_acp_tck_clock_going_back_is_an_issue() -> None:
    # rules.md §11: every format with a clock reports time_went_back, acp-tck's `t` included
    transcript = entries([*EXCHANGE, ("c2a", RESUME), ("a2c", RESUME_OK)])
    transcript[3]["t"] = transcript[1]["t"] - 0.5
    (analysis,) = acptrace.analyze_file(
        io.BytesIO(report(("R", [tck_test("t.py::x", transcript)])))
    )
    assert [issue.kind for issue in analysis.issues] == ["time_went_back"]
