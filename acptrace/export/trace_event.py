"""A transcript as a Chrome Trace Event timeline (JSON Object Format), for ui.perfetto.dev.

One process per transcript, one track (thread) per session and one for the connection:
requests as complete slices (`X`) from request to response, each replay window's phases
(`replay` to the marker, `held` to the last update after it, `setup` to the response) nested in
it, turns, tool calls and permission waits as slices nested in their session's track (with
each turn's first output an instant: `acptrace.export.trace_turns`), updates and markers as
instant events (`i`), findings and input issues as instant events with their rule and line,
and `M` metadata naming processes and tracks. Times are microseconds on one axis per
transcript (`acptrace.export.trace_clock`). Slices that overlap without nesting (concurrent
requests or tool calls of one session) go to a second track of the session, so that every
track's slices nest.

The export streams, in a fixed amount of memory however long the transcript: what it gathers
(each moment's times, each event) is parked on disk as it comes (`acptrace.model.spill`, in
a scratch folder of the system's temporary folder, removed on SIGTERM and SIGINT too), the few
things only the end can tell (the moment of a finding's line, the last update before a
response) are looked up in one more pass over the moments, and the events are sorted into
time order on disk, in batches, as they are written.
"""

from __future__ import annotations

import io
import os
import tempfile
from array import array
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, BinaryIO

import orjson

from acptrace.correlate.correlator import Step
from acptrace.export.trace_clock import Axis, Clock, Moment
from acptrace.export.trace_turns import lines_asked, turn_events
from acptrace.model.domain import (
    Analysis,
    Message,
    MessageKind,
    ResumeRow,
    Role,
    connection_name,
)
from acptrace.model.options import Options
from acptrace.model.spill import Spill, sorted_records
from acptrace.model.temporary import scratch_folder
from acptrace.pipeline.analysis import Walk
from acptrace.pipeline.transcripts import open_walks, require_transcript
from acptrace.read.envelopes import RecorderEvent

CONNECTION = "connection"
"""The track of what belongs to no session."""
TEXT_SHOWN = 200
"""Characters of a stderr line kept in its event."""


SLICE, INSTANT = 0, 1
"""The kind of a parked event (slices before instants at the same time, as they were)."""
WRITE_BYTES = 1 << 20
"""Output is handed on in pieces of about this size."""

Write = Callable[[bytes], object]


class _Timeline:
    """What one transcript shows, gathered as it streams by: moments and events on disk."""

    __slots__ = (
        "clock",
        "events",
        "instants",
        "last_read",
        "marker_tag",
        "moments",
        "path",
        "reads",
        "sessions",
        "slices",
        "tracks",
    )

    def __init__(self, path: str, marker_tag: str, folder: Path) -> None:
        self.path = path
        self.marker_tag = marker_tag
        self.clock = Clock()
        self.moments = Spill(folder / "moments")
        """(line, read, update's session number or -1, monotonic, wall, lines) of each."""
        self.events = Spill(folder / "events")
        """(kind, number, track, start moment, end moment, name, cat, args JSON) of each."""
        self.slices = 0
        self.instants = 0
        self.reads = 0
        self.last_read = -1
        self.tracks: dict[str, int] = {CONNECTION: 0}
        """Track numbers in order of appearance."""
        self.sessions: dict[str, int] = {}
        """Numbers of the sessions that had updates."""

    def moment(
        self,
        line: int,
        ts_ns: int | None,
        mono_ns: int | None,
        *,
        read: bool,
        update: int = -1,
        estimated: bool = False,
    ) -> int:
        """A new moment; `read` for a record as it is read (not a request met again later),
        `update` the session number of a session's update, `estimated` when its times are."""
        filled = self.clock.add(Moment(line, ts_ns, mono_ns, estimated))
        self.moments.add((line, read, update, *filled))
        index = self.moments.count - 1
        if read:
            self.reads += 1
            self.last_read = index
        return index

    def track(self, session_id: str | None) -> int:
        name = CONNECTION if session_id is None else session_id
        return self.tracks.setdefault(name, len(self.tracks))

    def slice(
        self, session_id: str | None, start: int, end: int, name: str, cat: str, args: Any
    ) -> None:
        track = self.track(session_id)
        data = orjson.dumps(args)  # (names may be StrEnums: parked as the text they stand for)
        self.events.add((SLICE, self.slices, track, start, end, str(name), cat, data))
        self.slices += 1

    def instant(
        self, session_id: str | None, at: int, name: str, cat: str, args: dict[str, Any]
    ) -> None:
        track = self.track(session_id)
        data = orjson.dumps(args)  # (names may be StrEnums: parked as the text they stand for)
        self.events.add((INSTANT, self.instants, track, at, at, str(name), cat, data))
        self.instants += 1

    def step(self, step: Step) -> None:
        message = step.message
        update = -1
        if message.kind is MessageKind.NOTIFICATION and _is_update(message):
            assert message.session_id is not None
            update = self.sessions.setdefault(message.session_id, len(self.sessions))
        at = self.moment(
            message.line,
            message.ts_ns,
            message.mono_ns,
            read=True,
            update=update,
            estimated=message.approximate,
        )
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
        self.slice(request.session_id, start, end, request.method or "request", "request", args)

    def notification(self, message: Message, at: int) -> None:
        args = {"file": self.path, "line": message.line, "direction": message.direction.value}
        if _is_update(message):
            tag = message.update_tag or "session/update"
            cat = "marker" if tag == self.marker_tag else "update"
            if message.update_session_id is not None:
                args["child_session"] = message.update_session_id
            self.instant(message.session_id, at, tag, cat, args)
        else:
            self.instant(message.session_id, at, message.method or "notification", "notice", args)

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

    def finish(self, analysis: Analysis, unanswered: Sequence[Message]) -> array[int]:
        """What only the end tells: unanswered requests, replay phases, findings, issues; the
        time of each moment."""
        if not self.reads:
            self.moment(0, None, None, read=True)
        last = self.last_read
        for request in unanswered:
            start = self.moment(request.line, request.ts_ns, request.mono_ns, read=False)
            self.request(request, start, last, None)
        lookups = _Lookups(self.sessions)
        for row in analysis.resumes:
            _phase_lines(row, lookups)
        for finding in analysis.findings:
            lookups.at_line(finding.line)
        for issue in analysis.issues:
            lookups.at_line(issue.line)
        for line in lines_asked(analysis):
            lookups.at_line(line)
        times = lookups.resolve(self.moments.records(), self.clock)
        answers = iter(lookups.answers)
        for row in analysis.resumes:
            self.phases(row, last, answers)
        for finding in analysis.findings:
            args = {
                "file": self.path,
                "rule": finding.rule,
                "severity": finding.severity.value,
                "line": finding.line,
                "message": finding.message,
                "request_id": finding.request_id,
            }
            self.instant(finding.session_id, next(answers), finding.rule, "finding", args)
        for issue in analysis.issues:
            args = {"file": self.path, "line": issue.line, "kind": issue.kind}
            args["message"] = issue.message
            self.instant(None, next(answers), issue.kind, "issue", args)
        for placed in turn_events(analysis, self.path, answers, last):
            if placed.instant:
                self.instant(placed.session_id, placed.start, placed.name, placed.cat, placed.args)
            else:
                session, start, end, name, cat, args = placed[:6]
                self.slice(session, start, end, name, cat, args)
        return times

    def phases(self, row: ResumeRow, last: int, answers: Iterator[int]) -> None:
        """A replaying row's window: replay until the marker, held, setup until the end (the
        moments looked up by `_phase_lines`, in its order)."""
        if not row.replaying:
            return
        start = next(answers)
        end = next(answers) if row.response_line is not None else last
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
        session = row.session_id
        if row.marker_line is None:
            self.slice(session, start, end, "replay", "window", args)
            return
        marker = next(answers)
        self.slice(session, start, marker, "replay", "window", args)
        held = next(answers)
        if held >= 0:
            self.slice(session, marker, held, "held", "window", args)
        setup = marker if held < 0 else held
        self.slice(session, setup, end, "setup", "window", args)


def _is_update(message: Message) -> bool:
    return message.method == "session/update" and message.session_id is not None


def _phase_lines(row: ResumeRow, lookups: _Lookups) -> None:
    """The moments a replaying row's phases need, asked in the order `phases` takes them."""
    if not row.replaying:
        return
    opened = row.request_line if row.role is Role.REQUESTED else row.announce_line
    lookups.at_line(opened or row.request_line)
    if row.response_line is not None:
        lookups.at_line(row.response_line)
    if row.marker_line is not None:
        lookups.at_line(row.marker_line)
        lookups.last_update(row.session_id, row.marker_line, row.response_line)


class _Lookups:
    """Moments the end asks for, answered in one pass over the moments: the moment of a line
    (the last record read at or before it; the first before any), and the last update of a
    session after one line and before another (-1 when there is none)."""

    __slots__ = ("answers", "lines", "sessions", "updates")

    def __init__(self, sessions: dict[str, int]) -> None:
        self.sessions = sessions
        self.lines: dict[int, int] = {}
        """The line each `at_line` question asks about, by its answer's place."""
        self.updates: dict[int, list[tuple[int, int, int | None]]] = {}
        """(answer's place, after, before) of each `last_update` question, by session."""
        self.answers = array("q")

    def at_line(self, line: int) -> None:
        self.lines[len(self.answers)] = line
        self.answers.append(-1)

    def last_update(self, session_id: str, after: int, before: int | None) -> None:
        session = self.sessions.get(session_id)
        if session is not None:
            self.updates.setdefault(session, []).append((len(self.answers), after, before))
        self.answers.append(-1)

    def resolve(self, moments: Iterator[tuple[Any, ...]], clock: Clock) -> array[int]:
        """Answer every question from the moments (in order); the time of each moment."""
        axis = clock.axis()
        column = 3 + list(Axis).index(axis)
        asked = sorted(self.lines, key=self.lines.__getitem__)
        next_asked = 0
        first_read = last_read = -1
        last_seen: dict[int, tuple[int, int]] = {}  # (question, moment) of update questions
        times = array("q")  # whole microseconds (`Clock.time`)
        for index, record in enumerate(moments):
            line, read, update = record[0], record[1], record[2]
            times.append(clock.time(axis, record[column]))
            if read:
                if first_read < 0:
                    first_read = index
                while next_asked < len(asked) and self.lines[asked[next_asked]] < line:
                    place = asked[next_asked]
                    self.answers[place] = last_read if last_read >= 0 else first_read
                    next_asked += 1
                last_read = index
            if update >= 0:
                for place, _, before in self.updates.get(update, ()):
                    if before is None or line < before:
                        last_seen[place] = (line, index)
        for place in asked[next_asked:]:
            self.answers[place] = last_read if last_read >= 0 else first_read
        for questions in self.updates.values():
            for place, after, _ in questions:
                seen = last_seen.get(place)
                self.answers[place] = seen[1] if seen is not None and seen[0] > after else -1
        return times


def trace_events(
    sources: Sequence[str | os.PathLike[str] | BinaryIO],
    options: Options | None = None,
    *,
    require_transcripts: bool = False,
) -> dict[str, Any]:
    """The Trace Event document of these transcripts (one process per connection, in order);
    with `require_transcripts`, `NotATranscript` for a file that does not look like one.
    Holds the whole document: `write_trace_events` streams it."""
    buffer = io.BytesIO()
    write_trace_events(sources, buffer.write, options, require_transcripts=require_transcripts)
    document: dict[str, Any] = orjson.loads(buffer.getvalue())
    return document


def write_trace_events(
    sources: Sequence[str | os.PathLike[str] | BinaryIO],
    write: Write,
    options: Options | None = None,
    *,
    require_transcripts: bool = False,
) -> int:
    """Write the Trace Event document of these transcripts (`trace_events(...)` as JSON, one
    trailing newline) to `write` as it is made, in a fixed amount of memory; the number
    of events. Raises as `trace_events` does, when part of the document may be written."""
    options = options or Options()
    axes: list[str] = []
    out = _Output(write)
    out.raw(b'{"traceEvents":[')
    pid = 0
    for source in sources:
        with open_walks(source, options) as walks:
            for walk in walks:
                pid += 1
                with scratch_folder(tempfile.gettempdir(), "trace-event") as folder:
                    axis = _write_connection(walk, options, pid, folder, out)
                axes.append(axis.value)
            if require_transcripts and walks:
                require_transcript(walks[0].name, [walk.analysis for walk in walks])
    other = {"generator": "acptrace", "axes": axes}
    out.raw(b'],"displayTimeUnit":"ms","otherData":' + orjson.dumps(other) + b"}\n")
    out.flush()
    return out.events


class _Output:
    """The document's bytes, handed on in pieces of about `WRITE_BYTES`; events counted and
    separated by commas."""

    __slots__ = ("events", "pending", "size", "write")

    def __init__(self, write: Write) -> None:
        self.write = write
        self.pending: list[bytes] = []
        self.size = 0
        self.events = 0

    def event(self, data: bytes) -> None:
        self.raw(b"," + data if self.events else data)
        self.events += 1

    def raw(self, data: bytes) -> None:
        self.pending.append(data)
        self.size += len(data)
        if self.size >= WRITE_BYTES:
            self.flush()

    def flush(self) -> None:
        if self.pending:
            self.write(b"".join(self.pending))
            self.pending, self.size = [], 0


def _write_connection(walk: Walk, options: Options, pid: int, folder: Path, out: _Output) -> Axis:
    """One connection as a process of its own (named by its file and connection): metadata,
    then every slice and instant in time order (a slice before what it holds); its axis."""
    timeline = _Timeline(connection_name(walk.name, walk.connection), options.marker_tag, folder)
    try:
        for item in walk:  # (issues are listed from the analysis, with the findings)
            if isinstance(item, Step):
                timeline.step(item)
            elif isinstance(item, RecorderEvent):
                timeline.event(item)
        times = timeline.finish(walk.analysis, walk.unanswered)
    finally:
        timeline.moments.close()
        timeline.events.close()
    axis = timeline.clock.axis()
    lanes, tops = _lanes(timeline, times, folder)
    tids: dict[tuple[int, int], int] = {}
    for name, track in timeline.tracks.items():
        for lane in range(tops.get(track, 0) + 1):
            tids[(track, lane)] = tid = len(tids) + 1
            label = name if lane == 0 else f"{name} ({lane + 1})"
            out.event(_meta(pid, tid, "thread_name", {"name": label}))
            out.event(_meta(pid, tid, "thread_sort_index", {"sort_index": track}))
    estimated = timeline.clock.estimated
    if axis is Axis.LINES:
        untimed = f" ({'times estimated' if estimated else 'no times'}: one line = 1 µs)"
    else:
        untimed = " (times estimated from the Agent's stderr)" if estimated else ""
    out.event(_meta(pid, 0, "process_name", {"name": timeline.path + untimed}))
    out.event(_meta(pid, 0, "process_sort_index", {"sort_index": pid}))
    for record in sorted_records(_timed(timeline, times, lanes, tids, pid), folder):
        out.event(record[-1])
    return axis


def _timed(
    timeline: _Timeline,
    times: array[int],
    lanes: array[int],
    tids: dict[tuple[int, int], int],
    pid: int,
) -> Iterator[tuple[int, int, int, int, bytes]]:
    """(time, -duration, kind, number, JSON) of every event: sorted, the order they go out in."""
    for kind, number, track, first, last, name, cat, args in timeline.events.records():
        start = times[first]
        if kind == SLICE:
            tid = tids[(track, lanes[number])]
            event = _base(name, cat, "X", start, pid, tid, orjson.Fragment(args))
            event["dur"] = duration = max(times[last] - start, 0)
            yield start, -duration, kind, number, _kept(orjson.dumps(event))
        else:
            event = _base(name, cat, "i", start, pid, tids[(track, 0)], orjson.Fragment(args))
            event["s"] = "t"
            yield start, 0, kind, number, _kept(orjson.dumps(event))


def _kept(data: bytes) -> bytes:
    """A copy of orjson's bytes to keep a while (a batch being sorted): what orjson returns
    holds on to about 4 KB of memory however short it is (50,000 events kept 200 MB)."""
    return memoryview(data).tobytes()


def _lanes(
    timeline: _Timeline, times: array[int], folder: Path
) -> tuple[array[int], dict[int, int]]:
    """The lane of each slice in its track (the first where it nests), and the top lane of
    each track that has slices."""
    keys = (
        (times[first], -times[last], number, track, first, last)
        for kind, number, track, first, last, *_ in timeline.events.records()
        if kind == SLICE
    )
    stacks: dict[int, list[list[int]]] = {}
    lanes = array("i", bytes(4 * timeline.slices))
    tops: dict[int, int] = {}
    for _, _, number, track, first, last in sorted_records(keys, folder):
        start, end = times[first], max(times[last], times[first])
        stacked = stacks.setdefault(track, [])
        for lane, stack in enumerate([*stacked, []]):
            while stack and stack[-1] <= start:
                stack.pop()
            if not stack or stack[-1] >= end:
                if lane == len(stacked):
                    stacked.append(stack)
                stack.append(end)
                lanes[number] = lane
                tops[track] = max(tops.get(track, 0), lane)
                break
    return lanes, tops


def _base(
    name: str, cat: str, ph: str, ts: int, pid: int, tid: int, args: object
) -> dict[str, Any]:
    return {"name": name, "cat": cat, "ph": ph, "ts": ts, "pid": pid, "tid": tid, "args": args}


def _meta(pid: int, tid: int, name: str, args: dict[str, Any]) -> bytes:
    return orjson.dumps({"name": name, "ph": "M", "pid": pid, "tid": tid, "args": args})
