"""Find each replay in a transcript and fold what it carried and the live history before it.

Two passes over each file: the analysis finds the replay windows (`ResumeRow`s), then a walk
with payloads folds every session's updates into history items, each update on one side:
inside a window before the session's marker (before the response without one) it is replayed,
anywhere else it is live, except inside a resume that asked for no replay while no live turn
runs (an Agent that replays anyway sends its history again there): that is neither. A window's
live history is what the session's live updates built before its request; with two files, the
live recording's updates come first. A live turn runs from a `session/prompt` to its response
(v1) or to the session's next `state_update` `idle` (v2, whose response only acknowledges the
prompt and names its message); one the recording ends inside is unfinished.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, BinaryIO, cast

from acptrace.correlate.correlator import Step
from acptrace.fidelity.items import Collector, HistoryItem
from acptrace.fidelity.places import Place
from acptrace.model.domain import Issue, MessageKind, Outcome, ResumeRow, SessionInfo
from acptrace.model.options import Execution, Options
from acptrace.pipeline.analysis import TranscriptInput, Walk, analyze_stream, opened
from acptrace.pipeline.transcripts import require_transcript

PROMPT = "session/prompt"
"""Its `prompt` is the turn's live user message; its response ends the turn on v1."""
PERMISSION = "session/request_permission"
"""A Client applies the tool call of this request like a `tool_call_update` (RFD)."""
STATE = "state_update"
"""On v2, the first one with `state: "idle"` after a prompt ends its turn."""

STARTS = frozenset({"session/new", "session/fork", "subagent_update"})
"""What names a session at its start (`SessionInfo.named_by`); a session first named otherwise
(`session/resume`, `session/load`, `session/list`) had a history the input does not hold."""

SPOOL_BYTES = 16 * 1024 * 1024
"""A stream that cannot be rewound (a pipe) is kept in memory up to this size, then on disk."""


@dataclass(frozen=True, slots=True)
class FirstSeen:
    """Where the input first names a session it did not see start: its live history begins
    there, and what the session held before is not in the input."""

    path: str
    """The file (the live one, with two)."""
    line: int
    named_by: str
    """`session/resume`, `session/load` or `session/list`."""


@dataclass(frozen=True, slots=True)
class Replay:
    """One session's replay and the two histories to compare."""

    row: ResumeRow
    """The replay's outcome row (the requested session or an announced child)."""
    path: str
    """The file the replay is in."""
    live: tuple[HistoryItem, ...]
    """The session's live history before the request."""
    replayed: tuple[HistoryItem, ...]
    """What the replay carried before the session's marker (before the response without one)."""
    first_seen: FirstSeen | None
    """Where the input first names a session it did not see start (None: it saw the start)."""
    unfinished: tuple[Place, ...]
    """The prompts of live turns before the request that the recording ended inside."""


@dataclass(slots=True)
class LiveBook:
    """Every session's live history so far (carried from the live file into the replayed one)."""

    options: Options
    """The tag policy in force (never-history tags make no item)."""
    sessions: dict[str, Collector] = field(default_factory=dict)
    """Each session's live items, by session ID."""
    named: dict[str, FirstSeen | None] = field(default_factory=dict)
    """Where each session was first named, when not at its start (None: its start was seen)."""

    def name(self, path: str, info: SessionInfo) -> None:
        """The session as the analysis of a file knows it (the first file to name it counts)."""
        if info.session_id not in self.named:
            seen = (
                None if info.named_by in STARTS else FirstSeen(path, info.first_line, info.named_by)
            )
            self.named[info.session_id] = seen

    def collector(self, session_id: str) -> Collector:
        """The session's live history, started empty."""
        found = self.sessions.get(session_id)
        if found is None:
            found = self.sessions[session_id] = Collector(self.options.tag_policy())
        return found

    def items(self, session_id: str) -> tuple[HistoryItem, ...]:
        """The session's live history now."""
        found = self.sessions.get(session_id)
        return found.items() if found is not None else ()

    def end_connection(self) -> None:
        """A file ends: the turns still open in it are unfinished."""
        for collector in self.sessions.values():
            collector.end_connection()


@dataclass(slots=True)
class _Window:
    """A replay window (or a resume's that asked for none) while the walk goes by."""

    row: ResumeRow
    end: int
    """The line that ends the replay: the marker, else the response, else past the end."""
    replayed: Collector
    """What the replay carried so far."""
    live: tuple[HistoryItem, ...] | None = None
    """The session's live history at the request (None until the walk reaches it)."""
    turns: int = 0
    """How many live turns of the session had started at the request."""

    def holds(self, line: int) -> bool:
        return self.row.request_line < line < self.end

    @property
    def judged(self) -> bool:
        """A replay to compare; else a resume that asked for none (what an Agent replays there
        anyway, while no live turn runs, is not live history either)."""
        return self.row.replaying and self.row.outcome is not Outcome.NO_REPLAY


def scan(
    source: TranscriptInput, options: Options, book: LiveBook, require_transcripts: bool = False
) -> tuple[tuple[Replay, ...], tuple[Issue, ...]]:
    """The replays of one transcript, and its input issues; its live updates go into `book`.

    Raises `UnreadableInput` when the input cannot be read at all, and with
    `require_transcripts` `NotATranscript` when it does not look like a transcript.
    """
    with _rewindable(source) as (stream, name):
        start = stream.tell()
        analysis = analyze_stream(stream, options, name=name)
        if require_transcripts:  # (an empty or a binary file is an error)
            require_transcript(name, [analysis])
        for info in analysis.sessions:
            book.name(name, info)
        stream.seek(start)
        windows = [_window(row, options) for row in analysis.resumes]
        folder = _Folder(book, name, analysis.connection.protocol_version >= 2)
        for window in windows:
            folder.windows.setdefault(window.row.session_id, []).append(window)
        waiting = sorted(windows, key=lambda w: w.row.request_line, reverse=True)
        payloads = Execution(fast=False)
        for item in Walk(stream, options, name=name, execution=payloads):
            if not isinstance(item, Step):
                continue
            line = item.message.line
            while waiting and waiting[-1].row.request_line <= line:
                _take_live(waiting.pop(), book)
            folder.fold(item)
    for window in waiting:
        _take_live(window, book)
    book.end_connection()
    replays = tuple(
        Replay(
            w.row,
            name,
            w.live or (),
            w.replayed.items(),
            book.named.get(w.row.session_id),
            book.collector(w.row.session_id).unfinished_turns(w.turns),
        )
        for w in windows
        if w.judged
    )
    return replays, analysis.issues


def _take_live(window: _Window, book: LiveBook) -> None:
    """The session's live history as the window's request finds it."""
    collector = book.collector(window.row.session_id)
    window.live = collector.items()
    window.turns = collector.turns_so_far


@dataclass(slots=True)
class _Folder:
    """Where each message of one file goes: a window's replay, the live history, or nowhere."""

    book: LiveBook
    path: str
    """The file being walked."""
    v2: bool
    """The connection speaks ACP v2: a turn ends with `state_update` `idle`."""
    windows: dict[str, list[_Window]] = field(default_factory=dict)
    """The windows of each session, in request order."""

    def fold(self, step: Step) -> None:
        """One message: a prompt starts a live turn with its user message, its response names
        that message (v2) or ends the turn (v1), and an error takes the user message back; a
        live permission request's tool call patches the live history like a
        `tool_call_update`; a `session/update` goes to the windows replaying its session, else
        to the live history (v2's `idle` ends the live turn)."""
        message = step.message
        request = step.request
        if request is not None and request.method == PROMPT and request.session_id is not None:
            self._answered(step, request.session_id, request.line)
            return
        session = message.session_id
        if session is None:
            return
        place = Place(self.path, message.line)
        params = _params(step.payload)
        asked = message.kind is MessageKind.REQUEST
        if asked and message.method == PROMPT:
            prompt = params.get("prompt")
            self.book.collector(session).prompt(prompt if isinstance(prompt, list) else [], place)
        elif asked and message.method == PERMISSION:
            tool_call = _permission_tool_call(params)
            if tool_call is not None and not self._replaying(session, message.line):
                self.book.collector(session).add("tool_call_update", tool_call, place)
        elif message.method == "session/update":
            self._update(session, message.update_tag, params.get("update"), place)

    def _answered(self, step: Step, session: str, request_line: int) -> None:
        result = step.payload.get("result") if isinstance(step.payload, dict) else None
        message_id = result.get("messageId") if isinstance(result, dict) else None
        collector = self.book.collector(session)
        collector.answered(
            request_line,
            refused=step.message.is_error,
            message_id=message_id if isinstance(message_id, str) else None,
        )
        if not self.v2:
            collector.end_turn()

    def _update(self, session: str, tag: str | None, update: Any, place: Place) -> None:
        if tag is None or not isinstance(update, dict):
            return
        live = self.book.collector(session)
        if tag == STATE and self.v2 and update.get("state") == "idle":
            live.end_turn()
        inside = [w for w in self.windows.get(session, ()) if w.holds(place.line)]
        for window in inside:
            if window.judged:
                window.replayed.add(tag, update, place)
        if not inside or (live.turn_open and not any(w.judged for w in inside)):
            live.add(tag, update, place)

    def _replaying(self, session: str, line: int) -> bool:
        """Whether the line is inside a replay window of the session."""
        return any(w.judged and w.holds(line) for w in self.windows.get(session, ()))


def _params(payload: Any) -> dict[str, Any]:
    params = payload.get("params") if isinstance(payload, dict) else None
    return params if isinstance(params, dict) else {}


def _permission_tool_call(params: dict[str, Any]) -> dict[str, Any] | None:
    """The tool call a permission request is about: `subject.toolCall` (v2), `toolCall` (v1)."""
    subject = params.get("subject")
    found = subject.get("toolCall") if isinstance(subject, dict) else params.get("toolCall")
    return found if isinstance(found, dict) else None


def _window(row: ResumeRow, options: Options) -> _Window:
    end = row.marker_line or row.response_line
    return _Window(row, sys.maxsize if end is None else end, Collector(options.tag_policy()))


@contextmanager
def _rewindable(
    source: TranscriptInput,
) -> Iterator[tuple[BinaryIO, str]]:
    """The input as a stream that can be read twice: stdin and streams that cannot seek are
    spooled first (a gzip reader over a pipe says it can seek, and cannot go back)."""
    stdin = isinstance(source, str | os.PathLike) and os.fspath(source) == "-"
    with opened(source) as (stream, name):
        if not stdin and stream.seekable():
            yield stream, name
            return
        with tempfile.SpooledTemporaryFile(max_size=SPOOL_BYTES) as spool:
            shutil.copyfileobj(stream, spool)
            spool.seek(0)
            yield cast(BinaryIO, spool), name
