"""Outcome rows: each closed window classified by the RFD's outcome table, with latencies."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from msgspec.structs import replace

from acptrace.correlate.observations import WindowClosed
from acptrace.correlate.tracks import Track, Window
from acptrace.model.domain import Outcome, ReplayPause, ResumeRow, Role, Stamp, WindowEnd


def rows_for(closed: WindowClosed) -> Iterator[ResumeRow]:
    """The requested session's row, then one per child announced in the window."""
    window = closed.window
    if not window.replaying:
        yield _row(closed, window.requested, Role.REQUESTED)
        return
    for track in window.tracks():
        role = Role.REQUESTED if track is window.requested else Role.CHILD
        yield _row(closed, track, role)


def classify(window: Window, track: Track, end: WindowEnd) -> Outcome:
    """The outcome class of one session in one window (outcomes.md)."""
    open_at_unknown_end = end is WindowEnd.TRACE_END
    if window.ambiguous:  # overlapping replays of one session (their children too, §3, §11)
        return Outcome.AMBIGUOUS
    refused = (  # an error before any update: nothing replayed (the requested session, §11)
        end is WindowEnd.ERROR and track.first_update is None and track is window.requested
    )
    if window.method == "session/load":
        if end is WindowEnd.SUCCESS:
            return Outcome.LOADED
        if refused:
            return Outcome.REFUSED
        return Outcome.UNKNOWN if open_at_unknown_end else Outcome.TRUNCATED
    if not window.replaying:
        return Outcome.UNKNOWN if open_at_unknown_end else Outcome.NO_REPLAY
    if open_at_unknown_end:
        return Outcome.UNKNOWN
    marked = bool(track.markers)
    if end is WindowEnd.SUCCESS:
        return Outcome.COMPLETE if marked else Outcome.UNMARKED_SUCCESS
    if refused:
        return Outcome.REFUSED
    return Outcome.COMPLETE_FAILED if marked else Outcome.TRUNCATED


def _row(closed: WindowClosed, track: Track, role: Role) -> ResumeRow:
    window = closed.window
    request = Stamp.of(window.request)
    marker = track.first_marker()
    response = closed.response
    outcome = classify(window, track, closed.end)
    pauses = tuple(  # (a refused replay replayed nothing: it had no silence to measure)
        ReplayPause(round(gap_ns / 1e6, 3), track.replayed - before)
        for gap_ns, before in track.replay_pauses(response, window.ambiguous)
        if outcome is not Outcome.REFUSED
    )
    approximate = _approximate(
        (request, track.first_update, marker, response, track.announce, track.replay_at)
    )
    row = ResumeRow(
        request_id=window.request.id,
        session_id=track.session_id,
        role=role,
        parent_session_id=track.parent_id,
        method=window.method,
        replay_from=window.request.replay_from,
        outcome=outcome,
        end=closed.end,
        error_code=closed.error_code,
        cancelled=window.cancelled,
        marker_count=len(track.markers),
        replayed_updates=track.replayed,
        held_updates=track.held,
        request_line=request.line,
        marker_line=marker.line if marker else None,
        response_line=response.line if response else None,
        request_to_first_update_ms=_ms(request, track.first_update),
        request_to_marker_ms=_ms(request, marker),
        marker_to_response_ms=_ms(marker, response),
        request_to_response_ms=_ms(request, response),
        announce_line=track.announce.line if track.announce else None,
        max_replay_gap_ms=None if approximate else (pauses[-1].gap_ms if pauses else None),
        replay_pauses=() if approximate else pauses,
    )
    if approximate and any(ms is not None for ms in _latencies(row)):
        return replace(row, approximate=True)
    return row


def _approximate(stamps: Iterable[Stamp | None]) -> bool:
    """Whether a time the row measures from is an estimate (a Zed dump's). The replay's last
    message stands for the updates before it: times are estimated from some point of a dump
    on, so when an earlier update's time is an estimate, so is the last one's."""
    return any(stamp is not None and stamp.approximate for stamp in stamps)


def _latencies(row: ResumeRow) -> tuple[float | None, ...]:
    """The latencies of a row (an approximate row has no replay gaps: see `ResumeRow`)."""
    return (
        row.request_to_first_update_ms,
        row.request_to_marker_ms,
        row.marker_to_response_ms,
        row.request_to_response_ms,
    )


def _ms(start: Stamp | None, end: Stamp | None) -> float | None:
    """Milliseconds between two stamps, never negative (`Stamp.ms_until`, rules.md §9); None
    when either end is missing, or no clock gives a difference that is not negative."""
    return None if start is None else start.ms_until(end)
