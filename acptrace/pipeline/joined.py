"""Recordings joined into one file (`cat *.jsonl > one.jsonl`, what users attach to bug
reports): read once, cut into connections at each `open` record that follows traffic.

A recorder writes `open` first; another one after messages starts another recording, which is
another connection (its ids start again, its times too: `read.clocks` does not hold them to the
first's). The file is read as it streams: each connection is walked to the `open` that starts
the next, which the next walk takes up from the same reading, so a joined file costs what one
recording of its size does, and a file of one recording nothing more. The end of a connection
that a later recording follows is as its own recording says (`close`, or unknown).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from acptrace.decode.classify import Found
from acptrace.decode.stream import Read, ReadStats
from acptrace.model.domain import Message, UpdateRun
from acptrace.read.envelopes import Envelope, RecorderEvent

Watch = Callable[[str], int]
"""What the analysis needs of a session's updates (`decode.fastpath.FastDecoder`)."""
OpenReads = Callable[[ReadStats, Watch], Iterator[Read]]
"""Starts reading the file: its records, `ReadStats` filled in as they go."""
_TRAFFIC = (Envelope, Message, Found, UpdateRun)


class Recordings:
    """One input, handed out one connection at a time (`connection`), in file order."""

    __slots__ = (
        "_follow", "_open", "_pending", "_reads", "_watch", "boundary", "count", "more", "stats",
    )  # fmt: skip

    def __init__(self, open_reads: OpenReads, follow: Callable[[], None]) -> None:
        """`follow()` is called when a connection was cut short: it makes the walk that takes
        up the next one."""
        self._open = open_reads
        self._follow = follow
        self._reads: Iterator[Read] | None = None
        self._pending: RecorderEvent | None = None
        """The `open` that ended the connection before: the next one's first record."""
        self._watch: Watch | None = None
        self.stats = ReadStats()
        """What the reading saw, across the connections (the format, every line)."""
        self.count = 0
        """Connections handed out so far."""
        self.more = False
        """The connection handed out last was cut short: another follows."""
        self.boundary = 0
        """The line of the `open` that cut it (valid while `more`)."""

    def connection(self, watch: Watch) -> Iterator[Read]:
        """The records of the next connection (`watch`: its analysis's, asked as its runs of
        updates begin)."""
        self._watch = watch
        self.count += 1
        self.more = False
        if self._reads is None:
            self._reads = self._open(self.stats, self._watched)
        traffic = False
        if self._pending is not None:
            yield self._pending
            self._pending = None
        for item in self._reads:
            if traffic and type(item) is RecorderEvent and item.is_open:
                self._pending, self.more, self.boundary = item, True, item.line
                return
            traffic = traffic or isinstance(item, _TRAFFIC)
            yield item

    def walked(self) -> None:
        """The connection handed out last has been walked; the next one's walk is made."""
        if self.more:
            self._follow()

    def lines(self) -> int:
        """The lines of the connection handed out last: up to the `open` after it, or every
        line of the file for the last."""
        return self.boundary - 1 if self.more else self.stats.lines

    def name(self, index: int) -> str | None:
        """The name of the `index`th connection (from 1): its number in a joined file, None
        in a file of one recording."""
        return None if index == 1 and not self.more and self.count == 1 else str(index)

    def _watched(self, session_id: str) -> int:
        assert self._watch is not None
        return self._watch(session_id)
