"""A transcript as a Chrome Trace Event timeline (JSON Object Format), for ui.perfetto.dev.

One process per transcript, one track (thread) per session and one for the connection:
requests as complete slices (`X`) from request to response, each replay window's phases
(`replay` to the marker, `held` to the last update after it, `setup` to the response) nested in
it, updates and markers as instant events (`i`), findings and input issues as instant events
with their rule and line, and `M` metadata naming processes and tracks. Times are
microseconds on one axis per transcript (`acptrace.export.trace_clock`). Slices that overlap
without nesting (concurrent requests of one session) go to a second track of the session, so
that every track's slices nest.
"""

from __future__ import annotations

import bisect
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, BinaryIO

import orjson

from acptrace.correlate.correlator import Step
from acptrace.export.trace_clock import Axis, Moment, choose_axis, place
from acptrace.model.domain import (
    Analysis,
    Message,
    MessageKind,
    ResumeRow,
    Role,
    connection_name,
)
from acptrace.model.options import Options
from acptrace.pipeline.analysis import Walk
from acptrace.pipeline.transcripts import open_walks, require_transcript
from acptrace.read.envelopes import RecorderEvent

CONNECTION = "connection"
"""The track of what belongs to no session."""
TEXT_SHOWN = 200
"""Characters of a stderr line kept in its event."""


@dataclass(slots=True)
class _Slice:
    """A complete event while its track and times are not settled yet."""

    track: str
    start: int
    """Index of its first moment."""
    end: int
    """Index of its last moment."""
    name: str
    cat: str
    args: dict[str, Any]


@dataclass(slots=True)
class _Instant:
    """An instant event while its track and time are not settled yet."""

    track: str
    at: int
    """Index of its moment."""
    name: str
    cat: str
    args: dict[str, Any]


@dataclass(slots=True)
class _Timeline:
    """What one transcript shows, gathered as it streams by."""

    path: str
    marker_tag: str
    moments: list[Moment] = field(default_factory=list)
    lines: list[int] = field(default_factory=list)
    """The lines of the records read, in input order (for finding a line's moment)."""
    read: list[int] = field(default_factory=list)
    """The moment of each of those records."""
    slices: list[_Slice] = field(default_factory=list)
    instants: list[_Instant] = field(default_factory=list)
    updates: dict[str, list[tuple[int, int]]] = field(default_factory=dict)
    """(line, moment) of each update, by session (for the `held` phase)."""
    tracks: dict[str, None] = field(default_factory=lambda: {CONNECTION: None})
    """Track names in order of appearance."""

    def moment(self, line: int, ts_ns: int | None, mono_ns: int | None, *, read: bool) -> int:
        """A new moment; `read` for a record as it is read (not a request met again later)."""
        self.moments.append(Moment(line, ts_ns, mono_ns))
        index = len(self.moments) - 1
        if read:
            self.lines.append(line)
            self.read.append(index)
        return index

    def at_line(self, line: int) -> int:
        """The moment of a line (the last record at or before it; the first before any)."""
        if not self.read:
            return self.moment(line, None, None, read=True)
        return self.read[max(bisect.bisect_right(self.lines, line) - 1, 0)]

    def track(self, session_id: str | None) -> str:
        name = CONNECTION if session_id is None else session_id
        self.tracks.setdefault(name, None)
        return name

    def step(self, step: Step) -> None:
        message = step.message
        at = self.moment(message.line, message.ts_ns, message.mono_ns, read=True)
        match message.kind:
            case MessageKind.RESPONSE:
                request = step.request
                if request is None:
                    args = {"line": message.line, "id": message.id}
                    self.instant(None, at, "orphan response", "response", args)
                else:
                    start = self.moment(request.line, request.ts_ns, request.mono_ns, read=False)
                    self.request(request, start, at, message)
            case MessageKind.NOTIFICATION:
                self.notification(message, at)
            case MessageKind.REQUEST:
                pass  # a slice once answered (or at the end)

    def request(self, request: Message, start: int, end: int, response: Message | None) -> None:
        args: dict[str, Any] = {
            "file": self.path,
            "line": request.line,
            "id": request.id,
            "direction": request.direction.value,
            "session": request.session_id,
        }
        if response is None:
            args["unanswered"] = True
        else:
            args["response_line"] = response.line
            args["error_code"] = response.error_code
        name = request.method or "request"
        self.slices.append(
            _Slice(self.track(request.session_id), start, end, name, "request", args)
        )

    def notification(self, message: Message, at: int) -> None:
        args = {"file": self.path, "line": message.line, "direction": message.direction.value}
        if message.method == "session/update" and message.session_id is not None:
            tag = message.update_tag or "session/update"
            cat = "marker" if tag == self.marker_tag else "update"
            self.updates.setdefault(message.session_id, []).append((message.line, at))
            if message.update_session_id is not None:
                args["child_session"] = message.update_session_id
            self.instant(message.session_id, at, tag, cat, args)
        else:
            self.instant(message.session_id, at, message.method or "notification", "notice", args)

    def instant(
        self, session_id: str | None, at: int, name: str, cat: str, args: dict[str, Any]
    ) -> None:
        self.instants.append(_Instant(self.track(session_id), at, name, cat, args))

    def event(self, event: RecorderEvent) -> None:
        at = self.moment(event.line, event.ts_ns, event.mono_ns, read=True)
        args: dict[str, Any] = {"file": self.path, "line": event.line}
        text = event.detail.get("text")
        if isinstance(text, str):
            args["text"] = text[:TEXT_SHOWN]
        for key in ("reason", "exit_code"):
            if key in event.detail:
                args[key] = event.detail[key]
        self.instant(None, at, event.kind, "recorder", args)

    def finish(self, analysis: Analysis, unanswered: Sequence[Message]) -> None:
        """What only the end tells: unanswered requests, replay phases, findings, issues."""
        last = self.read[-1] if self.read else self.moment(0, None, None, read=True)
        for request in unanswered:
            start = self.moment(request.line, request.ts_ns, request.mono_ns, read=False)
            self.request(request, start, last, None)
        for row in analysis.resumes:
            self.phases(row, last)
        for finding in analysis.findings:
            args = {
                "file": self.path,
                "rule": finding.rule,
                "severity": finding.severity.value,
                "line": finding.line,
                "message": finding.message,
                "request_id": finding.request_id,
            }
            at = self.at_line(finding.line)
            self.instant(finding.session_id, at, finding.rule, "finding", args)
        for issue in analysis.issues:
            args = {"file": self.path, "line": issue.line, "kind": issue.kind}
            args["message"] = issue.message
            self.instant(None, self.at_line(issue.line), issue.kind, "issue", args)

    def phases(self, row: ResumeRow, last: int) -> None:
        """A replaying row's window: replay until the marker, held, setup until the end."""
        if not row.replaying:
            return
        opened = row.request_line if row.role is Role.REQUESTED else row.announce_line
        start = self.at_line(opened or row.request_line)
        end = self.at_line(row.response_line) if row.response_line is not None else last
        args: dict[str, Any] = {
            "file": self.path,
            "session": row.session_id,
            "role": row.role.value,
            "outcome": row.outcome.value,
            "end": row.end.value,
            "request_line": row.request_line,
            "marker_line": row.marker_line,
            "response_line": row.response_line,
            "replayed_updates": row.replayed_updates,
            "held_updates": row.held_updates,
            "max_replay_gap_ms": row.max_replay_gap_ms,
            "marker_to_response_ms": row.marker_to_response_ms,
        }
        track = self.track(row.session_id)
        if row.marker_line is None:
            self.slices.append(_Slice(track, start, end, "replay", "window", args))
            return
        marker = self.at_line(row.marker_line)
        self.slices.append(_Slice(track, start, marker, "replay", "window", args))
        held = self._last_update(row.session_id, row.marker_line, row.response_line)
        if held is not None:
            self.slices.append(_Slice(track, marker, held, "held", "window", args))
        setup = marker if held is None else held
        self.slices.append(_Slice(track, setup, end, "setup", "window", args))

    def _last_update(self, session_id: str, after: int, before: int | None) -> int | None:
        """The moment of the session's last update after line `after`, before line `before`."""
        updates = self.updates.get(session_id, [])
        limit = before if before is not None else 2**63
        index = bisect.bisect_left(updates, (limit, -1)) - 1
        if index >= 0 and updates[index][0] > after:
            return updates[index][1]
        return None


def trace_events(
    sources: Sequence[str | os.PathLike[str] | BinaryIO],
    options: Options | None = None,
    *,
    require_transcripts: bool = False,
) -> dict[str, Any]:
    """The Trace Event document of these transcripts (one process per connection, in order);
    with `require_transcripts`, `NotATranscript` for a file that does not look like one."""
    options = options or Options()
    events: list[dict[str, Any]] = []
    axes = []
    pid = 0
    for source in sources:
        with open_walks(source, options) as walks:
            for walk in walks:
                pid += 1
                timeline = _timeline_of(walk, options)
                axis = choose_axis(timeline.moments)
                axes.append(axis)
                events.extend(_events(timeline, pid, axis))
            if require_transcripts and walks:
                require_transcript(walks[0].name, [walk.analysis for walk in walks])
    return {
        "traceEvents": events,
        "displayTimeUnit": "ms",
        "otherData": {"generator": "acptrace", "axes": [axis.value for axis in axes]},
    }


def _timeline_of(walk: Walk, options: Options) -> _Timeline:
    """One connection's timeline (a process of its own: named by its file and connection)."""
    timeline = _Timeline(connection_name(walk.name, walk.connection), options.marker_tag)
    for item in walk:  # (issues are listed from the analysis, with the findings)
        if isinstance(item, Step):
            timeline.step(item)
        elif isinstance(item, RecorderEvent):
            timeline.event(item)
    timeline.finish(walk.analysis, walk.unanswered)
    return timeline


def dumps(document: dict[str, Any]) -> bytes:
    """The document as JSON bytes (one trailing newline)."""
    return orjson.dumps(document, option=orjson.OPT_APPEND_NEWLINE)


def _events(timeline: _Timeline, pid: int, axis: Axis) -> Iterator[dict[str, Any]]:
    """Metadata, then every slice and instant in time order (a slice before what it holds)."""
    times = place(timeline.moments, axis)
    lanes = _lanes(timeline.slices, times)
    tids: dict[tuple[str, int], int] = {}
    for index, track in enumerate(timeline.tracks):
        top = max((lane for (name, lane) in lanes.values() if name == track), default=0)
        for lane in range(top + 1):
            tids[(track, lane)] = len(tids) + 1
            label = track if lane == 0 else f"{track} ({lane + 1})"
            yield _meta(pid, tids[(track, lane)], "thread_name", {"name": label})
            yield _meta(pid, tids[(track, lane)], "thread_sort_index", {"sort_index": index})
    untimed = " (no times: one line = 1 µs)" if axis is Axis.LINES else ""
    yield _meta(pid, 0, "process_name", {"name": timeline.path + untimed})
    yield _meta(pid, 0, "process_sort_index", {"sort_index": pid})
    timed: list[tuple[float, float, dict[str, Any]]] = []
    for number, piece in enumerate(timeline.slices):
        start, end = times[piece.start], times[piece.end]
        tid = tids[lanes[number]]
        event = _base(piece.name, piece.cat, "X", start, pid, tid, piece.args)
        event["dur"] = max(end - start, 0)
        timed.append((start, -event["dur"], event))
    for instant in timeline.instants:
        at = times[instant.at]
        event = _base(
            instant.name, instant.cat, "i", at, pid, tids[(instant.track, 0)], instant.args
        )
        event["s"] = "t"
        timed.append((at, 0.0, event))
    timed.sort(key=lambda item: (item[0], item[1]))
    for _, _, event in timed:
        yield event


def _lanes(slices: Sequence[_Slice], times: Sequence[int]) -> dict[int, tuple[str, int]]:
    """(track, lane) of each slice: the first lane of its track where it nests."""
    order = sorted(
        range(len(slices)),
        key=lambda i: (times[slices[i].start], -times[slices[i].end], i),
    )
    stacks: dict[str, list[list[int]]] = {}
    placed: dict[int, tuple[str, int]] = {}
    for number in order:
        piece = slices[number]
        start, end = times[piece.start], max(times[piece.end], times[piece.start])
        lanes = stacks.setdefault(piece.track, [])
        for lane, stack in enumerate([*lanes, []]):
            while stack and stack[-1] <= start:
                stack.pop()
            if not stack or stack[-1] >= end:
                if lane == len(lanes):
                    lanes.append(stack)
                stack.append(end)
                placed[number] = (piece.track, lane)
                break
    return placed


def _base(
    name: str, cat: str, ph: str, ts: float, pid: int, tid: int, args: dict[str, Any]
) -> dict[str, Any]:
    return {"name": name, "cat": cat, "ph": ph, "ts": ts, "pid": pid, "tid": tid, "args": args}


def _meta(pid: int, tid: int, name: str, args: dict[str, Any]) -> dict[str, Any]:
    return {"name": name, "ph": "M", "pid": pid, "tid": tid, "args": args}
