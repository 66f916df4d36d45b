"""One connection of the scripted Client: the Agent behind `acptrace record`, spoken to in turn.

The Agent runs behind the very recorder `acptrace record` runs (`acptrace.record.record`, in a
thread, on pipes: canonical format, monotonic clock), so a driven run and a recorded one are
the same kind of file. The Agent's stdout is read by a thread into a queue; the Client waits
on that queue with deadlines, answering the Agent's own requests while it waits.
"""

from __future__ import annotations

import collections
import contextlib
import os
import queue
import signal
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import orjson

from acptrace.drive.messages import Permission, answer
from acptrace.model.errors import AcptraceError
from acptrace.model.excerpt import excerpt
from acptrace.record import AgentNotStarted, RecordResult, RecordSettings, Stdio, record
from acptrace.record.fdio import write_all

STOP_GRACE_S = 2.0
"""After SIGTERM, how long the Agent has to exit before it is killed."""
STDERR_TAIL_LINES = 5
"""How many of the last stderr lines a failure may quote."""
NOT_STARTED = 127
"""The exit status given when the recording could not start at all."""


class ConnectionFailed(AcptraceError):
    """The Agent died, hung past the timeout, or answered something that is not JSON-RPC."""


class Connection:
    """A running Agent, recorded to `path`, and the Client's side of its stdio."""

    def __init__(self, argv: Sequence[str], path: Path, permission: Permission) -> None:
        self._path = path
        self._permission = permission
        agent_in, self._to_agent = os.pipe()
        from_agent, agent_out = os.pipe()
        errors, agent_errors = os.pipe()
        self._lines: queue.Queue[bytes | None] = queue.Queue()
        self._stderr: collections.deque[str] = collections.deque(maxlen=STDERR_TAIL_LINES)
        self._result: RecordResult | None = None
        self._not_started: AcptraceError | None = None
        self._next_id = 0
        stdio = Stdio(agent_in, agent_out, agent_errors)

        def run_recorder() -> None:
            settings = RecordSettings(forward_signals=False)  # (not the main thread)
            try:
                self._result = record(argv, path, settings, stdio)
            except AcptraceError as error:  # the Agent or the file could not be opened
                self._not_started = error
            finally:
                for fd in (agent_in, agent_out, agent_errors):
                    os.close(fd)

        self._recorder = threading.Thread(target=run_recorder, daemon=True)
        self._readers = [
            threading.Thread(target=_read, args=(from_agent, self._lines.put), daemon=True),
            threading.Thread(target=_read, args=(errors, self._note_stderr), daemon=True),
        ]
        for thread in (self._recorder, *self._readers):
            thread.start()

    def request(self, method: str, params: dict[str, Any], timeout_s: float) -> dict[str, Any]:
        """Send a request and wait for its response (answering the Agent meanwhile)."""
        request_id = self._next_id
        self._next_id += 1
        self._send({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
        deadline = time.monotonic() + timeout_s
        for message in self._messages(deadline):
            if _is_response(message) and message.get("id") == request_id:
                return message
        raise ConnectionFailed(f"no answer to {method} within {timeout_s:g} s")

    def linger(self, seconds: float) -> None:
        """Keep reading (and answering) for a while, so late messages are recorded too."""
        with contextlib.suppress(ConnectionFailed):
            for _ in self._messages(time.monotonic() + seconds, ended_ok=True):
                pass

    def close(self, timeout_s: float) -> tuple[int, str | None]:
        """End the connection: close the Agent's stdin, wait for it to exit, stop it if it
        does not. The exit status, and what had to be done if it would not exit."""
        with contextlib.suppress(OSError):
            os.close(self._to_agent)
        self._recorder.join(timeout_s)
        note = None
        if self._recorder.is_alive():
            note = f"did not exit within {timeout_s:g} s of its stdin closing; stopped"
            self._stop()
        for thread in self._readers:
            thread.join(STOP_GRACE_S)
        return self.exit_status, note

    @property
    def exit_status(self) -> int:
        """The Agent's exit status as a shell gives it (127: it could not be started)."""
        if isinstance(self._not_started, AgentNotStarted):
            return self._not_started.exit_code
        return self._result.exit_code if self._result is not None else NOT_STARTED

    def why_ended(self) -> str:
        """The Agent's exit status and its last stderr line, for a failure message."""
        self._recorder.join(STOP_GRACE_S)  # (it ends soon after the Agent's stdout does)
        if self._not_started is not None:
            return f"exit status {self.exit_status}: {self._not_started}"
        if self._recorder.is_alive():
            status = "its stdout closed"
        else:
            status = f"exit status {self.exit_status}"
        return status + (f": {self._stderr[-1]}" if self._stderr else "")

    def _messages(self, deadline: float, *, ended_ok: bool = False) -> Iterator[dict[str, Any]]:
        """The Agent's messages until the deadline; its requests are answered on the way."""
        while (left := deadline - time.monotonic()) > 0:
            try:
                line = self._lines.get(timeout=left)
            except queue.Empty:
                return
            if line is None:
                if ended_ok:
                    return
                raise ConnectionFailed(f"the Agent ended the connection ({self.why_ended()})")
            for message in _decoded(line):
                if "method" in message and "id" in message:
                    member = answer(message["method"], message.get("params"), self._permission)
                    self._send({"jsonrpc": "2.0", "id": message["id"], **member})
                yield message

    def _send(self, message: dict[str, Any]) -> None:
        with contextlib.suppress(OSError):  # (the Agent is gone: reading its stdout says so)
            write_all(self._to_agent, orjson.dumps(message) + b"\n")

    def _stop(self) -> None:
        """SIGTERM to the Agent's process group, then SIGKILL."""
        agent = _agent_pid(self._path)
        for number in (signal.SIGTERM, signal.SIGKILL):
            if agent is not None:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(agent, number)  # (the recorder starts it as a group leader)
            self._recorder.join(STOP_GRACE_S)
            if not self._recorder.is_alive():
                return

    def _note_stderr(self, line: bytes | None) -> None:
        if line is not None:
            self._stderr.append(_text(line))


def _read(fd: int, put: Callable[[bytes | None], None]) -> None:
    """Every line of the fd, then None at its end; the fd is closed."""
    with os.fdopen(fd, "rb") as stream, contextlib.suppress(OSError, ValueError):
        for line in stream:
            put(line)
    put(None)


def _decoded(line: bytes) -> list[dict[str, Any]]:
    """The JSON-RPC objects of one line (a batch's members); ConnectionFailed for garbage."""
    if not line.strip():
        return []
    try:
        value = orjson.loads(line)
    except orjson.JSONDecodeError:
        value = None
    items = value if isinstance(value, list) else [value]
    if not items or not all(isinstance(item, dict) for item in items):
        raise ConnectionFailed(f"the Agent sent garbage: {excerpt(_text(line))}")
    return items


def _is_response(message: dict[str, Any]) -> bool:
    return "method" not in message and ("result" in message or "error" in message)


def _text(line: bytes) -> str:
    return line.decode("utf-8", "replace").rstrip("\r\n")


def _agent_pid(path: Path) -> int | None:
    """The Agent's pid, from the transcript's open event."""
    try:
        with path.open("rb") as stream:
            first = orjson.loads(stream.readline())
    except (OSError, orjson.JSONDecodeError):
        return None
    pid = first.get("pid") if isinstance(first, dict) else None
    return pid if isinstance(pid, int) else None
