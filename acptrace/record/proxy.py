"""`acptrace record`'s engine: run the Agent behind a transparent stdio proxy and record it.

Three pumps (Client -> Agent, Agent -> Client, Agent stderr), each its own thread, forward
bytes the moment they are read; a fourth thread writes the transcript from a bounded queue.
No thread ever waits on another's progress, so neither a full pipe nor a slow disk can stall
the protocol. The end of each stream is passed on as it happened (the Client closing stdin
closes the Agent's, the Agent closing stdout closes acptrace's), signals go to the Agent,
and acptrace exits with the Agent's status.
"""

from __future__ import annotations

import contextlib
import os
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from acptrace.model.errors import AcptraceError
from acptrace.model.version import __version__
from acptrace.record.capture import CaptureQueue
from acptrace.record.claim import claim_transcript
from acptrace.record.events import Closed, CloseReason, Item, Opened, Stream
from acptrace.record.fdio import retire
from acptrace.record.outputs import OWNER_ONLY, OutputRefused, RecordingExists, check_output
from acptrace.record.process import (
    SignalForwarder,
    exit_status,
    signal_name,
    spawn,
    wait_for_exit,
)
from acptrace.record.pump import Pump, PumpEnd
from acptrace.record.redact import RedactionPolicy
from acptrace.record.stopping import STOP_GRACE_S, AgentGroup
from acptrace.record.writer import TranscriptWriter

DEFAULT_MAX_LINE_BYTES = 32 * 1024 * 1024
"""Longer lines are recorded in parts of at most this size (never held whole)."""
DEFAULT_QUEUE_BYTES = 128 * 1024 * 1024
"""Line data waiting for the disk beyond this is left out of the transcript (as a gap)."""
DEFAULT_DRAIN_TIMEOUT_S = 2.0
"""After the Agent exits, how long to wait for the rest of its stdout and stderr (a child
process it left behind may hold them open)."""


class TranscriptUnwritable(AcptraceError):
    """The transcript file cannot be created."""


@dataclass(frozen=True, slots=True)
class RecordSettings:
    """How to record."""

    redaction: RedactionPolicy | None = field(default_factory=RedactionPolicy.build)
    """Secrets to redact in the transcript; None records everything as it was."""
    max_line_bytes: int = DEFAULT_MAX_LINE_BYTES
    """Lines longer than this are recorded in parts."""
    queue_bytes: int = DEFAULT_QUEUE_BYTES
    """Memory for lines waiting to be written; lines beyond it are left out (a `gap`)."""
    drain_timeout_s: float = DEFAULT_DRAIN_TIMEOUT_S
    """How long to wait for the Agent's output pipes to close after it exits."""
    forward_signals: bool = True
    """Pass SIGINT, SIGTERM and SIGHUP on to the Agent (main thread only)."""
    stop_after_eof_s: float | None = None
    """Stop the Agent (`AgentGroup.stop`) when it still runs this long after the Client closed
    stdin; None: wait for it however long it runs."""
    stop_grace_s: float = STOP_GRACE_S
    """After a stopping signal, how long the Agent's group has before SIGKILL."""
    hold_back: bool = False
    """When `queue_bytes` are waiting for the disk, hold the traffic back until there is room
    instead of leaving lines out: for a Client that is acptrace itself (drive)."""
    keep_recording: bool = False
    """Refuse (`RecordingExists`) a transcript file that already holds bytes, instead of
    replacing it: checked once the file is locked, so a recorder that ended meanwhile is
    seen."""


@dataclass(frozen=True, slots=True)
class Stdio:
    """The Client's side: the file descriptors acptrace proxies."""

    stdin: int = 0
    """Read from the Client, forwarded to the Agent's stdin."""
    stdout: int = 1
    """Where the Agent's stdout goes."""
    stderr: int = 2
    """Where the Agent's stderr goes."""


@dataclass(frozen=True, slots=True)
class RecordResult:
    """How a recording ended."""

    exit_code: int
    """The Agent's exit status (128 + N when signal N killed it): acptrace exits with it."""
    reason: CloseReason
    """What ended the connection first."""
    records: int
    """Records written to the transcript."""
    dropped: int
    """Lines left out of the transcript because the disk could not keep up."""
    transcript_error: str | None
    """Why the transcript is incomplete (it stopped being written, or a record was lost), if
    it is: the caller must say so and fail."""
    unwritten: int = 0
    """Records not written after the writing stopped (the file ends on the last whole one)."""
    abandoned: int = 0
    """Lines left out because a stopping signal's grace ran out before they were redacted
    (also counted in the `close` record's `dropped_lines`, with a `gap`)."""


class _FirstEnd:
    """Remembers the first thing that ended the connection."""

    def __init__(self) -> None:
        self._lock = threading.RLock()  # (re-entered by a signal handler in its thread)
        self.reason: CloseReason | None = None

    def note(self, reason: CloseReason) -> None:
        with self._lock:
            if self.reason is None:
                self.reason = reason


def record(
    argv: Sequence[str],
    path: str | os.PathLike[str],
    settings: RecordSettings | None = None,
    stdio: Stdio | None = None,
    started: Callable[[AgentGroup], None] | None = None,
) -> RecordResult:
    """Run the Agent `argv` with the Client on `stdio`, recording to `path`; wait for its end
    (and for what it left in its process group to be stopped). `started` is given the Agent's
    group as soon as it runs, for a caller that may have to stop it.

    Raises `TranscriptUnwritable` when the file cannot be created or another recorder is
    writing it (before anything starts; see `acptrace.record.outputs` for the paths refused,
    `acptrace.record.claim` for the lock), `RecordingExists` when `keep_recording` and it
    holds bytes, and `AgentNotStarted` when the command cannot be started (a file it created
    is removed, one that existed is left as it was).
    """
    settings = settings or RecordSettings()
    stdio = stdio or Stdio()
    target = Path(path)
    try:
        check_output(target)
        claimed = claim_transcript(target, keep_recording=settings.keep_recording)
    except RecordingExists:
        raise
    except OutputRefused as error:
        raise TranscriptUnwritable(f"cannot write the transcript {error}") from None
    except OSError as error:
        reason = error.strerror or str(error)
        raise TranscriptUnwritable(f"{target}: cannot write the transcript ({reason})") from None
    fd = claimed.fd
    first_end = _FirstEnd()
    forwarder = SignalForwarder(
        lambda _: first_end.note(CloseReason.SIGNAL), install=settings.forward_signals
    )
    try:
        with forwarder:
            try:
                agent = spawn(argv)
            except AcptraceError:
                if claimed.created:
                    target.unlink(missing_ok=True)
                raise
            if stat.S_ISREG(os.fstat(fd).st_mode):  # not a FIFO or a device
                os.ftruncate(fd, 0)  # only now: a failed start leaves a file as it was
                os.fchmod(fd, OWNER_ONLY)  # an existing file may have been world-readable
            group = AgentGroup(agent, settings.stop_grace_s)
            forwarder.attach(group)
            if started is not None:
                started(group)
            recording = _Recording(argv, agent, group, fd, settings, stdio, first_end, forwarder)
            with _switching_often():
                return recording.run()
    finally:
        os.close(fd)


SWITCH_INTERVAL_S = 0.001
"""How long Python lets one thread run before another that waits takes over, while recording
(the interpreter's default is 5 ms): a pump woken by a line waits at most about this for the
writer to hand over, at each of the few steps a line takes through the proxy, so a ping is
not delayed by more than a few milliseconds while the writer redacts a megabyte."""


@contextlib.contextmanager
def _switching_often() -> Iterator[None]:
    previous = sys.getswitchinterval()
    sys.setswitchinterval(min(previous, SWITCH_INTERVAL_S))
    try:
        yield
    finally:
        sys.setswitchinterval(previous)


class _Recording:
    """One run: the Agent, the pumps, the queue and the writer."""

    def __init__(
        self,
        argv: Sequence[str],
        agent: subprocess.Popen[bytes],
        group: AgentGroup,
        fd: int,
        settings: RecordSettings,
        stdio: Stdio,
        first_end: _FirstEnd,
        signals: SignalForwarder,
    ) -> None:
        assert agent.stdin is not None
        assert agent.stdout is not None
        assert agent.stderr is not None
        self._argv = tuple(argv)
        self._agent = agent
        self._group = group
        self._settings = settings
        self._stdio = stdio
        self._first_end = first_end
        self._signals = signals
        self._queue = CaptureQueue(settings.queue_bytes, hold_back=settings.hold_back)
        self._writer = TranscriptWriter(fd, self._queue, settings.redaction)
        limit = settings.max_line_bytes
        self._client = Pump(
            Stream.C2A, stdio.stdin, agent.stdin.fileno(), self._queue, limit, self._client_ended
        )
        self._output = Pump(
            Stream.A2C, agent.stdout.fileno(), stdio.stdout, self._queue, limit, self._output_ended
        )
        self._errors = Pump(
            Stream.STDERR,
            agent.stderr.fileno(),
            stdio.stderr,
            self._queue,
            limit,
            lambda _: None,
            drain_on_sink_loss=True,
        )

    def run(self) -> RecordResult:
        agent = self._agent
        redacting = self._settings.redaction is not None
        cwd = os.getcwd()
        self._queue.put_event(
            lambda ts, mono: Opened(self._argv, cwd, agent.pid, __version__, redacting, ts, mono)
        )
        self._writer.start()
        pumps = (self._client, self._output, self._errors)
        for pump in pumps:
            pump.start()
        returncode = wait_for_exit(agent)  # (in steps: signals are handled meanwhile)
        self._first_end.note(CloseReason.AGENT_EXIT)
        self._group.end()  # (its leftovers: they may hold its stdout and stderr open)
        deadline = time.monotonic() + self._settings.drain_timeout_s
        for pump in (self._output, self._errors):
            pump.join(max(0.0, deadline - time.monotonic()))
        reason = self._first_end.reason or CloseReason.AGENT_EXIT
        self._queue.put_event(lambda ts, mono: self._closed(returncode, reason, ts, mono))
        self._queue.close()
        self._finish_writing()
        for pump, pipe in ((self._output, agent.stdout), (self._errors, agent.stderr)):
            if pump.join(0):  # a pump still reading (a child holds the pipe) keeps its fd
                _close(pipe)
        return RecordResult(
            exit_code=exit_status(returncode),
            reason=reason,
            records=self._writer.records,
            dropped=self._queue.dropped,
            transcript_error=self._writer.error,
            unwritten=self._writer.unwritten,
            abandoned=self._writer.abandoned,
        )

    def _finish_writing(self) -> None:
        """Wait for the writer; after a stopping signal only until a quarter of the grace has
        passed since it came (the lines it has not redacted by then are left out, as a gap;
        the line in hand takes up to half a second more), so acptrace ends within the grace
        whatever is queued."""
        signalled = self._signals.received_at
        if signalled is not None:
            left = signalled + self._settings.stop_grace_s / 4 - time.monotonic()
            if not self._writer.join(max(0.0, left)):
                self._writer.abandon()
        self._writer.join()

    def _closed(self, returncode: int, reason: CloseReason, ts_ns: int, mono_ns: int) -> Item:
        pumps = (self._client, self._output, self._errors)
        return Closed(
            reason=reason,
            exit_code=exit_status(returncode),
            signal=signal_name(self._signals.received) if reason is CloseReason.SIGNAL else None,
            agent_signal=signal_name(-returncode) if returncode < 0 else None,
            sizes={pump.stream.value: pump.size for pump in pumps},
            dropped=self._queue.dropped,
            ts_ns=ts_ns,
            mono_ns=mono_ns,
        )

    def _client_ended(self, end: PumpEnd) -> None:
        """The Client closed stdin: close the Agent's. The Agent stopped reading: stop ours."""
        if end is PumpEnd.SOURCE_CLOSED:
            self._first_end.note(CloseReason.CLIENT_CLOSED)
            if self._settings.stop_after_eof_s is not None:
                self._group.stop(after_s=self._settings.stop_after_eof_s)
        else:
            retire(self._stdio.stdin)
        _close(self._agent.stdin)

    def _output_ended(self, end: PumpEnd) -> None:
        """The Agent closed stdout: close ours. The Client stopped reading: stop reading too."""
        if end is PumpEnd.SOURCE_CLOSED:
            self._first_end.note(CloseReason.AGENT_EXIT)
            retire(self._stdio.stdout)
        else:
            self._first_end.note(CloseReason.CLIENT_CLOSED)
            _close(self._agent.stdout)


def _close(stream: IO[bytes] | None) -> None:
    if stream is not None:
        with contextlib.suppress(OSError):
            stream.close()
