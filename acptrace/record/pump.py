"""One direction of the proxy: read a stream, note its lines, forward its bytes unchanged."""

from __future__ import annotations

import threading
from collections.abc import Callable
from enum import StrEnum

from acptrace.record.capture import CaptureQueue
from acptrace.record.events import Stream
from acptrace.record.fdio import read_some, write_all
from acptrace.record.lines import LineSplitter


class PumpEnd(StrEnum):
    """Why a pump stopped."""

    SOURCE_CLOSED = "source_closed"
    """The source reached end of file."""
    SINK_LOST = "sink_lost"
    """The sink stopped accepting bytes (its reader went away)."""


class Pump:
    """Reads `source` until EOF; each chunk is queued as lines first, then forwarded to `sink`.

    Queuing first keeps the transcript causal: a message is recorded before its peer can see
    it, so an answer is never recorded before what it answers. With `drain_on_sink_loss`
    the pump keeps reading (and recording) after the sink fails; otherwise it stops, and
    the caller passes the failure on to the source's writer.
    """

    def __init__(
        self,
        stream: Stream,
        source: int,
        sink: int,
        queue: CaptureQueue,
        max_line_bytes: int,
        on_end: Callable[[PumpEnd], None],
        *,
        drain_on_sink_loss: bool = False,
    ) -> None:
        self.stream = stream
        self._source = source
        self._sink: int | None = sink
        self._queue = queue
        self._splitter = LineSplitter(max_line_bytes)
        self._on_end = on_end
        self._drain = drain_on_sink_loss
        self._thread = threading.Thread(target=self._run, name=f"acptrace-{stream}", daemon=True)
        self.size = 0
        """Bytes read so far."""

    def start(self) -> None:
        """Start pumping in the background."""
        self._thread.start()

    def join(self, timeout: float | None = None) -> bool:
        """Wait for the pump to stop; whether it did."""
        self._thread.join(timeout)
        return not self._thread.is_alive()

    def _run(self) -> None:
        end = PumpEnd.SOURCE_CLOSED
        try:
            while chunk := read_some(self._source):
                self.size += len(chunk)
                lines = self._splitter.feed(chunk)
                if lines:
                    self._queue.put_lines(self.stream, lines)
                if not self._forward(chunk) and not self._drain:
                    end = PumpEnd.SINK_LOST
                    break
            else:
                tail = self._splitter.finish()
                if tail:
                    self._queue.put_lines(self.stream, tail)
        finally:
            self._on_end(end)

    def _forward(self, chunk: bytes) -> bool:
        """Forward the chunk; False once the sink has failed."""
        if self._sink is None:
            return False
        try:
            write_all(self._sink, chunk)
        except OSError:
            self._sink = None
            return False
        return True
