"""Rules on child sessions announced during a replay (rules.md §3)."""

from __future__ import annotations

from collections.abc import Iterator

from acptrace.correlate.observations import (
    ChildTrafficBeforeAnnounce,
    MisplacedMarker,
    Misplacement,
    WindowClosed,
)
from acptrace.judge.rules.history import live_updates_before_marker
from acptrace.judge.rules.registry import Verdict, rule
from acptrace.model.domain import Severity, WindowEnd
from acptrace.model.excerpt import plural
from acptrace.model.tags import MARKER_TAG

SOURCE = "RFD Subagent sessions"


def _judged(closed: WindowClosed) -> bool:
    """Children are judged in replaying resumes, except concurrent ones (RC-CONCURRENT): their
    child rows are `ambiguous` (rules.md §3)."""
    return closed.window.replaying and not closed.window.ambiguous


@rule("RC-CHILD-MISSING", Severity.ERROR, "child", SOURCE, WindowClosed)
def child_missing(closed: WindowClosed) -> Iterator[Verdict]:
    """The resume succeeded, and a child announced in its window has no marker before it."""
    if not _judged(closed) or closed.end is not WindowEnd.SUCCESS:
        return
    assert closed.response is not None
    for child in closed.window.children.values():
        if not child.markers:
            yield Verdict(
                closed.response.line,
                f"child {child.session_id} (announced at line "
                f"{child.announce.line if child.announce else '?'}) has no {MARKER_TAG}",
                child.session_id,
                closed.window.request.id,
            )


@rule("RC-CHILD-DUPLICATE", Severity.ERROR, "child", "RFD", WindowClosed)
def child_duplicate(closed: WindowClosed) -> Iterator[Verdict]:
    """More than one marker for an announced child in one window."""
    if not _judged(closed):
        return
    for child in closed.window.children.values():
        counted = child.counted_markers()
        for extra in counted[1:]:
            yield Verdict(
                extra.line,
                f"another {MARKER_TAG} for child {child.session_id} "
                f"(first at line {counted[0].line})",
                child.session_id,
                closed.window.request.id,
            )


@rule(
    "RC-CHILD-BEFORE-ANNOUNCE",
    Severity.ERROR,
    "child",
    'RFD "after the announcement"',
    MisplacedMarker,
)
def child_marker_before_announce(observed: MisplacedMarker) -> Iterator[Verdict]:
    """A child's marker before the child's announcement."""
    if observed.placement is Misplacement.BEFORE_ANNOUNCE:
        session_id = observed.message.session_id
        yield Verdict(
            observed.message.line,
            f"{MARKER_TAG} for child {session_id} before its subagent_update announcement",
            session_id,
            observed.request_id,
        )


@rule("RC-CHILD-NOT-HISTORY", Severity.ERROR, "child", "RFD", WindowClosed)
def child_not_history(closed: WindowClosed) -> Iterator[Verdict]:
    """A never-history update for a child between its announcement and its marker."""
    if _judged(closed):
        for child in closed.window.children.values():
            yield from live_updates_before_marker(closed.window, child)


@rule(
    "RC-CHILD-TRAFFIC-BEFORE-ANNOUNCE",
    Severity.ERROR,
    "child",
    "SCHEMA SubagentUpdate",
    ChildTrafficBeforeAnnounce,
)
def child_traffic_before_announce(observed: ChildTrafficBeforeAnnounce) -> Iterator[Verdict]:
    """A message bearing a child's session ID while it was not Known (once per child)."""
    if not observed.start_seen:
        return  # a transcript that starts mid-connection cannot tell what was Known
    yield Verdict(
        observed.line,
        f"message for {observed.session_id} before its announcement at line "
        f"{observed.announce_line} ({plural(observed.total, 'such message')})",
        observed.session_id,
    )
