"""What `acptrace timeline` shows: the entries of one connection, session, request or stretch.

`TimelineBuilder` follows a walk and keeps the entries a `View` asks for (the whole connection,
a session tree, a request and what came while it was pending, lines around one), with each
payload cut to `PAYLOAD_CHARS` unless the view is full; `acptrace.render.timeline` takes them
as they come and lays them out. Memory holds the entries not yet taken, not the transcript.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import msgspec

from acptrace.correlate.correlator import Step
from acptrace.decode.classify import Found
from acptrace.decode.views import run_updates, shown_payload
from acptrace.model.domain import (
    Direction,
    Issue,
    JsonId,
    Message,
    MessageKind,
    SessionInfo,
    Stamp,
    UpdateRun,
)
from acptrace.model.excerpt import json_text
from acptrace.model.tags import ANNOUNCE_TAG, MARKER_TAG
from acptrace.read.envelopes import RecorderEvent

PAYLOAD_CHARS = 72
"""Payloads and other transcript text longer than this are cut (`…`) unless `full`."""
DEFAULT_CONTEXT = 10
"""Lines shown either side of `--around LINE`."""

_COLOURS = re.compile("\x1b\\[[0-9;]*m")
"""Terminal colour codes (SGR) in a line an Agent wrote to stderr for a terminal (codex-acp's
logs): left out of the row, where each would show as `\\x1b[…m` and fill it; any other control
code is still shown escaped."""


@dataclass(frozen=True, slots=True)
class View:
    """Which part of the connection to show (all of it when nothing is set)."""

    session: str | None = None
    """Only this session, the sessions it announces, and the answers to their requests."""
    request: str | None = None
    """Only requests with this id (`3`, `abc` or `"abc"`), their answers and what came between."""
    around: int | None = None
    """Only lines within `context` of this one."""
    context: int = DEFAULT_CONTEXT
    """How many lines either side of `around`."""
    full: bool = False
    """Show payloads and identifiers whole instead of cut."""
    lines: tuple[int, int | None] | None = None
    """Only input lines from the first to the second (both included; None: to the end)."""

    @property
    def focused(self) -> bool:
        """Whether the view follows a session or a request (not just lines)."""
        return self.session is not None or self.request is not None

    def in_lines(self, line: int) -> bool:
        """Whether the line is in the stretch the view shows."""
        if self.lines is not None:
            first, last = self.lines
            if line < first or (last is not None and line > last):
                return False
        return self.around is None or abs(line - self.around) <= self.context

    @property
    def first_line(self) -> int | None:
        """The first line the view can show (None: the start of the transcript)."""
        starts = [self.lines[0]] if self.lines is not None else []
        if self.around is not None:
            starts.append(max(1, self.around - self.context))
        return max(starts, default=None)

    @property
    def last_line(self) -> int | None:
        """The last line the view can show (None: the end of the transcript)."""
        ends = [self.lines[1]] if self.lines is not None and self.lines[1] is not None else []
        if self.around is not None:
            ends.append(self.around + self.context)
        return min(ends, default=None)

    def describe(self) -> str:
        """The view in words, for the header."""
        parts = []
        if self.session is not None:
            parts.append(f"session {self.session}")
        if self.request is not None:
            parts.append(f"request {self.request}")
        if self.around is not None:
            parts.append(f"lines {max(1, self.around - self.context)}-{self.around + self.context}")
        if self.lines is not None:
            first, last = self.lines
            parts.append(f"lines {first}-{'' if last is None else last}")
        return ", ".join(parts) or "whole connection"


class Entry(msgspec.Struct, gc=False):
    """One row of the timeline: a message, a recorder event or an input issue (a Struct: made
    for every message, several times faster than a dataclass)."""

    line: int
    """Input line."""
    kind: str
    """`request`, `notification`, `response`, `event` or `issue`."""
    label: str
    """Method, update tag, event or issue kind."""
    stamp: Stamp | None = None
    """When it happened (None for issues)."""
    direction: Direction | None = None
    """Which way a message travelled."""
    message: Message | None = None
    """The message, for message rows (None for an update read straight from its run's line:
    `TimelineBuilder.add` of an `UpdateRun`; its kind is still `notification`)."""
    session_id: str | None = None
    """The session it concerns (a response: its request's)."""
    detail: str = ""
    """The payload (or event text), cut unless the view is full."""
    request: Message | None = None
    """For a response: the request it answers."""
    answered_by: Message | None = None
    """For a request: its response, once seen."""
    marker: bool = False
    """A replay marker (`replay_complete`)."""


UpdateRow = Callable[
    [int, int | None, int | None, str, Direction | None, str | None, str, bool], Any
]
"""Makes what is kept of a plain update of a run instead of its `Entry`, or None (its entry),
from what its entry would hold: line, wall and monotonic times, label (its tag, cut),
direction, session, detail (cut), whether it is the replay marker."""


@dataclass(slots=True)
class TimelineBuilder:
    """Follows a walk, keeping the entries the view selects."""

    view: View
    """What to show."""
    marker_tag: str = MARKER_TAG
    """The update tag that ends a replay (drawn ◆)."""
    entries: list[Any] = field(default_factory=list)
    """The entries kept and not yet taken (`take`), in transcript order (and what `update_row`
    made instead of an entry)."""
    update_row: UpdateRow | None = None
    """Makes what is kept for a plain update of a run instead of its `Entry` (the timeline's
    row, when it can be made as the line is read), or None: its entry."""
    origin: Stamp | None = None
    """The first timestamp of the transcript (relative times count from it)."""
    focus: set[str] = field(default_factory=set)
    """Sessions in view: the session and its descendants (known ahead from `session_tree`, or
    learnt from announcements as they stream by)."""
    open_requests: list[Message] = field(default_factory=list)
    """Requests with the viewed id still waiting for their answer."""
    shown_requests: dict[int, Entry] = field(default_factory=dict)
    """Request entries kept and still unanswered, by `id()` of their message (the correlator
    holds the message while it is pending), to link their answers to."""
    parents: dict[str, str] = field(default_factory=dict)
    """Each session announced so far, with the session that announced it."""

    _whole: bool = field(init=False)
    """The view shows every message (none need be asked about: `View.in_lines`, `_wanted`)."""

    def __post_init__(self) -> None:
        if self.view.session is not None:
            self.focus.add(self.view.session)
        view = self.view
        self._whole = view == View(context=view.context, full=view.full)

    def awaiting_answers(self) -> bool:
        """Whether a request kept for the view still waits for its answer."""
        return bool(self.shown_requests)

    def take(self) -> list[Any]:
        """The entries kept since the last call (the builder lets go of them)."""
        taken, self.entries = self.entries, []
        return taken

    def add(self, item: Step | RecorderEvent | Issue | UpdateRun) -> None:
        """Follow one item of the walk (a run of plain updates with its lines: each update)."""
        if isinstance(item, Step):
            if self.origin is None:
                self._note_time(Stamp.of(item.message))
            self._step(item)
            return
        if isinstance(item, UpdateRun):
            self._run(item)
            return
        unfocused = not self.view.focused
        if isinstance(item, RecorderEvent):
            stamp = Stamp(item.line, item.ts_ns, item.mono_ns)
            self._note_time(stamp)
            if unfocused and self.view.in_lines(item.line):
                detail = self._event(item)
                event = Entry(item.line, "event", self._cut(item.kind), stamp, detail=detail)
                self.entries.append(event)
        elif unfocused and self.view.in_lines(item.line):
            issue = Entry(item.line, "issue", self._cut(item.kind), detail=self._cut(item.message))
            self.entries.append(issue)

    def _note_time(self, stamp: Stamp) -> None:
        if self.origin is None and (stamp.ts_ns is not None or stamp.mono_ns is not None):
            self.origin = stamp

    def _step(self, step: Step) -> None:
        message, request, view = step.message, step.request, self.view
        child = message.update_session_id if message.update_tag == ANNOUNCE_TAG else None
        if child is not None and message.session_id is not None:
            self.parents.setdefault(child, message.session_id)
            if message.session_id in self.focus:
                self.focus.add(child)
        if (
            view.request is not None
            and message.kind is MessageKind.REQUEST
            and _id_matches(message.id, view.request)
        ):
            self.open_requests.append(message)
        linked = self.shown_requests.pop(id(request), None) if request is not None else None
        if linked is not None:
            linked.answered_by = message
        if self._whole or (
            view.in_lines(message.line) and (linked is not None or self._wanted(step))
        ):
            self._append(step)
        if request is not None and any(r is request for r in self.open_requests):
            self.open_requests = [r for r in self.open_requests if r is not request]

    def _run(self, run: UpdateRun) -> None:
        """Each update of a run: the first, and any line the run took on the general path, as
        a step; the others' entries straight from their lines (`run_updates`), with what
        `_step` and `_append` make of a plain update (it opens, links and announces nothing)
        without its `Message`."""
        first = run.first
        direction, session, view = first.direction, first.session_id, self.view
        entries, cut, marker_tag, whole = self.entries, self._cut, self.marker_tag, self._whole
        update_row = self.update_row
        for update in run_updates(run):
            if isinstance(update, Found):
                self.add(Step(update.message, payload=update.payload))
                continue
            line, ts_ns, mono_ns, tag = update.line, update.ts_ns, update.mono_ns, update.tag
            if not whole and not (
                view.in_lines(line) and self._shows(session, update.update_session_id)
            ):
                continue
            if self.origin is None:
                self._note_time(Stamp(line, ts_ns, mono_ns))
            text = _update_text(update.update())
            # (`_cut` called only for what it cuts: most tags and many payloads are short)
            label = tag if len(tag) <= PAYLOAD_CHARS else cut(tag)
            detail = text if len(text) <= PAYLOAD_CHARS else cut(text)
            marker = tag == marker_tag
            if update_row is not None:
                row = update_row(line, ts_ns, mono_ns, label, direction, session, detail, marker)
                if row is not None:
                    entries.append(row)
                    continue
            entries.append(
                Entry(line, _NOTIFICATION, label, Stamp(line, ts_ns, mono_ns), direction, None,
                      session, detail, marker=marker)
            )  # fmt: skip

    def _wanted(self, step: Step) -> bool:
        message = step.message
        about = step.request.session_id if step.request is not None else message.session_id
        return self._shows(about, *message.result_session_ids, message.update_session_id)

    def _shows(self, session: str | None, *named: str | None) -> bool:
        """Whether the view shows a message about this session that names these sessions
        (a plain update: the one its update names): one of them in focus, and, viewing a
        request, while it waits for its answer."""
        view, focus = self.view, self.focus
        if (
            view.session is not None
            and session not in focus
            and not any(s in focus for s in named if s)
        ):
            return False
        return view.request is None or bool(self.open_requests)

    def _append(self, step: Step) -> None:
        message, request, cut = step.message, step.request, self._cut
        session = request.session_id if request is not None else message.session_id
        entry = Entry(
            message.line,
            _KIND[message.kind],
            cut(_label(message)),
            Stamp.of(message),
            message.direction,
            message,
            session,
            cut(_payload_text(message, step.payload)),
            request,
            marker=message.update_tag == self.marker_tag,
        )
        if message.kind is MessageKind.REQUEST:
            self.shown_requests[id(message)] = entry
        self.entries.append(entry)

    def _event(self, event: RecorderEvent) -> str:
        detail = event.said()
        if not detail:
            return ""
        text = detail.pop("text", None)
        if isinstance(text, str) and "\x1b[" in text:
            text = _COLOURS.sub("", text)
        shown = " ".join(f"{k}={_json(v)}" for k, v in detail.items())
        return self._cut(f"{text} {shown}".strip() if text is not None else shown)

    def _cut(self, text: str) -> str:
        if len(text) <= PAYLOAD_CHARS or self.view.full:
            return text
        return text[: PAYLOAD_CHARS - 1] + "…"


def session_tree(sessions: Sequence[SessionInfo], root: str) -> set[str]:
    """A session and every session announced under it, at any depth."""
    tree = {root}
    grew = True
    while grew:
        children = {s.session_id for s in sessions if s.parent_session_id in tree}
        grew = not children <= tree
        tree |= children
    return tree


def _id_matches(value: JsonId, wanted: str) -> bool:
    """`3` matches id 3; `abc` and `"abc"` match id "abc"."""
    return _json(value) == wanted or (isinstance(value, str) and value == wanted)


_KIND = {kind: kind.value for kind in MessageKind}
"""Each kind's name (an enum's `value` is a property: too slow for every row)."""
_NOTIFICATION = MessageKind.NOTIFICATION.value


def _label(message: Message) -> str:
    match message.kind:
        case MessageKind.RESPONSE:
            return "error" if message.is_error else "result"
        case MessageKind.REQUEST | MessageKind.NOTIFICATION:
            if message.method == "session/update" and message.update_tag is not None:
                return message.update_tag
            return message.method or ""


def _payload_text(message: Message, payload: Any) -> str:
    """The part of the JSON object worth reading: params (an update's body), result or error."""
    payload = shown_payload(payload)
    if not isinstance(payload, dict):
        return ""
    match message.kind:
        case MessageKind.RESPONSE:
            body = payload.get("error") if message.is_error else payload.get("result")
        case MessageKind.REQUEST | MessageKind.NOTIFICATION:
            body = payload.get("params")
            update = body.get("update") if isinstance(body, dict) else None
            if message.update_tag is not None and isinstance(update, dict):
                return _update_text(update)
            if isinstance(body, dict) and message.session_id is not None:
                body = dict(body)
                del body["sessionId"]
    return "" if body is None or body == {} else json_text(body)


def _update_text(update: dict[str, Any]) -> str:
    """The text of an update's body: the update without its tag (`sessionUpdate`)."""
    body = dict(update)  # (a copy without one key, in C)
    del body["sessionUpdate"]
    return json_text(body) if body else ""


def _json(value: Any) -> str:
    return json_text(value)


def session_depth(parents: Mapping[str, str | None], session_id: str | None) -> int:
    """How deep a session is in the tree of announcements (0 for a top-level session)."""
    depth, current, seen = 0, parents.get(session_id or ""), {session_id}
    while current is not None and current not in seen:
        depth, seen = depth + 1, seen | {current}
        current = parents.get(current)
    return depth
