"""The transcript writer: its own thread, so a slow disk never slows the forwarding.

It takes what the pumps queued, encodes it (parsing and redaction happen here, not in the
pumps; it waits `SETTLE_S` before each batch and hands the GIL back after every record;
redaction itself is linear and never holds the GIL for more than a few milliseconds at a
time) and writes whole records with one write per batch, so the file is always a valid
prefix of the transcript, whatever stops when: records reach the file a few milliseconds
after their line. When redacting, the chunks of a streamed message are held until the
message is over (`acptrace.record.chunks`: a secret split across them is found), at most
`HOLD_S` (and 1 MB), with the records that come meanwhile behind them. After a stopping
signal the writer is given until a quarter of the grace has passed (`abandon`): the lines it has not
redacted by then are left out (counted, with a `gap` for their stream), never written as
they were.

A record that cannot be encoded is noted and the rest written. A write that fails part-way
(a full disk, a file size limit) is cut back to its last whole record, so the file still
ends on a whole line; the writing stops there. After that, or anything else
that stops it, the writer keeps draining the queue (so the pumps never notice), counts the
records it could not write, and reports the error at the end: it never dies silently.
"""

from __future__ import annotations

import dataclasses
import os
import threading
import time
from collections import Counter
from collections.abc import Callable

from acptrace.record.capture import CaptureQueue
from acptrace.record.chunks import ChunkJoiner, parsed_chunk
from acptrace.record.events import Captured, Closed, Gap, Item, Stream
from acptrace.record.fdio import write_prefix
from acptrace.record.redact import RedactionPolicy
from acptrace.record.transcript import encode, encode_redacted

BATCH_BYTES = 1024 * 1024
"""About how much line data one write holds (fewer syscalls under load, bounded copies)."""
SETTLE_S = 0.002
"""How long the writer lets new lines settle before it encodes them: a request and its
answer usually cross the proxy in that time without the writer competing for the GIL."""
HOLD_S = 2.0
"""How long the chunks of a streamed message are held at most, waiting for its end."""


class TranscriptWriter:
    """Drains a capture queue into a file descriptor until the queue is closed."""

    def __init__(self, fd: int, queue: CaptureQueue, policy: RedactionPolicy | None) -> None:
        self._fd = fd
        self._queue = queue
        self._policy = policy
        self._joiner: ChunkJoiner[Item] | None = ChunkJoiner(policy) if policy else None
        self._abandoned: Counter[Stream] = Counter()
        self._abandoned_bytes: Counter[Stream] = Counter()
        self._abandoning = False
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

    def join(self, timeout: float | None = None) -> bool:
        """Wait until everything queued before `CaptureQueue.close` is written (at most
        `timeout` seconds); whether it is."""
        self._thread.join(timeout)
        return not self._thread.is_alive()

    def abandon(self) -> None:
        """Stop redacting: the lines not written yet are left out (a `gap` for each stream,
        counted in `abandoned` and in the `close` record), the events still written."""
        self._abandoning = True

    @property
    def abandoned(self) -> int:
        """Lines left out because the writer was told to `abandon` them."""
        return sum(self._abandoned.values())

    def _run(self) -> None:
        try:
            while True:
                items = self._queue.take(BATCH_BYTES, self._hold_left())
                if not items and not self._queue.drained:
                    self._guarded(self._let_go, [])  # (chunks held for `HOLD_S`)
                    continue
                if not items:
                    self._guarded(self._let_go, [])
                    return
                self._guarded(self._write, items)
        except BaseException as error:  # the queue failed: report it
            self._stop(f"the transcript writer failed: {_describe(error)}")

    def _guarded(self, step: Callable[[list[Item]], None], items: list[Item]) -> None:
        try:
            if self.stopped:
                self.unwritten += len(items)
            else:
                time.sleep(SETTLE_S if items else 0)
                step(items)
        except BaseException as error:  # reported at the end, never lost
            self._stop(f"the transcript writer failed: {_describe(error)}")
        finally:
            self._queue.release(items)

    def _hold_left(self) -> float | None:
        since = self._joiner.holding_since if self._joiner else None
        return None if since is None else max(0.0, since + HOLD_S - time.monotonic())

    def _let_go(self, _: list[Item]) -> None:
        """Write what the joiner holds (its time is up, or the queue is closed)."""
        if self._joiner is not None:
            self._write_ready([(item, chunk) for item, chunk, _ in self._joiner.flush()])

    def _write(self, items: list[Item]) -> None:
        self._write_ready([(done, chunk) for item in items for done, chunk, _ in self._push(item)])
        if self._hold_left() == 0:  # (a message streamed for longer than `HOLD_S`)
            self._let_go([])

    def _push(self, item: Item) -> list[tuple[Item, object, int]]:
        """The item through the joiner (chunks wait there for their message's end)."""
        if self._joiner is None:
            return [(item, None, 0)]
        value = None
        if isinstance(item, Captured):
            line = item.line
            if item.stream is not Stream.STDERR and not line.part:
                value = parsed_chunk(line.data)
            return self._joiner.push(item, value, item.stream, len(line.data))
        return self._joiner.push(item, None, item.stream if isinstance(item, Gap) else None)

    def _write_ready(self, ready: list[tuple[Item, object]]) -> None:
        """Encode and write these (with a chunk already redacted where the joiner gave one)."""
        if self.stopped:
            self.unwritten += len(ready)
            return
        records: list[bytes] = []
        for item, chunk in ready:
            record = self._encode(item, chunk)
            if record is not None:
                records.append(record)
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

    def _encode(self, item: Item, chunk: object = None) -> bytes | None:
        """One record (None if it cannot be encoded at all, or is abandoned), then the GIL
        handed over: a pump waiting for it forwards at once instead of after the
        interpreter's switch interval (this cut p99 forwarding latency under bulk load from
        ~10 ms to ~1 ms in benchmarks/record_overhead.py's setting)."""
        if self._abandoning:
            return self._abandon(item)
        try:
            if chunk is not None and isinstance(item, Captured):
                record = encode_redacted(item, chunk)
            else:
                record = encode(item, self._policy)
        except Exception as error:  # one record lost, the rest still written
            self.lost += 1
            if self.error is None:
                self.error = f"a {_kind(item)} could not be recorded ({_describe(error)})"
            record = None
        time.sleep(0)
        return record

    def _abandon(self, item: Item) -> bytes | None:
        """A line is left out and counted; an event is written (the `close` record after a
        `gap` for each stream that lost lines here, and counting them)."""
        if isinstance(item, Captured):
            self._abandoned[item.stream] += 1
            self._abandoned_bytes[item.stream] += len(item.line.data)
            return None
        if isinstance(item, Closed) and self._abandoned:
            gaps = [
                encode(Gap(stream, lines, self._abandoned_bytes[stream], item.ts_ns, item.mono_ns),
                       None)
                for stream, lines in self._abandoned.items()
            ]  # fmt: skip
            closed = dataclasses.replace(item, dropped=item.dropped + self.abandoned)
            return b"".join(gaps) + encode(closed, None)
        return encode(item, self._policy)

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
