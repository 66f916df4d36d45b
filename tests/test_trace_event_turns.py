"""Turns, tool calls and permission waits in `acptrace export --format trace-event`: a slice for
each on its session's track, nested as the work was (a turn holds its tool calls, a tool call
its permission wait), timed from the lines that started and ended it, with the analysis' rows
as arguments; the first output an instant (docs/trace-event.md)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import acptrace
from acptrace.cli import app
from acptrace.export.trace_event import trace_events
from tests import shared
from tests.test_timeline_turns import started
from tests.test_trace_event import SAMPLES, check_trace_format, export, named, track_names

runner = CliRunner()
AGENTS = sorted(shared.REAL_WORLD.glob("agents-2026-12*/**/*.jsonl"))
"""Recordings of real Agents, v1 and v2, where `../shared` is there."""
Event = dict[str, Any]


def holds(outer: Event, inner: Event) -> bool:
    """The inner slice lies within the outer one, on the same track."""
    same_track = (outer["pid"], outer["tid"]) == (inner["pid"], inner["tid"])
    ends = inner["ts"] + inner.get("dur", 0) <= outer["ts"] + outer["dur"]
    return same_track and outer["ts"] <= inner["ts"] and ends


def of_category(events: list[Event], cat: str, ph: str = "X") -> list[Event]:
    return [e for e in events if e.get("cat") == cat and e["ph"] == ph]


def test_a_v2_turn_holds_its_prompt_its_tool_call_and_the_permission_wait_in_it() -> None:
    t = started()
    prompt = t.prompt(id=5, at_ms=1000)
    t.result(5, {"messageId": "m1"}, at_ms=1050)  # (v2: acknowledged at once)
    output = t.update("agent_message_chunk", at_ms=1500)
    tool = t.tool("c1", status="pending", kind="edit", title="Edit main.py", at_ms=1600)
    asked = t.permission("c1", id=9, at_ms=1700)
    t.choose(9, "allow", at_ms=2700)
    done = t.tool("c1", status="completed", at_ms=2900)
    idle = t.state("idle", stop_reason="end_turn", at_ms=3000)
    t.close(at_ms=4000)
    events = export(t.text())
    (turn,) = named(events, "turn")
    (request,) = named(events, "session/prompt")
    (call,) = named(events, "tool call edit")
    (wait,) = named(events, "permission wait")
    (asking,) = named(events, "session/request_permission")
    (first,) = named(events, "first output", "i")
    assert track_names(events)[turn["tid"]] == "sess_1"  # (its session's track)
    assert (turn["cat"], call["cat"], wait["cat"], first["cat"]) == (
        "turn", "tool_call", "permission", "turn",
    )  # fmt: skip
    assert turn["ts"] == request["ts"]
    assert turn["dur"] == 2_000_000
    assert request["dur"] == 50_000
    assert first["ts"] - turn["ts"] == 500_000
    assert (call["ts"] - turn["ts"], call["dur"]) == (600_000, 1_300_000)
    assert (wait["ts"] - turn["ts"], wait["dur"]) == (700_000, 1_000_000)
    assert holds(turn, request)
    assert holds(turn, call)
    assert holds(turn, first)
    assert holds(call, wait)
    assert holds(call, asking)
    assert (wait["ts"], wait["dur"]) == (asking["ts"], asking["dur"])
    assert turn["args"]["request_line"] == prompt
    assert (turn["args"]["end"], turn["args"]["end_line"]) == ("idle", idle)
    assert turn["args"]["first_output_ms"] == 500.0
    assert first["args"]["line"] == output
    assert turn["args"]["permission_wait_ms"] == 1000.0
    assert (call["args"]["first_line"], call["args"]["end_line"]) == (tool, done)
    assert call["args"]["last_status"] == "completed"
    assert (wait["args"]["request_line"], wait["args"]["tool_call_id"]) == (asked, "c1")
    assert (wait["args"]["outcome"], wait["args"]["option_id"]) == ("selected", "allow")


def test_a_v1_turn_lasts_as_long_as_its_prompt_request() -> None:
    t = started(version=1)
    t.prompt(id=5, at_ms=1000)
    t.tool("c1", tag="tool_call", status="pending", kind="read", at_ms=1300)
    t.tool("c1", status="completed", at_ms=1350)
    t.result(5, {"stopReason": "end_turn"}, at_ms=1400)
    events = export(t.text())
    (turn,), (request,) = named(events, "turn"), named(events, "session/prompt")
    assert (turn["ts"], turn["dur"], turn["tid"]) == (request["ts"], 400_000, request["tid"])
    assert turn["args"]["end"] == "response"
    (call,) = named(events, "tool call read")
    assert holds(turn, call)
    assert call["dur"] == 50_000
    assert named(events, "first output", "i") == []  # (no output: no instant)


def test_what_the_recording_leaves_open_runs_to_its_end_without_a_duration() -> None:
    t = started()
    t.prompt(id=5, at_ms=1000)
    t.tool("c1", status="in_progress", kind="execute", at_ms=1200)
    t.update("agent_message_chunk", at_ms=1500)  # (the file stops: no idle)
    events = export(t.text())
    (turn,), (call,) = named(events, "turn"), named(events, "tool call execute")
    assert turn["dur"] == 500_000
    assert call["dur"] == 300_000
    assert (turn["args"]["end"], turn["args"]["duration_ms"]) == ("trace_end", None)
    assert (call["args"]["end_line"], call["args"]["duration_ms"]) == (None, None)
    assert holds(turn, call)


def test_tool_calls_that_overlap_without_nesting_take_a_second_track_of_the_session() -> None:
    t = started()
    t.prompt(id=5, at_ms=1000)
    t.tool("a", status="pending", kind="read", at_ms=1100)
    t.tool("b", status="pending", kind="edit", at_ms=1200)
    t.tool("a", status="completed", at_ms=1300)
    t.tool("b", status="completed", at_ms=1400)
    t.state("idle", at_ms=1500)
    events = export(t.text())  # (checks that every track's slices nest)
    (turn,), (read,), (edit,) = (
        named(events, n) for n in ("turn", "tool call read", "tool call edit")
    )
    names = track_names(events)
    assert holds(turn, read)
    assert names[read["tid"]] == "sess_1"
    assert names[edit["tid"]] == "sess_1 (2)"


def test_the_cli_writes_the_spans(tmp_path: Path) -> None:
    t = started()
    t.prompt(id=5, at_ms=1000)
    t.state("idle", at_ms=1200)
    source, out = tmp_path / "t.jsonl", tmp_path / "trace.json"
    source.write_bytes(t.text())
    result = runner.invoke(app, ["export", str(source), "-f", "trace-event", "-o", str(out)])
    assert result.exit_code == 0, result.output
    (turn,) = named(check_trace_format(json.loads(out.read_bytes())), "turn")
    assert turn["dur"] == 200_000


MEASURE = {"turn": "duration_ms", "tool_call": "duration_ms", "permission": "wait_ms"}
"""The argument each category's slice lasts (when it is known)."""
START = {"turn": "request_line", "tool_call": "first_line", "permission": "request_line"}


def agrees_with_the_analysis(path: Path) -> None:
    """A slice for every turn, tool call and permission of the analysis, on its session's
    track, lasting its measure where it has one (measured times); a tool call that ended
    before its turn did, or never ended in a turn that did, lies within it."""
    events = check_trace_format(json.loads(json.dumps(trace_events([str(path)]))))
    analysis = acptrace.analyze(path)
    names = track_names(events)
    rows = {
        "turn": analysis.turns,
        "tool_call": analysis.tool_calls,
        "permission": analysis.permissions,
    }
    for cat, made in rows.items():
        measure, line = MEASURE[cat], START[cat]
        slices = of_category(events, cat)
        expected = [(getattr(row, line), getattr(row, measure)) for row in made]
        assert sorted((e["args"][line], e["args"][measure]) for e in slices) == sorted(expected)
        for event in slices:
            assert names[event["tid"]].split(" (")[0] == event["args"]["session_id"]
            took = event["args"][measure]
            if took is not None and not event["args"]["approximate"]:
                assert event["dur"] == pytest.approx(took * 1000, abs=1)  # (µs, rounded)
    turns = {(e["args"]["session_id"], e["args"]["request_line"]): e
             for e in of_category(events, "turn")}  # fmt: skip
    by_id = {(row.session_id, row.request_id): row.request_line for row in analysis.turns}
    for call in of_category(events, "tool_call"):
        args = call["args"]
        turn_line = by_id.get((args["session_id"], args["turn_request_id"]))
        if turn_line is None:
            continue
        turn = turns[(args["session_id"], turn_line)]
        turn_end = turn["args"]["end_line"]
        ended = args["end_line"]
        if turn_end is not None and (ended is None or ended <= turn_end):  # (None: ends with it)
            assert turn["ts"] <= call["ts"]
            assert call["ts"] + call["dur"] <= turn["ts"] + turn["dur"]


@pytest.mark.parametrize("path", SAMPLES, ids=lambda path: path.name)
def test_every_sample_has_a_slice_for_each_turn_tool_call_and_permission(path: Path) -> None:
    agrees_with_the_analysis(path)


@pytest.mark.shared
@pytest.mark.parametrize("path", AGENTS, ids=lambda path: f"{path.parent.name}/{path.name}")
def test_every_real_agents_recording_has_a_slice_for_each_of_them(path: Path) -> None:
    agrees_with_the_analysis(path)


@pytest.mark.shared
def test_the_real_agents_are_there_and_have_turns() -> None:
    turns = sum(len(acptrace.analyze(path).turns) for path in AGENTS)
    assert len(AGENTS) > 20
    assert turns > 20


def test_a_tool_call_never_finished_ends_with_its_turn() -> None:
    """Not at the end of the transcript: it nests in its turn, on the session's track."""
    t = started()
    t.prompt(id=5, at_ms=1000)
    t.tool("c1", status="in_progress", kind="execute", at_ms=1100)  # (never a final status)
    t.state("idle", at_ms=1400)
    t.update("agent_message_chunk", at_ms=5000)
    events = export(t.text())
    (turn,), (call,) = named(events, "turn"), named(events, "tool call execute")
    assert (call["ts"] - turn["ts"], call["dur"]) == (100_000, 300_000)
    assert holds(turn, call)
    assert (call["args"]["end_line"], call["args"]["duration_ms"]) == (None, None)
