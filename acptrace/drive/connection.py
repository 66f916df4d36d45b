"""One connection of the scripted Client: the Agent behind `acptrace record`, spoken to in turn.

The Agent runs behind the very recorder `acptrace record` runs (`acptrace.record.record`, in a
thread, on pipes: canonical format, monotonic clock), so a driven run and a recorded one are
the same kind of file. The Agent's stdout is read by a thread into a short queue; the Client
waits on that queue with deadlines, answering the Agent's own requests while it waits. The
queue is bounded, so an Agent that floods waits for the Client as it would for any Client
(and what arrives once the Client is closing is dropped: it is in the recording).

Ending a connection closes the Agent's stdin; an Agent that outlives it is stopped by the
recorder (`RecordSettings.stop_after_eof_s`: a grace, SIGTERM, SIGKILL to its group).
"""

from __future__ import annotations

import collections
import contextlib
import os
import queue
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import orjson

from acptrace.drive.messages import Permission, answer, is_response_to
from acptrace.model.errors import AcptraceError
from acptrace.model.excerpt import excerpt
from acptrace.record import AgentNotStarted, RecordResult, RecordSettings, Stdio, record
from acptrace.record.fdio import write_all
from acptrace.record.proxy import DEFAULT_DRAIN_TIMEOUT_S
from acptrace.record.stopping import AgentGroup

QUEUED_LINES = 64
"""The Agent's lines read ahead of the Client: the reader waits beyond this."""
STDERR_QUOTE_CHARS = 200
"""How much of the Agent's last stderr line a failure quotes."""
_PUT_POLL_S = 0.1
"""How often a reader waiting for room checks whether the Client is closing."""
NOT_STARTED = 127
"""The exit status given when the recording could not start at all."""


class ConnectionFailed(AcptraceError):
    """The Agent died, hung past the timeout, or answered something that is not JSON-RPC."""


class Connection:
    """A running Agent, recorded to `path`, and the Client's side of its stdio."""

    def __init__(
        self, argv: Sequence[str], path: Path, permission: Permission, settings: RecordSettings
    ) -> None:
        """`settings` must not forward signals (the recorder runs in a thread)."""
        self._path = path
        self._permission = permission
        self._settings = settings
        agent_in, self._to_agent = os.pipe()
        from_agent, agent_out = os.pipe()
        errors, agent_errors = os.pipe()
        self._lines: queue.Queue[bytes | None] = queue.Queue(maxsize=QUEUED_LINES)
        self._closing = threading.Event()
        self._stderr: collections.deque[str] = collections.deque(maxlen=1)
        self._group: AgentGroup | None = None
        self._result: RecordResult | None = None
        self._not_started: AcptraceError | None = None
        self._next_id = 0
        stdio = Stdio(agent_in, agent_out, agent_errors)

        def run_recorder() -> None:
            try:
                self._result = record(argv, path, settings, stdio, self._started)
            except AcptraceError as error:  # the Agent or the file could not be opened
                self._not_started = error
            finally:
                for fd in (agent_in, agent_out, agent_errors):
                    os.close(fd)
                self._recorded.set()

        self._recorded = threading.Event()
        """Set when the recording has ended (not `Thread.join`: an interrupted join marks a
        running thread as ended, on Python 3.11)."""
        self._recorder = threading.Thread(target=run_recorder, daemon=True)
        self._readers = [
            threading.Thread(target=_read, args=(from_agent, self._queue_line), daemon=True),
            threading.Thread(target=_read, args=(errors, self._note_stderr), daemon=True),
        ]
        for thread in (self._recorder, *self._readers):
            thread.start()

    def request(self, method: str, params: dict[str, Any], timeout_s: float) -> dict[str, Any]:
        """Send a request and wait for its response (answering the Agent meanwhile)."""
        request_id = self.send_request(method, params)
        deadline = time.monotonic() + timeout_s
        response = self.wait_for(lambda message: is_response_to(message, request_id), deadline)
        if response is None:
            raise ConnectionFailed(f"no answer to {method} within {timeout_s:g} s")
        return response

    def send_request(self, method: str, params: dict[str, Any]) -> int:
        """Send a request without waiting for its response; its id."""
        request_id = self._next_id
        self._next_id += 1
        self._send({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
        return request_id

    def wait_for(
        self, wanted: Callable[[dict[str, Any]], bool], deadline: float
    ) -> dict[str, Any] | None:
        """The Agent's first message that is `wanted`, reading (and answering) the others on
        the way; None when the deadline (`time.monotonic()`) passes first."""
        for message in self._messages(deadline):
            if wanted(message):
                return message
        return None

    def linger(self, seconds: float) -> None:
        """Keep reading (and answering) for a while, so late messages are recorded too."""
        with contextlib.suppress(ConnectionFailed):
            for _ in self._messages(time.monotonic() + seconds, ended_ok=True):
                pass

    def close(self) -> str | None:
        """End the connection: close the Agent's stdin and wait for the recording to end
        (the recorder stops an Agent that outlives its stdin). None, or why it did not end."""
        self._closing.set()
        with contextlib.suppress(OSError):
            os.close(self._to_agent)
        settings = self._settings
        after_eof = settings.stop_after_eof_s or 0.0
        self._recorded.wait(after_eof + 3 * settings.stop_grace_s + settings.drain_timeout_s)
        for thread in self._readers:
            thread.join(DEFAULT_DRAIN_TIMEOUT_S)
        if not self._recorded.is_set():
            return "survived SIGKILL"
        return None

    def abort(self) -> None:
        """Stop the Agent now (SIGTERM, grace, SIGKILL to its group) and wait for it: the
        Client is going away (an interrupt)."""
        self._closing.set()
        if self._group is not None:
            self._group.stop()
        self._recorded.wait(3 * self._settings.stop_grace_s + self._settings.drain_timeout_s)

    @property
    def last_stderr_line(self) -> str | None:
        """The Agent's last line on stderr so far, cut short, if it wrote one."""
        return self._stderr[-1] if self._stderr else None

    @property
    def exit_status(self) -> int:
        """The Agent's exit status as a shell gives it (127: it could not be started)."""
        if isinstance(self._not_started, AgentNotStarted):
            return self._not_started.exit_code
        return self._result.exit_code if self._result is not None else NOT_STARTED

    def why_ended(self) -> str:
        """The Agent's exit status, for a failure message."""
        self._recorded.wait(DEFAULT_DRAIN_TIMEOUT_S)  # (it ends soon after the Agent's stdout)
        if self._not_started is not None:
            return f"exit status {self.exit_status}: {self._not_started}"
        if not self._recorded.is_set():
            return "its stdout closed"
        return f"exit status {self.exit_status}"

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

    def _started(self, group: AgentGroup) -> None:
        self._group = group

    def _queue_line(self, line: bytes | None) -> None:
        """Queue a line for the Client, waiting for room; dropped once the Client is closing."""
        while not self._closing.is_set():
            try:
                self._lines.put(line, timeout=_PUT_POLL_S)
            except queue.Full:
                continue
            return

    def _note_stderr(self, line: bytes | None) -> None:
        if line is not None and line.strip():
            self._stderr.append(excerpt(_text(line).strip(), STDERR_QUOTE_CHARS))


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


def _text(line: bytes) -> str:
    return line.decode("utf-8", "replace").rstrip("\r\n")
