"""The mock Agent's loop: read the Client's lines, answer each from the recording.

One request at a time, in the order they arrive: a replay or a turn is sent whole (with its
recorded gaps) before the next line is read. Every request gets an answer; a request the
recording holds nothing for gets a JSON-RPC error, never silence.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, BinaryIO

import orjson

from acptrace.decode.directions import infer_direction
from acptrace.mock.faults import Fault, check_faults, plan, plan_turn
from acptrace.mock.recording import Recording, Step, StepRole, Window, is_replaying
from acptrace.model.domain import Direction

PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND = -32700, -32600, -32601
INVALID_PARAMS, INTERNAL_ERROR = -32602, -32603
INT64 = range(-(2**63), 2**63)
EXIT_TRUNCATED = 1
"""The mock's exit status when a fault (or the recording) ends the connection mid-request."""


@dataclass(frozen=True, slots=True)
class MockSettings:
    """How to play the recording back."""

    speed: float = 1.0
    """Recorded gaps are divided by this; 0 sends without waiting."""
    faults: tuple[Fault, ...] = field(default_factory=tuple)
    """Faults to inject into every replay, in order."""


class MockAgent:
    """An ACP Agent that answers from a recording."""

    def __init__(self, recording: Recording, settings: MockSettings | None = None) -> None:
        self._recording = recording
        self._settings = settings or MockSettings()
        check_faults(self._settings.faults, recording)
        self._turns = list(recording.turns)
        self._output: BinaryIO | None = None

    def serve(self, source: BinaryIO, sink: BinaryIO) -> int:
        """Answer the lines of `source` on `sink` until it ends; the exit status to end with."""
        self._output = sink
        for line in source:
            if not line.strip():
                continue
            if not self._handle(line):
                return EXIT_TRUNCATED
        return 0

    def _handle(self, line: bytes) -> bool:
        """Answer one line; False when the connection is to end now."""
        try:
            message = orjson.loads(line)
        except orjson.JSONDecodeError:
            self._error(None, PARSE_ERROR, "not JSON")
            return True
        if not isinstance(message, dict):
            self._error(None, INVALID_REQUEST, "acptrace mock takes one JSON-RPC object per line")
            return True
        if "method" not in message or "id" not in message:
            return True  # a notification or a response to the mock's own request: nothing owed
        request_id, method = message["id"], message["method"]
        if not _valid_id(request_id):  # (then it cannot be answered with it: JSON-RPC says null)
            self._error(None, INVALID_REQUEST, "a request id is a string or an integer")
            return True
        if not isinstance(method, str):
            self._error(request_id, INVALID_REQUEST, "a request method is a string")
            return True
        return self._request(request_id, method, message.get("params"))

    def _request(self, request_id: Any, method: str, given: Any) -> bool:
        params = given if isinstance(given, dict) else {}
        session = params.get("sessionId")
        recording = self._recording
        if method in ("session/load", "session/resume") and (
            problem := _replay_params_problem(method, given)
        ):
            self._error(request_id, INVALID_PARAMS, f"{method}: {problem}")
        elif method == "initialize" and recording.initialize is not None:
            self._result(request_id, recording.initialize)
        elif method == "session/new":
            fresh = {"sessionId": f"sess_mock_{uuid.uuid4().hex[:12]}"}
            self._result(request_id, recording.new_session or fresh)
        elif is_replaying(method, params) and recording.replay is not None:
            replay = plan(recording.replay, self._settings.faults, request_id)
            self._send_all(replay.steps, request_id, recording.replay, session)
            return not replay.exit_after
        elif method == "session/prompt" and self._turns:
            turn = self._turns.pop(0)
            self._send_all(plan_turn(turn, self._settings.faults), request_id, turn, session)
            return turn.answered
        else:
            # (-32601 only for what is no ACP request: an advertised method answered with it
            # would be CAP-NOT-HONOURED)
            known = infer_direction(method) is Direction.C2A
            code = INTERNAL_ERROR if known else METHOD_NOT_FOUND
            self._error(request_id, code, f"acptrace mock has no recording for {method}")
        return True

    def _send_all(
        self, steps: Sequence[Step], request_id: Any, window: Window, session: Any
    ) -> None:
        recorded = window.session_id
        for step in steps:
            self._wait(step)
            message = step.message
            if isinstance(session, str) and recorded is not None and session != recorded:
                message = _substituted(message, recorded, session)
            if step.role is StepRole.RESPONSE:
                message = {**message, "id": request_id}
            self._write(message)

    def _wait(self, step: Step) -> None:
        speed = self._settings.speed
        delay_s = step.extra_ms / 1000 + (step.gap_ns / 1e9 / speed if speed > 0 else 0.0)
        if delay_s > 0:
            time.sleep(delay_s)  # (the recorded pace is the behaviour being played back)

    def _result(self, request_id: Any, result: Any) -> None:
        self._write({"jsonrpc": "2.0", "id": request_id, "result": result})

    def _error(self, request_id: Any, code: int, text: str) -> None:
        self._write({"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": text}})

    def _write(self, message: dict[str, Any]) -> None:
        assert self._output is not None
        self._output.write(orjson.dumps(message) + b"\n")
        self._output.flush()


def _valid_id(value: Any) -> bool:
    """ACP's request id: a string, or an integer in int64 range (not null, not 1.0, not true)."""
    if isinstance(value, str):
        return True
    return isinstance(value, int) and not isinstance(value, bool) and value in INT64


def _replay_params_problem(method: str, params: Any) -> str | None:
    """What makes `session/load` or `session/resume` params unusable, or None."""
    if not isinstance(params, dict):
        return "params must be an object"
    if not isinstance(params.get("sessionId"), str):
        return "sessionId must be a string"
    cursor = params.get("replayFrom")
    if method == "session/load" or cursor is None:
        return None
    if isinstance(cursor, dict) and isinstance(cursor.get("type"), str):
        return None
    return "replayFrom must be an object with a type"


def _substituted(value: Any, old: str, new: str) -> Any:
    """`value` with every string equal to `old` replaced by `new`, at any depth."""
    if isinstance(value, str):
        return new if value == old else value
    if isinstance(value, dict):
        return {key: _substituted(item, old, new) for key, item in value.items()}
    if isinstance(value, list):
        return [_substituted(item, old, new) for item in value]
    return value
