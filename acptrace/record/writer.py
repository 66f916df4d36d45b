"""The transcript writer: its own thread, so a slow disk never slows the forwarding.

It takes what the pumps queued, encodes it (parsing and redaction happen here, not in the
pumps; it waits `SETTLE_S` before each batch and hands the GIL back after every record)
and writes whole records with one write per batch, so the file is always a valid prefix of
the transcript, whatever stops when: records reach the file a few milliseconds after
their line. After a write error it keeps draining the queue (so the pumps never notice) and
reports the error at the end.
"""

from __future__ import annotations

import os
import threading
import time

from acptrace.record.capture import CaptureQueue
from acptrace.record.events import Item
from acptrace.record.fdio import write_all
from acptrace.record.redact import RedactionPolicy
from acptrace.record.transcript import encode

BATCH_BYTES = 1024 * 1024
"""About how much line data one write holds (fewer syscalls under load, bounded copies)."""
SETTLE_S = 0.002
"""How long the writer lets new lines settle before it encodes them: a request and its
answer usually cross the proxy in that time without the writer competing for the GIL."""


class TranscriptWriter:
    """Drains a capture queue into a file descriptor until the queue is closed."""

    def __init__(self, fd: int, queue: CaptureQueue, policy: RedactionPolicy | None) -> None:
        self._fd = fd
        self._queue = queue
        self._policy = policy
        self._thread = threading.Thread(target=self._run, name="acptrace-writer", daemon=True)
        self.error: OSError | None = None
        """The write error that stopped the transcript, if one did."""
        self.records = 0
        """Records written."""

    def start(self) -> None:
        """Start writing in the background."""
        self._thread.start()

    def join(self) -> None:
        """Wait until everything queued before `CaptureQueue.close` is written."""
        self._thread.join()

    def _run(self) -> None:
        while items := self._queue.take(BATCH_BYTES):
            time.sleep(SETTLE_S)
            if self.error is None:
                data = b"".join(self._encode(item) for item in items)
                try:
                    write_all(self._fd, data)
                    self.records += len(items)
                except OSError as error:
                    self.error = error
            self._queue.release(items)

    def _encode(self, item: Item) -> bytes:
        """One record, then the GIL handed over: a pump waiting for it forwards at once
        instead of after the interpreter's switch interval (this cut p99 forwarding latency
        under bulk load from ~10 ms to ~1 ms in benchmarks/record_overhead.py's setting)."""
        record = encode(item, self._policy)
        time.sleep(0)
        return record


def open_transcript(path: os.PathLike[str] | str) -> int:
    """Open the transcript for writing, creating it readable by its owner only (the caller
    truncates it once the Agent runs); OSError on failure."""
    flags = os.O_WRONLY | os.O_CREAT | getattr(os, "O_CLOEXEC", 0)
    return os.open(path, flags, 0o600)
