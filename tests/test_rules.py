"""Every rule of rules.md: a transcript that triggers it (line, level) and one that must not."""

from __future__ import annotations

from typing import Any

import pytest

from tests.transcript import SESSION, Transcript, findings, rule_ids


def started() -> Transcript:
    """A transcript from the connection's start: recorder open, then initialize (v2)."""
    t = Transcript()
    t.open()
    t.initialize()
    return t


def good_resume(t: Transcript, session: str = SESSION, id: int = 3) -> int:
    """A correct replaying resume; returns the response line."""
    t.resume(session, id=id)
    t.history(session)
    t.marker(session)
    t.update("state_update", session)
    return t.result(id)


def test_a_correct_transcript_has_no_findings() -> None:
    t = started()
    t.new_session("live")
    good_resume(t)
    t.request("session/prompt", {"sessionId": SESSION, "prompt": []}, id=9)
    t.update("agent_message_chunk")
    t.result(9, {"stopReason": "end_turn"})
    t.close()
    assert findings(t.analyze()) == []


# -- §1 the marker ------------------------------------------------------------------------------


def test_rc_duplicate() -> None:
    t = started()
    t.resume(id=3)
    t.marker()
    second = t.marker()
    t.update("state_update")
    t.result(3)
    assert findings(t.analyze()) == [("RC-DUPLICATE", "error", second)]


def test_rc_duplicate_not_for_markers_of_two_sequential_resumes() -> None:
    t = started()
    good_resume(t, id=3)
    good_resume(t, id=4)
    assert "RC-DUPLICATE" not in rule_ids(t.analyze())


def test_rc_missing() -> None:
    t = started()
    t.resume(id=3)
    t.history()
    t.update("state_update")
    response = t.result(3)
    assert findings(t.analyze()) == [("RC-MISSING", "error", response)]


def test_rc_missing_not_for_a_failed_or_non_replaying_resume() -> None:
    t = started()
    t.resume(id=3)
    t.history()
    t.error(3, -32603)
    t.resume(replay=None, id=4)
    t.update("state_update")
    t.result(4)
    assert "RC-MISSING" not in rule_ids(t.analyze())


def test_rc_after_response() -> None:
    t = started()
    t.resume(id=3)
    t.marker()
    t.update("state_update")
    t.result(3)
    late = t.marker()
    assert findings(t.analyze()) == [("RC-AFTER-RESPONSE", "error", late)]


def test_rc_after_response_not_while_another_replaying_resume_is_pending() -> None:
    t = started()
    good_resume(t, id=3)
    t.resume(id=4)
    t.marker()
    t.update("state_update")
    t.result(4)
    assert findings(t.analyze()) == []


def test_rc_without_cursor() -> None:
    t = started()
    t.resume(replay=None, id=3)
    marker = t.marker()
    t.update("state_update")
    t.result(3)
    assert findings(t.analyze()) == [("RC-WITHOUT-CURSOR", "error", marker)]


def test_rc_without_cursor_not_when_a_replaying_resume_is_pending_too() -> None:
    t = started()
    t.resume(id=3)
    t.resume(replay=None, id=4)
    t.marker()
    t.update("state_update")
    t.result(3)
    t.update("state_update")
    t.result(4)
    assert findings(t.analyze()) == []


def test_rc_unsolicited_for_a_session_made_by_session_new() -> None:
    t = started()
    t.new_session()
    marker = t.marker()
    assert findings(t.analyze()) == [("RC-UNSOLICITED", "error", marker)]


def test_rc_unsolicited_not_for_a_marker_inside_its_window() -> None:
    t = started()
    t.new_session("other")
    good_resume(t)
    assert "RC-UNSOLICITED" not in rule_ids(t.analyze())


def test_rc_cursor_rejected() -> None:
    t = started()
    t.resume(id=3, replay={"type": "since", "cursor": "x"})
    t.history()
    response = t.error(3, -32602)
    assert ("RC-CURSOR-REJECTED", "warning", response) in findings(t.analyze())


def test_rc_cursor_rejected_not_when_nothing_was_replayed() -> None:
    t = started()
    t.resume(id=3)
    t.error(3, -32602)
    assert "RC-CURSOR-REJECTED" not in rule_ids(t.analyze())


def test_rc_unknown_cursor_reports_what_happened() -> None:
    t = started()
    request = t.resume(id=3, replay={"type": "since", "cursor": "x"})
    t.error(3, -32602)
    analysis = t.analyze()
    assert findings(analysis) == [("RC-UNKNOWN-CURSOR", "note", request)]
    assert "-32602" in analysis.findings[0].message


def test_rc_unknown_cursor_not_for_start() -> None:
    t = started()
    good_resume(t)
    assert "RC-UNKNOWN-CURSOR" not in rule_ids(t.analyze())


@pytest.mark.parametrize("replay", [None, "null"])
def test_rc_replay_without_cursor_on_v2(replay: str | None) -> None:
    # rules.md §11: without replayFrom (or with null) "the Agent MUST NOT replay"; an Agent
    # that replays its whole history on every resume does.
    t = started()
    t.new_session()
    if replay is None:
        request = t.resume(replay=None, id=3)
    else:
        params = {"sessionId": SESSION, "cwd": "/", "replayFrom": None}
        request = t.request("session/resume", params, id=3)
    first = t.update("user_message", content={"type": "text", "text": "hi"})
    t.update("agent_message", content={"type": "text", "text": "hello"})
    t.update("user_message_chunk", content={"type": "text", "text": "again"})
    t.update("state_update")
    t.result(3)
    analysis = t.analyze()
    assert findings(analysis) == [("RC-REPLAY-WITHOUT-CURSOR", "error", first)]
    message = analysis.findings[0].message
    assert f"(line {request}, without replayFrom) must not replay" in message
    assert "2 user message updates came while no prompt was pending" in message


def test_rc_replay_without_cursor_on_v1_and_once_per_window() -> None:
    t = Transcript()
    t.open()
    t.initialize(1)
    t.request("session/resume", {"sessionId": SESSION, "cwd": "/"}, id=3)
    first = t.update("user_message_chunk", content={"type": "text", "text": "hi"})
    t.update("agent_message_chunk", content={"type": "text", "text": "hello"})
    t.update("user_message_chunk", content={"type": "text", "text": "again"})
    t.result(3)
    t.request("session/resume", {"sessionId": SESSION, "cwd": "/"}, id=4)
    second = t.update("user_message_chunk", content={"type": "text", "text": "hi"})
    t.result(4)
    t.close()
    analysis = t.analyze()
    assert findings(analysis) == [
        ("RC-REPLAY-WITHOUT-CURSOR", "error", first),
        ("RC-REPLAY-WITHOUT-CURSOR", "error", second),
    ]


def test_rc_replay_without_cursor_not_for_the_echo_of_a_pending_prompt_or_a_replay() -> None:
    t = started()
    t.new_session()
    t.resume(replay=None, id=3)
    t.request("session/prompt", {"sessionId": SESSION, "prompt": []}, id=9)
    t.update("user_message_chunk", content={"type": "text", "text": "the prompt's echo"})
    t.result(9, {"messageId": "m9"})
    t.update("state_update")
    t.result(3)
    good_resume(t, id=4)  # (a replaying resume replays user messages, as it should)
    t.close()
    assert findings(t.analyze()) == []


def test_rc_replay_without_cursor_not_while_a_replay_of_the_session_is_pending() -> None:
    # (the ACP docs' v2 session-setup example assembles a resume without replayFrom and a
    # replaying one: what is replayed while both are pending is the replaying one's)
    t = started()
    t.resume(replay=None, id=2)
    t.resume(id=3)
    t.history()
    t.marker()
    t.update("state_update")
    t.result(3)
    t.update("state_update")
    t.result(2)
    assert "RC-REPLAY-WITHOUT-CURSOR" not in rule_ids(t.analyze())


def test_rc_replay_without_cursor_counts_a_run_of_plain_updates_as_one_by_one() -> None:
    t = started()
    t.new_session()
    t.resume(replay=None, id=3)
    lines = [t.update("agent_message_chunk", content={"type": "text", "text": "x"})]
    lines += [t.update("user_message_chunk", content={"type": "text", "text": f"{n}"})
              for n in range(5)]  # fmt: skip
    t.update("state_update")
    t.result(3)
    for fast in (True, False):
        analysis = t.analyze(fast=fast)
        assert findings(analysis) == [("RC-REPLAY-WITHOUT-CURSOR", "error", lines[1])]
        assert "5 user message updates" in analysis.findings[0].message


# -- §2 what may come before the marker --------------------------------------------------------


def test_rc_not_history() -> None:
    t = started()
    t.resume(id=3)
    t.update("user_message")
    live = t.update("available_commands_update")
    t.marker()
    t.update("state_update")
    t.result(3)
    assert findings(t.analyze()) == [("RC-NOT-HISTORY", "error", live)]


def test_rc_not_history_demoted_for_a_session_already_active_rc_inflight() -> None:
    t = started()
    t.new_session()
    t.resume(id=3)
    live = t.update("notice")
    t.marker()
    t.update("state_update")
    t.result(3)
    analysis = t.analyze()
    assert findings(analysis) == [("RC-NOT-HISTORY", "warning", live)]
    assert "RC-INFLIGHT" in analysis.findings[0].message


def test_rc_not_history_not_for_history_tags_or_after_the_marker() -> None:
    t = started()
    t.resume(id=3)
    t.update("tool_call_update", toolCallId="t", status="in_progress")
    t.update("plan_update")
    t.update("_vendor_extension")
    t.marker()
    t.update("notice")
    t.update("agent_message_chunk", messageId="m0")  # the cut point: live chunks after the marker
    t.update("state_update")
    t.result(3)
    assert findings(t.analyze()) == []


def test_rc_not_history_not_judged_in_a_window_without_marker() -> None:
    t = started()
    t.resume(id=3)
    t.update("notice")
    t.error(3, -32603)
    assert findings(t.analyze()) == []


def test_history_tag_option_reclassifies_a_by_default_live_tag() -> None:
    t = started()
    t.resume(id=3)
    usage = t.update("usage_update")
    t.marker()
    t.update("state_update")
    t.result(3)
    assert findings(t.analyze()) == [("RC-NOT-HISTORY", "error", usage)]
    assert findings(t.analyze(history_tags=("usage_update",))) == []


def test_rc_request_before_marker() -> None:
    t = started()
    t.resume(id=3)
    ask = t.request("session/request_permission", {"sessionId": SESSION}, id=0, agent=True)
    t.result(0, {"outcome": "allow"}, agent=False)
    t.marker()
    t.update("state_update")
    t.result(3)
    assert findings(t.analyze()) == [("RC-REQUEST-BEFORE-MARKER", "warning", ask)]


def test_rc_request_before_marker_demoted_to_note_under_rc_inflight() -> None:
    t = started()
    t.new_session()
    t.resume(id=3)
    ask = t.request("elicitation/create", {"sessionId": SESSION}, id=0, agent=True)
    t.result(0, {}, agent=False)
    t.marker()
    t.update("state_update")
    t.result(3)
    assert findings(t.analyze()) == [("RC-REQUEST-BEFORE-MARKER", "note", ask)]


def test_rc_request_before_marker_not_after_the_marker() -> None:
    t = started()
    t.resume(id=3)
    t.marker()
    t.request("session/request_permission", {"sessionId": SESSION}, id=0, agent=True)
    t.result(0, {"outcome": "allow"}, agent=False)
    t.update("state_update")
    t.result(3)
    assert findings(t.analyze()) == []


def test_rc_no_snapshot() -> None:
    t = started()
    t.resume(id=3)
    t.update("state_update")  # before the marker: it does not count (and is RC-NOT-HISTORY)
    t.marker()
    response = t.result(3)
    assert ("RC-NO-SNAPSHOT", "warning", response) in findings(t.analyze())


def test_rc_no_snapshot_for_a_non_replaying_resume() -> None:
    t = started()
    t.resume(replay=None, id=3)
    response = t.result(3)
    assert findings(t.analyze()) == [("RC-NO-SNAPSHOT", "warning", response)]


def test_rc_no_snapshot_not_for_a_failed_resume() -> None:
    t = started()
    t.resume(id=3)
    t.marker()
    t.error(3, -32603)
    assert findings(t.analyze()) == []


# -- §3 children -------------------------------------------------------------------------------


def test_rc_child_missing() -> None:
    t = started()
    t.resume(id=3)
    t.announce("child")
    t.update("agent_message", "child")
    t.marker()
    t.update("state_update")
    response = t.result(3)
    assert findings(t.analyze()) == [("RC-CHILD-MISSING", "error", response)]


def test_rc_child_missing_not_with_no_child_rules_or_a_failed_resume() -> None:
    t = started()
    t.resume(id=3)
    t.announce("child")
    t.marker()
    t.update("state_update")
    t.result(3)
    assert findings(t.analyze(child_rules=False)) == []
    t2 = started()
    t2.resume(id=3)
    t2.announce("child")
    t2.error(3, -32603)
    assert findings(t2.analyze()) == []


def test_rc_child_duplicate() -> None:
    t = started()
    t.resume(id=3)
    t.announce("child")
    t.marker("child")
    second = t.marker("child")
    t.marker()
    t.update("state_update")
    t.result(3)
    assert findings(t.analyze()) == [("RC-CHILD-DUPLICATE", "error", second)]


def test_rc_child_duplicate_not_for_one_marker_per_child() -> None:
    t = started()
    t.resume(id=3)
    t.announce("a")
    t.announce("b")
    t.marker("b")
    t.marker("a")
    t.marker()
    t.update("state_update")
    t.result(3)
    assert findings(t.analyze()) == []


def test_rc_child_before_announce_only_and_counted() -> None:
    t = started()
    t.resume(id=3)
    early = t.marker("child")
    t.announce("child")
    t.marker()
    t.update("state_update")
    t.result(3)
    analysis = t.analyze()
    assert findings(analysis) == [("RC-CHILD-BEFORE-ANNOUNCE", "error", early)]
    child = analysis.resumes[1]
    assert (child.session_id, child.marker_count) == ("child", 1)


def test_marker_for_a_never_announced_session_is_unsolicited_not_before_announce() -> None:
    t = started()
    t.resume(id=3)
    stray = t.marker("stranger")
    t.marker()
    t.update("state_update")
    t.result(3)
    assert findings(t.analyze()) == [
        ("LC-UNKNOWN-SESSION", "warning", stray),  # nothing named "stranger" either
        ("RC-UNSOLICITED", "error", stray),
    ]


def test_rc_child_not_history() -> None:
    t = started()
    t.resume(id=3)
    t.announce("child")
    live = t.update("config_option_update", "child")
    t.marker("child")
    t.marker()
    t.update("state_update")
    t.result(3)
    assert findings(t.analyze()) == [("RC-CHILD-NOT-HISTORY", "error", live)]


def test_rc_child_not_history_not_after_the_child_marker() -> None:
    t = started()
    t.resume(id=3)
    t.announce("child")
    t.marker("child")
    t.update("state_update", "child")  # the child's own live state follows its own marker
    t.marker()
    t.update("state_update")
    t.result(3)
    assert findings(t.analyze()) == []


def test_rc_child_traffic_before_announce() -> None:
    t = started()
    t.resume(id=3)
    early = t.update("agent_message", "child")
    t.announce("child")
    t.marker("child")
    t.marker()
    t.update("state_update")
    t.result(3)
    assert findings(t.analyze()) == [("RC-CHILD-TRAFFIC-BEFORE-ANNOUNCE", "error", early)]


def test_rc_child_traffic_before_announce_not_after_it() -> None:
    t = started()
    t.resume(id=3)
    t.announce("child")
    t.update("agent_message", "child")
    t.marker("child")
    t.marker()
    t.update("state_update")
    t.result(3)
    assert findings(t.analyze()) == []


# -- §4 client behaviour and lifecycle ----------------------------------------------------------


def test_rc_concurrent() -> None:
    t = started()
    t.resume(id=3)
    second = t.resume(id=4)
    t.marker()
    t.update("state_update")
    t.result(3)
    t.marker()
    t.update("state_update")
    t.result(4)
    # Markers carry no request id: no RC-DUPLICATE or RC-MISSING is judged for the pair.
    assert findings(t.analyze()) == [("RC-CONCURRENT", "warning", second)]


def test_rc_concurrent_not_for_sequential_resumes() -> None:
    t = started()
    good_resume(t, id=3)
    good_resume(t, id=4)
    assert findings(t.analyze()) == []


def load(t: Transcript, session: str = SESSION, *, id: int) -> int:
    """A `session/load` request for `session`; returns its line."""
    return t.request("session/load", {"sessionId": session, "cwd": "/"}, id=id)


@pytest.mark.parametrize("version", [1, 2])
def test_rc_concurrent_for_overlapping_loads_on_either_version(version: int) -> None:
    # rules.md §10: a second load of S while one is pending makes both rows ambiguous, the
    # updates of the overlap count for neither, and RC-CONCURRENT is kept on v1 too.
    t = Transcript()
    t.open()
    t.initialize(version)
    load(t, id=3)
    second = load(t, id=4)
    t.history(count=3)  # both loads pending: attributed to neither
    t.error(4, -32603)
    t.history(count=2)  # only load 3 pending: its own
    t.result(3)
    t.close()
    analysis = t.analyze()
    assert findings(analysis) == [("RC-CONCURRENT", "warning", second)]
    assert (
        "session/load of sess_1 sent while the session/load at line" in analysis.findings[0].message
    )
    rows = [(r.request_id, r.outcome.value, r.replayed_updates) for r in analysis.resumes]
    assert rows == [(3, "ambiguous", 2), (4, "ambiguous", 0)]


def test_overlapping_loads_answered_in_reverse_order_are_both_ambiguous() -> None:
    # claude-agent-acp's shape (SOURCES.md): two loads of one session, both succeed, each
    # replays the whole history, and the second is answered first.
    t = Transcript()
    t.open()
    t.initialize(1)
    load(t, id=2)
    second = load(t, id=3)
    t.history(count=11)
    t.result(3)
    t.history(count=11)
    t.result(2)
    t.close()
    analysis = t.analyze()
    assert findings(analysis) == [("RC-CONCURRENT", "warning", second)]
    rows = [(r.request_id, r.outcome.value, r.replayed_updates) for r in analysis.resumes]
    assert rows == [(2, "ambiguous", 11), (3, "ambiguous", 0)]


@pytest.mark.parametrize("version", [1, 2])
def test_rc_concurrent_not_for_sequential_loads_or_loads_of_other_sessions(version: int) -> None:
    t = Transcript()
    t.open()
    t.initialize(version)
    load(t, id=3)
    t.history(count=2)
    t.result(3)
    load(t, id=4)
    load(t, "other", id=5)
    t.history(count=3)
    t.result(4)
    t.result(5)
    t.close()
    analysis = t.analyze()
    assert "RC-CONCURRENT" not in rule_ids(analysis)
    rows = [(r.request_id, r.outcome.value, r.replayed_updates) for r in analysis.resumes]
    assert rows == [(3, "loaded", 2), (4, "loaded", 3), (5, "loaded", 0)]


def test_a_load_overlapping_a_replaying_resume_of_its_session_is_concurrent() -> None:
    # rules.md §11: overlapping replays "whatever their method"; the marker came while both
    # were pending, so it belongs to neither and both rows are ambiguous (no RC-MISSING).
    t = started()
    t.resume(id=3)
    second = load(t, id=4)
    t.marker()
    t.update("state_update")
    t.result(3)
    t.result(4)
    analysis = t.analyze()
    assert findings(analysis) == [("RC-CONCURRENT", "warning", second)]
    assert "session/load of sess_1 sent while the replaying session/resume at line" in (
        analysis.findings[0].message
    )
    rows = [(r.outcome.value, r.marker_count, r.replayed_updates) for r in analysis.resumes]
    assert rows == [("ambiguous", 0, 0), ("ambiguous", 0, 0)]


def test_rc_concurrent_once_per_later_request() -> None:
    t = started()
    load(t, id=3)
    second = load(t, id=4)
    third = t.resume(id=5)
    t.history(count=2)
    t.update("state_update")
    for request_id in (3, 4, 5):
        t.result(request_id)
    analysis = t.analyze()
    assert findings(analysis) == [
        ("RC-CONCURRENT", "warning", second),
        ("RC-CONCURRENT", "warning", third),
    ]
    assert {r.outcome.value for r in analysis.resumes} == {"ambiguous"}


def test_overlapping_replays_with_nothing_in_the_overlap_keep_their_own_outcomes() -> None:
    # qwen-code's shape (agents-2026-12b): the second load is rejected before any update, and
    # the first then replays alone: RC-CONCURRENT all the same, the rows are their own.
    t = Transcript()
    t.open()
    t.initialize(1)
    load(t, id=3)
    second = load(t, id=4)
    t.error(4, -32603)
    t.history(count=3)
    t.result(3)
    t.close()
    analysis = t.analyze()
    assert findings(analysis) == [("RC-CONCURRENT", "warning", second)]
    rows = [(r.request_id, r.outcome.value, r.replayed_updates) for r in analysis.resumes]
    assert rows == [(3, "loaded", 3), (4, "refused", 0)]


def test_an_overlapped_replay_with_no_update_of_its_own_has_no_silence_of_its_own() -> None:
    # rules.md §11: its max gap and idle timers use only its own updates, and with none they
    # are null, never request -> response (claude-agent-acp's overlap: "56 of 29 lost").
    t = started()
    t.resume(id=3)
    t.resume(id=4)
    t.history(count=4)
    t.update("state_update")
    t.result(4, at_ms=t.now_ms + 900)
    t.update("state_update")
    t.result(3)
    t.close()
    analysis = t.analyze()
    (first, second) = analysis.resumes
    assert (first.outcome.value, first.replayed_updates) == ("ambiguous", 1)
    assert (second.outcome.value, second.replayed_updates) == ("ambiguous", 0)
    assert second.max_replay_gap_ms is None
    assert second.replay_pauses == ()
    # its own silence: from the overlap's last update to its own, not from its request
    assert first.max_replay_gap_ms == 910.0
    assert (first.request_to_response_ms or 0) > 950
    assert second.request_to_first_update_ms is None


def test_overlapping_replays_still_pending_at_an_unknown_end_are_ambiguous() -> None:
    t = started()
    load(t, id=3)
    t.resume(id=4)
    rows = [r.outcome.value for r in t.analyze().resumes]
    assert rows == ["ambiguous", "ambiguous"]


def test_a_non_replaying_resume_beside_a_replay_is_not_concurrent() -> None:
    t = started()
    t.resume(id=3)
    t.resume(replay=None, id=4)
    t.history()
    t.marker()
    t.update("state_update")
    t.result(3)
    t.result(4)
    analysis = t.analyze()
    assert "RC-CONCURRENT" not in rule_ids(analysis)
    assert [r.outcome.value for r in analysis.resumes] == ["complete", "no_replay"]


def test_lc_prompt_inactive_after_a_failed_resume() -> None:
    t = started()
    t.resume(id=3)
    t.error(3, -32603)
    t.request("session/prompt", {"sessionId": SESSION, "prompt": []}, id=9)
    response = t.result(9, {"stopReason": "end_turn"})
    assert findings(t.analyze()) == [("LC-PROMPT-INACTIVE", "error", response)]


def test_lc_prompt_inactive_never_activated_needs_the_connection_start() -> None:
    t = started()
    t.request("session/prompt", {"sessionId": "ghost", "prompt": []}, id=9)
    response = t.result(9, {})
    assert findings(t.analyze()) == [("LC-PROMPT-INACTIVE", "error", response)]
    mid = Transcript()
    mid.request("session/prompt", {"sessionId": "ghost", "prompt": []}, id=9)
    mid.result(9, {})
    assert findings(mid.analyze()) == []


def test_lc_prompt_inactive_crossing_a_pending_resume_is_a_note() -> None:
    t = started()
    t.resume(id=3)
    t.request("session/prompt", {"sessionId": SESSION, "prompt": []}, id=9)
    prompt_response = t.result(9, {})
    t.marker()
    t.update("state_update")
    t.result(3)
    assert findings(t.analyze()) == [("LC-PROMPT-INACTIVE", "note", prompt_response)]


def test_a_finding_about_a_load_says_load() -> None:
    # rules.md §11: "A finding about a session/load says load, never resume".
    t = started()
    load(t, id=3)
    t.request("session/prompt", {"sessionId": SESSION, "prompt": []}, id=9)
    t.result(9, {})
    second = load(t, id=4)
    t.history()
    t.result(3)
    t.result(4)
    analysis = t.analyze()
    messages = {f.rule: f.message for f in analysis.findings}
    assert ("RC-CONCURRENT", "warning", second) in findings(analysis)
    assert "although its load is still pending" in messages["LC-PROMPT-INACTIVE"]
    assert messages["RC-CONCURRENT"].startswith(
        f"session/load of {SESSION} sent while the session/load at line"
    )
    assert "resume" not in " ".join(messages.values())


def test_lc_prompt_inactive_not_for_an_active_session_or_an_error() -> None:
    t = started()
    t.new_session()
    t.request("session/prompt", {"sessionId": SESSION, "prompt": []}, id=9)
    t.result(9, {})
    t.request("session/prompt", {"sessionId": "ghost", "prompt": []}, id=10)
    t.error(10, -32002)
    assert findings(t.analyze()) == []


def test_lc_active_rejected() -> None:
    t = started()
    good_resume(t)
    t.request("session/prompt", {"sessionId": SESSION, "prompt": []}, id=9)
    response = t.error(9, -32002)
    assert findings(t.analyze()) == [("LC-ACTIVE-REJECTED", "error", response)]


def test_lc_active_rejected_not_after_close() -> None:
    t = started()
    good_resume(t)
    t.request("session/close", {"sessionId": SESSION}, id=8)
    t.result(8)
    t.request("session/prompt", {"sessionId": SESSION, "prompt": []}, id=9)
    t.error(9, -32002)
    assert findings(t.analyze()) == []


def test_lc_unknown_session() -> None:
    t = started()
    first = t.update("agent_message_chunk", "nobody")
    t.update("agent_message_chunk", "nobody")
    analysis = t.analyze()
    assert findings(analysis) == [("LC-UNKNOWN-SESSION", "warning", first)]
    assert analysis.findings[0].message.startswith("2 session/update")


def test_lc_unknown_session_before_the_session_new_response_names_the_later_line() -> None:
    # rules.md §10: an update for S between `session/new` and the response that returns S
    # (isaac-acp's available_commands_update) is still LC-UNKNOWN-SESSION, saying where S
    # was named.
    t = started()
    t.request("session/new", {"cwd": "/"}, id=4)
    early = t.update("available_commands_update", "made")
    named = t.result(4, {"sessionId": "made"})
    analysis = t.analyze()
    assert findings(analysis) == [("LC-UNKNOWN-SESSION", "warning", early)]
    assert analysis.findings[0].message.endswith(
        f"; the session/new response at line {named} named it later"
    )


def test_lc_unknown_session_says_which_request_or_announcement_named_it_later() -> None:
    # rules.md §10: a session named later by a request (a resume or load names it in its
    # params) or, with the child rules off, by an announcement: the message says which.
    t = started()
    t.new_session()
    early_resumed = t.update("agent_message_chunk", "resumed")
    resumed = t.resume("resumed", replay=False, id=5)
    early_child = t.update("agent_message_chunk", "kid")
    announced = t.announce("kid")
    analysis = t.analyze(child_rules=False)
    assert findings(analysis) == [
        ("LC-UNKNOWN-SESSION", "warning", early_resumed),
        ("LC-UNKNOWN-SESSION", "warning", early_child),
    ]
    assert [f.message.split("; ", 1)[1] for f in analysis.findings] == [
        f"the session/resume request at line {resumed} named it later",
        f"the announcement at line {announced} named it later",
    ]


def test_lc_unknown_session_never_named_says_no_later_line() -> None:
    t = started()
    t.update("agent_message_chunk", "nobody")
    (finding,) = t.analyze().findings
    assert "named it later" not in finding.message


def test_lc_unknown_session_not_for_an_update_after_the_session_new_response() -> None:
    t = started()
    t.request("session/new", {"cwd": "/"}, id=4)
    t.result(4, {"sessionId": "made"})
    t.update("available_commands_update", "made")
    assert findings(t.analyze()) == []


def test_lc_unknown_session_not_for_named_sessions_or_a_mid_connection_transcript() -> None:
    t = started()
    t.request("session/list", {}, id=5)
    t.result(5, {"sessions": [{"sessionId": "listed"}]})
    t.update("session_info_update", "listed")
    t.new_session("made")
    t.update("agent_message_chunk", "made")
    assert findings(t.analyze()) == []
    mid = Transcript()
    mid.update("agent_message_chunk", "nobody")
    assert findings(mid.analyze()) == []


def test_cx_no_response() -> None:
    t = started()
    prompt = t.request("session/prompt", {"sessionId": SESSION, "prompt": []}, id=9)
    t.notify("$/cancel_request", {"requestId": 9}, agent=False)
    t.close()
    # The catalogue names no exclusion here: JR-UNANSWERED holds for it too.
    assert findings(t.analyze()) == [
        ("CX-NO-RESPONSE", "error", prompt),
        ("JR-UNANSWERED", "warning", prompt),
    ]


def test_cx_no_response_not_at_an_unknown_end() -> None:
    t = started()
    prompt = t.request("session/prompt", {"sessionId": SESSION, "prompt": []}, id=9)
    t.notify("$/cancel_request", {"requestId": 9}, agent=False)
    assert findings(t.analyze()) == []
    assert ("CX-NO-RESPONSE", "error", prompt) in findings(t.analyze(assume_closed=True))


def test_cx_wrong_code() -> None:
    t = started()
    t.new_session()
    t.request("session/prompt", {"sessionId": SESSION, "prompt": []}, id=9)
    t.notify("$/cancel_request", {"requestId": 9}, agent=False)
    response = t.error(9, -32603)
    assert findings(t.analyze()) == [("CX-WRONG-CODE", "note", response)]


def test_cx_wrong_code_not_for_minus_32800_or_success() -> None:
    t = started()
    t.new_session()
    t.request("session/prompt", {"sessionId": SESSION, "prompt": []}, id=9)
    t.notify("$/cancel_request", {"requestId": 9}, agent=False)
    t.error(9, -32800)
    t.request("session/prompt", {"sessionId": SESSION, "prompt": []}, id=10)
    t.notify("$/cancel_request", {"requestId": 10}, agent=False)
    t.result(10, {"stopReason": "cancelled"})
    assert findings(t.analyze()) == []


def test_cx_wrong_code_not_for_a_request_that_failed_on_its_own() -> None:
    # rules.md §11: -32601 and -32602 say the request failed for itself, not for the cancel.
    t = started()
    for request_id, code in ((9, -32601), (10, -32602)):
        t.request("session/fork", {"sessionId": SESSION}, id=request_id)
        t.notify("$/cancel_request", {"requestId": request_id}, agent=False)
        t.error(request_id, code)
    assert "CX-WRONG-CODE" not in rule_ids(t.analyze())


def message_updates(t: Transcript, **ids: str) -> list[int]:
    """An agent message and a user message chunk, with the `messageId`s given (`agent`,
    `user`) or none."""
    found: list[int] = []
    for tag, who in (("agent_message_chunk", "agent"), ("user_message_chunk", "user")):
        given: dict[str, Any] = {"messageId": ids[who]} if who in ids else {}
        found.append(t.update(tag, content={"type": "text", "text": who}, **given))
    return found


def test_lc_no_message_id_once_per_session_with_the_count_and_the_replayed_ones() -> None:
    t = started()
    t.message_ids = False  # (the Agent sends none)
    t.new_session()
    t.request("session/prompt", {"sessionId": SESSION, "prompt": []}, id=9)
    first = message_updates(t)[0]
    t.update("agent_thought", content={"type": "text", "text": "t"})
    t.result(9, {"messageId": "m9"})
    t.update("state_update", state="idle")
    t.resume(id=3)
    message_updates(t)
    t.marker()
    t.update("state_update")
    t.result(3)
    t.close()
    for fast in (True, False):
        analysis = t.analyze(fast=fast)
        assert findings(analysis) == [("LC-NO-MESSAGE-ID", "error", first)], fast
        message = analysis.findings[0].message
        assert "5 message updates for sess_1 without a messageId (2 in a replay)" in message


def test_lc_no_message_id_not_with_ids_on_v1_or_where_nothing_shows_v2() -> None:
    t = started()
    t.new_session()
    message_updates(t, agent="m1", user="m2")
    assert findings(t.analyze()) == []
    v1 = Transcript()
    v1.initialize(version=1)
    v1.new_session()
    message_updates(v1)
    assert findings(v1.analyze()) == []
    # no initialize and nothing else that shows v2: the default v2 judges no message id
    unknown = Transcript(message_ids=False)
    unknown.new_session()
    message_updates(unknown)
    analysis = unknown.analyze()
    assert analysis.connection.protocol_version == 2
    assert not analysis.connection.protocol_shown
    assert findings(analysis) == []
    unknown.update("state_update")  # (v2 evidence)
    assert rule_ids(unknown.analyze()) == {"LC-NO-MESSAGE-ID"}


# -- §5 JSON-RPC and transport -----------------------------------------------------------------


def test_jr_invalid() -> None:
    t = started()
    wrong_version = t.c2a({"jsonrpc": "1.0", "id": 1, "method": "session/list"})
    both = t.a2c({"jsonrpc": "2.0", "id": 1, "result": {}, "error": {"code": 1, "message": "x"}})
    no_id = t.a2c({"jsonrpc": "2.0", "result": {}})
    bad_id = t.c2a({"jsonrpc": "2.0", "id": True, "method": "session/list"})
    bad_method = t.c2a({"jsonrpc": "2.0", "id": 2, "method": 5})
    got = [f for f in findings(t.analyze()) if f[0] == "JR-INVALID"]
    lines = [wrong_version, both, no_id, bad_id, bad_method]
    assert got == [("JR-INVALID", "error", line) for line in lines]


def test_jr_invalid_not_for_plain_json_which_is_an_issue() -> None:
    t = started()
    line = t.c2a({"hello": "world"})
    analysis = t.analyze()
    assert findings(analysis) == []
    assert [(i.line, i.kind) for i in analysis.issues] == [(line, "not_jsonrpc")]


def test_jr_orphan_response() -> None:
    t = started()
    orphan = t.result(42)
    assert findings(t.analyze()) == [("JR-ORPHAN-RESPONSE", "error", orphan)]


def test_jr_orphan_response_not_for_a_response_from_the_other_side() -> None:
    t = started()
    t.request("session/request_permission", {"sessionId": SESSION}, id=42, agent=True)
    t.result(42, {"outcome": "allow"}, agent=False)
    assert "JR-ORPHAN-RESPONSE" not in rule_ids(t.analyze())


def test_jr_orphan_response_when_the_same_side_answers_its_own_id() -> None:
    t = started()
    t.request("session/list", {}, id=42)
    wrong_side = t.result(42, {}, agent=False)
    assert ("JR-ORPHAN-RESPONSE", "error", wrong_side) in findings(t.analyze())


def test_jr_duplicate_id() -> None:
    t = started()
    t.request("session/list", {}, id=5)
    again = t.request("session/list", {}, id=5)
    t.result(5, {})
    t.result(5, {})
    assert findings(t.analyze()) == [("JR-DUPLICATE-ID", "error", again)]


def test_jr_duplicate_id_not_for_the_same_id_on_both_sides_or_string_vs_number() -> None:
    t = started()
    t.request("session/list", {}, id=5)
    t.request("session/request_permission", {"sessionId": SESSION}, id=5, agent=True)
    t.request("session/list", {}, id="5")
    t.result(5, {})
    t.result(5, {}, agent=False)
    t.result("5", {})
    assert findings(t.analyze()) == []


def test_jr_unanswered() -> None:
    t = started()
    request = t.request("session/list", {}, id=5)
    t.close()
    assert findings(t.analyze()) == [("JR-UNANSWERED", "warning", request)]


def test_jr_unanswered_not_at_an_unknown_end() -> None:
    t = started()
    t.request("session/list", {}, id=5)
    assert findings(t.analyze()) == []


def test_tr_batch_once_per_connection_at_the_first_with_the_count() -> None:
    t = started()
    line = t.c2a(
        [
            {"jsonrpc": "2.0", "id": 1, "method": "session/new", "params": {"cwd": "/"}},
            {"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": "x"}},
        ]
    )
    t.a2c([{"jsonrpc": "2.0", "id": 1, "result": {"sessionId": "x"}}])
    analysis = t.analyze()
    assert findings(analysis) == [("TR-BATCH", "note", line)]
    assert "2 batch arrays (3 messages in all; the first here)" in analysis.findings[0].message
    assert [r.session_id for r in analysis.sessions] == ["x"]  # (members are still read)


def test_tr_batch_lifecycle_is_retired_and_never_reported() -> None:
    t = started()
    line = t.c2a([{"jsonrpc": "2.0", "id": 1, "method": "session/new", "params": {"cwd": "/"}}])
    t.result(1, {"sessionId": "x"})
    assert findings(t.analyze()) == [("TR-BATCH", "note", line)]
    assert "a batch array of 1 message:" in t.analyze().findings[0].message


def test_tr_batch_not_without_a_batch() -> None:
    t = started()
    t.request("session/new", {"cwd": "/"}, id=1)
    t.result(1, {"sessionId": "x"})
    assert findings(t.analyze()) == []


def test_tr_empty_batch_only() -> None:
    t = started()
    line = t.c2a([])
    assert findings(t.analyze()) == [("TR-EMPTY-BATCH", "error", line)]


def test_tr_empty_batch_not_for_a_batch_with_members() -> None:
    t = started()
    t.c2a([{"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": "x"}}])
    assert "TR-EMPTY-BATCH" not in rule_ids(t.analyze())


# -- §7 version gating -------------------------------------------------------------------------


def test_v1_connection_skips_marker_rules() -> None:
    t = Transcript()
    t.initialize(version=1)
    t.request("session/load", {"sessionId": SESSION, "cwd": "/"}, id=3)
    t.update("notice")
    t.marker()
    t.marker()
    t.result(3)
    analysis = t.analyze()
    assert analysis.connection.protocol_version == 1
    assert not any(f.rule.startswith("RC-") for f in analysis.findings)
    forced = t.analyze(protocol=2)
    assert forced.connection.protocol_source.value == "option"


def test_protocol_inferred_without_initialize() -> None:
    load = Transcript()
    load.request("session/load", {"sessionId": SESSION, "cwd": "/"}, id=3)
    load.result(3, None)
    analysis = load.analyze()
    assert (analysis.connection.protocol_version, analysis.connection.protocol_source.value) == (
        1,
        "inferred",
    )
    assert analysis.connection.protocol_reason == "session/load (line 1)"
    resume = Transcript()
    resume.resume(id=3)
    resume.result(3)
    connection = resume.analyze().connection
    assert connection.protocol_version == 2
    assert connection.protocol_reason == "session/resume with replayFrom (line 1)"


def inferred(t: Transcript) -> tuple[int, str | None, bool]:
    connection = t.analyze().connection
    assert connection.protocol_source.value == "inferred"
    return connection.protocol_version, connection.protocol_reason, connection.protocol_shown


def test_a_resume_without_replay_from_is_no_evidence_of_v2() -> None:
    # rules.md §7 (2026-12-07): v1 has had a non-replaying session/resume since 2026-04-22.
    t = Transcript()
    t.resume(replay=None, id=3)
    t.result(3)
    assert inferred(t)[0::2] == (2, False)  # v2 for want of evidence, and said so
    t.request("session/load", {"sessionId": SESSION, "cwd": "/"}, id=4)
    t.result(4)
    assert inferred(t) == (1, "session/load (line 3)", True)
    null = Transcript()
    null.request("session/resume", {"sessionId": SESSION, "cwd": "/", "replayFrom": None}, id=3)
    assert inferred(null)[:2] == (2, "session/resume with replayFrom (line 1)")


@pytest.mark.parametrize(
    ("what", "version", "reason"),
    [
        (("update", "state_update"), 2, "a state_update update (line 1)"),
        (("update", "tool_call"), 1, "a tool_call update (line 1)"),
        (("update", "plan"), 1, "a plan update (line 1)"),
        (("request", "session/set_mode"), 1, "session/set_mode, a v1 method (line 1)"),
        (("request", "authenticate"), 1, "authenticate, a v1 method (line 1)"),
        (("request", "auth/login"), 2, "auth/login, a v2 method (line 1)"),
        (("result", "capabilities"), 2, "an initialize result with capabilities/info (line 1)"),
        (("result", "agentCapabilities"), 1,
         "an initialize result with agentCapabilities/agentInfo (line 1)"),
    ],
)  # fmt: skip
def test_evidence_of_one_version(what: tuple[str, str], version: int, reason: str) -> None:
    kind, name = what
    t = Transcript(message_ids=False)
    if kind == "update":
        t.update(name)
    elif kind == "request":
        t.request(name, {"sessionId": SESSION})
    else:
        t.result(0, {"protocolVersion": version, name: {}})
    assert inferred(t) == (version, reason, True)


def test_evidence_both_ways_is_v2_and_says_both() -> None:
    t = Transcript()
    t.request("session/load", {"sessionId": SESSION, "cwd": "/"}, id=3)
    t.update("state_update")
    t.result(3)
    version, reason, shown = inferred(t)
    assert (version, shown) == (2, True)
    assert reason == (
        "evidence both ways: a state_update update (line 2); session/load (line 1): taken as v2"
    )


def test_evidence_inside_a_run_of_plain_updates_is_seen() -> None:
    t = Transcript(message_ids=False)
    t.update("agent_message_chunk", content={"type": "text", "text": "a"})
    t.update("agent_message_chunk", content={"type": "text", "text": "b"})
    t.update("tool_call", toolCallId="t1")
    for fast in (True, False):
        connection = t.analyze(fast=fast).connection
        assert (connection.protocol_version, connection.protocol_reason) == (
            1,
            "a tool_call update (line 3)",
        )


def test_select_and_ignore_filter_findings() -> None:
    t = started()
    t.resume(id=3)
    t.result(3)  # RC-MISSING and RC-NO-SNAPSHOT
    assert rule_ids(t.analyze()) == {"RC-MISSING", "RC-NO-SNAPSHOT"}
    assert rule_ids(t.analyze(select=("RC-MISSING",))) == {"RC-MISSING"}
    assert rule_ids(t.analyze(ignore=("RC-NO",))) == {"RC-MISSING"}


# -- found in review: the catalogue read literally ----------------------------------------------


def test_children_of_concurrent_resumes_are_ambiguous_and_not_judged() -> None:
    # December (rules.md §3): "When the windows are RC-CONCURRENT resumes of one session, their
    # child rows are `ambiguous` and the child rules are not judged for them." (Before, the
    # catalogue was silent and these children were judged: RC-CHILD-MISSING at the response.)
    t = started()
    t.resume(id=1)
    concurrent = t.resume(id=2)
    t.announce("child")
    t.marker()
    t.update("state_update")
    t.result(1)
    t.result(2)
    analysis = t.analyze()
    assert findings(analysis) == [("RC-CONCURRENT", "warning", concurrent)]
    rows = [(r.request_id, r.session_id, r.role, r.outcome) for r in analysis.resumes]
    assert rows == [
        (1, SESSION, "requested", "ambiguous"),
        (1, "child", "child", "ambiguous"),
        (2, SESSION, "requested", "ambiguous"),
        (2, "child", "child", "ambiguous"),
    ]


def test_no_snapshot_when_the_state_update_came_before_a_wrong_marker() -> None:
    t = started()
    t.resume(replay=None, id=3)
    t.update("state_update")
    marker = t.marker()
    response = t.result(3)
    assert findings(t.analyze()) == [
        ("RC-WITHOUT-CURSOR", "error", marker),
        ("RC-NO-SNAPSHOT", "warning", response),
    ]


def test_a_replay_complete_tag_for_an_unnamed_session_on_v1_is_an_unknown_session() -> None:
    t = Transcript()
    t.open()
    t.initialize(version=1)
    stray = t.marker("nobody")
    t.close()
    assert findings(t.analyze()) == [("LC-UNKNOWN-SESSION", "warning", stray)]


def test_a_batch_member_that_is_not_jsonrpc_is_an_issue_not_jr_invalid() -> None:
    t = started()
    line = t.a2c([{"foo": 1}])
    analysis = t.analyze()
    assert findings(analysis) == [("TR-BATCH", "note", line)]  # (a batch all the same)
    assert [(i.line, i.kind) for i in analysis.issues] == [(line, "not_jsonrpc")]


def test_request_before_marker_judges_the_requested_session_only() -> None:
    t = started()
    t.resume(id=3)
    t.announce("child")
    t.request("session/request_permission", {"sessionId": "child"}, id=0, agent=True)
    t.result(0, {"outcome": "allow"}, agent=False)
    t.marker("child")
    t.marker()
    t.update("state_update")
    t.result(3)
    assert findings(t.analyze()) == []


def test_session_close_does_not_name_a_session() -> None:
    t = started()
    t.request("session/close", {"sessionId": "ghost"}, id=8)
    t.result(8)
    update = t.update("agent_message_chunk", "ghost")
    assert findings(t.analyze()) == [("LC-UNKNOWN-SESSION", "warning", update)]


def test_active_rejected_for_a_session_active_by_session_new() -> None:
    # December (rules.md notation): Active starts at the session/new result too, not only at a
    # successful resume, so this -32002 rejects an active session.
    t = started()
    t.new_session()
    t.request("session/prompt", {"sessionId": SESSION, "prompt": []}, id=9)
    response = t.error(9, -32002)
    assert findings(t.analyze()) == [("LC-ACTIVE-REJECTED", "error", response)]


def test_a_resume_sent_by_the_agent_opens_no_window() -> None:
    t = started()
    t.request("session/resume", {"sessionId": SESSION, "replayFrom": {"type": "start"}},
              id=3, agent=True)  # fmt: skip
    t.result(3, agent=False)
    analysis = t.analyze()
    assert analysis.resumes == ()


def test_no_child_traffic_before_announce_when_the_child_was_known_another_way_first() -> None:
    # December (rules.md §3): only traffic while the child is not Known counts; a session the
    # Client already knew (here from session/list) and that is later announced is not flagged.
    t = started()
    t.request("session/list", {}, id=5)
    t.result(5, {"sessions": [{"sessionId": "child"}]})
    t.resume(id=3)
    t.update("agent_message_chunk", "child")
    t.announce("child")
    t.update("agent_message_chunk", "child")
    t.marker("child")
    t.marker()
    t.update("state_update")
    t.result(3)
    assert findings(t.analyze()) == []
