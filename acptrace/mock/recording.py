"""What `acptrace mock` plays back, taken from a transcript: the Agent's answers and windows.

Any input format is read (the reader gives each message with its direction and clocks); only
the Agent's side is kept: its `initialize` and `session/new` results, the Agent messages of
the first replay window (`session/resume` with `replayFrom`, or `session/load`) and of each
`session/prompt` turn, with the recorded gap before each message.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from acptrace.decode.directions import infer_direction
from acptrace.decode.stream import ReadStats, read_records
from acptrace.model.domain import Direction
from acptrace.model.errors import UsageError
from acptrace.read.envelopes import Envelope, RecorderEvent
from acptrace.read.formats import ReadSettings
from acptrace.read.source import iter_lines, open_input

MARKER_TAG = "replay_complete"
"""The `sessionUpdate` tag of the replay marker."""
REPLAYING_METHODS = ("session/resume", "session/load")
"""Requests whose window the mock replays (a `session/resume` only with `replayFrom`)."""


class StepRole(StrEnum):
    """What a message of a recorded window is to the request it answers."""

    UPDATE = "update"
    """A `session/update` that is not a marker (history, a child announcement, live state)."""
    MARKER = "marker"
    """The marker of the session the request names."""
    CHILD_MARKER = "child_marker"
    """The marker of another session (a child announced in the window)."""
    OTHER = "other"
    """Anything else the Agent sent in the window (its own requests, other notifications)."""
    RESPONSE = "response"
    """The response to the request."""


@dataclass(frozen=True, slots=True)
class Step:
    """One Agent message of a window, and when to send it."""

    message: dict[str, Any]
    """The message as recorded."""
    role: StepRole
    """What it is to the window's request."""
    gap_ns: int
    """Recorded time since the previous step (since the request, for the first)."""
    extra_ms: float = 0.0
    """Added wait, not scaled by the speed (the `delay-*` faults)."""


@dataclass(frozen=True, slots=True)
class Window:
    """The Agent's messages after one recorded request, up to its response."""

    session_id: str | None
    """The session the recorded request named (replaced by the one the Client names)."""
    steps: tuple[Step, ...]
    """The messages in order; the last is the response unless the connection ended first."""

    @property
    def answered(self) -> bool:
        """Whether the recording holds the response."""
        return any(step.role is StepRole.RESPONSE for step in self.steps)

    def count(self, role: StepRole) -> int:
        """How many steps have this role."""
        return sum(step.role is role for step in self.steps)


@dataclass(frozen=True, slots=True)
class Recording:
    """Everything the mock can answer with."""

    initialize: dict[str, Any] | None
    """The recorded `initialize` result (None: the recording has none)."""
    new_session: dict[str, Any] | None
    """The first recorded `session/new` result."""
    replay: Window | None
    """The first recorded replay window."""
    turns: tuple[Window, ...]
    """The recorded `session/prompt` windows, in order."""


@dataclass(slots=True)
class _Open:
    """A recorded Client request whose window is being collected."""

    method: str
    session_id: str | None
    last_ns: int | None
    steps: list[Step]


def load_recording(path: str | os.PathLike[str]) -> Recording:
    """Read a transcript (any format) into what the mock plays; UsageError when it has none."""
    collector = _Collector()
    with open_input(path) as stream:
        for envelope, message in _messages(stream):
            when = _time_ns(envelope)
            if _is_client_request(envelope, message):
                collector.client_request(message, when)
            elif _direction(envelope, message) is Direction.A2C:
                collector.agent_message(message, when)
    recording = collector.finish()
    if recording == Recording(None, None, None, ()):
        raise UsageError(f"{os.fspath(path)}: holds no Agent answer to play back")
    return recording


class _Collector:
    """Gathers the windows as the transcript goes by.

    A replay window ends at its response (or the connection's end). A turn ends at the
    Client's next request: on v2 the prompt's response comes early and the work goes on
    until the `state_update` that ends it.
    """

    def __init__(self) -> None:
        self.initialize: dict[str, Any] | None = None
        self.new_session: dict[str, Any] | None = None
        self.replay: Window | None = None
        self.turns: list[Window] = []
        self.pending: dict[Any, _Open] = {}
        self.turn: tuple[Any, _Open] | None = None

    def client_request(self, message: dict[str, Any], when: int | None) -> None:
        self._end_turn()
        method = message["method"]
        params = message.get("params")
        params = params if isinstance(params, dict) else {}
        session = params.get("sessionId")
        opened = _Open(method, session if isinstance(session, str) else None, when, [])
        if method == "session/prompt":
            self.turn = (_key(message["id"]), opened)
        elif method in ("initialize", "session/new") or is_replaying(method, params):
            self.pending[_key(message["id"])] = opened

    def agent_message(self, message: dict[str, Any], when: int | None) -> None:
        key = _key(message.get("id")) if _is_response(message) else None
        if self.turn is not None:
            role = StepRole.RESPONSE if key == self.turn[0] else StepRole.OTHER
            _add(self.turn[1], message, when, role)
        opened = self.pending.pop(key, None) if key is not None else None
        for window in self.pending.values():
            _add(window, message, when, StepRole.OTHER)
        if opened is None:
            return
        _add(opened, message, when, StepRole.RESPONSE)
        result = message.get("result")
        if opened.method == "initialize" and self.initialize is None and result is not None:
            self.initialize = result
        elif opened.method == "session/new" and self.new_session is None and result is not None:
            self.new_session = result
        elif opened.method in REPLAYING_METHODS and self.replay is None:
            self.replay = Window(opened.session_id, tuple(opened.steps))

    def finish(self) -> Recording:
        self._end_turn()
        for window in self.pending.values():  # the connection ended first
            if window.method in REPLAYING_METHODS and self.replay is None:
                self.replay = Window(window.session_id, tuple(window.steps))
        return Recording(self.initialize, self.new_session, self.replay, tuple(self.turns))

    def _end_turn(self) -> None:
        if self.turn is not None:
            opened = self.turn[1]
            self.turns.append(Window(opened.session_id, tuple(opened.steps)))
            self.turn = None


def _messages(stream: Any) -> Iterator[tuple[Envelope, dict[str, Any]]]:
    """Every JSON-RPC object of the transcript (batch members one by one), with its envelope."""
    settings = ReadSettings(fast=False)
    for record in read_records(iter_lines(stream), ReadStats(), settings=settings):
        if isinstance(record, RecorderEvent) or not isinstance(record, Envelope):
            continue
        payload = record.payload
        for item in payload if isinstance(payload, list) else [payload]:
            if isinstance(item, dict):
                yield record, item


def _add(window: _Open, message: dict[str, Any], when: int | None, role: StepRole) -> None:
    if role is StepRole.OTHER and message.get("method") == "session/update":
        role = _update_role(message, window.session_id)
    elif role is StepRole.OTHER and _is_response(message):
        return  # (the answer to another request belongs to that one's window)
    gap = 0 if when is None or window.last_ns is None else max(0, when - window.last_ns)
    window.steps.append(Step(message, role, gap))
    window.last_ns = when if when is not None else window.last_ns


def _update_role(message: dict[str, Any], session_id: str | None) -> StepRole:
    params = message.get("params")
    if not isinstance(params, dict):
        return StepRole.OTHER
    update = params.get("update")
    if not isinstance(update, dict) or update.get("sessionUpdate") != MARKER_TAG:
        return StepRole.UPDATE
    return StepRole.MARKER if params.get("sessionId") == session_id else StepRole.CHILD_MARKER


def _time_ns(envelope: Envelope) -> int | None:
    return envelope.mono_ns if envelope.mono_ns is not None else envelope.ts_ns


def _is_response(message: dict[str, Any]) -> bool:
    return "method" not in message and ("result" in message or "error" in message)


def _is_client_request(envelope: Envelope, message: dict[str, Any]) -> bool:
    method = message.get("method")
    if not isinstance(method, str) or message.get("id") is None:
        return False
    return _direction(envelope, message) is Direction.C2A


def _direction(envelope: Envelope, message: dict[str, Any]) -> Direction:
    """The envelope's direction; for formats without one, the method's (responses: A2C)."""
    if envelope.direction is not Direction.UNKNOWN:
        return envelope.direction
    method = message.get("method")
    return infer_direction(method) if isinstance(method, str) else Direction.A2C


def is_replaying(method: str, params: dict[str, Any]) -> bool:
    """Whether a request of this method with these params asks for a replay."""
    return method == "session/load" or (
        method == "session/resume" and bool(params.get("replayFrom"))
    )


def _key(value: Any) -> tuple[str, Any]:
    """Ids compare exactly as written: 7 and "7" differ."""
    return (type(value).__name__, value)
