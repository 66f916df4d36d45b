"""`acptrace mock`: what it takes from a recording, how each fault changes the replay (or a
prompt turn), and the answers it gives on stdio. In-process and fast; tests/test_drive.py runs
it as a real Agent."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest
from typer.testing import CliRunner

from acptrace.cli import app
from acptrace.mock import (
    TURN_FAULTS,
    Fault,
    FaultName,
    MockAgent,
    MockSettings,
    Step,
    StepRole,
    load_recording,
    parse_fault,
    plan,
    plan_turn,
)
from acptrace.model.errors import UsageError
from tests.golden import ROOT

SAMPLES = ROOT / "sample_traces"
COMPLETE = SAMPLES / "outcome-complete.jsonl"
CHILD = SAMPLES / "outcome-child-complete.jsonl"
LOADED_V1 = SAMPLES / "outcome-loaded-v1.jsonl"
CLEAN = SAMPLES / "clean.jsonl"
U, M, C, OT, R = (
    StepRole.UPDATE,
    StepRole.MARKER,
    StepRole.CHILD_MARKER,
    StepRole.OTHER,
    StepRole.RESPONSE,
)


def line(message: dict[str, Any]) -> bytes:
    return orjson.dumps({"jsonrpc": "2.0", **message}) + b"\n"


def resume(request_id: int = 1, session: str = "sess_asked") -> bytes:
    params = {"sessionId": session, "cwd": "/w", "mcpServers": [], "replayFrom": {"type": "start"}}
    return line({"id": request_id, "method": "session/resume", "params": params})


def serve(path: Path, *lines: bytes, faults: tuple[str, ...] = ()) -> tuple[int, list[Any]]:
    """Serve these lines; the exit status and every message the mock wrote."""
    settings = MockSettings(speed=0, faults=tuple(parse_fault(f) for f in faults))
    out = io.BytesIO()
    status = MockAgent(load_recording(path), settings).serve(io.BytesIO(b"".join(lines)), out)
    return status, [orjson.loads(item) for item in out.getvalue().splitlines()]


def tags(messages: list[Any]) -> list[str]:
    """Each message as its update tag, or `response`/`error:CODE`."""
    out = []
    for message in messages:
        if "method" in message:
            out.append(message["params"]["update"]["sessionUpdate"])
        elif "error" in message:
            out.append(f"error:{message['error']['code']}")
        else:
            out.append("response")
    return out


# -- the recording ---------------------------------------------------------------------------


def test_the_replay_window_keeps_every_agent_message_with_its_role_and_gap() -> None:
    recording = load_recording(COMPLETE)
    assert recording.initialize is not None
    assert recording.initialize["info"]["name"] == "claude-agent-acp"
    assert recording.new_session is None
    window = recording.replay
    assert window is not None
    assert window.session_id == "sess_complete"
    assert window.answered
    assert [s.role for s in window.steps] == [U, U, U, U, U, M, U, U, R]
    assert window.steps[0].gap_ns == 12_500_000  # request -> first update, monotonic clock
    assert window.steps[-1].gap_ns == 2_250_000


def test_child_markers_are_told_from_the_requested_sessions() -> None:
    window = load_recording(CHILD).replay
    assert window is not None
    assert [s.role for s in window.steps] == [U, U, U, U, C, U, U, M, U, R]


def test_a_v1_session_load_is_the_replay_window() -> None:
    window = load_recording(LOADED_V1).replay
    assert window is not None
    assert window.session_id == "sess_v1"
    assert window.count(StepRole.MARKER) == 0
    assert window.answered


def test_prompt_turns_and_session_new_are_kept() -> None:
    recording = load_recording(CLEAN)
    assert recording.new_session is not None
    assert "sessionId" in recording.new_session
    assert len(recording.turns) == 1
    assert recording.turns[0].answered
    assert any(s.role is OT for s in recording.turns[0].steps)  # its permission request


def test_a_recording_in_a_format_without_directions(tmp_path: Path) -> None:
    bare = tmp_path / "bare.jsonl"
    bare.write_bytes(
        line({"id": 0, "method": "initialize", "params": {"protocolVersion": 2}})
        + line({"id": 0, "result": {"protocolVersion": 2}})
        + resume(1, "s1")
        + line({"method": "session/update", "params": {"sessionId": "s1", "update": {}}})
        + line({"id": 1, "result": {}})
    )
    recording = load_recording(bare)
    assert recording.initialize == {"protocolVersion": 2}
    assert recording.replay is not None
    assert [s.role for s in recording.replay.steps] == [U, R]


def test_a_recording_without_agent_answers_is_refused(tmp_path: Path) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(line({"id": 0, "method": "initialize", "params": {}}))
    with pytest.raises(UsageError, match="no Agent answer"):
        load_recording(empty)


# -- faults ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("no-marker", Fault(FaultName.NO_MARKER)),
        ("truncate:3", Fault(FaultName.TRUNCATE, 3)),
        ("delay-marker:250", Fault(FaultName.DELAY_MARKER, 250)),
        ("slow-turn:1500", Fault(FaultName.SLOW_TURN, 1500)),
        ("no-idle", Fault(FaultName.NO_IDLE)),
    ],
)
def test_parse_fault(text: str, expected: Fault) -> None:
    assert parse_fault(text) == expected


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("nope", "unknown fault"),
        ("truncate", "needs a whole number"),
        ("delay-response:-5", "needs a whole number"),
        ("no-marker:2", "takes no argument"),
        ("slow-turn", "needs a whole number"),
        ("no-idle:5", "takes no argument"),
    ],
)
def test_bad_faults_are_usage_errors(text: str, problem: str) -> None:
    with pytest.raises(UsageError, match=problem):
        parse_fault(text)


@pytest.mark.parametrize(
    ("fault", "roles", "exits"),
    [
        ("truncate:2", [U, U], True),
        ("truncate:99", [U, U, U, U, U], True),
        ("no-marker", [U, U, U, U, U, U, U, R], False),
        ("double-marker", [U, U, U, U, U, M, M, U, U, R], False),
        ("marker-after-response", [U, U, U, U, U, U, U, R, M], False),
        ("state-before-marker", [U, U, U, U, U, U, M, U, U, R], False),
        ("error-after-marker", [U, U, U, U, U, M, R], False),
        ("reject-cursor", [R], False),
        ("delay-marker:5", [U, U, U, U, U, M, U, U, R], False),
    ],
)
def test_each_fault_changes_the_plan(fault: str, roles: list[StepRole], exits: bool) -> None:
    window = load_recording(COMPLETE).replay
    assert window is not None
    planned = plan(window, [parse_fault(fault)], 7)
    assert [s.role for s in planned.steps] == roles
    assert planned.exit_after is exits


def test_drop_child_marker_keeps_the_parents() -> None:
    window = load_recording(CHILD).replay
    assert window is not None
    planned = plan(window, [parse_fault("drop-child-marker")], 1)
    assert [s.role for s in planned.steps] == [U, U, U, U, U, U, M, U, R]


def test_delays_are_added_unscaled() -> None:
    window = load_recording(COMPLETE).replay
    assert window is not None
    faults = [parse_fault("delay-marker:40"), parse_fault("delay-response:70")]
    planned = plan(window, faults, 1)
    extra = {s.role: s.extra_ms for s in planned.steps if s.extra_ms}
    assert extra == {M: 40.0, R: 70.0}


@pytest.mark.parametrize(
    ("path", "faults", "problem"),
    [
        (LOADED_V1, ["no-marker"], "no-marker: the replay has no marker"),
        (COMPLETE, ["drop-child-marker"], "no child marker"),
        (
            COMPLETE,
            ["no-marker", "error-after-marker"],
            "error-after-marker: the replay has no marker",
        ),
        (COMPLETE, ["reject-cursor", "delay-marker:5"], "delay-marker: the replay has no marker"),
        (
            COMPLETE,
            ["truncate:1", "delay-response:5"],
            "delay-response: the replay has no response",
        ),
        (COMPLETE, ["no-idle"], "no-idle: the recording has no prompt turn"),
        (CLEAN, ["no-idle", "no-idle"], "no-idle: no prompt turn of the recording has a state"),
        (LOADED_V1, ["slow-turn:5"], "slow-turn: the recording has no prompt turn"),
    ],
)
def test_a_fault_the_recording_cannot_take_is_refused(
    path: Path, faults: list[str], problem: str
) -> None:
    settings = MockSettings(faults=tuple(parse_fault(fault) for fault in faults))
    with pytest.raises(UsageError, match=problem):
        MockAgent(load_recording(path), settings)


def turn_tags(steps: tuple[Step, ...] | list[Any]) -> list[str]:
    """Each message of a turn as its update tag (`state_update:idle`), method or `response`."""
    out = []
    for step in steps:
        message = step.message if isinstance(step, Step) else step
        update = message.get("params", {}).get("update")
        if isinstance(update, dict):
            state = f":{update['state']}" if "state" in update else ""
            out.append(f"{update['sessionUpdate']}{state}")
        else:
            out.append(message.get("method", "response"))
    return out


CLEAN_TURN = [
    "state_update:running",
    "user_message",
    "response",
    "tool_call_update",
    "session/request_permission",
    "tool_call_update",
    "agent_message",
    "state_update:idle",
]
"""The recorded v2 turn of clean.jsonl: the response acknowledges, the work goes on."""


def test_no_idle_leaves_out_the_end_of_each_turn_only() -> None:
    recording = load_recording(CLEAN)
    [turn] = recording.turns
    assert turn_tags(turn.steps) == CLEAN_TURN
    assert turn_tags(plan_turn(turn, [parse_fault("no-idle")])) == CLEAN_TURN[:-1]
    assert recording.replay is not None
    replay = plan(recording.replay, [parse_fault("no-idle")], 1)
    assert replay.steps == recording.replay.steps  # (a turn fault leaves the replay as it is)


def test_slow_turn_spreads_its_delay_over_what_follows_the_response() -> None:
    [turn] = load_recording(CLEAN).turns
    planned = plan_turn(turn, [parse_fault("slow-turn:500")])
    assert turn_tags(planned) == CLEAN_TURN
    extra = [step.extra_ms for step in planned]
    assert extra[:3] == [0, 0, 0]  # up to the response: at once, as recorded
    assert extra[3:] == pytest.approx([100.0] * 5)
    assert sum(extra) == pytest.approx(500)
    assert [s.gap_ns for s in planned] == [s.gap_ns for s in turn.steps]  # (still scaled)


def test_replay_faults_leave_the_turns_as_they_are() -> None:
    [turn] = load_recording(CLEAN).turns
    replay_faults = [parse_fault("no-marker"), parse_fault("delay-response:5")]
    assert plan_turn(turn, replay_faults) == turn.steps
    assert {f.name for f in replay_faults}.isdisjoint(TURN_FAULTS)


def test_a_turn_that_never_ends_is_served_and_the_mock_goes_on() -> None:
    params = {"sessionId": "sess_clean", "prompt": [{"type": "text", "text": "hi"}]}
    prompt = line({"id": 3, "method": "session/prompt", "params": params})
    new = line({"id": 4, "method": "session/new", "params": {"cwd": "/w", "mcpServers": []}})
    status, out = serve(CLEAN, prompt, new, faults=("no-idle",))
    assert status == 0
    assert turn_tags(out) == [*CLEAN_TURN[:-1], "response"]  # then session/new, answered
    assert out[-1]["id"] == 4


def test_slow_turn_needs_something_after_the_response(tmp_path: Path) -> None:
    v1_turn = tmp_path / "v1-turn.jsonl"
    params = {"sessionId": "s", "prompt": []}
    v1_turn.write_bytes(
        line({"id": 1, "method": "session/prompt", "params": params})
        + line({"id": 1, "result": {"stopReason": "end_turn"}})
    )
    settings = MockSettings(faults=(parse_fault("slow-turn:5"),))
    with pytest.raises(UsageError, match=r"slow-turn: no prompt turn .* after the prompt's resp"):
        MockAgent(load_recording(v1_turn), settings)


def test_faults_combine_in_order() -> None:
    faults = ("double-marker", "delay-response:0", "marker-after-response")
    _, out = serve(COMPLETE, resume(), faults=faults)
    assert tags(out)[-3:] == ["response", "replay_complete", "replay_complete"]


# -- serving ---------------------------------------------------------------------------------


def test_initialize_and_resume_answer_as_recorded_with_the_asked_session() -> None:
    init = line({"id": 5, "method": "initialize", "params": {"protocolVersion": 2}})
    status, out = serve(COMPLETE, init, resume(6))
    assert status == 0
    assert out[0]["id"] == 5
    assert out[0]["result"]["info"]["name"] == "claude-agent-acp"
    replay = out[1:]
    assert tags(replay)[-1] == "response"
    assert replay[-1]["id"] == 6
    sessions = {m["params"]["sessionId"] for m in replay if "params" in m}
    assert sessions == {"sess_asked"}
    assert "sess_complete" not in orjson.dumps(out).decode()


def test_children_keep_their_recorded_ids() -> None:
    _, out = serve(CHILD, resume(1, "sess_other"))
    sessions = [m["params"]["sessionId"] for m in out if "params" in m]
    assert set(sessions) == {"sess_other", "sess_child"}


def test_session_new_gets_a_fresh_id_where_the_recording_has_none() -> None:
    new = line({"id": 1, "method": "session/new", "params": {"cwd": "/w", "mcpServers": []}})
    _, first = serve(COMPLETE, new)
    _, second = serve(COMPLETE, new)
    assert first[0]["result"]["sessionId"].startswith("sess_mock_")
    assert first[0]["result"]["sessionId"] != second[0]["result"]["sessionId"]
    _, recorded = serve(CLEAN, new)
    assert recorded[0]["result"] == load_recording(CLEAN).new_session


def test_a_prompt_replays_the_next_recorded_turn_then_errors() -> None:
    params = {"sessionId": "sess_p", "prompt": [{"type": "text", "text": "hi"}]}
    prompt = line({"id": 3, "method": "session/prompt", "params": params})
    turns = len(load_recording(CLEAN).turns)
    _, out = serve(CLEAN, *[prompt] * (turns + 1))
    responses = [m for m in out if "method" not in m]
    assert len(responses) == turns + 1
    assert all("result" in m for m in responses[:-1])
    assert responses[-1]["error"]["code"] == -32603


@pytest.mark.parametrize(
    ("request_line", "code"),
    [
        (line({"id": 9, "method": "session/list", "params": {}}), -32603),
        (line({"id": 9, "method": "_vendor/thing", "params": {}}), -32601),
        (line({"id": 9, "method": "session/resume", "params": {"sessionId": "s"}}), -32603),
        (b"not json\n", -32700),
        (b"[1, 2]\n", -32600),
    ],
)
def test_anything_without_a_recording_gets_an_error(request_line: bytes, code: int) -> None:
    _, out = serve(COMPLETE, request_line)
    assert [m["error"]["code"] for m in out] == [code]


@pytest.mark.parametrize("request_id", [None, 1.0, True, 2**63, [1], {"n": 1}], ids=repr)
def test_a_request_with_an_invalid_id_gets_invalid_request_with_a_null_id(
    request_id: Any,
) -> None:
    request = orjson.dumps({"jsonrpc": "2.0", "id": request_id, "method": "initialize"}) + b"\n"
    _, out = serve(COMPLETE, request)
    assert [(m["id"], m["error"]["code"]) for m in out] == [(None, -32600)]


@pytest.mark.parametrize("request_id", ["a", 0, -(2**63), 2**63 - 1], ids=repr)
def test_a_request_with_a_valid_id_is_answered_with_it(request_id: Any) -> None:
    request = orjson.dumps({"jsonrpc": "2.0", "id": request_id, "method": "initialize"}) + b"\n"
    _, out = serve(COMPLETE, request)
    assert [(m["id"], "result" in m) for m in out] == [(request_id, True)]


def test_a_request_whose_method_is_no_string_gets_invalid_request() -> None:
    _, out = serve(COMPLETE, line({"id": 4, "method": 7}))
    assert [(m["id"], m["error"]["code"]) for m in out] == [(4, -32600)]


@pytest.mark.parametrize(
    ("method", "params"),
    [
        ("session/load", None),
        ("session/load", []),
        ("session/load", {"cwd": "/"}),
        ("session/load", {"sessionId": 5}),
        ("session/resume", {"replayFrom": {"type": "start"}}),
        ("session/resume", {"sessionId": "s", "replayFrom": "start"}),
        ("session/resume", {"sessionId": "s", "replayFrom": {"at": 1}}),
    ],
)
def test_malformed_replay_params_get_invalid_params(method: str, params: Any) -> None:
    _, out = serve(COMPLETE, line({"id": 5, "method": method, "params": params}))
    assert [(m["id"], m["error"]["code"]) for m in out] == [(5, -32602)]


def test_notifications_and_responses_get_no_answer() -> None:
    cancel = line({"method": "session/cancel", "params": {"sessionId": "s"}})
    answer = line({"id": 0, "result": {"outcome": {"outcome": "cancelled"}}})
    assert serve(COMPLETE, cancel, answer, b"\n") == (0, [])


def test_truncate_stops_mid_replay_and_reads_no_further() -> None:
    status, out = serve(COMPLETE, resume(1), resume(2), faults=("truncate:3",))
    assert status == 1
    assert tags(out) == ["user_message", "agent_message_chunk", "agent_message_chunk"]


def test_reject_cursor_and_error_after_marker_answer_the_request() -> None:
    _, rejected = serve(COMPLETE, resume(4), faults=("reject-cursor",))
    assert rejected == [
        {
            "jsonrpc": "2.0",
            "id": 4,
            "error": {"code": -32602, "message": rejected[0]["error"]["message"]},
        }
    ]
    _, failed = serve(COMPLETE, resume(4), faults=("error-after-marker",))
    assert tags(failed)[-2:] == ["replay_complete", "error:-32603"]


def test_state_before_marker_sends_the_recorded_snapshot_early() -> None:
    _, out = serve(COMPLETE, resume(1), faults=("state-before-marker",))
    assert tags(out)[5:7] == ["state_update", "replay_complete"]
    assert out[5]["params"] == {
        "sessionId": "sess_asked",
        "update": {"sessionUpdate": "state_update", "state": "idle", "stopReason": "end_turn"},
    }


def test_gaps_are_scaled_by_speed_and_delays_are_not(monkeypatch: pytest.MonkeyPatch) -> None:
    slept: list[float] = []
    monkeypatch.setattr("acptrace.mock.agent.time.sleep", slept.append)
    recording = load_recording(COMPLETE)
    for speed in (2.0, 0.0):
        settings = MockSettings(speed=speed, faults=(parse_fault("delay-response:100"),))
        MockAgent(recording, settings).serve(io.BytesIO(resume()), io.BytesIO())
    window = recording.replay
    assert window is not None
    halves = [s.gap_ns / 1e9 / 2 for s in window.steps]
    halves[-1] += 0.1
    assert slept == pytest.approx([h for h in halves if h > 0] + [0.1])


# -- the command -----------------------------------------------------------------------------


def test_the_command_serves_stdio_and_exits_with_the_status() -> None:
    runner = CliRunner()
    ok = runner.invoke(app, ["mock", "--speed", "0", str(COMPLETE)], input=resume().decode())
    assert ok.exit_code == 0, ok.output
    assert orjson.loads(ok.stdout.splitlines()[-1]) == {"jsonrpc": "2.0", "id": 1, "result": {}}
    cut = runner.invoke(
        app,
        ["mock", "--speed", "0", "--fault", "truncate:1", str(COMPLETE)],
        input=resume().decode(),
    )
    assert cut.exit_code == 1
    assert len(cut.stdout.splitlines()) == 1


@pytest.mark.parametrize(
    "args",
    [
        ["--fault", "bogus", str(COMPLETE)],
        ["--fault", "drop-child-marker", str(COMPLETE)],
        [str(SAMPLES / "no-such-file.jsonl")],
    ],
)
def test_the_command_refuses_bad_input_with_exit_2(args: list[str]) -> None:
    result = CliRunner().invoke(app, ["mock", *args], input="")
    assert result.exit_code == 2
    assert "acptrace: error:" in result.stderr
    assert result.stdout == ""


@pytest.mark.parametrize("width", [60, 80, 120])
def test_the_help_names_every_fault_whole(width: int) -> None:
    """Each fault name on one line: click would wrap `double-marker` at its hyphen."""
    env = {**os.environ, "COLUMNS": str(width)}  # (a real run: CliRunner's help is 80 wide)
    command = [sys.executable, "-m", "acptrace", "mock", "--help"]
    result = subprocess.run(command, capture_output=True, text=True, env=env, check=True)
    words = result.stdout.split()
    for fault in FaultName:
        assert any(word.strip(",.").split(":")[0] == fault.value for word in words), fault
    assert "truncate:N," in words
    assert "delay-marker:MS," in words
    assert "slow-turn:MS," in words
    assert all(len(line) <= width and line == line.rstrip() for line in result.stdout.splitlines())
