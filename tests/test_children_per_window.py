"""Children are judged per replay window (rules.md §3, December): each case with one transcript
that triggers the rule and one that must not."""

from __future__ import annotations

from acptrace.model.domain import Analysis
from tests.test_rules import started
from tests.transcript import SESSION, Transcript, findings


def child_rows(analysis: Analysis) -> list[tuple[object, str, str, int]]:
    """(request id, child, outcome, marker_count) of every child row."""
    return [
        (row.request_id, row.session_id, row.outcome, row.marker_count)
        for row in analysis.resumes
        if row.role == "child"
    ]


def finish_replay(t: Transcript, id: int, session: str = SESSION) -> int:
    """The requested session's marker, its state, and the success response."""
    t.marker(session)
    t.update("state_update", session)
    return t.result(id)


# -- a live announcement, then the same child in a parent's replay ----------------------------


def live_then_replayed(marker_for_child: bool) -> Transcript:
    t = started()
    t.new_session()
    t.announce("child")  # live: no window is open, no marker is owed
    t.update("agent_message_chunk", "child")
    t.request("session/close", {"sessionId": SESSION}, id=2)
    t.result(2)
    t.resume(id=3)
    t.announce("child")  # the parent's replayed history announces the child again
    if marker_for_child:
        t.marker("child")
    finish_replay(t, 3)
    return t


def test_a_child_announced_live_and_replayed_owes_that_window_its_marker() -> None:
    t = live_then_replayed(marker_for_child=False)
    analysis = t.analyze()
    assert [rule for rule, _, _ in findings(analysis)] == ["RC-CHILD-MISSING"]
    assert child_rows(analysis) == [(3, "child", "unmarked_success", 0)]


def test_the_marker_of_a_child_announced_live_and_replayed_is_not_unsolicited() -> None:
    analysis = live_then_replayed(marker_for_child=True).analyze()
    assert findings(analysis) == []
    assert child_rows(analysis) == [(3, "child", "complete", 1)]


# -- a second replaying resume of the same parent ---------------------------------------------


def resumed_twice(second_child_marker: bool) -> tuple[Transcript, int]:
    t = started()
    t.resume(id=3)
    t.announce("child")
    t.marker("child")
    finish_replay(t, 3)
    t.request("session/close", {"sessionId": SESSION}, id=4)
    t.result(4)
    t.resume(id=5)
    t.announce("child")  # replayed again: announced in this window too
    if second_child_marker:
        t.marker("child")
    response = finish_replay(t, 5)
    return t, response


def test_a_second_replaying_resume_gets_its_own_child_rows_and_missing_marker() -> None:
    t, response = resumed_twice(second_child_marker=False)
    analysis = t.analyze()
    assert findings(analysis) == [("RC-CHILD-MISSING", "error", response)]
    assert child_rows(analysis) == [
        (3, "child", "complete", 1),
        (5, "child", "unmarked_success", 0),
    ]


def test_a_second_replaying_resume_with_its_child_marker_is_clean() -> None:
    t, _ = resumed_twice(second_child_marker=True)
    analysis = t.analyze()
    assert findings(analysis) == []
    assert child_rows(analysis) == [(3, "child", "complete", 1), (5, "child", "complete", 1)]


def test_a_subagent_update_after_the_parents_marker_is_a_live_patch_that_owes_nothing() -> None:
    t = started()
    t.resume(id=3)
    t.announce("child")
    t.marker("child")
    finish_replay(t, 3)
    t.request("session/close", {"sessionId": SESSION}, id=4)
    t.result(4)
    t.resume(id=5)
    t.marker()
    t.announce("child")  # after the parent's marker, and not the child's first: a patch
    t.update("state_update")
    t.result(5)
    analysis = t.analyze()
    assert findings(analysis) == []
    assert child_rows(analysis) == [(3, "child", "complete", 1)]


def test_a_first_ever_subagent_update_after_the_parents_marker_still_announces() -> None:
    t = started()
    t.resume(id=3)
    t.marker()
    t.announce("child")  # the first one for this child on the connection
    t.update("state_update")
    response = t.result(3)
    analysis = t.analyze()
    assert findings(analysis) == [("RC-CHILD-MISSING", "error", response)]
    assert child_rows(analysis) == [(3, "child", "unmarked_success", 0)]


# -- overlapping windows of different parents -------------------------------------------------


def two_parents(marker_after_both: bool) -> tuple[Transcript, int]:
    """Two overlapping windows of different parents announce one child; returns the line of
    the child's marker."""
    t = started()
    t.resume("p1", id=3)
    t.resume("p2", id=4)
    t.announce("child", parent="p1")
    marker = 0
    if not marker_after_both:
        marker = t.marker("child")  # only p1's window holds the child yet
    t.announce("child", parent="p2")
    if marker_after_both:
        marker = t.marker("child")  # one marker after both announcements
    finish_replay(t, 3, "p1")
    finish_replay(t, 4, "p2")
    return t, marker


def test_one_child_marker_after_two_overlapping_announcements_satisfies_both() -> None:
    t, _ = two_parents(marker_after_both=True)
    analysis = t.analyze()
    assert findings(analysis) == []
    assert child_rows(analysis) == [(3, "child", "complete", 1), (4, "child", "complete", 1)]


def test_a_child_marker_before_the_second_windows_announcement_is_early_there() -> None:
    t, marker = two_parents(marker_after_both=False)
    analysis = t.analyze()
    assert findings(analysis) == [("RC-CHILD-BEFORE-ANNOUNCE", "error", marker)]
    early = next(f for f in analysis.findings if f.rule == "RC-CHILD-BEFORE-ANNOUNCE")
    assert early.request_id == 4  # early in p2's window; on time in p1's
    assert child_rows(analysis) == [(3, "child", "complete", 1), (4, "child", "complete", 1)]


# -- a child's marker after its window's response ---------------------------------------------


def test_a_child_marker_after_the_response_is_after_response_naming_that_resume() -> None:
    t = started()
    t.resume(id=3)
    t.announce("child")
    response = finish_replay(t, 3)
    late = t.marker("child")
    analysis = t.analyze()
    assert findings(analysis) == [
        ("RC-CHILD-MISSING", "error", response),
        ("RC-AFTER-RESPONSE", "error", late),
    ]
    after = next(f for f in analysis.findings if f.rule == "RC-AFTER-RESPONSE")
    assert after.request_id == 3
    assert f"(line {response}) to session/resume id 3 of {SESSION}" in after.message
    assert "RC-UNSOLICITED" not in {f.rule for f in analysis.findings}


def test_a_child_marker_after_the_response_while_another_window_holds_it_is_not_late() -> None:
    t = started()
    t.resume("p1", id=3)
    t.resume("p2", id=4)
    t.announce("child", parent="p1")
    t.announce("child", parent="p2")
    t.marker("p1")
    t.update("state_update", "p1")
    first = t.result(3)
    t.marker("child")  # p2's window still holds the child
    finish_replay(t, 4, "p2")
    analysis = t.analyze()
    assert findings(analysis) == [("RC-CHILD-MISSING", "error", first)]
    assert child_rows(analysis) == [
        (3, "child", "unmarked_success", 0),
        (4, "child", "complete", 1),
    ]


def test_a_marker_for_a_child_announced_only_live_is_unsolicited() -> None:
    t = started()
    t.new_session()
    t.announce("child")
    stray = t.marker("child")
    assert findings(t.analyze()) == [("RC-UNSOLICITED", "error", stray)]


# -- early markers and duplicates -------------------------------------------------------------


def test_an_early_marker_counts_but_is_no_duplicate_of_the_one_after_the_announcement() -> None:
    t = started()
    t.resume(id=3)
    early = t.marker("child")
    t.announce("child")
    t.update("agent_message_chunk", "child")
    after = t.marker("child")
    finish_replay(t, 3)
    analysis = t.analyze()
    assert findings(analysis) == [("RC-CHILD-BEFORE-ANNOUNCE", "error", early)]
    (row,) = [r for r in analysis.resumes if r.role == "child"]
    assert (row.marker_count, row.marker_line) == (2, after)


def test_two_markers_after_the_announcement_are_still_a_duplicate() -> None:
    t = started()
    t.resume(id=3)
    t.marker("child")
    t.announce("child")
    t.marker("child")
    second = t.marker("child")
    finish_replay(t, 3)
    assert ("RC-CHILD-DUPLICATE", "error", second) in findings(t.analyze())


def test_the_clients_own_resume_of_a_child_judges_its_duplicates() -> None:
    t = started()
    t.resume(id=3)
    t.announce("child")
    t.resume("child", id=4)  # the Client resumes the child itself, while it is in 3's tree
    t.marker("child")
    second = t.marker("child")
    t.update("state_update", "child")
    t.result(4)
    finish_replay(t, 3)
    got = findings(t.analyze())
    assert ("RC-DUPLICATE", "error", second) in got
    assert "RC-CHILD-DUPLICATE" not in {rule for rule, _, _ in got}


# -- any depth --------------------------------------------------------------------------------


def test_a_grandchild_is_announced_by_its_parents_replay_in_the_same_window() -> None:
    t = started()
    t.resume(id=3)
    t.announce("child")
    t.announce("grandchild", parent="child")
    t.marker("child")
    t.marker("grandchild")
    finish_replay(t, 3)
    analysis = t.analyze()
    assert findings(analysis) == []
    assert child_rows(analysis) == [
        (3, "child", "complete", 1),
        (3, "grandchild", "complete", 1),
    ]
