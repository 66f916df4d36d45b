"""The cells of a row beside its gutter and event: the time since the first stamp, the
direction, and the link between a request and its response."""

from __future__ import annotations

from acptrace.model.domain import Direction, Stamp
from acptrace.render.cells import Cell
from acptrace.render.ci import ms_text
from acptrace.render.entries import Entry
from acptrace.render.timeline.kinds import REQUEST, RESPONSE
from acptrace.render.timeline.rows import NONE

ARROWS = {Direction.C2A: Cell("→"), Direction.A2C: Cell("←"), Direction.UNKNOWN: Cell("?")}
"""The direction of a message: to the Agent, to the client, unknown."""
_EVENT_MARK, ISSUE_MARK = Cell("·", "dim"), Cell("!", "bold yellow")
"""The direction cell of a recorder event, and of an input issue or a finding."""


def time_cell(origin: Stamp | None, stamp: Stamp | None) -> Cell:
    """The time since `origin` of this stamp (none without both)."""
    if origin is None or stamp is None:
        return NONE
    return time_cell_at(origin, stamp.ts_ns, stamp.mono_ns, stamp.approximate)


def time_cell_at(origin: Stamp, ts_ns: int | None, mono_ns: int | None, approximate: bool) -> Cell:
    """The time since `origin` of a stamp with these times (`time_cell`, without the stamp)."""
    ms = origin.ms_to(ts_ns, mono_ns)
    mark = "~" if origin.approximate or approximate else ""
    return Cell("" if ms is None else f"{mark}+{ms / 1000:.3f}s", "dim")


def direction_cell(entry: Entry) -> Cell:
    """Which way the entry's message went (`·` a recorder event, `!` an input issue)."""
    if entry.kind == "event":
        return _EVENT_MARK
    if entry.kind == "issue":
        return ISSUE_MARK
    return ARROWS[entry.direction or Direction.UNKNOWN]


UNANSWERED, PENDING_AT_END = Cell("⇢ unanswered", "dim"), Cell("⇢ pending at end", "dim")
"""A request never answered before the recorded (or assumed) end of the connection, and one
still waiting where the file stops (not judged unanswered: rules.md's JR-UNANSWERED)."""
_LATER = Cell("⇢ later", "dim")
"""A request whose answer, if any, comes after the look-ahead."""


def link_cell(entry: Entry, never_answered: Cell | None) -> Cell:
    """⇢ N on a request (answered at line N; `never_answered` when the input is read to its
    end without an answer, `⇢ later` before, when its answer, if any, comes after the
    look-ahead), ⇠ N · duration on a response."""
    if entry.kind == REQUEST and entry.message is not None:
        answer = entry.answered_by
        if answer is not None:
            return Cell(f"⇢ {answer.line}", "dim")
        return never_answered or _LATER
    if entry.kind == RESPONSE:
        if entry.request is None:
            return Cell("⇠ no request", "red")
        sent = Stamp.of(entry.request)
        duration = sent.ms_until(entry.stamp)
        mark = "~" if sent.approximate or (entry.stamp and entry.stamp.approximate) else ""
        timed = f" · {mark}{ms_text(duration)}" if duration is not None else ""
        return Cell(f"⇠ {entry.request.line}{timed}", "dim")
    return NONE
