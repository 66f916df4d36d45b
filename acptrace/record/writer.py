"""The transcript writer: its own thread, so a slow disk never slows the forwarding.

It takes what the pumps queued, encodes it (parsing and redaction happen here, not in the
pumps; it waits `SETTLE_S` before each batch and hands the GIL back after every record)
and writes whole records with one write per batch, so the file is always a valid prefix of
the transcript, whatever stops when: records reach the file a few milliseconds after
their line. A record that cannot be encoded is noted and the rest written. A write that
fails part-way (a full disk, a file size limit) is cut back to its last whole record, so
the file still ends on a whole line; the writing stops there. After that, or anything else
that stops it, the writer keeps draining the queue (so the pumps never notice), counts the
records it could not write, and reports the error at the end: it never dies silently.
"""

from __future__ import annotations

import os
import threading
import time

from acptrace.record.capture import CaptureQueue
from acptrace.record.events import Captured, Item
from acptrace.record.fdio import write_prefix
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
        self.error: str | None = None
        """The first thing that went wrong (a record lost, the writing stopped), if any."""
        self.stopped = False
        """Whether the writing stopped (a write error, or the writer failed)."""
        self.records = 0
        """Records written."""
        self.lost = 0
        """Records that could not be encoded (each also noted in `error` if it is the first)."""
        self.unwritten = 0
        """Records not written because the writing had stopped (the rest of a failed write
        and everything queued after it, the close event included)."""

    def start(self) -> None:
        """Start writing in the background."""
        self._thread.start()

    def join(self) -> None:
        """Wait until everything queued before `CaptureQueue.close` is written."""
        self._thread.join()

    def _run(self) -> None:
        try:
            while items := self._queue.take(BATCH_BYTES):
                try:
                    if self.stopped:
                        self.unwritten += len(items)
                    else:
                        time.sleep(SETTLE_S)
                        self._write(items)
                except BaseException as error:  # reported at the end, never lost
                    self._stop(f"the transcript writer failed: {_describe(error)}")
                finally:
                    self._queue.release(items)
        except BaseException as error:  # the queue failed: report it
            self._stop(f"the transcript writer failed: {_describe(error)}")

    def _write(self, items: list[Item]) -> None:
        records = [record for item in items if (record := self._encode(item)) is not None]
        written, error = write_prefix(self._fd, b"".join(records))
        if error is None:
            self.records += len(records)
            return
        whole = _whole_records(records, written)
        self.records += whole
        self.unwritten += len(records) - whole
        cut = written - sum(len(record) for record in records[:whole])
        self._stop(error.strerror or str(error))
        if cut and not _cut_back(self._fd, cut):
            self.error = f"{self.error}; its last line is cut (the file could not be shortened)"

    def _encode(self, item: Item) -> bytes | None:
        """One record (None if it cannot be encoded at all), then the GIL handed over: a pump
        waiting for it forwards at once instead of after the interpreter's switch interval
        (this cut p99 forwarding latency under bulk load from ~10 ms to ~1 ms in
        benchmarks/record_overhead.py's setting)."""
        try:
            record = encode(item, self._policy)
        except Exception as error:  # one record lost, the rest still written
            self.lost += 1
            if self.error is None:
                self.error = f"a {_kind(item)} could not be recorded ({_describe(error)})"
            record = None
        time.sleep(0)
        return record

    def _stop(self, message: str) -> None:
        self.stopped = True
        if self.error is None:
            self.error = message


def _whole_records(records: list[bytes], written: int) -> int:
    """How many of these records the first `written` bytes hold whole."""
    whole = 0
    for record in records:
        written -= len(record)
        if written < 0:
            break
        whole += 1
    return whole


def _cut_back(fd: int, size: int) -> bool:
    """Take the last `size` bytes written off a file (a record written in part); whether it
    could (a pipe or a device cannot be shortened)."""
    try:
        end = os.lseek(fd, 0, os.SEEK_CUR)
        os.ftruncate(fd, end - size)
        os.lseek(fd, end - size, os.SEEK_SET)
    except OSError:
        return False
    return True


def _describe(error: BaseException) -> str:
    return f"{type(error).__name__}: {error}" if str(error) else type(error).__name__


def _kind(item: Item) -> str:
    return "line" if isinstance(item, Captured) else "recorder event"


def open_transcript(path: os.PathLike[str] | str) -> int:
    """Open the transcript for writing, creating it readable by its owner only (the caller
    truncates it once the Agent runs); OSError on failure."""
    flags = os.O_WRONLY | os.O_CREAT | getattr(os, "O_CLOEXEC", 0)
    return os.open(path, flags, 0o600)
