"""Rules on what may come before the marker (rules.md §2)."""

from __future__ import annotations

from collections.abc import Iterator

from acptrace.correlate.observations import WindowClosed
from acptrace.correlate.tracks import Track, Window
from acptrace.judge.rules.marker import judged_replay
from acptrace.judge.rules.registry import Verdict, exception, rule
from acptrace.model.domain import Severity, WindowEnd
from acptrace.model.excerpt import written_json
from acptrace.model.tags import MARKER_TAG, SNAPSHOT_TAG

INFLIGHT = "the session was already active when the resume was sent (RC-INFLIGHT)"


def live_updates_before_marker(window: Window, track: Track) -> Iterator[Verdict]:
    """Never-history updates before the track's marker, in a window that has one."""
    if not track.markers:
        return
    demoted = INFLIGHT if track.active_at_request else None
    for line, tag in track.live_before_marker:
        yield Verdict(
            line,
            f"{tag} for {track.session_id} before its {MARKER_TAG}",
            track.session_id,
            window.request.id,
            demoted,
        )


@rule(
    "RC-NOT-HISTORY",
    Severity.ERROR,
    "history",
    'RFD "Only history before the marker"',
    WindowClosed,
)
def not_history(closed: WindowClosed) -> Iterator[Verdict]:
    """An update with a never-history tag for the session after the resume and before its
    marker (a warning when the session was already active at the resume: RC-INFLIGHT)."""
    if judged_replay(closed):
        yield from live_updates_before_marker(closed.window, closed.window.requested)


@rule(
    "RC-REQUEST-BEFORE-MARKER",
    Severity.WARNING,
    "history",
    'RFD "SHOULD also wait until after the marker"',
    WindowClosed,
)
def request_before_marker(closed: WindowClosed) -> Iterator[Verdict]:
    """An Agent request naming the session after the resume and before its marker (a note when
    the session was already active at the resume: RC-INFLIGHT)."""
    window = closed.window
    if window.method != "session/resume" or not window.replaying:
        return
    track = window.requested
    if track.markers:
        demoted = INFLIGHT if track.active_at_request else None
        for line, method, request_id in track.requests_before_marker:
            yield Verdict(
                line,
                f"{method} (id {written_json(request_id)}) for {track.session_id} "
                f"before its {MARKER_TAG}",
                track.session_id,
                window.request.id,
                demoted,
            )


@rule(
    "RC-NO-SNAPSHOT",
    Severity.WARNING,
    "history",
    "RFD FAQ; SETUP current-state synchronization [unverified]",
    WindowClosed,
)
def no_snapshot(closed: WindowClosed) -> Iterator[Verdict]:
    """A successful resume without a state_update for the session after the marker (or request)."""
    window = closed.window
    track = window.requested
    if window.method != "session/resume" or closed.end is not WindowEnd.SUCCESS:
        return
    seen = track.snapshot_after_marker if track.markers else track.snapshot_seen
    if not seen:
        assert closed.response is not None
        after = MARKER_TAG if track.markers else "the request"
        yield Verdict(
            closed.response.line,
            f"resume of {window.session_id} succeeded with no {SNAPSHOT_TAG} after {after}",
            window.session_id,
            window.request.id,
        )


exception(
    "RC-INFLIGHT",
    "history",
    "SCHEMA ReplayComplete",
    "Not a finding: demotes RC-NOT-HISTORY and RC-REQUEST-BEFORE-MARKER for sessions already "
    "active at the resume.",
)
