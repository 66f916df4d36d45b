"""One connection of the scripted Client: the Agent behind `acptrace record`, spoken to in turn.

The Agent runs behind the very recorder `acptrace record` is (`python -m acptrace record -o
FILE -- AGENT…`, canonical format, monotonic clock), so a driven run and a recorded one are
the same kind of file. Its stdout is read by a thread into a queue; the Client waits on that
queue with deadlines, answering the Agent's own requests while it waits.
"""

from __future__ import annotations

import collections
import contextlib
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import IO, Any

import orjson

from acptrace.drive.messages import Permission, answer
from acptrace.model.errors import AcptraceError
from acptrace.model.excerpt import excerpt

STOP_GRACE_S = 2.0
"""After SIGTERM, how long the Agent has to exit before it is killed."""
STDERR_TAIL_LINES = 5
"""How many of the last stderr lines a failure may quote."""


class ConnectionFailed(AcptraceError):
    """The Agent died, hung past the timeout, or answered something that is not JSON-RPC."""


class Connection:
    """A running Agent, recorded to `path`, and the Client's side of its stdio."""

    def __init__(self, argv: Sequence[str], path: Path, permission: Permission) -> None:
        command = [sys.executable, "-m", "acptrace", "record", "-o", str(path), "--", *argv]
        self._path = path
        self._permission = permission
        self._process = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        self._lines: queue.Queue[bytes | None] = queue.Queue()
        self._stderr: collections.deque[str] = collections.deque(maxlen=STDERR_TAIL_LINES)
        self._next_id = 0
        self._threads = [
            threading.Thread(target=self._read_stdout, daemon=True),
            threading.Thread(target=self._read_stderr, daemon=True),
        ]
        for thread in self._threads:
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
            assert self._process.stdin is not None
            self._process.stdin.close()
        note = None
        try:
            status = self._process.wait(timeout_s)
        except subprocess.TimeoutExpired:
            note = f"did not exit within {timeout_s:g} s of its stdin closing; stopped"
            status = self._stop()
        for thread in self._threads:
            thread.join(STOP_GRACE_S)
        return status, note

    def why_ended(self) -> str:
        """The Agent's exit status and its last stderr line, for a failure message."""
        status = self._process.poll()
        tail = f": {self._stderr[-1]}" if self._stderr else ""
        return ("still running" if status is None else f"exit status {status}") + tail

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
                with contextlib.suppress(subprocess.TimeoutExpired):
                    self._process.wait(STOP_GRACE_S)  # (for its exit status in the message)
                raise ConnectionFailed(f"the Agent ended the connection ({self.why_ended()})")
            for message in _decoded(line):
                if "method" in message and "id" in message:
                    member = answer(message["method"], message.get("params"), self._permission)
                    self._send({"jsonrpc": "2.0", "id": message["id"], **member})
                yield message

    def _send(self, message: dict[str, Any]) -> None:
        stdin = self._process.stdin
        assert stdin is not None
        try:
            stdin.write(orjson.dumps(message) + b"\n")
            stdin.flush()
        except (BrokenPipeError, ValueError):
            pass  # (the Agent is gone: reading its stdout says so)

    def _stop(self) -> int:
        """SIGTERM to the recorder (it passes it on), then SIGKILL to the Agent's group."""
        with contextlib.suppress(ProcessLookupError):
            self._process.terminate()
        try:
            return self._process.wait(STOP_GRACE_S)
        except subprocess.TimeoutExpired:
            pass
        agent = _agent_pid(self._path)
        if agent is not None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(agent, signal.SIGKILL)  # (the recorder starts it as a group leader)
        try:
            return self._process.wait(STOP_GRACE_S)
        except subprocess.TimeoutExpired:
            self._process.kill()
            return self._process.wait()

    def _read_stdout(self) -> None:
        _pump(self._process.stdout, self._lines.put)
        self._lines.put(None)

    def _read_stderr(self) -> None:
        _pump(self._process.stderr, lambda line: self._stderr.append(_text(line)))


def _pump(stream: IO[bytes] | None, put: Any) -> None:
    assert stream is not None
    with contextlib.suppress(OSError, ValueError):
        for line in stream:
            put(line)


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
