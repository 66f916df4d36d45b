"""The event cell of a row: the indent of its session's depth in the tree of sessions, its
label (method or update tag, id, session, the session it announces), then its payload."""

from __future__ import annotations

from acptrace.model.domain import Message, MessageKind
from acptrace.model.tags import ANNOUNCE_TAG
from acptrace.render.cells import Cell, Part, inert_part
from acptrace.render.ci import id_text
from acptrace.render.entries import Entry, View
from acptrace.render.text import short_id
from acptrace.render.timeline.kinds import NOTIFICATION

Label = tuple[tuple[Part, ...], str]
"""A message's label: its parts, and their text joined."""
_UPDATE_LABELS: dict[tuple[bool, str, str, bool], Label] = {}
"""The label of an update that announces nothing, by marker, label, session and view (most
rows of a transcript: a few sessions, a few tags); emptied when it holds `LABELS_KEPT`."""
LABELS_KEPT = 1024
"""How many labels a cache of them holds before it is emptied."""


def event_cell(entry: Entry, depth: int, view: View) -> Cell:
    """The row's main cell: label, ids, session and payload."""
    message = entry.message
    label: tuple[Part, ...]
    if message is not None:  # (a message's entry: never an issue or an event)
        label, plain = _message_label(entry, message, view)
    elif entry.kind == NOTIFICATION:  # (a plain update read straight from its run's line)
        label, plain = update_label(entry.marker, entry.label, entry.session_id, view)
    elif entry.kind == "issue" or entry.kind == "event":
        part = inert_part(entry.label, "yellow" if entry.kind == "issue" else "dim")
        label, plain = (part,), part[0]
    else:
        label, plain = (), ""
    return with_detail(indented((label, plain), depth), entry.detail)


def indented(label: Label, depth: int) -> Label:
    """The start of an event cell: the indent of its session's depth, then its label."""
    indent = _INDENTS[depth]
    parts, plain = label
    return (indent, *parts), indent[0] + plain


def with_detail(head: Label, detail: str) -> Cell:
    """The event cell of a row: its start (`indented`: indent and label), then its detail (the
    parts joined here, as `Cell.joined` joins them)."""
    parts, plain = head
    if detail:
        shown = inert_part(detail, "dim")
        return Cell(f"{plain} {shown[0]}", parts=(*parts, _SPACE, shown), whole=len(plain))
    return Cell(plain, parts=parts, whole=len(plain))


class _Indents(dict[int, Part]):
    """The indent part of a row at each depth of the tree of sessions, made once."""

    def __missing__(self, depth: int) -> Part:
        part = self[depth] = ("  " * depth, "")
        return part


_INDENTS = _Indents()
_SPACE: Part = (" ", "")


def _message_label(entry: Entry, message: Message, view: View) -> Label:
    """The label of a message's entry (an update that announces nothing: `update_label`)."""
    session_id = message.session_id
    if (
        message.kind is MessageKind.NOTIFICATION
        and session_id is not None
        and message.update_tag != ANNOUNCE_TAG
    ):
        return update_label(entry.marker, entry.label, entry.session_id, view)
    return _joined(_labelled(entry, message, view))


def update_label(marker: bool, tag: str, session_id: str | None, view: View) -> Label:
    """The label of an update of a session that announces nothing (its entry's session is its
    own), made once per marker, label (its tag, cut), session and view."""
    assert session_id is not None
    key = (marker, tag, session_id, view.full)
    label = _UPDATE_LABELS.get(key)
    if label is None:
        if len(_UPDATE_LABELS) >= LABELS_KEPT:
            _UPDATE_LABELS.clear()
        label = _UPDATE_LABELS[key] = _joined(_update_parts(marker, tag, session_id, view))
    return label


def _update_parts(marker: bool, tag: str, session_id: str | None, view: View) -> list[Part]:
    """An update's label, then its session (when it has one)."""
    parts = [inert_part(("◆ " if marker else "") + tag, "cyan")]
    if session_id is not None:
        parts.append((" ", ""))
        parts.append(inert_part(session_text(session_id, view), "magenta"))
    return parts


def _joined(parts: list[Part]) -> Label:
    """The parts as a label."""
    return tuple(parts), "".join([part for part, _ in parts])


def _labelled(entry: Entry, message: Message, view: View) -> list[Part]:
    """A message's label: a request's method and id, a response's status and id, an update's
    tag; then its session, and the session it announces."""
    match message.kind:
        case MessageKind.RESPONSE:
            status = (
                (f"error {message.error_code}", "red") if message.is_error else ("result", "green")
            )
            return [("↩ ", ""), status, inert_part(f" #{id_text(message.id)}", "bold")]
        case MessageKind.REQUEST:
            parts = [inert_part(f"{entry.label} #{id_text(message.id)}", "bold")]
            if message.session_id is not None:
                parts.append((" ", ""))
                parts.append(inert_part(session_text(message.session_id, view), "magenta"))
        case MessageKind.NOTIFICATION:
            parts = _update_parts(entry.marker, entry.label, message.session_id, view)
    if message.update_tag == ANNOUNCE_TAG and message.update_session_id is not None:
        parts.append((" announces ", ""))
        parts.append(inert_part(session_text(message.update_session_id, view), "magenta"))
    return parts


def session_text(session_id: str, view: View) -> str:
    """A session's id as the view shows it: whole, or shortened in the middle."""
    return session_id if view.full else short_id(session_id)
