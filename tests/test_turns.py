"""Turns, tool calls and permission requests (docs/turns.md): each measure from a transcript
that shows it, on v1 and v2, on the hot path and the general path alike."""

from __future__ import annotations

import io
import re
from pathlib import Path
from typing import Any

import msgspec
import pytest

import acptrace
from acptrace.decode.runs import settled
from acptrace.model.domain import Analysis, UpdateRun
from acptrace.model.options import Execution
from acptrace.model.turns import TurnEnd, Watch
from tests.golden import ROOT
from tests.shared import REAL_WORLD
from tests.test_fastpath import padded, records_with_runs
from tests.transcript import Transcript
from tests.turns_oracle import recompute

S2 = "sess_2"


def both(t: Transcript) -> Analysis:
    """The analysis on the hot path, after checking the general path finds the same rows."""
    fast = acptrace.analyze(io.BytesIO(t.text()))
    general = acptrace.analyze(io.BytesIO(t.text()), execution=Execution(fast=False))
    for rows in ("turns", "tool_calls", "permissions"):
        assert getattr(fast, rows) == getattr(general, rows), rows
    return fast


def started(version: int = 2) -> Transcript:
    """A padded transcript (the hot path starts after the first records), initialized, with
    a session."""
    t = padded()
    t.initialize(version)
    t.new_session()
    return t


# -- turns ----------------------------------------------------------------------------------


def test_a_v2_turn_ends_at_idle_not_at_the_response() -> None:
    t = started()
    prompt = t.prompt(id=5, at_ms=1000)
    t.update("user_message", at_ms=1040)
    t.result(5, {"messageId": "m1"}, at_ms=1050)
    t.state("running", at_ms=1060)
    t.update("usage_update", at_ms=1100)
    t.update("agent_message_chunk", at_ms=1500)
    t.update("agent_message_chunk", at_ms=1600)
    idle = t.state("idle", stop_reason="end_turn", at_ms=1800)
    t.update("session_info_update", at_ms=1900)  # (after its end: not the turn's)
    (turn,) = both(t).turns
    assert (turn.request_line, turn.request_id, turn.end, turn.end_line) == (
        prompt, 5, TurnEnd.IDLE, idle,
    )  # fmt: skip
    assert (turn.first_update_ms, turn.first_output_ms, turn.duration_ms) == (40.0, 500.0, 800.0)
    assert (turn.updates, turn.stop_reason, turn.protocol_version) == (6, "end_turn", 2)
    assert not turn.during_replay


def test_a_v2_idle_before_the_response_still_ends_the_turn() -> None:
    t = started()
    t.prompt(id=5, at_ms=1000)
    idle = t.state("idle", at_ms=1200)
    t.result(5, {"messageId": "m1"}, at_ms=1300)
    (turn,) = both(t).turns
    assert (turn.end, turn.end_line, turn.duration_ms) == (TurnEnd.IDLE, idle, 200.0)


def test_a_v1_turn_ends_at_its_response_with_the_stop_reason() -> None:
    t = started(version=1)
    t.prompt(id=5, at_ms=1000)
    t.update("agent_thought_chunk", at_ms=1300)
    t.update("agent_message_chunk", at_ms=1400)
    response = t.result(5, {"stopReason": "end_turn"}, at_ms=2000)
    t.update("agent_message_chunk", at_ms=2100)  # (a v1 Agent's chunk after the response)
    (turn,) = both(t).turns
    assert (turn.end, turn.end_line, turn.stop_reason) == (TurnEnd.RESPONSE, response, "end_turn")
    assert (turn.first_output_ms, turn.duration_ms, turn.updates) == (300.0, 1000.0, 2)
    assert turn.protocol_version == 1


def test_a_v1_state_update_idle_does_not_end_a_v1_turn() -> None:
    t = started(version=1)
    t.prompt(id=5, at_ms=1000)
    t.state("idle", at_ms=1100)
    response = t.result(5, {"stopReason": "end_turn"}, at_ms=1200)
    (turn,) = both(t).turns
    assert (turn.end, turn.end_line) == (TurnEnd.RESPONSE, response)


@pytest.mark.parametrize("version", [1, 2])
def test_an_error_response_ends_the_turn(version: int) -> None:
    t = started(version)
    t.prompt(id=5, at_ms=1000)
    error = t.error(5, -32603, at_ms=1250)
    (turn,) = both(t).turns
    assert (turn.end, turn.end_line, turn.duration_ms) == (TurnEnd.ERROR, error, 250.0)


@pytest.mark.parametrize(
    ("closed", "end"), [(True, TurnEnd.DISCONNECT), (False, TurnEnd.TRACE_END)]
)
def test_a_turn_the_recording_does_not_end_has_no_duration(closed: bool, end: TurnEnd) -> None:
    t = started()
    t.prompt(id=5, at_ms=1000)
    t.update("agent_message_chunk", at_ms=1300)
    if closed:
        t.close()
    (turn,) = both(t).turns
    assert (turn.end, turn.end_line, turn.duration_ms, turn.first_output_ms) == (
        end, None, None, 300.0,
    )  # fmt: skip
    assert not end.finished


def test_the_first_output_in_the_middle_of_a_run_is_timed() -> None:
    t = started()
    t.prompt(id=5, at_ms=1000)
    for at in range(1010, 1100, 10):  # (a run: the echo, then usage and commands)
        t.update("usage_update", at_ms=at)
    t.update("agent_thought_chunk", at_ms=1234.5)
    for at in range(1300, 1400, 10):
        t.update("agent_message_chunk", at_ms=at)
    t.state("idle", at_ms=1500)
    (turn,) = both(t).turns
    assert (turn.first_update_ms, turn.first_output_ms, turn.updates) == (10.0, 234.5, 21)


def test_an_output_after_the_idle_that_ends_a_turn_is_not_its_first_output() -> None:
    """In one run of updates, a turn with no output ended by its `idle`, then an Agent's late
    message: the hot path took the run's first output for the turn's (a fuzz test found it;
    the general path, one message at a time, had the turn ended by then)."""
    t = started()
    t.prompt(id=5, at_ms=1000)
    t.result(5, {"messageId": "m1"}, at_ms=1010)
    t.state("running", at_ms=1020)
    for at in range(1030, 1100, 10):
        t.update("usage_update", at_ms=at)
    idle = t.state("idle", stop_reason="end_turn", at_ms=1200)
    for at in range(1300, 1400, 10):
        t.update("agent_message_chunk", at_ms=at)
    (turn,) = both(t).turns
    assert (turn.end, turn.end_line, turn.duration_ms) == (TurnEnd.IDLE, idle, 200.0)
    assert (turn.first_output_ms, turn.first_output_line) == (None, None)


def test_two_open_turns_of_a_session_count_what_comes_while_each_is_open() -> None:
    t = started()
    t.prompt(id=5, at_ms=1000)
    t.update("agent_message_chunk", at_ms=1100)
    t.prompt(id=6, at_ms=1200)  # (queued while the first runs)
    t.update("agent_message_chunk", at_ms=1300)
    t.state("idle", at_ms=1400)
    first, second = both(t).turns
    assert (first.updates, first.duration_ms, first.first_output_ms) == (3, 400.0, 100.0)
    assert (second.updates, second.duration_ms, second.first_output_ms) == (2, 200.0, 100.0)


def test_turns_of_other_sessions_are_their_own() -> None:
    t = started()
    t.new_session(S2)
    t.prompt(id=5, at_ms=1000)
    t.prompt(S2, id=6, at_ms=1010)
    t.update("agent_message_chunk", S2, at_ms=1100)
    t.state("idle", S2, at_ms=1200)
    t.update("agent_message_chunk", at_ms=1300)
    t.state("idle", at_ms=1500)
    mine, other = both(t).turns
    assert (mine.session_id, mine.first_output_ms, mine.duration_ms) == ("sess_1", 300.0, 500.0)
    assert (other.session_id, other.first_output_ms, other.duration_ms) == (S2, 90.0, 190.0)


@pytest.mark.parametrize("order", ["prompt first", "replay first"])
def test_a_turn_a_replay_overlaps_is_marked(order: str) -> None:
    t = started()
    if order == "replay first":
        t.resume(id=9)
        t.prompt(id=5)
    else:
        t.prompt(id=5)
        t.resume(id=9)
    t.history()
    t.marker()
    t.result(9, {})
    t.state("idle")
    (turn,) = both(t).turns
    assert turn.during_replay


def test_a_clock_that_goes_back_gives_no_latency_not_a_negative_one() -> None:
    t = started()
    t.prompt(id=5, at_ms=1000)
    t.update("agent_message_chunk", at_ms=900)  # (both clocks went back)
    t.state("idle", at_ms=1100)
    (turn,) = both(t).turns
    assert (turn.first_output_ms, turn.duration_ms) == (None, 100.0)


def test_without_times_the_counts_are_kept_and_latencies_are_null() -> None:
    t = Transcript(timed=False)
    t.initialize()
    t.new_session()
    t.prompt(id=5)
    t.update("agent_message_chunk")
    t.tool("t1", status="completed")
    t.state("idle")
    analysis = both(t)
    (turn,) = analysis.turns
    assert (turn.updates, turn.tool_calls, turn.duration_ms, turn.first_output_ms) == (
        3, 1, None, None,
    )  # fmt: skip
    assert analysis.tool_calls[0].duration_ms is None


# -- tool calls -----------------------------------------------------------------------------


def test_a_tool_call_is_followed_from_its_first_update_to_its_final_status() -> None:
    t = started()
    t.prompt(id=5, at_ms=1000)
    first = t.tool("t1", kind="read", title="Read File", status="pending", at_ms=1100)
    t.tool("t1", title="Read README.md", at_ms=1150)
    t.tool("t1", status="in_progress", at_ms=1200)
    done = t.tool("t1", status="completed", at_ms=1400)
    t.tool("t1", status="completed", at_ms=1450)  # (after it ended: not a new tool call)
    t.state("idle", at_ms=1500)
    analysis = both(t)
    (call,) = analysis.tool_calls
    assert (call.tool_call_id, call.turn_request_id, call.first_line, call.end_line) == (
        "t1", 5, first, done,
    )  # fmt: skip
    assert (call.kind, call.title, call.first_status, call.last_status) == (
        "read", "Read README.md", "pending", "completed",
    )  # fmt: skip
    assert (call.duration_ms, call.updates) == (300.0, 4)
    assert analysis.turns[0].tool_calls == 1


@pytest.mark.parametrize("final", ["failed", "cancelled"])
def test_failed_and_cancelled_are_final_too(final: str) -> None:
    t = started(version=1)
    t.prompt(id=5, at_ms=1000)
    t.tool("t1", tag="tool_call", kind="execute", status="pending", at_ms=1100)
    t.tool("t1", status=final, at_ms=1300)
    t.result(5, {"stopReason": "end_turn"}, at_ms=1400)
    (call,) = both(t).tool_calls
    assert (call.last_status, call.duration_ms) == (final, 200.0)


def test_a_tool_call_may_finish_after_its_turn_ended() -> None:
    t = started()
    t.prompt(id=5, at_ms=1000)
    t.tool("t1", status="in_progress", at_ms=1100)
    t.state("idle", at_ms=1200)
    t.tool("t2", status="in_progress", at_ms=1250)  # (no turn open: not followed)
    end = t.tool("t1", status="completed", at_ms=3000)  # (in the background)
    analysis = both(t)
    (call,) = analysis.tool_calls
    assert (call.end_line, call.duration_ms) == (end, 1900.0)


def test_a_tool_call_that_never_ends_has_no_duration() -> None:
    t = started()
    t.prompt(id=5)
    t.tool("t1", status="in_progress")
    t.state("idle")
    (call,) = both(t).tool_calls
    assert (call.last_status, call.end_line, call.duration_ms) == ("in_progress", None, None)


def test_replayed_tool_calls_are_history_not_tool_calls() -> None:
    t = started()
    t.resume(id=9)
    t.tool("old", status="pending")
    t.tool("old", status="completed")
    t.marker()
    t.result(9, {})
    assert both(t).tool_calls == ()


def test_tool_calls_outside_a_turn_are_not_listed() -> None:
    t = started()
    t.tool("t1", status="pending")
    t.tool("t1", status="completed")
    assert both(t).tool_calls == ()


# -- permission requests --------------------------------------------------------------------


@pytest.mark.parametrize("v1", [False, True])
def test_a_permission_wait_is_measured_and_kept_with_its_tool_call(v1: bool) -> None:
    t = started(version=1 if v1 else 2)
    t.prompt(id=5, at_ms=1000)
    t.tool("t1", kind="edit", status="pending", at_ms=1100)
    asked = t.permission("t1", id=0, v1=v1, at_ms=1200)
    answer = t.choose(0, "allow", at_ms=3200)
    t.tool("t1", status="completed", at_ms=3300)
    if v1:
        t.result(5, {"stopReason": "end_turn"}, at_ms=3400)
    else:
        t.state("idle", at_ms=3400)
    analysis = both(t)
    (permission,) = analysis.permissions
    assert (permission.request_line, permission.response_line, permission.wait_ms) == (
        asked, answer, 2000.0,
    )  # fmt: skip
    assert (permission.outcome, permission.option_id, permission.option_kind) == (
        "selected", "allow", "allow_once",
    )  # fmt: skip
    assert (permission.tool_call_id, permission.turn_request_id) == ("t1", 5)
    (call,) = analysis.tool_calls
    assert (call.permission_line, call.permission_wait_ms) == (asked, 2000.0)
    (turn,) = analysis.turns
    assert (turn.permission_requests, turn.permission_wait_ms) == (1, 2000.0)


def test_a_permission_request_creates_the_tool_call_it_names() -> None:
    t = started()
    t.prompt(id=5, at_ms=1000)
    asked = t.permission("t9", id=0, at_ms=1100)
    t.choose(0, None, at_ms=1500)  # (cancelled)
    t.tool("t9", status="cancelled", at_ms=1600)
    t.state("idle", at_ms=1700)
    analysis = both(t)
    (call,) = analysis.tool_calls
    assert (call.first_line, call.duration_ms, call.permission_wait_ms) == (asked, 500.0, 400.0)
    assert analysis.permissions[0].outcome == "cancelled"
    assert analysis.permissions[0].option_id is None


def test_unanswered_and_refused_permission_requests() -> None:
    t = started()
    t.prompt(id=5)
    t.permission("t1", id=0)
    t.error(0, -32603, agent=False)
    t.permission(None, id=1)  # (no tool call: still a permission request)
    analysis = both(t)
    refused, unanswered = analysis.permissions
    assert (refused.outcome, refused.option_id) == ("error", None)
    assert (unanswered.outcome, unanswered.response_line, unanswered.wait_ms) == (None, None, None)
    assert unanswered.tool_call_id is None
    assert analysis.turns[0].permission_requests == 2


# -- what the hot path reads ----------------------------------------------------------------


def _runs(t: Transcript, watch: int) -> list[UpdateRun]:
    return [r for r in records_with_runs(t.text(), watch) if isinstance(r, UpdateRun)]


def test_a_run_reads_the_activity_only_where_it_is_watched_for() -> None:
    t = started()
    t.update("usage_update")
    t.tool("t1", status="pending", kind="read")
    t.tool("t1", status="completed")
    t.state("idle", stop_reason="end_turn")
    (counted,) = _runs(t, Watch.COUNTS)
    assert (counted.count, counted.activity) == (4, ())
    (watched,) = _runs(t, Watch.ACTIVITY)
    assert [(stamp.line, a.tool_call_id, a.status, a.state) for stamp, a in watched.activity] == [
        (counted.first.line + 1, "t1", "pending", None),
        (counted.first.line + 2, "t1", "completed", None),
        (counted.first.line + 3, None, None, "idle"),
    ]
    assert watched.activity[-1][1].stop_reason == "end_turn"


def test_a_run_watched_for_a_first_output_keeps_its_time_and_stays_one_run() -> None:
    t = started()
    t.update("usage_update")
    output = t.update("agent_message_chunk", at_ms=t.now_ms + 5)
    for _ in range(5):
        t.update("agent_message_chunk")
    (counted,) = _runs(t, Watch.COUNTS)
    (watched,) = _runs(t, Watch.EVERYTHING)
    assert counted.first_output is None
    assert watched.count == counted.count == 7
    assert watched.first_output is not None
    assert watched.first_output.line == output


def test_a_run_read_ahead_keeps_its_activity_in_its_lines_until_it_is_known_to_be_wanted() -> None:
    # A split file's pieces are read ahead of the analysis (`Watch.AHEAD`): a run's tool and
    # state updates keep their lines, and the main process reads their activity only where the
    # analysis, having followed everything before the run, wants it (`settled`).
    t = started()
    t.update("usage_update", at_ms=t.now_ms + 10)
    t.tool("t1", status="pending", kind="read", at_ms=t.now_ms + 10)
    odd = t.tool("t1", status="in_progress", at_ms=t.now_ms + 10)
    t.tool("t1", status="completed", at_ms=t.now_ms + 10)
    t.state("idle", stop_reason="end_turn", at_ms=t.now_ms + 10)
    text = _in_milliseconds(t.text(), odd)  # (the general path reads that line: `Run.takes`)

    def run(watch: int) -> UpdateRun:
        (found,) = [r for r in records_with_runs(text, watch) if isinstance(r, UpdateRun)]
        return found

    watched, ahead, counted = run(Watch.ACTIVITY), run(Watch.AHEAD), run(Watch.COUNTS)
    assert ahead.count == watched.count == 5
    assert [stamp.line for stamp, _ in ahead.activity] == [odd]  # (read with its message)
    assert [line for line, _ in ahead.deferred] == [odd - 1, odd + 1, odd + 2]
    assert [len(watched.activity), counted.activity, watched.deferred] == [4, (), ()]
    wanted, unwanted = settled(ahead, wanted=True), settled(ahead, wanted=False)
    assert (wanted.activity, wanted.deferred) == (watched.activity, ())
    assert (unwanted.activity, unwanted.deferred) == ((), ())
    assert wanted.watched & (Watch.LINES | Watch.ACTIVITY) == Watch.ACTIVITY
    assert unwanted.watched & (Watch.LINES | Watch.ACTIVITY) == 0
    assert settled(watched, wanted=False) is watched  # (a run read here is as it was read)
    both = run(Watch.ACTIVITY | Watch.LINES)  # (read now: no line kept to be read twice)
    assert (both.activity, both.deferred) == (watched.activity, ())


def _in_milliseconds(text: bytes, line: int) -> bytes:
    """The transcript with that line's time written in milliseconds (no usual time)."""
    lines = text.splitlines(keepends=True)
    lines[line - 1] = re.sub(rb'("ts":"[^"]*\.\d{3})\d{3}Z"', rb'\1Z"', lines[line - 1])
    return b"".join(lines)


# -- against the raw traffic ----------------------------------------------------------------


def as_oracle_has_them(analysis: Analysis) -> dict[str, list[dict[str, Any]]]:
    """The rows as `turns_oracle.recompute` gives them (`approximate` aside: the canonical
    format never estimates)."""

    def rows(found: tuple[Any, ...]) -> list[dict[str, Any]]:
        return [
            {k: v for k, v in msgspec.to_builtins(row).items() if k != "approximate"}
            for row in found
        ]

    return {
        "turns": rows(analysis.turns),
        "tool_calls": rows(analysis.tool_calls),
        "permissions": rows(analysis.permissions),
    }


SAMPLES = sorted((ROOT / "sample_traces").glob("*.jsonl"))


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.name)
def test_the_samples_rows_are_what_their_messages_say(path: Path) -> None:
    assert as_oracle_has_them(acptrace.analyze(path)) == recompute(path)


AGENTS = sorted(
    path
    for folder in ("agents-2026-12", "agents-2026-12b")
    for path in (REAL_WORLD / folder).rglob("*.jsonl")
)


@pytest.mark.shared
@pytest.mark.parametrize("path", AGENTS, ids=lambda p: p.relative_to(REAL_WORLD).as_posix())
def test_real_agents_rows_are_what_their_messages_say(path: Path) -> None:
    analysis = acptrace.analyze(path)
    assert as_oracle_has_them(analysis) == recompute(path)


@pytest.mark.shared
def test_real_agents_have_turns_tool_calls_and_permissions_to_check() -> None:
    found = [acptrace.analyze(path) for path in AGENTS]
    assert sum(len(a.turns) for a in found) >= 40
    assert sum(len(a.tool_calls) for a in found) >= 10
    assert sum(len(a.permissions) for a in found) >= 2
    versions = {t.protocol_version for a in found for t in a.turns}
    assert versions == {1, 2}
    ends = {t.end for a in found for t in a.turns}
    assert {TurnEnd.RESPONSE, TurnEnd.IDLE} <= ends
