"""`acptrace drive`'s script: one connection that makes a session, then N that replay it.

Each connection starts the Agent afresh behind the recorder and writes one transcript into
the run's folder: `00-new.jsonl` (left out when the session to replay is given), then
`01-replay.jsonl`, `02-replay.jsonl`, … A connection
that fails (the Agent dies, hangs past the timeout, sends garbage) is told to `notify` in one
line and the run goes on; its transcript still goes into the report.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from acptrace.drive.connection import Connection, ConnectionFailed
from acptrace.drive.messages import (
    Permission,
    can_load,
    initialize_params,
    negotiated_version,
    new_session_params,
    prompt_params,
    replay_request,
)

DEFAULT_TIMEOUT_S = 30.0
DEFAULT_LINGER_MS = 250.0


class Step(StrEnum):
    """What one connection was for."""

    NEW = "new"
    """`initialize`, `session/new`, maybe one `session/prompt`."""
    REPLAY = "replay"
    """`initialize`, then the replaying request."""


@dataclass(frozen=True, slots=True)
class DriveSettings:
    """What the scripted Client does."""

    replays: int = 5
    """How many replaying connections follow the first."""
    protocol: int = 2
    """The protocol version asked for in `initialize`."""
    prompt: str | None = None
    """Text of one `session/prompt` on the first connection (None: no prompt)."""
    timeout_s: float = DEFAULT_TIMEOUT_S
    """How long to wait for each response, and for the Agent to exit at the end."""
    linger_ms: float = DEFAULT_LINGER_MS
    """How long to keep listening after the replay's response."""
    permission: Permission = Permission.DENY
    """How to answer `session/request_permission`."""
    cwd: str = field(default_factory=os.getcwd)
    """The working directory named in the session requests."""
    session_id: str | None = None
    """Replay this session the Agent already keeps, instead of making one first."""


@dataclass(frozen=True, slots=True)
class ConnectionResult:
    """How one connection went."""

    step: Step
    """What it was for."""
    path: Path
    """Its transcript (absent when the Agent could not be started)."""
    failure: str | None
    """Why it ended early, if it did."""


@dataclass(frozen=True, slots=True)
class DriveResult:
    """Every connection of a run."""

    connections: tuple[ConnectionResult, ...]
    """In the order they ran."""
    session_id: str | None
    """The session the first connection made (None: it made none, so nothing was replayed)."""

    @property
    def transcripts(self) -> list[str]:
        """The transcripts written, in order."""
        return [str(c.path) for c in self.connections if c.path.exists()]

    @property
    def failures(self) -> int:
        """How many connections ended early."""
        return sum(c.failure is not None for c in self.connections)


Notify = Callable[[str], None]
"""Takes one line for stderr."""


def drive(
    argv: Sequence[str], directory: Path, settings: DriveSettings, notify: Notify
) -> DriveResult:
    """Run the script against the Agent `argv`, recording every connection into `directory`."""
    directory.mkdir(parents=True, exist_ok=True)
    results: list[ConnectionResult] = []
    session_id = settings.session_id
    if session_id is None:
        first, session_id = _new_session(argv, directory / "00-new.jsonl", settings, notify)
        results.append(first)
        if session_id is None:
            return DriveResult(tuple(results), None)
    for number in range(1, settings.replays + 1):
        path = directory / f"{number:02d}-replay.jsonl"
        results.append(_replay(argv, path, session_id, settings, notify))
    return DriveResult(tuple(results), session_id)


def _new_session(
    argv: Sequence[str], path: Path, settings: DriveSettings, notify: Notify
) -> tuple[ConnectionResult, str | None]:
    connection = Connection(argv, path, settings.permission)
    session_id: str | None = None
    failure = None
    try:
        _initialize(connection, settings)
        new = connection.request(
            "session/new", new_session_params(settings.cwd), settings.timeout_s
        )
        session_id = _session_id(new)
        if session_id is None:
            raise ConnectionFailed(f"session/new gave no session id: {_problem(new)}")
        if settings.prompt is not None:
            params = prompt_params(session_id, settings.prompt)
            answered = connection.request("session/prompt", params, settings.timeout_s)
            if "error" in answered:
                notify(f"{path}: session/prompt failed: {_problem(answered)}")
            connection.linger(settings.linger_ms / 1000)
    except ConnectionFailed as error:
        failure = str(error)
    ended = _ended(connection, ConnectionResult(Step.NEW, path, failure), settings, notify)
    return ended, session_id


def _replay(
    argv: Sequence[str], path: Path, session_id: str, settings: DriveSettings, notify: Notify
) -> ConnectionResult:
    connection = Connection(argv, path, settings.permission)
    failure = None
    try:
        version, capabilities = _initialize(connection, settings)
        if version == 1 and not can_load(capabilities):
            raise ConnectionFailed("the v1 Agent does not advertise loadSession: nothing to replay")
        method, params = replay_request(version, session_id, settings.cwd)
        connection.request(method, params, settings.timeout_s)
        connection.linger(settings.linger_ms / 1000)
    except ConnectionFailed as error:
        failure = str(error)
    return _ended(connection, ConnectionResult(Step.REPLAY, path, failure), settings, notify)


def _initialize(connection: Connection, settings: DriveSettings) -> tuple[int, Any]:
    """Initialize: the negotiated version and the result. ConnectionFailed on an error answer."""
    params = initialize_params(settings.protocol)
    response = connection.request("initialize", params, settings.timeout_s)
    if "error" in response:
        raise ConnectionFailed(f"initialize failed: {_problem(response)}")
    result = response.get("result")
    return negotiated_version(result, settings.protocol), result


def _ended(
    connection: Connection, result: ConnectionResult, settings: DriveSettings, notify: Notify
) -> ConnectionResult:
    """Close the connection; tell `notify` what went wrong, if anything did."""
    _, stopped = connection.close(settings.timeout_s)
    failure = result.failure
    if stopped is not None:
        failure = f"{failure}; the Agent {stopped}" if failure else f"the Agent {stopped}"
    if failure is not None:
        notify(f"{result.path}: {failure}")
    return ConnectionResult(result.step, result.path, failure)


def _session_id(response: dict[str, Any]) -> str | None:
    result = response.get("result")
    session = result.get("sessionId") if isinstance(result, dict) else None
    return session if isinstance(session, str) else None


def _problem(response: dict[str, Any]) -> str:
    """An error response as `CODE message`, or the result that did not fit."""
    error = response.get("error")
    if isinstance(error, dict):
        return f"{error.get('code')} {error.get('message', '')}".strip()
    return f"result {response.get('result')!r}"[:120]
