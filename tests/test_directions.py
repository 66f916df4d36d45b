"""Which way each method travels (input-formats.md) and LC-WRONG-DIRECTION (rules.md §4)."""

from __future__ import annotations

import io

import orjson
import pytest

import acptrace
from acptrace.correlate.correlator import Correlator
from acptrace.decode.directions import infer_direction, known_direction
from acptrace.model.domain import Direction, MessageKind, Outcome, UpdateRun
from tests.transcript import ADVERTISED, SESSION, Transcript, findings, rule_ids

C2A_METHODS = [
    "initialize",
    "authenticate",
    "auth/login",
    "auth/logout",
    "auth/status",
    "providers/list",
    "providers/set",
    "providers/disable",
    "session/new",
    "session/list",
    "session/resume",
    "session/load",
    "session/fork",
    "session/close",
    "session/delete",
    "session/archive",
    "session/unarchive",
    "session/set_title",
    "session/status",
    "session/prompt",
    "session/set_config_option",
    "session/set_mode",
    "terminal/cancel",
    "tool_call/cancel",
    "session/cancel",
]
A2C_METHODS = [
    "session/request_permission",
    "elicitation/create",
    "fs/read_text_file",
    "fs/write_text_file",
    "terminal/create",
    "terminal/output",
    "terminal/release",
    "terminal/wait_for_exit",
    "terminal/kill",
    "session/update",
    "elicitation/complete",
    "auth/status_update",
]


@pytest.mark.parametrize("method", C2A_METHODS)
def test_methods_the_agent_handles_travel_client_to_agent(method: str) -> None:
    assert infer_direction(method) is Direction.C2A
    assert known_direction(method) is Direction.C2A


@pytest.mark.parametrize("method", A2C_METHODS)
def test_methods_the_client_handles_travel_agent_to_client(method: str) -> None:
    assert infer_direction(method) is Direction.A2C
    assert known_direction(method) is Direction.A2C


def test_mcp_message_goes_by_kind_and_has_no_one_direction() -> None:
    assert infer_direction("mcp/message", MessageKind.REQUEST) is Direction.A2C
    assert infer_direction("mcp/message", MessageKind.NOTIFICATION) is Direction.C2A
    assert known_direction("mcp/message") is None


@pytest.mark.parametrize(
    "method", ["$/cancel_request", "proxy/successor", "proxy/initialize", "_zed/x", "fs/other"]
)
def test_either_way_extension_and_unknown_methods_have_no_direction(method: str) -> None:
    assert infer_direction(method) is Direction.UNKNOWN
    assert known_direction(method) is None


def started() -> Transcript:
    t = Transcript()
    t.open()
    t.initialize()
    return t


def test_lc_wrong_direction_for_an_update_from_the_client() -> None:
    t = started()
    t.new_session()
    line = t.notify(
        "session/update",
        {"sessionId": SESSION, "update": {"sessionUpdate": "agent_message_chunk"}},
        agent=False,
    )
    t.close()
    assert findings(t.analyze()) == [("LC-WRONG-DIRECTION", "error", line)]


def test_lc_wrong_direction_for_each_of_a_run_of_client_updates(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    t = started()
    t.new_session()
    t.history(count=20)  # past the format-detection sample, where updates are taken as runs
    update = {"sessionId": SESSION, "update": {"sessionUpdate": "agent_message_chunk"}}
    lines = [t.notify("session/update", update, agent=False) for _ in range(3)]
    t.close()
    runs: list[tuple[int, int]] = []
    on_run = Correlator.on_run

    def spy(self: Correlator, run: UpdateRun) -> None:
        runs.append((run.first.line, run.count))
        on_run(self, run)

    monkeypatch.setattr(Correlator, "on_run", spy)
    wrong = [f.line for f in t.analyze().findings if f.rule == "LC-WRONG-DIRECTION"]
    assert wrong == lines
    assert (lines[0], 3) in runs


def test_a_client_sent_replay_complete_is_never_the_marker() -> None:
    t = started()
    t.new_session()
    t.resume(id=3)
    t.history()
    marker = t.notify(
        "session/update",
        {"sessionId": SESSION, "update": {"sessionUpdate": "replay_complete"}},
        agent=False,
    )
    t.update("state_update")
    response = t.result(3)
    t.close()
    analysis = t.analyze()
    assert findings(analysis) == [
        ("LC-WRONG-DIRECTION", "error", marker),
        ("RC-MISSING", "error", response),
    ]
    (row,) = analysis.resumes
    assert row.outcome is Outcome.UNMARKED_SUCCESS
    assert row.marker_count == 0


def test_lc_wrong_direction_request_stays_paired_but_out_of_the_session_rules() -> None:
    t = started()
    # the Agent sends a prompt for a session nobody created: no LC-PROMPT-INACTIVE for it,
    # and the Client's answer is no orphan
    line = t.request("session/prompt", {"sessionId": "ghost", "prompt": []}, id=7, agent=True)
    t.result(7, {"stopReason": "end_turn"}, agent=False)
    t.close()
    assert findings(t.analyze()) == [("LC-WRONG-DIRECTION", "error", line)]


def test_lc_wrong_direction_request_still_owes_a_response_but_no_cx() -> None:
    t = started()
    line = t.request("session/new", {"cwd": "/"}, id=7, agent=True)
    t.notify("$/cancel_request", {"requestId": 7}, agent=True)
    t.close()
    assert findings(t.analyze()) == [
        ("JR-UNANSWERED", "warning", line),
        ("LC-WRONG-DIRECTION", "error", line),
    ]


def test_a_wrong_direction_session_new_creates_no_session() -> None:
    t = started()
    t.request("session/new", {"cwd": "/"}, id=7, agent=True)
    t.result(7, {"sessionId": SESSION}, agent=False)
    t.request("session/prompt", {"sessionId": SESSION, "prompt": []}, id=8)
    response = t.result(8, {"stopReason": "end_turn"})
    t.close()
    assert ("LC-PROMPT-INACTIVE", "error", response) in findings(t.analyze())


def test_no_lc_wrong_direction_for_methods_that_go_either_way() -> None:
    t = started()
    t.new_session()
    t.request("mcp/message", {"method": "tools/list"}, id=7, agent=True)
    t.result(7, {}, agent=False)
    t.request("mcp/message", {"method": "tools/list"}, id=8)
    t.result(8, {})
    t.notify("mcp/message", {"method": "notifications/x"}, agent=False)
    t.notify("mcp/message", {"method": "notifications/x"}, agent=True)
    t.request("proxy/successor", {}, id=9)
    t.result(9, {})
    t.request("proxy/successor", {}, id=10, agent=True)
    t.result(10, {}, agent=False)
    t.request("_zed/custom", {}, id=11, agent=True)
    t.result(11, {}, agent=False)
    t.request("session/prompt", {"sessionId": SESSION, "prompt": []}, id=12)
    t.notify("$/cancel_request", {"requestId": 12}, agent=False)
    t.error(12, -32800)
    t.request("session/request_permission", {"sessionId": SESSION}, id=13, agent=True)
    t.notify("$/cancel_request", {"requestId": 13}, agent=True)
    t.error(13, -32800, agent=False)
    t.close()
    assert "LC-WRONG-DIRECTION" not in rule_ids(t.analyze())


def test_no_lc_wrong_direction_where_the_format_records_no_direction() -> None:
    t = Transcript(timed=False)
    for msg in (
        {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": 2}},
        {"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": 2, **ADVERTISED[True]}},
        {"jsonrpc": "2.0", "id": 1, "method": "session/fork", "params": {"sessionId": "a"}},
        {"jsonrpc": "2.0", "id": 1, "result": {"sessionId": "b"}},
        {"jsonrpc": "2.0", "method": "auth/status_update", "params": {}},
        {"jsonrpc": "2.0", "id": 2, "method": "providers/list", "params": {}},  # (not advertised)
        {"jsonrpc": "2.0", "id": 2, "result": {}},
    ):
        t.raw(orjson.dumps(msg))
    analysis = t.analyze()
    assert [f for f in findings(analysis) if f[0] != "CAP-UNADVERTISED"] == []
    assert [i.kind for i in analysis.issues] == []


def test_mcp_message_is_inferred_by_kind_and_proxy_methods_are_not_unknown() -> None:
    t = Transcript(timed=False)
    for msg in (
        {"jsonrpc": "2.0", "id": 0, "method": "mcp/message", "params": {}},
        {"jsonrpc": "2.0", "method": "mcp/message", "params": {}},
        {"jsonrpc": "2.0", "id": 1, "method": "proxy/successor", "params": {}},
        {"jsonrpc": "2.0", "id": 2, "method": "_vendor/unknown", "params": {}},
    ):
        t.raw(orjson.dumps(msg))
    with acptrace.open_walk(io.BytesIO(t.text())) as walk:
        steps = [item.message for item in walk if isinstance(item, acptrace.Step)]
    assert [m.direction for m in steps] == [
        Direction.A2C,  # an mcp/message request: Agent -> Client
        Direction.C2A,  # an mcp/message notification: Client -> Agent
        Direction.UNKNOWN,
        Direction.UNKNOWN,
    ]
    issues = [(i.line, i.kind) for i in walk.analysis.issues]
    assert issues == [(4, "unknown_direction")]  # the extension, not proxy/*
