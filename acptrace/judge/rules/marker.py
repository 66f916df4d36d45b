"""Rules on the marker for the requested session (rules.md §1)."""

from __future__ import annotations

from collections.abc import Iterator

from acptrace.correlate.observations import MisplacedMarker, Misplacement, WindowClosed
from acptrace.judge.rules.registry import Verdict, rule
from acptrace.model.domain import Severity, WindowEnd
from acptrace.model.excerpt import excerpt, plural, written_json

CURSOR_REJECTED = -32602


def judged_replay(closed: WindowClosed) -> bool:
    """A replaying resume whose markers can be attributed (not v1 load, not ambiguous)."""
    window = closed.window
    return window.replaying and window.method == "session/resume" and not window.ambiguous


@rule("RC-DUPLICATE", Severity.ERROR, "marker", 'RFD "exactly once"', WindowClosed)
def duplicate_marker(closed: WindowClosed) -> Iterator[Verdict]:
    """More than one replay_complete for the requested session in one replaying resume's window."""
    if not judged_replay(closed):
        return
    window = closed.window
    for extra in window.requested.markers[1:]:
        yield Verdict(
            extra.line,
            f"another replay_complete for {window.session_id} (first at line "
            f"{window.requested.markers[0].line})",
            window.session_id,
            window.request.id,
        )


@rule("RC-MISSING", Severity.ERROR, "marker", "RFD Outcomes row 5", WindowClosed)
def missing_marker(closed: WindowClosed) -> Iterator[Verdict]:
    """A replaying resume succeeded without a replay_complete for its session (unmarked_success)."""
    window = closed.window
    if judged_replay(closed) and closed.end is WindowEnd.SUCCESS and not window.requested.markers:
        assert closed.response is not None
        yield Verdict(
            closed.response.line,
            f"session/resume of {window.session_id} (line {window.request.line}) succeeded "
            "without replay_complete",
            window.session_id,
            window.request.id,
        )


def _register_misplaced(rule_id: str, source: str, kind: Misplacement, help_line: str) -> None:
    """Register a rule that reports the markers the correlator placed this way."""

    def check(observed: MisplacedMarker) -> Iterator[Verdict]:
        if observed.placement is kind:
            message = observed.message
            text = (
                f"replay_complete for {message.session_id}: {help_line[0].lower()}{help_line[1:]}"
            )
            if (answered := observed.answered) is not None:
                text = (
                    f"replay_complete for {message.session_id} after the response (line "
                    f"{answered.response_line}) to session/resume id "
                    f"{written_json(answered.request_id)} of {answered.session_id}"
                )
            yield Verdict(message.line, text, message.session_id, observed.request_id)

    rule(rule_id, Severity.ERROR, "marker", source, MisplacedMarker, help_line)(check)


_register_misplaced(
    "RC-AFTER-RESPONSE",
    'RFD "before the response"',
    Misplacement.AFTER_RESPONSE,
    "A marker after the response to a replaying resume of its session.",
)
_register_misplaced(
    "RC-WITHOUT-CURSOR",
    'RFD "MUST NOT … replayFrom omitted or null"',
    Misplacement.WITHOUT_CURSOR,
    "A marker in the window of a session/resume without replayFrom.",
)
_register_misplaced(
    "RC-UNSOLICITED",
    'RFD "MUST NOT … session/new"',
    Misplacement.UNSOLICITED,
    "A marker that no pending resume or announced child of its session asked for.",
)


@rule("RC-CURSOR-REJECTED", Severity.WARNING, "marker", "RFD Replay cursors", WindowClosed)
def cursor_rejected(closed: WindowClosed) -> Iterator[Verdict]:
    """A replaying resume answered -32602 whose window still holds a marker or updates."""
    window = closed.window
    track = window.requested
    if not (window.replaying and window.method == "session/resume"):
        return
    if closed.error_code != CURSOR_REJECTED or closed.response is None:
        return
    if track.markers or track.replayed or track.held:
        yield Verdict(
            closed.response.line,
            f"resume rejected with -32602, yet {len(track.markers)} replay_complete and "
            f"{plural(track.replayed + track.held, 'update')} for {window.session_id} came first",
            window.session_id,
            window.request.id,
        )


@rule(
    "RC-REPLAY-WITHOUT-CURSOR",
    Severity.ERROR,
    "marker",
    'SETUP "MUST NOT replay" (v1; v2 without replayFrom or with null)',
    WindowClosed,
)
def replay_without_cursor(closed: WindowClosed) -> Iterator[Verdict]:
    """A resume that asked for no replay carried user messages while no prompt was pending."""
    window = closed.window
    unasked = window.requested.unasked
    if not window.asks_for_no_replay or unasked is None:
        return
    asked = "on ACP v1" if window.request.replay_from is not None else "without replayFrom"
    yield Verdict(
        unasked.first_line,
        f"session/resume of {window.session_id} (line {window.request.line}, {asked}) must not "
        f"replay, yet {plural(unasked.count, 'user message update')} came while no prompt was "
        "pending, the first here",
        window.session_id,
        window.request.id,
    )


@rule("RC-UNKNOWN-CURSOR", Severity.NOTE, "marker", "SCHEMA ReplayFrom", WindowClosed)
def unknown_cursor(closed: WindowClosed) -> Iterator[Verdict]:
    """replayFrom.type is not "start": the Agent must reject it with -32602 unless supported."""
    window = closed.window
    cursor = window.request.replay_from
    if window.method != "session/resume" or cursor is None:
        return
    kind = cursor.get("type") if isinstance(cursor, dict) else None
    if kind == "start":
        return
    yield Verdict(
        window.request.line,
        f"replayFrom type {excerpt(kind)}: {_what_happened(closed)}",
        window.session_id,
        window.request.id,
    )


def _what_happened(closed: WindowClosed) -> str:
    """How the Agent answered a resume, in a few words."""
    markers = len(closed.window.requested.markers)
    match closed.end:
        case WindowEnd.SUCCESS:
            return f"the Agent accepted it ({markers} replay_complete)"
        case WindowEnd.ERROR:
            return f"the Agent answered error {closed.error_code} ({markers} replay_complete)"
        case WindowEnd.DISCONNECT | WindowEnd.TRACE_END:
            return f"no response before the end ({markers} replay_complete)"
