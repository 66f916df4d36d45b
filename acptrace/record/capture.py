"""The queue between the pumps and the transcript writer: timestamps, order, bounded memory.

Pumps never wait on it. Each put takes the clocks and appends under one lock, so records are
in the order their last byte was read and `mono_ns` never goes back. Memory is bounded by
`max_bytes` of line data (queued plus being written). When a line does not fit, it is left
out of the transcript (it was still forwarded) and counted; a `Gap` for its stream goes in
as soon as a later line of that stream fits, or before the close event. With `hold_back`
(for a Client that is acptrace itself, where slowing the Agent loses nothing) a put waits
for room instead, so nothing is left out.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Sequence

from acptrace.record.events import Captured, Gap, Item, Line, Stream

Stamp = Callable[[int, int], Item]
"""Builds an event from the wall and monotonic clocks read under the queue's lock."""


class CaptureQueue:
    """Many pumps put, one writer takes; never blocks a put (unless `hold_back`)."""

    def __init__(self, max_bytes: int, *, hold_back: bool = False) -> None:
        if max_bytes < 1:
            raise ValueError("max_bytes must be positive")
        self._max = max_bytes
        self._hold_back = hold_back
        self._items: deque[Item] = deque()
        self._held = 0
        self._closed = False
        lock = threading.Lock()
        self._ready = threading.Condition(lock)
        self._room = threading.Condition(lock)
        self._pending_gaps: dict[Stream, tuple[int, int]] = {}
        self.dropped = 0
        """Lines left out of the transcript so far."""

    def put_lines(self, stream: Stream, lines: Sequence[Line]) -> None:
        """Lines read together (one timestamp); those that do not fit are counted as a gap."""
        with self._ready:
            if self._closed:
                return
            ts_ns, mono_ns = time.time_ns(), time.monotonic_ns()
            for line in lines:
                size = len(line.data)
                if self._hold_back and self._held and self._held + size > self._max:
                    if not self._wait_for_room(size):
                        return
                    ts_ns, mono_ns = time.time_ns(), time.monotonic_ns()  # (others put meanwhile)
                if self._held and self._held + size > self._max:
                    lines_left, bytes_left = self._pending_gaps.get(stream, (0, 0))
                    self._pending_gaps[stream] = (lines_left + 1, bytes_left + size)
                    self.dropped += 1
                    continue
                self._flush_gap(stream, ts_ns, mono_ns)
                self._items.append(Captured(stream, line, ts_ns, mono_ns))
                self._held += size
            self._ready.notify()

    def put_event(self, stamp: Stamp) -> None:
        """An event (always kept), after any gaps still to be noted."""
        with self._ready:
            if self._closed:
                return
            ts_ns, mono_ns = time.time_ns(), time.monotonic_ns()
            for stream in list(self._pending_gaps):
                self._flush_gap(stream, ts_ns, mono_ns)
            self._items.append(stamp(ts_ns, mono_ns))
            self._ready.notify()

    def take(self, max_bytes: int, timeout: float | None = None) -> list[Item]:
        """Wait for items and take them, up to about `max_bytes`; [] once closed and drained
        (`drained` then says so), or when `timeout` seconds passed with nothing queued.

        The bytes stay counted until `release` is called with what was taken.
        """
        with self._ready:
            deadline = None if timeout is None else time.monotonic() + timeout
            while not self._items and not self._closed:
                if deadline is None:
                    self._ready.wait()
                elif (left := deadline - time.monotonic()) <= 0 or not self._ready.wait(left):
                    return []
            taken: list[Item] = []
            size = 0
            while self._items and (not taken or size < max_bytes):
                item = self._items.popleft()
                taken.append(item)
                size += held_bytes((item,))
            return taken

    @property
    def drained(self) -> bool:
        """Closed, and everything queued taken."""
        with self._ready:
            return self._closed and not self._items

    def release(self, items: Iterable[Item]) -> None:
        """The writer is done with these items: their bytes no longer count."""
        size = held_bytes(items)
        with self._ready:
            self._held -= size
            self._room.notify_all()

    def close(self) -> None:
        """No more puts; the writer drains what is queued and stops."""
        with self._ready:
            self._closed = True
            self._ready.notify_all()
            self._room.notify_all()

    def _wait_for_room(self, size: int) -> bool:
        """Wait (holding the lock) until `size` more bytes fit; False if the queue closed."""
        self._ready.notify()  # (the writer: what is queued so far)
        while self._held and self._held + size > self._max and not self._closed:
            self._room.wait()
        return not self._closed

    def _flush_gap(self, stream: Stream, ts_ns: int, mono_ns: int) -> None:
        gap = self._pending_gaps.pop(stream, None)
        if gap is not None:
            self._items.append(Gap(stream, gap[0], gap[1], ts_ns, mono_ns))


def held_bytes(items: Iterable[Item]) -> int:
    """The line bytes these items hold (what the queue's bound counts)."""
    return sum(len(item.line.data) for item in items if isinstance(item, Captured))
