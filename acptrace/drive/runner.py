"""`acptrace drive`'s script: one connection that makes a session, then N that replay it.

Each connection starts the Agent afresh behind the recorder and writes one transcript into
the run's folder: `00-new.jsonl` (left out when the session to replay is given), then
`01-replay.jsonl`, `02-replay.jsonl`, … A connection
that fails (the Agent dies, hangs past the timeout, sends garbage, or its v2 prompt turn does
not end with a `state_update` `idle` within the timeout) is told to `notify` in one line and
the run goes on; its transcript still goes into the report. A step the Agent's
`initialize` result does not allow (no session capability) stops the run before the replays:
`DriveRefused` (unless `check_capabilities` is off: then it is sent anyway, and said).
Closing a connection closes the Agent's stdin; an Agent still running `exit_grace_s` later is
stopped (SIGTERM, then SIGKILL, to its process group), which is not a failure.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from acptrace.drive.connection import Connection, ConnectionFailed
from acptrace.drive.messages import (
    BUSY,
    IDLE,
    Permission,
    initialize_params,
    is_response_to,
    missing_capability,
    negotiated_version,
    new_session_params,
    prompt_params,
    replay_method,
    replay_request,
    session_state,
    turn_ends_with_idle,
)
from acptrace.model.errors import AcptraceError
from acptrace.model.excerpt import json_text
from acptrace.record import RecordSettings
from acptrace.record.redact import RedactionPolicy

DEFAULT_TIMEOUT_S = 30.0
DEFAULT_LINGER_MS = 250.0
DEFAULT_EXIT_GRACE_S = 2.0
QUEUE_BYTES = 4 * 1024 * 1024
"""The Agent's traffic the recorder holds for the disk before it holds the Agent back."""


class DriveRefused(AcptraceError):
    """The Agent's `initialize` result does not allow a step of the script: nothing to drive."""


class Step(StrEnum):
    """What one connection was for."""

    NEW = "new"
    """`initialize`, `session/new`, maybe one `session/prompt`."""
    REPLAY = "replay"
    """`initialize`, then the replaying request."""


class DriveProgress:
    """What a run tells as it goes: the connection under way, then each request it sends
    (real Agents take seconds to answer, and a run minutes). This one tells nobody."""

    def connection(self, number: int, total: int) -> None:
        """Connection `number` (from 1) of `total` starts."""

    def request(self, method: str) -> None:
        """The connection under way sends `method` and waits for its answer."""


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
    """How long to wait for each response, and for the prompt's turn to end (v1: its
    response; v2: the session's `state_update` `idle`), counted from the request."""
    exit_grace_s: float = DEFAULT_EXIT_GRACE_S
    """How long the Agent has to exit once its stdin is closed, before it is stopped."""
    linger_ms: float = DEFAULT_LINGER_MS
    """How long to keep listening after the replay's response and after the prompt's turn."""
    permission: Permission = Permission.DENY
    """How to answer `session/request_permission`."""
    cwd: str = field(default_factory=os.getcwd)
    """The working directory named in the session requests."""
    session_id: str | None = None
    """Replay this session the Agent already keeps, instead of making one first."""
    redact: bool = True
    """Redact secrets in the recordings, as `acptrace record` does by default."""
    check_capabilities: bool = True
    """Refuse a step the Agent's `initialize` result does not allow (`DriveRefused`); False:
    send it anyway, named to `notify`, and the recordings break rule CAP-UNADVERTISED."""
    progress: DriveProgress = field(default_factory=DriveProgress)
    """Told of each connection and each request as the run goes (a progress display)."""


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
    """Run the script against the Agent `argv`, recording every connection into `directory`.

    Raises `DriveRefused` (after at most one connection) when the Agent does not advertise
    what a step needs."""
    directory.mkdir(parents=True, exist_ok=True)
    results: list[ConnectionResult] = []
    session_id = settings.session_id
    total = settings.replays + (session_id is None)
    if session_id is None:
        settings.progress.connection(1, total)
        first, session_id = _new_session(argv, directory / "00-new.jsonl", settings, notify)
        results.append(first)
        if session_id is None:
            return DriveResult(tuple(results), None)
    for number in range(1, settings.replays + 1):
        settings.progress.connection(total - settings.replays + number, total)
        path = directory / f"{number:02d}-replay.jsonl"
        results.append(_replay(argv, path, session_id, settings, notify))
    return DriveResult(tuple(results), session_id)


@contextlib.contextmanager
def _connected(argv: Sequence[str], path: Path, settings: DriveSettings) -> Iterator[Connection]:
    """A connection whose Agent is stopped at once if the run is interrupted."""
    policy = RedactionPolicy.build() if settings.redact else None
    record_settings = RecordSettings(
        redaction=policy,
        queue_bytes=QUEUE_BYTES,
        forward_signals=False,  # (the recorder runs in a thread: it cannot take signals)
        stop_after_eof_s=settings.exit_grace_s,
        hold_back=True,  # (the Client is drive: slowing the Agent loses nothing)
    )
    connection = Connection(argv, path, settings.permission, record_settings)
    try:
        yield connection
    except BaseException:
        connection.abort()
        raise


def _new_session(
    argv: Sequence[str], path: Path, settings: DriveSettings, notify: Notify
) -> tuple[ConnectionResult, str | None]:
    with _connected(argv, path, settings) as connection:
        return _make_session(connection, path, settings, notify)


def _make_session(
    connection: Connection, path: Path, settings: DriveSettings, notify: Notify
) -> tuple[ConnectionResult, str | None]:
    session_id: str | None = None
    failure = None
    refused = None
    try:
        version, result = _initialize(connection, settings)
        methods = _first_methods(version, settings)
        sent = [method for method in methods if method != replay_method(version)]
        refused = _refusal(path, version, result, methods, sent, settings, notify)
        if refused is not None:
            raise ConnectionFailed(refused)
        settings.progress.request("session/new")
        new = connection.request(
            "session/new", new_session_params(settings.cwd), settings.timeout_s
        )
        session_id = _session_id(new)
        if session_id is None:
            raise ConnectionFailed(f"session/new gave no session id: {_problem(new)}")
        if settings.prompt is not None:
            settings.progress.request("session/prompt")
            answered = _run_turn(connection, version, session_id, settings.prompt, settings)
            if "error" in answered:
                notify(f"{path}: session/prompt failed: {_problem(answered)}")
            connection.linger(settings.linger_ms / 1000)
    except ConnectionFailed as error:
        failure = str(error)
    ended = _ended(connection, ConnectionResult(Step.NEW, path, failure), notify, refused)
    return ended, session_id


def _replay(
    argv: Sequence[str], path: Path, session_id: str, settings: DriveSettings, notify: Notify
) -> ConnectionResult:
    with _connected(argv, path, settings) as connection:
        return _replay_session(connection, path, session_id, settings, notify)


def _replay_session(
    connection: Connection, path: Path, session_id: str, settings: DriveSettings, notify: Notify
) -> ConnectionResult:
    failure = None
    refused = None
    try:
        version, result = _initialize(connection, settings)
        method, params = replay_request(version, session_id, settings.cwd)
        refused = _refusal(path, version, result, (method,), (method,), settings, notify)
        if refused is not None:
            raise ConnectionFailed(refused)
        settings.progress.request(method)
        connection.request(method, params, settings.timeout_s)
        connection.linger(settings.linger_ms / 1000)
    except ConnectionFailed as error:
        failure = str(error)
    return _ended(connection, ConnectionResult(Step.REPLAY, path, failure), notify, refused)


def _run_turn(
    connection: Connection, version: int, session_id: str, text: str, settings: DriveSettings
) -> dict[str, Any]:
    """Send one prompt and wait for its turn to end, within `timeout_s` of sending it; the
    prompt's response. On v1 the response ends the turn. On v2 it only acknowledges the user
    message, and the turn ends with the session's first `state_update` `idle` once the turn
    has begun: after the response, or after a `running` or `requires_action` of the session
    (an `idle` read before either may be a snapshot sent before the Agent read the prompt).
    An error response ends the wait: no turn ran. ConnectionFailed when the response or the
    end does not come in time."""
    deadline = time.monotonic() + settings.timeout_s
    prompt_id = connection.send_request("session/prompt", prompt_params(session_id, text))
    awaits_idle = turn_ends_with_idle(version)
    response: dict[str, Any] | None = None
    begun = ended = False

    def wanted(message: dict[str, Any]) -> bool:
        """The prompt's response, or (v2) a state of the session."""
        states = awaits_idle and session_state(message, session_id) is not None
        return states or is_response_to(message, prompt_id)

    while response is None or (awaits_idle and not ended and "error" not in response):
        message = connection.wait_for(wanted, deadline)
        if message is None:
            if response is None:
                raise ConnectionFailed(
                    f"no answer to session/prompt within {settings.timeout_s:g} s"
                )
            raise ConnectionFailed(_unended(session_id, settings.timeout_s, response))
        if is_response_to(message, prompt_id):
            response = message
            continue
        state = session_state(message, session_id)
        ended = ended or (state == IDLE and (begun or response is not None))
        begun = begun or state in BUSY
    return response


def _unended(session_id: str, timeout_s: float, response: dict[str, Any]) -> str:
    """Why the connection ended: the v2 turn did not end in time (and, when the prompt's
    response has no `messageId`, that it looks like a v1 answer: the likely cause)."""
    why = (
        f"the turn of session {session_id} did not end: no state_update idle within "
        f"{timeout_s:g} s of the prompt (--timeout); the recording so far is kept"
    )
    result = response.get("result")
    if isinstance(result, dict) and "messageId" not in result:
        why += f"; the prompt's response ({_problem(response)}) has no messageId, as on v1"
    return why


def _first_methods(version: int, settings: DriveSettings) -> tuple[str, ...]:
    """What the first connection sends after `initialize`, and the replays after it."""
    methods = ["session/new"]
    if settings.prompt is not None:
        methods.append("session/prompt")
    if settings.replays:
        methods.append(replay_method(version))
    return tuple(methods)


def _refusal(
    path: Path,
    version: int,
    result: Any,
    methods: Sequence[str],
    sent: Sequence[str],
    settings: DriveSettings,
    notify: Notify,
) -> str | None:
    """Why the Agent's `initialize` result does not allow these methods (this connection's
    and the later ones'), or None. When the settings say to send them anyway, None, and each
    capability missing for what this connection sends (`sent`) is told to `notify` once."""
    missing: dict[str, list[str]] = {}
    for method in methods:
        capability = missing_capability(version, method, result)
        if capability is not None:
            missing.setdefault(capability, []).append(method)
    if settings.check_capabilities:
        for capability, needing in missing.items():
            return f"the v{version} Agent does not advertise {capability}, which {needing[0]} needs"
        return None
    for capability, needing in missing.items():
        here = [method for method in needing if method in sent]
        if here:
            which = f"{' and '.join(here)} {'needs' if len(here) == 1 else 'need'}"
            notify(
                f"{path}: the v{version} Agent does not advertise {capability}, which {which}: "
                "going on (--ignore-capabilities)"
            )
    return None


def _initialize(connection: Connection, settings: DriveSettings) -> tuple[int, Any]:
    """Initialize: the negotiated version and the result. ConnectionFailed on an error answer."""
    params = initialize_params(settings.protocol)
    settings.progress.request("initialize")
    response = connection.request("initialize", params, settings.timeout_s)
    if "error" in response:
        raise ConnectionFailed(f"initialize failed: {_problem(response)}")
    result = response.get("result")
    return negotiated_version(result, settings.protocol), result


def _ended(
    connection: Connection, result: ConnectionResult, notify: Notify, refused: str | None
) -> ConnectionResult:
    """Close the connection; tell `notify` what went wrong, if anything did, quoting the
    Agent's last stderr line. DriveRefused when the script cannot go on (`refused`)."""
    unstoppable = connection.close()
    failure = result.failure
    if unstoppable is not None:
        failure = f"{failure}; the Agent {unstoppable}" if failure else f"the Agent {unstoppable}"
    if failure is not None and (stderr := connection.last_stderr_line) is not None:
        failure = f"{failure}; its last stderr line: {stderr}"
    if refused is not None:
        raise DriveRefused(f"{result.path}: {refused}: nothing to drive")
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
    return f"result {json_text(response.get('result'))}"[:120]
