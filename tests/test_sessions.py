"""Known and Active (rules.md notation), session/load on either version, the negotiated version
(§7) and latencies that are never negative (§9)."""

from __future__ import annotations

from typing import Any

import orjson

from acptrace.model.domain import Outcome, ProtocolSource
from tests.transcript import ADVERTISED, SESSION, START_NS, Transcript, findings, rule_ids


def started(version: int = 2) -> Transcript:
    t = Transcript()
    t.initialize(version)
    return t


def prompt(t: Transcript, session: str, id: int) -> int:
    """A prompt for `session` and its success; returns the response's line."""
    t.request("session/prompt", {"sessionId": session, "prompt": []}, id=id)
    return t.result(id, {"stopReason": "end_turn"})


# -- Known and Active ---------------------------------------------------------------------------


def test_a_fork_result_makes_the_session_known_and_active() -> None:
    t = started()
    t.new_session()
    t.request("session/fork", {"sessionId": SESSION}, id=5)
    t.result(5, {"sessionId": "forked"})
    t.update("agent_message_chunk", "forked")
    prompt(t, "forked", 6)
    t.close()
    analysis = t.analyze()
    assert findings(analysis) == []
    forked = [s for s in analysis.sessions if s.session_id == "forked"]
    assert [(s.named_by, s.active_at_end) for s in forked] == [("session/fork", True)]


def test_a_failed_fork_makes_nothing_known_or_active() -> None:
    t = started()
    t.new_session()
    t.request("session/fork", {"sessionId": SESSION}, id=5)
    t.error(5, -32603)
    update = t.update("agent_message_chunk", "forked")
    response = prompt(t, "forked", 6)
    t.close()
    assert findings(t.analyze()) == [
        ("LC-UNKNOWN-SESSION", "warning", update),
        ("LC-PROMPT-INACTIVE", "error", response),
    ]


def test_an_archive_ends_active() -> None:
    t = started()
    t.new_session()
    t.request("session/archive", {"sessionId": SESSION}, id=5)
    t.result(5)
    response = prompt(t, SESSION, 6)
    t.close()
    analysis = t.analyze()
    assert findings(analysis) == [("LC-PROMPT-INACTIVE", "error", response)]
    assert "archived" in analysis.findings[0].message
    assert [s.active_at_end for s in analysis.sessions] == [False]


def test_a_failed_archive_does_not_end_active() -> None:
    t = started()
    t.new_session()
    t.request("session/archive", {"sessionId": SESSION}, id=5)
    t.error(5, -32603)
    prompt(t, SESSION, 6)
    t.close()
    assert findings(t.analyze()) == []


def test_a_32002_answer_to_close_ends_active() -> None:
    t = started()
    t.new_session()
    t.request("session/close", {"sessionId": SESSION}, id=5)
    t.error(5, -32002)
    response = prompt(t, SESSION, 6)
    t.close()
    assert findings(t.analyze()) == [("LC-PROMPT-INACTIVE", "error", response)]


def test_another_error_to_close_does_not_end_active() -> None:
    t = started()
    t.new_session()
    t.request("session/close", {"sessionId": SESSION}, id=5)
    t.error(5, -32603)
    prompt(t, SESSION, 6)
    t.close()
    assert findings(t.analyze()) == []


def test_a_failed_resume_does_not_end_active() -> None:
    t = started()
    t.new_session()
    t.resume(replay=None, id=5)
    t.error(5, -32603)
    prompt(t, SESSION, 6)
    t.close()
    assert findings(t.analyze()) == []


def test_lc_active_rejected_for_a_forked_session_but_not_after_archive() -> None:
    t = started()
    t.new_session()
    t.request("session/fork", {"sessionId": SESSION}, id=5)
    t.result(5, {"sessionId": "forked"})
    t.request("session/prompt", {"sessionId": "forked", "prompt": []}, id=6)
    rejected = t.error(6, -32002)
    t.request("session/archive", {"sessionId": SESSION}, id=7)
    t.result(7)
    t.request("session/prompt", {"sessionId": SESSION, "prompt": []}, id=8)
    t.error(8, -32002)
    t.close()
    assert findings(t.analyze()) == [("LC-ACTIVE-REJECTED", "error", rejected)]


# -- LC-UNKNOWN-SESSION, RC-CHILD-TRAFFIC-BEFORE-ANNOUNCE ----------------------------------------


def test_lc_unknown_session_once_per_session_with_count_and_last_line() -> None:
    t = started()
    t.new_session()
    first = t.update("agent_message_chunk", "nobody")
    t.update("agent_message_chunk")
    t.update("agent_message_chunk", "nobody")
    t.update("agent_message_chunk", "nobody")
    t.update("agent_message_chunk")
    last = t.update("agent_message_chunk", "nobody")
    t.close()
    analysis = t.analyze()
    assert findings(analysis) == [("LC-UNKNOWN-SESSION", "warning", first)]
    message = analysis.findings[0].message
    assert message.startswith("4 session/update for nobody")
    assert f"the last at line {last}" in message


def test_lc_unknown_session_not_for_a_session_a_load_request_named() -> None:
    t = started()
    t.request("session/load", {"sessionId": "loaded", "cwd": "/"}, id=5)
    t.update("agent_message", "loaded")
    t.result(5)
    t.update("agent_message_chunk", "loaded")
    t.close()
    assert "LC-UNKNOWN-SESSION" not in rule_ids(t.analyze())


def test_lc_unknown_session_only_on_a_transcript_that_starts_at_initialize() -> None:
    t = Transcript()
    t.open()  # the recorder saw the start, but the first message is no initialize
    t.update("agent_message_chunk", "nobody")
    t.close()
    assert findings(t.analyze()) == []


def test_rc_child_traffic_before_announce_once_per_child_with_the_count() -> None:
    t = started()
    t.new_session()
    t.resume(id=3)
    early = t.update("agent_message", "child")
    t.update("agent_message", "child")
    t.announce("child")
    t.marker("child")
    t.marker()
    t.update("state_update")
    t.result(3)
    t.close()
    analysis = t.analyze()
    assert findings(analysis) == [("RC-CHILD-TRAFFIC-BEFORE-ANNOUNCE", "error", early)]
    assert "(2 such messages)" in analysis.findings[0].message


def test_early_child_traffic_is_lc_unknown_session_where_child_rules_are_off() -> None:
    t = started()
    t.new_session()
    early = t.update("agent_message_chunk", "child")
    t.update("agent_message_chunk", "child")
    t.announce("child")  # a live announcement: the child rules judge it too
    t.close()
    assert findings(t.analyze()) == [("RC-CHILD-TRAFFIC-BEFORE-ANNOUNCE", "error", early)]
    off = t.analyze(child_rules=False)
    assert findings(off) == [("LC-UNKNOWN-SESSION", "warning", early)]
    assert off.findings[0].message.startswith("2 session/update for child")


def test_rc_child_traffic_before_announce_only_on_a_transcript_that_starts_at_initialize() -> None:
    t = Transcript()
    t.resume(id=3)
    t.update("agent_message", "child")
    t.announce("child")
    t.marker("child")
    t.marker()
    t.update("state_update")
    t.result(3)
    t.close()
    assert findings(t.analyze()) == []


# -- session/load on either version ------------------------------------------------------------


def load_with_marker_and_child(t: Transcript) -> tuple[int, int]:
    """A load whose window holds history, a marker and a child announcement; (marker, response)."""
    t.request("session/load", {"sessionId": SESSION, "cwd": "/"}, id=5)
    t.history()
    t.announce("child")
    marker = t.marker()
    t.update("agent_message_chunk")
    return marker, t.result(5)


def test_a_marker_in_a_load_window_on_v2_is_unsolicited() -> None:
    t = started(2)
    marker, response = load_with_marker_and_child(t)
    prompt(t, SESSION, 6)  # the load's success activated the session
    t.close()
    analysis = t.analyze()
    assert findings(analysis) == [("RC-UNSOLICITED", "error", marker)]
    (row,) = analysis.resumes  # the child announced in a load window gets no row
    assert (row.method, row.outcome, row.response_line) == (
        "session/load",
        Outcome.LOADED,
        response,
    )
    assert (row.marker_count, row.replayed_updates, row.held_updates) == (0, 4, 0)


def test_a_load_on_v1_is_classified_the_same_way_without_rc_findings() -> None:
    t = started(1)
    load_with_marker_and_child(t)
    prompt(t, SESSION, 6)
    t.close()
    analysis = t.analyze()
    assert findings(analysis) == []
    (row,) = analysis.resumes
    assert (row.outcome, row.marker_count, row.replayed_updates) == (Outcome.LOADED, 0, 4)


def test_a_load_window_owes_no_marker_and_no_snapshot() -> None:
    t = started(2)
    t.request("session/load", {"sessionId": SESSION, "cwd": "/"}, id=5)
    t.history()
    t.result(5)
    t.request("session/load", {"sessionId": "other", "cwd": "/"}, id=6)
    t.error(6, -32603)
    t.close()
    analysis = t.analyze()
    assert findings(analysis) == []
    assert [r.outcome for r in analysis.resumes] == [Outcome.LOADED, Outcome.REFUSED]


def test_a_marker_during_a_load_of_another_session_belongs_to_the_pending_resume() -> None:
    t = started(2)
    t.new_session()
    t.resume(id=3)
    t.request("session/load", {"sessionId": "other", "cwd": "/"}, id=5)
    t.marker()
    t.update("state_update")
    t.result(3)
    t.result(5)
    t.close()
    analysis = t.analyze()
    assert findings(analysis) == []
    assert [r.outcome for r in analysis.resumes] == [Outcome.COMPLETE, Outcome.LOADED]


def test_a_marker_while_a_load_and_a_resume_of_its_session_overlap_belongs_to_neither() -> None:
    # rules.md §11 (it used to go to the resume: a load was no replay it could overlap)
    t = started(2)
    t.new_session()
    t.resume(id=3)
    load = t.request("session/load", {"sessionId": SESSION, "cwd": "/"}, id=5)
    t.marker()
    t.update("state_update")
    t.result(3)
    t.result(5)
    t.close()
    analysis = t.analyze()
    assert findings(analysis) == [("RC-CONCURRENT", "warning", load)]
    assert [r.outcome for r in analysis.resumes] == [Outcome.AMBIGUOUS, Outcome.AMBIGUOUS]


# -- the negotiated version (§7) ----------------------------------------------------------------


def initialize(t: Transcript, id: int, request_version: int, answer: int | None) -> None:
    """An `initialize` request; `answer` None gives an error response, else a success."""
    t.request("initialize", {"protocolVersion": request_version}, id=id)
    if answer is None:
        t.error(id, -32603)
    else:
        t.result(id, {"protocolVersion": answer, **ADVERTISED[answer >= 2]})


def test_the_version_is_the_latest_success_answer_to_initialize() -> None:
    t = Transcript()
    initialize(t, 0, 2, 1)
    initialize(t, 1, 2, 2)
    initialize(t, 2, 1, None)
    connection = t.analyze().connection
    assert (connection.protocol_version, connection.protocol_source) == (
        2,
        ProtocolSource.INITIALIZE,
    )


def test_the_version_is_the_request_s_without_a_success_answer() -> None:
    t = Transcript()
    initialize(t, 0, 1, None)
    connection = t.analyze().connection
    assert (connection.protocol_version, connection.protocol_source) == (
        1,
        ProtocolSource.INITIALIZE_REQUEST,
    )
    assert connection.protocol_source.value == "initialize_request"


def test_the_negotiated_version_decides_whether_a_resume_replays() -> None:
    t = Transcript()
    initialize(t, 0, 2, 1)  # the Agent answers v1: replayFrom means nothing, no marker is owed
    t.resume(id=3)
    t.result(3)
    t.close()
    analysis = t.analyze()
    assert [r.outcome for r in analysis.resumes] == [Outcome.NO_REPLAY]
    assert findings(analysis) == []


# -- latencies are never negative (§9) ----------------------------------------------------------


def record(ts_ms: float | None, mono_ms: float | None, direction: str, msg: Any) -> bytes:
    """A canonical line with the given clocks (None leaves a clock out)."""
    line: dict[str, Any] = {"dir": direction, "msg": msg}
    if ts_ms is not None:
        line["ts"] = START_NS / 1e9 + ts_ms / 1000  # a number: Unix seconds
    if mono_ms is not None:
        line["mono_ns"] = int(mono_ms * 1_000_000)
    return orjson.dumps(line)


def load_timed(clocks: list[tuple[float | None, float | None]]) -> Any:
    """A load (request, update, response) at these (wall, mono) times; returns its row."""
    t = Transcript(timed=False)
    msgs = [
        ("c2a", {"jsonrpc": "2.0", "id": 5, "method": "session/load",
                 "params": {"sessionId": SESSION, "cwd": "/"}}),
        ("a2c", {"jsonrpc": "2.0", "method": "session/update",
                 "params": {"sessionId": SESSION, "update": {"sessionUpdate": "agent_message"}}}),
        ("a2c", {"jsonrpc": "2.0", "id": 5, "result": {}}),
    ]  # fmt: skip
    for (ts_ms, mono_ms), (direction, msg) in zip(clocks, msgs, strict=True):
        t.raw(record(ts_ms, mono_ms, direction, msg))
    (row,) = t.analyze().resumes
    return row


def test_a_negative_monotonic_latency_is_taken_on_the_wall_clock() -> None:
    row = load_timed([(0, 100), (5, 50), (20, 90)])
    assert row.request_to_first_update_ms == 5.0
    assert row.request_to_response_ms == 20.0


def test_a_latency_negative_on_every_clock_it_has_is_null() -> None:
    both = load_timed([(10, 100), (5, 50), (30, 200)])
    assert both.request_to_first_update_ms is None
    assert both.request_to_response_ms == 100.0  # monotonic, not negative: kept
    mono_only = load_timed([(None, 100), (None, 50), (None, 120)])
    assert mono_only.request_to_first_update_ms is None
    assert mono_only.request_to_response_ms == 20.0


def test_a_version_above_2_is_judged_as_v2_with_an_issue() -> None:
    t = Transcript()
    t.request("initialize", {"protocolVersion": 2}, id=0)
    answer = t.result(0, {"protocolVersion": 3})
    t.resume(id=3)
    response = t.result(3)
    t.close()
    analysis = t.analyze()
    assert analysis.connection.protocol_version == 3
    assert [(i.line, i.kind) for i in analysis.issues] == [(answer, "unknown_protocol_version")]
    assert ("RC-MISSING", "error", response) in findings(analysis)


def test_no_version_issue_for_v1_or_v2() -> None:
    for version in (1, 2):
        t = Transcript()
        t.initialize(version)
        t.close()
        assert t.analyze().issues == ()
