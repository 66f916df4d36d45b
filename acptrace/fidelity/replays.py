"""Find each replay in a transcript and fold what it carried and the live history before it.

Two passes over each file: the analysis finds the replay windows (`ResumeRow`s), then a walk
with payloads folds every session's updates into history items, each update on one side:
inside a window before the session's marker (before the response without one) it is replayed,
anywhere else it is live. A window's live history is what the session's live updates built
before its request; with two files, the live recording's updates come first.
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
from acptrace.model.domain import Issue, MessageKind, Outcome, ResumeRow, SessionInfo
from acptrace.model.options import Execution, Options
from acptrace.pipeline.analysis import TranscriptInput, Walk, analyze_stream, opened
from acptrace.pipeline.transcripts import require_transcript

PROMPT = "session/prompt"
"""Its `prompt` is the turn's live user message; its response ends the turn."""
PERMISSION = "session/request_permission"
"""A Client applies the tool call of this request like a `tool_call_update` (RFD)."""

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
    live: tuple[HistoryItem, ...]
    """The session's live history before the request."""
    replayed: tuple[HistoryItem, ...]
    """What the replay carried before the session's marker (before the response without one)."""
    first_seen: FirstSeen | None
    """Where the input first names a session it did not see start (None: it saw the start)."""


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


@dataclass(slots=True)
class _Window:
    """A replay window while the walk goes by."""

    row: ResumeRow
    end: int
    """The line that ends the replay: the marker, else the response, else past the end."""
    replayed: Collector
    """What the replay carried so far."""
    live: tuple[HistoryItem, ...] | None = None
    """The session's live history at the request (None until the walk reaches it)."""

    def holds(self, line: int) -> bool:
        return self.row.request_line < line < self.end


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
        windows = [_window(row, options) for row in analysis.resumes if _replays(row)]
        by_session: dict[str, list[_Window]] = {}
        for window in windows:
            by_session.setdefault(window.row.session_id, []).append(window)
        waiting = sorted(windows, key=lambda w: w.row.request_line, reverse=True)
        payloads = Execution(fast=False)
        for item in Walk(stream, options, name=name, execution=payloads):
            if not isinstance(item, Step):
                continue
            line = item.message.line
            while waiting and waiting[-1].row.request_line <= line:
                window = waiting.pop()
                window.live = book.items(window.row.session_id)
            _fold(item, by_session, book)
    for window in waiting:
        window.live = book.items(window.row.session_id)
    replays = tuple(
        Replay(w.row, w.live or (), w.replayed.items(), book.named.get(w.row.session_id))
        for w in windows
    )
    return replays, analysis.issues


def _fold(step: Step, by_session: dict[str, list[_Window]], book: LiveBook) -> None:
    """One message: a `session/update` goes to the windows replaying its session, else live;
    a prompt starts a live turn with its user message and its response ends it (an error
    response before anything of the turn takes the user message back); a live
    permission request's tool call patches the live history like a `tool_call_update`."""
    message = step.message
    request = step.request
    if request is not None and request.method == PROMPT and request.session_id is not None:
        book.collector(request.session_id).end_turn(refused=message.is_error)
        return
    if message.session_id is None:
        return
    if message.method == PROMPT and message.kind is MessageKind.REQUEST:
        prompt = _params(step.payload).get("prompt")
        blocks = prompt if isinstance(prompt, list) else []
        book.collector(message.session_id).prompt(blocks, message.line)
        return
    if message.method == PERMISSION and message.kind is MessageKind.REQUEST:
        tool_call = _permission_tool_call(step.payload)
        inside = any(w.holds(message.line) for w in by_session.get(message.session_id, ()))
        if tool_call is not None and not inside:
            book.collector(message.session_id).add("tool_call_update", tool_call, message.line)
        return
    tag = message.update_tag
    update = _params(step.payload).get("update")
    if message.method != "session/update" or tag is None or not isinstance(update, dict):
        return
    inside_windows = [w for w in by_session.get(message.session_id, ()) if w.holds(message.line)]
    for window in inside_windows:
        window.replayed.add(tag, update, message.line)
    if not inside_windows:
        book.collector(message.session_id).add(tag, update, message.line)


def _params(payload: Any) -> dict[str, Any]:
    params = payload.get("params") if isinstance(payload, dict) else None
    return params if isinstance(params, dict) else {}


def _permission_tool_call(payload: Any) -> dict[str, Any] | None:
    """The tool call a permission request is about: `subject.toolCall` (v2), `toolCall` (v1)."""
    params = _params(payload)
    subject = params.get("subject")
    found = subject.get("toolCall") if isinstance(subject, dict) else params.get("toolCall")
    return found if isinstance(found, dict) else None


def _replays(row: ResumeRow) -> bool:
    """A row whose window carried (or should have carried) a replay."""
    return row.replaying and row.outcome is not Outcome.NO_REPLAY


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
