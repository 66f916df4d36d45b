"""Every input format: detected without being told, decoded to the same analysis."""

from __future__ import annotations

import io
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson
import pytest
from typer.testing import CliRunner

import acptrace
from acptrace import Options, Outcome
from acptrace.cli import app
from acptrace.model.domain import Direction
from acptrace.read.formats import FORMATS
from tests.shared import REAL_WORLD
from tests.traffic import write_traffic
from tests.transcript import NO_SCHEMA

# One replay, as (direction, message, milliseconds since the start).
SESSION = "sess_1"
REPLAY: list[tuple[str, dict[str, Any], float]] = [
    ("c2a", {"jsonrpc": "2.0", "id": 0, "method": "initialize",
             "params": {"protocolVersion": 2, "info": {"name": "zed", "version": "1"}}}, 0.0),
    ("a2c", {"jsonrpc": "2.0", "id": 0,
             "result": {"protocolVersion": 2, "info": {"name": "agent", "version": "2"},
                        "capabilities": {"session": {}}}}, 5.0),
    ("c2a", {"jsonrpc": "2.0", "id": 1, "method": "session/resume",
             "params": {"sessionId": SESSION, "cwd": "/", "replayFrom": {"type": "start"}}}, 10.0),
    ("a2c", {"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": SESSION,
             "update": {"sessionUpdate": "user_message", "messageId": "m1"}}}, 20.0),
    ("a2c", {"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": SESSION,
             "update": {"sessionUpdate": "notice"}}}, 30.0),
    ("a2c", {"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": SESSION,
             "update": {"sessionUpdate": "replay_complete"}}}, 50.0),
    ("a2c", {"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": SESSION,
             "update": {"sessionUpdate": "state_update"}}}, 600.0),
    ("a2c", {"jsonrpc": "2.0", "id": 1, "error": {"code": -32603, "message": "cli died"}}, 850.0),
]  # fmt: skip
START = 1_764_669_600.0


def iso(ms: float) -> str:
    moment = datetime.fromtimestamp(START + ms / 1000, UTC)
    return moment.isoformat(timespec="microseconds").replace("+00:00", "Z")


def lines(records: list[Any]) -> bytes:
    return b"".join(orjson.dumps(record) + b"\n" for record in records)


def canonical() -> bytes:
    return lines(
        [{"ts": iso(t), "mono_ns": int(t * 1e6), "dir": d, "msg": m} for d, m, t in REPLAY]
    )


def bare() -> bytes:
    return lines([m for _, m, _ in REPLAY])


def openhands() -> bytes:
    words = {"c2a": ">>>", "a2c": "<<<"}
    return lines([{"ts": iso(t), "dir": words[d], "msg": m} for d, m, t in REPLAY])


def inspector() -> bytes:
    words = {"c2a": "fromClient", "a2c": "fromAgent"}
    return lines(
        [
            {"ts": iso(t), "direction": words[d], "json": orjson.dumps(m).decode()}
            for d, m, t in REPLAY
        ]
    )


def mcpsnoop() -> bytes:
    words = {"c2a": "c2s", "a2c": "s2c"}
    return lines(
        [
            {"seq": n, "ts": iso(t), "direction": words[d], "raw": orjson.dumps(m).decode()}
            for n, (d, m, t) in enumerate(REPLAY)
        ]
    )


def tee() -> bytes:
    words = {"c2a": "client->agent", "a2c": "agent->client"}
    return lines(
        [
            {"ts": START + t / 1000, "t_rel": t / 1000, "dir": words[d], "msg": m}
            for d, m, t in REPLAY
        ]
    )


def inspector_trace() -> bytes:
    words = {"c2a": "client -> agent", "a2c": "agent -> client"}
    header = {"type": "header", "format": "acp-inspector-trace", "version": 1,
              "at": START * 1000, "frames": len(REPLAY), "dropped": 0, "warning": ""}  # fmt: skip
    frames = [
        {"type": "frame", "at": START * 1000 + t, "connection": 1, "direction": words[d],
         "encoding": "utf8", "frame": orjson.dumps(m).decode()}
        for d, m, t in REPLAY
    ]  # fmt: skip
    return lines([header, *frames])


def acp_tck(tests: list[dict[str, Any]] | None = None) -> bytes:
    words = {"c2a": "sent", "a2c": "received"}
    transcript = [
        {"dir": words[d], "t": 1000.0 + t / 1000, "raw": orjson.dumps(m).decode()}
        for d, m, t in REPLAY
    ]
    if tests is None:
        tests = [{"nodeid": "test_resume.py::test_x", "status": "FAIL", "transcript": transcript}]
    requirement = {"id": "ACP-RESUME-201", "status": "FAIL", "tests": tests}
    report = {"tck_version": "0.1.0", "protocol_version": 2, "requirements": [requirement]}
    return orjson.dumps(report, option=orjson.OPT_INDENT_2) + b"\n"


def conductor() -> bytes:
    records = []
    for d, m, t in REPLAY:
        ends = ("Proxy(0)", "Agent") if d == "c2a" else ("Agent", "Proxy(0)")
        hop = {"from": ends[0], "to": ends[1], "ts": t / 1000}
        if "method" in m:
            kind = "request" if "id" in m else "notification"
            records.append(
                {"type": kind, "protocol": "acp", **hop, "id": m.get("id"),
                 "method": m["method"], "params": m["params"]}
            )  # fmt: skip
            if d == "c2a":  # the same request on the Client's hop, not analysed by default
                client_hop = {**records[-1], "from": "Client", "to": "Proxy(0)"}
                records.append(client_hop)
        else:
            is_error = "error" in m
            records.append(
                {"type": "response", **hop, "id": m["id"], "is_error": is_error,
                 "payload": m["error"] if is_error else m["result"]}
            )  # fmt: skip
    return lines(records)


def zed() -> bytes:
    entries = []
    for d, m, _ in REPLAY:
        kind = "response" if "method" not in m else "request" if "id" in m else "notification"
        entry = {"_direction": "outgoing" if d == "c2a" else "incoming", "_type": kind,
                 "id": m.get("id"), "method": m.get("method"),
                 "params": m.get("params", m.get("result", m.get("error")))}  # fmt: skip
        entries.append(entry)
    return orjson.dumps(entries, option=orjson.OPT_INDENT_2) + b"\n"


def traffic() -> bytes:
    return write_traffic([(Direction(d), m) for d, m, _ in REPLAY]).encode()


WRITERS: dict[str, tuple[Callable[[], bytes], bool]] = {
    "acptrace": (canonical, True),
    "jsonrpc": (bare, False),
    "openhands": (openhands, True),
    "inspector": (inspector, True),
    "mcpsnoop": (mcpsnoop, True),
    "tee": (tee, True),
    "conductor": (conductor, True),
    "zed": (zed, False),
    "acp-inspector-trace": (inspector_trace, True),
    "acp-tck": (acp_tck, True),
    "traffic": (traffic, False),
}


def test_every_registered_format_has_a_writer_here() -> None:
    assert {f.name for f in FORMATS} == set(WRITERS)


@pytest.mark.parametrize("name", list(WRITERS))
def test_the_same_replay_in_every_format_gives_the_same_analysis(name: str) -> None:
    writer, timed = WRITERS[name]
    (analysis,) = acptrace.analyze_file(io.BytesIO(writer()))
    assert analysis.source.format == name
    assert analysis.issues == ()
    (row,) = analysis.resumes
    assert (row.outcome, row.end.value, row.error_code) == (
        Outcome.COMPLETE_FAILED,
        "error",
        -32603,
    )
    assert (row.marker_count, row.replayed_updates, row.held_updates) == (1, 2, 1)
    assert [(f.rule, f.severity.value) for f in analysis.findings] == [
        ("RC-NOT-HISTORY", "error"),
        *[("SCHEMA-INVALID", "error")] * 3,  # (every format: the same schema checks)
    ]
    assert [f.message.split(" breaks")[0] for f in analysis.findings[1:]] == [
        "session/update notice: params.update.severity",  # (the replay's minimal updates)
        "session/update notice: params.update.title",
        "session/update state_update: params.update.state",
    ]
    assert analysis.connection.agent is not None
    assert analysis.connection.agent.name == "agent"
    if timed:
        assert row.request_to_marker_ms == pytest.approx(40.0)
        assert row.marker_to_response_ms == pytest.approx(800.0)
    else:
        assert row.request_to_marker_ms is None


@pytest.mark.parametrize("name", list(WRITERS))
def test_forcing_the_format_reads_it_the_same(name: str) -> None:
    writer, _ = WRITERS[name]
    (forced,) = acptrace.analyze_file(io.BytesIO(writer()), Options(input_format=name))
    assert forced.source.format == name
    assert [r.outcome for r in forced.resumes] == [Outcome.COMPLETE_FAILED]


def test_conductor_analyses_the_agent_link_by_default_and_another_on_request() -> None:
    data = conductor()
    default = acptrace.analyze(io.BytesIO(data))
    assert default.source.link == "Proxy(0)<->Agent"
    assert default.source.events == 2  # the Client hop's copies of initialize and the resume
    client = acptrace.analyze(io.BytesIO(data), Options(link="client"))
    assert client.source.link == "Client<->Proxy(0)"
    assert client.resumes[0].outcome is Outcome.UNKNOWN  # its responses are not on that hop
    with pytest.raises(acptrace.UsageError):
        acptrace.analyze(io.BytesIO(data), Options(link="nowhere"))


def test_conductor_keeps_mcp_traffic_out_of_the_acp_rules() -> None:
    records = [
        {"type": "request", "protocol": "mcp", "from": "Agent", "to": "Proxy(0)", "id": 7,
         "method": "tools/call", "params": {}},
        {"type": "response", "from": "Proxy(0)", "to": "Agent", "id": 7, "is_error": False,
         "payload": {}},
        {"type": "notification", "protocol": "mcp", "from": "Agent", "to": "Proxy(0)",
         "method": "notifications/initialized"},
    ]  # fmt: skip
    analysis = acptrace.analyze(io.BytesIO(lines(records)))
    assert analysis.source.format == "conductor"
    assert (analysis.source.messages, analysis.source.events) == (0, 3)
    assert analysis.findings == ()


def test_zed_error_response_and_null_id_notifications() -> None:
    entries = [
        {"_direction": "outgoing", "_type": "request", "id": 1, "method": "session/new",
         "params": {"cwd": "/"}},
        {"_direction": "incoming", "_type": "notification", "id": None,
         "method": "session/update", "params": {"sessionId": "s", "update": {}}},
        {"_direction": "incoming", "_type": "response", "id": 1,
         "params": {"code": -32603, "message": "no"}},
    ]  # fmt: skip
    data = orjson.dumps(entries, option=orjson.OPT_INDENT_2)
    walk_items = []
    with acptrace.open_walk(io.BytesIO(data), NO_SCHEMA) as walk:
        walk_items = list(walk)
    messages = [item.message for item in walk_items if isinstance(item, acptrace.Step)]
    starts = [n for n, text in enumerate(data.split(b"\n"), 1) if text == b"  {"]
    assert len(starts) == 3
    assert [(m.kind.value, m.line) for m in messages] == [
        ("request", starts[0]),
        ("notification", starts[1]),
        ("response", starts[2]),
    ]
    assert messages[2].is_error
    assert messages[2].error_code == -32603
    assert walk.analysis.findings == ()


@pytest.mark.parametrize("value", [b"{}", b"[]"], ids=["object", "array"])
def test_a_direction_that_is_no_string_is_not_taken_for_a_zed_entry(value: bytes) -> None:
    # (found by fuzzing: the format's detection looked the value up in a dict, which raised)
    data = b'{"_direction":' + value + b',"_type":"request"}\n'
    (analysis,) = acptrace.analyze_file(io.BytesIO(data))
    assert analysis.source.messages == 0
    assert [issue.line for issue in analysis.issues] == [1]


def test_cut_off_zed_array_is_an_issue() -> None:
    data = b'[\n  {"_direction": "outgoing", "_type": "request", "id": 1, "method": "x"},\n  {"_dir'
    analysis = acptrace.analyze(io.BytesIO(data), NO_SCHEMA)
    assert analysis.source.format == "zed"
    assert [(i.line, i.kind) for i in analysis.issues] == [(3, "truncated_line")]


REAL_FORMATS = {
    # The F# ACP Inspector's own recordings (SOURCES.md): `{"ts", "direction", "json"}`.
    "acp-inspector-fsharp__basic-session.jsonl": "inspector",
    "acp-inspector-fsharp__demo-session.jsonl": "inspector",
    "acp-inspector-fsharp__proxy-chain.jsonl": "inspector",
    "acp-inspector-fsharp__tool-call-session.jsonl": "inspector",
    "acp-inspector-trace__doc-example.jsonl": "acp-inspector-trace",
    "rust-sdk-conductor__trace_client_mcp_server.jsons.jsonl": "conductor",
    "rust-sdk-conductor__trace_mcp_tool_call.jsons.jsonl": "conductor",
    "rust-sdk-conductor__trace_snapshot.jsons.jsonl": "conductor",
}


@pytest.mark.shared
@pytest.mark.parametrize("path", sorted(REAL_WORLD.glob("*.jsonl")), ids=lambda p: p.name)
def test_real_world_files_are_detected_with_no_unknown_envelope(path: Path) -> None:
    for analysis in acptrace.analyze_file(path):
        assert analysis.source.format == REAL_FORMATS.get(path.name, "jsonrpc")
        assert not [i for i in analysis.issues if i.kind == "unknown_envelope"]


def test_formats_command_lists_every_format_with_an_example() -> None:
    output = CliRunner().invoke(app, ["formats"]).stdout
    for known in FORMATS:
        assert f"{known.name}: " in output
        assert known.example in output


def test_formats_command_says_which_producers_each_format_covers() -> None:
    output = CliRunner().invoke(app, ["formats"]).stdout
    for known in FORMATS:
        assert known.producers
        assert f"written by: {known.producers}" in output
    assert "sagikazarmark/acp-inspector" in output
    assert "acp-tck" in output
