"""Each outcome class of outcomes.md, produced and not produced, with counts and latencies."""

from __future__ import annotations

import pytest

from acptrace import Outcome, Role, WindowEnd
from tests.transcript import SESSION, Transcript


def replay(*, marker: bool, end: str, replay_from: object = True) -> Transcript:
    """initialize, a resume with two replayed updates, maybe a marker, then `end`."""
    t = Transcript()
    t.open()
    t.initialize()
    t.resume(replay=replay_from, id=7)
    t.history(count=2)
    if marker:
        t.marker()
    t.update("state_update", state="idle")
    match end:
        case "success":
            t.result(7)
        case "error":
            t.error(7, -32603)
        case "disconnect":
            t.close()
        case "trace_end":
            pass
    if end in ("success", "error"):
        t.close()
    return t


@pytest.mark.parametrize(
    ("marker", "end", "outcome", "window_end"),
    [
        (True, "success", Outcome.COMPLETE, WindowEnd.SUCCESS),
        (True, "error", Outcome.COMPLETE_FAILED, WindowEnd.ERROR),
        (True, "disconnect", Outcome.COMPLETE_FAILED, WindowEnd.DISCONNECT),
        (False, "error", Outcome.TRUNCATED, WindowEnd.ERROR),
        (False, "disconnect", Outcome.TRUNCATED, WindowEnd.DISCONNECT),
        (False, "success", Outcome.UNMARKED_SUCCESS, WindowEnd.SUCCESS),
        (True, "trace_end", Outcome.UNKNOWN, WindowEnd.TRACE_END),
        (False, "trace_end", Outcome.UNKNOWN, WindowEnd.TRACE_END),
    ],
)
def test_outcome_table(marker: bool, end: str, outcome: Outcome, window_end: WindowEnd) -> None:
    (row,) = replay(marker=marker, end=end).analyze().resumes
    assert (row.outcome, row.end) == (outcome, window_end)
    assert row.marker_count == int(marker)
    # The state_update is held after a marker; without one, every update counts as replayed.
    assert (row.replayed_updates, row.held_updates) == ((2, 1) if marker else (3, 0))


@pytest.mark.parametrize(
    ("marker", "outcome"), [(True, Outcome.COMPLETE_FAILED), (False, Outcome.TRUNCATED)]
)
def test_assume_closed_turns_trace_end_into_a_disconnect(marker: bool, outcome: Outcome) -> None:
    analysis = replay(marker=marker, end="trace_end").analyze(assume_closed=True)
    (row,) = analysis.resumes
    assert row.outcome is outcome
    assert row.end is WindowEnd.DISCONNECT  # "trace_end counts as disconnect"
    assert analysis.source.connection_end.value == "assumed"


def test_complete_row_has_lines_and_latencies_from_the_monotonic_clock() -> None:
    t = Transcript()
    t.initialize()
    request = t.resume(id=3, at_ms=1000)
    first = t.update("user_message", at_ms=1003.1)
    t.update("agent_message", at_ms=1020)
    marker = t.marker(at_ms=1040.2)
    t.update("state_update", at_ms=1500)
    response = t.result(3, at_ms=1852.7)
    (row,) = t.analyze().resumes
    assert row.outcome is Outcome.COMPLETE
    assert (row.request_line, row.marker_line, row.response_line) == (request, marker, response)
    assert first == request + 1
    assert row.request_to_first_update_ms == pytest.approx(3.1)
    assert row.request_to_marker_ms == pytest.approx(40.2)
    assert row.marker_to_response_ms == pytest.approx(812.5)
    assert row.request_to_response_ms == pytest.approx(852.7)
    assert (row.replayed_updates, row.held_updates, row.marker_count) == (2, 1, 1)


def test_empty_history_marker_is_the_first_update() -> None:
    t = Transcript()
    t.initialize()
    t.resume(id=3)
    t.marker()
    t.update("state_update")
    t.result(3)
    (row,) = t.analyze().resumes
    assert row.request_to_first_update_ms == row.request_to_marker_ms
    assert row.replayed_updates == 0


def test_latencies_are_null_without_timestamps() -> None:
    t = Transcript(timed=False)
    t.initialize()
    t.resume(id=3)
    t.marker()
    t.result(3)
    (row,) = t.analyze().resumes
    assert row.outcome is Outcome.COMPLETE
    assert row.request_to_marker_ms is None
    assert row.marker_to_response_ms is None
    assert row.request_to_response_ms is None


def test_wall_clock_is_used_when_there_is_no_monotonic_clock() -> None:
    t = Transcript()
    t.initialize()
    t.resume(id=3, at_ms=100)
    t.marker(at_ms=150)
    t.result(3, at_ms=400)
    stripped = [line.replace(b'"mono_ns"', b'"mono_ns_"') for line in t.lines]
    t.lines = stripped
    (row,) = t.analyze().resumes
    assert row.marker_to_response_ms == pytest.approx(250.0)


def test_resume_without_replay_is_no_replay_and_every_update_is_held() -> None:
    t = Transcript()
    t.initialize()
    t.resume(replay=None, id=3)
    t.update("agent_message_chunk", messageId="m")
    t.update("state_update")
    t.result(3)
    (row,) = t.analyze().resumes
    assert row.outcome is Outcome.NO_REPLAY
    assert (row.replayed_updates, row.held_updates, row.marker_count) == (0, 2, 0)
    assert row.replay_from is None


def test_resume_without_replay_open_at_unknown_end_is_unknown() -> None:
    t = Transcript()
    t.initialize()
    t.resume(replay=None, id=3)
    (row,) = t.analyze().resumes
    assert row.outcome is Outcome.UNKNOWN
    (row,) = t.analyze(assume_closed=True).resumes
    assert row.outcome is Outcome.NO_REPLAY


def test_v1_load_is_loaded_or_truncated() -> None:
    t = Transcript()
    t.initialize(version=1)
    t.request("session/load", {"sessionId": SESSION, "cwd": "/"}, id=4)
    t.update("user_message_chunk")
    t.result(4, None)
    t.request("session/load", {"sessionId": "other", "cwd": "/"}, id=5)
    t.update("user_message_chunk", "other")
    t.error(5, -32603)
    t.request("session/load", {"sessionId": "third", "cwd": "/"}, id=6)
    rows = t.analyze().resumes
    assert [r.outcome for r in rows] == [Outcome.LOADED, Outcome.TRUNCATED, Outcome.UNKNOWN]
    # (an error before any update is `refused`: `test_an_error_before_any_update_is_refused`)
    assert [r.method for r in rows] == ["session/load"] * 3


@pytest.mark.parametrize("code", [-32601, -32002, -32602, -32800])
@pytest.mark.parametrize("method", ["session/resume", "session/load"])
def test_an_error_before_any_update_is_refused(method: str, code: int) -> None:
    # outcomes.md (2026-12-07): nothing was replayed; the code is on the row.
    t = Transcript()
    t.initialize()
    params = {"sessionId": SESSION, "cwd": "/", "replayFrom": {"type": "start"}}
    if method == "session/load":
        del params["replayFrom"]
    t.request(method, params, id=4)
    t.error(4, code)
    (row,) = t.analyze().resumes
    assert (row.outcome, row.error_code, row.replayed_updates) == (Outcome.REFUSED, code, 0)
    assert row.max_replay_gap_ms is None  # (nothing replayed: no silence, no idle timer)


def test_updates_before_the_error_keep_a_replay_truncated_and_children_are_never_refused() -> None:
    t = Transcript()
    t.initialize()
    t.resume(id=4)
    t.announce("child")
    t.error(4, -32603)
    rows = t.analyze().resumes
    assert [(r.role, r.outcome) for r in rows] == [
        (Role.REQUESTED, Outcome.TRUNCATED),
        (Role.CHILD, Outcome.TRUNCATED),
    ]


def test_a_non_replaying_resume_answered_with_an_error_is_no_replay() -> None:
    t = Transcript()
    t.initialize()
    t.resume(replay=None, id=4)
    t.error(4, -32002)
    (row,) = t.analyze().resumes
    assert row.outcome is Outcome.NO_REPLAY


def test_overlapping_replaying_resumes_are_ambiguous() -> None:
    t = Transcript()
    t.initialize()
    t.resume(id=3)
    t.resume(id=4)
    t.marker()
    t.result(3)
    t.marker()
    t.result(4)
    rows = t.analyze().resumes
    assert [r.outcome for r in rows] == [Outcome.AMBIGUOUS, Outcome.AMBIGUOUS]


def test_non_replaying_resume_overlapping_a_replaying_one_is_not_ambiguous() -> None:
    t = Transcript()
    t.initialize()
    t.resume(id=3)
    t.resume(replay=None, id=4)
    t.marker()
    t.update("state_update")
    t.result(3)
    t.result(4)
    rows = t.analyze().resumes
    assert [r.outcome for r in rows] == [Outcome.COMPLETE, Outcome.NO_REPLAY]
    assert rows[0].marker_count == 1


def test_cancelled_resume_is_classified_like_any_other() -> None:
    t = Transcript()
    t.initialize()
    t.resume(id=3)
    t.update("user_message")
    t.notify("$/cancel_request", {"requestId": 3}, agent=False)
    t.error(3, -32800)
    (row,) = t.analyze().resumes
    assert (row.outcome, row.cancelled, row.error_code) == (Outcome.TRUNCATED, True, -32800)


def test_announced_children_get_their_own_rows_at_any_depth() -> None:
    t = Transcript()
    t.initialize()
    t.resume(id=3, at_ms=100)
    t.update("user_message")
    announce_child = t.announce("child", SESSION)
    t.update("agent_message", "child")
    announce_grandchild = t.announce("grandchild", "child")
    grandchild_marker = t.marker("grandchild", at_ms=300)
    t.marker("child")
    t.marker()
    t.update("state_update")
    t.result(3, at_ms=1300)
    rows = t.analyze().resumes
    assert [(r.session_id, r.role, r.parent_session_id, r.outcome) for r in rows] == [
        (SESSION, Role.REQUESTED, None, Outcome.COMPLETE),
        ("child", Role.CHILD, SESSION, Outcome.COMPLETE),
        ("grandchild", Role.CHILD, "child", Outcome.COMPLETE),
    ]
    assert rows[1].announce_line == announce_child
    assert rows[2].announce_line == announce_grandchild
    assert rows[2].marker_line == grandchild_marker
    assert rows[2].marker_to_response_ms == pytest.approx(1000.0)
    assert rows[1].replayed_updates == 2  # its message and the grandchild's announcement


def test_child_of_a_truncated_replay_is_truncated_or_complete_failed() -> None:
    t = Transcript()
    t.initialize()
    t.resume(id=3)
    t.announce("c1")
    t.marker("c1")
    t.announce("c2")
    t.error(3, -32603)
    rows = t.analyze().resumes
    assert [(r.session_id, r.outcome) for r in rows] == [
        (SESSION, Outcome.TRUNCATED),
        ("c1", Outcome.COMPLETE_FAILED),
        ("c2", Outcome.TRUNCATED),
    ]


def test_child_announced_outside_a_replay_is_live_and_gets_no_row() -> None:
    t = Transcript()
    t.initialize()
    t.new_session()
    t.announce("child")
    t.update("agent_message_chunk", "child")
    assert t.analyze().resumes == ()


def test_a_response_after_the_recorded_close_does_not_end_the_window() -> None:
    t = Transcript()
    t.open()
    t.initialize()
    t.resume(id=3)
    t.marker()
    t.close()
    late = t.result(3)
    analysis = t.analyze()
    (row,) = analysis.resumes
    assert (row.outcome, row.end) == (Outcome.COMPLETE_FAILED, WindowEnd.DISCONNECT)
    assert [(i.line, i.kind) for i in analysis.issues] == [(late, "after_close")]


def test_on_v1_a_resume_with_replay_from_is_not_a_replay() -> None:
    t = Transcript()
    t.initialize(version=1)
    t.resume(id=3)
    t.update("agent_message")
    t.result(3)
    (row,) = t.analyze().resumes
    assert row.outcome is Outcome.NO_REPLAY  # v1 has no replayFrom: session/load replays
    (row,) = t.analyze(protocol=2).resumes
    assert row.outcome is Outcome.UNMARKED_SUCCESS
