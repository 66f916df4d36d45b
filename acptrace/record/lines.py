"""Cutting a byte stream into lines for the transcript, across reads, with bounded memory.

Forwarding never waits for this: the pumps forward every chunk as soon as it is read and only
the transcript sees lines. A line longer than `max_line_bytes` is not held whole: it is
cut into parts of at most that size (at a UTF-8 character boundary when there is one nearby),
numbered from 1, each but the last marked `more`.
"""

from __future__ import annotations

from acptrace.record.events import Line

_UTF8_CONTINUATION = 0xC0
_UTF8_CONTINUATION_BITS = 0x80
_MAX_UTF8_BACKOFF = 3


class LineSplitter:
    """Feed it chunks as they are read; it returns the lines (and parts) they complete."""

    def __init__(self, max_line_bytes: int) -> None:
        if max_line_bytes < 1:
            raise ValueError("max_line_bytes must be positive")
        self._max = max_line_bytes
        self._held: list[bytes] = []
        self._held_size = 0
        self._part = 0

    def feed(self, chunk: bytes) -> list[Line]:
        """The lines this chunk completes, plus parts of an over-long line it fills."""
        out: list[Line] = []
        start = 0
        while (end := chunk.find(b"\n", start)) >= 0:
            self._hold(chunk[start:end])
            out.extend(self._release(ended=True))
            start = end + 1
        if start < len(chunk):
            self._hold(chunk[start:])
            while self._held_size > self._max:
                out.append(self._cut_part())
        return out

    def finish(self) -> list[Line]:
        """The final line if the stream ended without a newline (nothing if it did)."""
        if not self._held and not self._part:
            return []
        return self._release(ended=False)

    def _hold(self, data: bytes) -> None:
        if data:
            self._held.append(data)
            self._held_size += len(data)

    def _joined(self) -> bytes:
        data = b"".join(self._held) if len(self._held) != 1 else self._held[0]
        self._held = [data] if data else []
        return data

    def _release(self, *, ended: bool) -> list[Line]:
        """The held bytes as one line, or as the last parts of an over-long one."""
        out: list[Line] = []
        while self._held_size > self._max:
            out.append(self._cut_part())
        data = self._joined()
        self._held, self._held_size = [], 0
        if self._part:
            out.append(Line(data, ended, self._part + 1))
            self._part = 0
        else:
            out.append(Line(data, ended))
        return out

    def _cut_part(self) -> Line:
        """The next part of an over-long line; the rest stays held."""
        data = self._joined()
        cut = utf8_boundary(data, self._max)
        self._held = [data[cut:]]
        self._held_size = len(data) - cut
        self._part += 1
        return Line(data[:cut], ended=False, part=self._part, more=True)


def utf8_boundary(data: bytes, limit: int) -> int:
    """A cut position at most `limit` that does not split a UTF-8 character (if one is near)."""
    cut = limit
    for _ in range(_MAX_UTF8_BACKOFF + 1):
        if cut <= 0 or cut >= len(data):
            break
        if data[cut] & _UTF8_CONTINUATION != _UTF8_CONTINUATION_BITS:
            return cut
        cut -= 1
    return limit
