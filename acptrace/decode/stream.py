"""Records in, messages out: the decode stage's one front door.

The read stage gives an input's records, and the fast formats' lines as they come; here the
hot path reads those lines straight to messages and runs of plain updates (handing the lines it
does not take back to the reader), every record's times are checked against the clock, and
each envelope becomes its messages (`Classifier`). What comes out is all a walk needs:
messages (`Message`, or `Found` with the payload a view shows), runs of plain updates
(`UpdateRun`), recorder events, input issues, and the decoder's facts for the rules. Traffic
after the recorded end of the connection is no message: an `after_close` issue each.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

from acptrace.decode.classify import Classifier, Found
from acptrace.decode.fastpath import FastDecoder
from acptrace.decode.malformed import Batch, EmptyBatch, InvalidJsonRpc, LostMessage
from acptrace.decode.runs import settled
from acptrace.model.domain import Issue, IssueKind, Message, UpdateRun
from acptrace.model.turns import Watch
from acptrace.read.clocks import Clock
from acptrace.read.envelopes import Envelope, Record, RecorderEvent
from acptrace.read.formats import ReadSettings, TranscriptFormat
from acptrace.read.records import Reader, ReadStats, Unparsed
from acptrace.read.source import BlankLines, LineBlock, RawLine

Read = Record | Message | Found | UpdateRun
"""What the hot path gives: records, and messages and runs it read itself (a message with its
payload, `Found`, when payloads are kept)."""
Fact = InvalidJsonRpc | EmptyBatch | Batch | LostMessage
"""What the decoder finds wrong with JSON-RPC, or about batches and lost messages."""
Decoded = Message | Found | UpdateRun | RecorderEvent | Issue | Fact
"""What decoding gives a walk."""


def read_records(
    lines: Iterable[RawLine | LineBlock | BlankLines],
    stats: ReadStats,
    forced: TranscriptFormat | None = None,
    settings: ReadSettings | None = None,
    watch: Callable[[str], int] | None = None,
) -> Iterator[Read]:
    """An input's records, its fast formats' plain lines read by the hot path; `stats` is
    filled in as the lines go by. `watch`: what the analysis, which follows each record before
    the next is read, needs of a session's updates (`FastDecoder`)."""
    settings = settings or ReadSettings()
    reader = Reader(lines, stats, forced, settings)
    hot = HotPath(reader.chosen.name, settings, reader.line_records, reader.fast, watch)
    return hot.read(reader.items(), Clock())


class HotPath:
    """Reads the lines a reader leaves (blocks of lines, single lines) straight to messages and
    runs where it can (`FastDecoder`), hands the others back to the reader (`fallback`), and
    checks every record's times against the clock."""

    __slots__ = ("_decoder", "_fallback")

    def __init__(
        self,
        format_name: str,
        settings: ReadSettings,
        fallback: Callable[[RawLine], Iterator[Record]],
        fast: bool,
        watch: Callable[[str], int] | None = None,
    ) -> None:
        self._decoder = (
            FastDecoder(format_name, settings.runs_for, settings.payloads, watch, settings.sampled)
            if fast
            else None
        )
        self._fallback = fallback

    def sample_afresh(self) -> None:
        """The hot path samples each tag's first update again (`FastDecoder.sample_afresh`)."""
        if self._decoder is not None:
            self._decoder.sample_afresh()

    def read(self, items: Iterable[Unparsed], clock: Clock) -> Iterator[Read]:
        """Everything the items hold, in order, each followed by what the clock says of it."""
        decoder = self._decoder
        for item in items:
            if isinstance(item, LineBlock):
                assert decoder is not None, "blocks are left for the hot path only"
                for found in decoder.block(item, clock):
                    if isinstance(found, RawLine):
                        yield from self._checked(self._fallback(found), clock)
                    else:
                        yield found
            elif isinstance(item, RawLine):
                message = None if decoder is None else decoder.message(item.data, item.number)
                if message is None:
                    yield from self._checked(self._fallback(item), clock)
                else:
                    yield from self._checked((message,), clock)
            else:
                yield from self._checked((item,), clock)

    def _checked(self, records: Iterable[Record | Message | Found], clock: Clock) -> Iterator[Read]:
        """Each record, followed by a `time_went_back` issue where its time goes back; a
        recorder's `open` starts a recording (a connection of its own, in a file of several)
        whose schema check wants each tag's first update afresh."""
        for record in records:
            if type(record) is RecorderEvent and record.is_open:
                self.sample_afresh()
            yield record
            checked = record.message if isinstance(record, Found) else record
            if (issue := clock.check(checked)) is not None:
                yield issue


def settled_runs(reads: Iterable[Read], watch: Callable[[str], int] | None) -> Iterator[Read]:
    """Each record; a run read ahead of the analysis (`Watch.AHEAD`: in another process) as
    one read for what the analysis wants of it, asked as the walk reaches the run, when it has
    followed every record before (`watch`; None: everything)."""
    for read in reads:
        if type(read) is UpdateRun and read.watched & Watch.LINES:
            session = read.first.session_id
            wanted = watch is None or session is None or bool(watch(session) & Watch.ACTIVITY)
            yield settled(read, wanted)
        else:
            yield read


def decoded(reads: Iterable[Read]) -> Iterator[Decoded]:
    """Each envelope as the messages (and facts, and issues) it holds; traffic after the
    recorded end of the connection as `after_close` issues; everything else as it is."""
    classifier = Classifier()
    closed = False
    for item in reads:
        if closed and isinstance(item, Message | Found | Envelope | UpdateRun):
            yield from _after_close(item)
        elif isinstance(item, Envelope):
            yield from classifier.classify(item)
        else:
            closed = closed or (isinstance(item, RecorderEvent) and item.is_close)
            yield item


def _after_close(record: Message | Found | Envelope | UpdateRun) -> Iterator[Issue]:
    """Traffic after the recorded end of the connection: reported, not analysed."""
    first = record.first.line if isinstance(record, UpdateRun) else record.line
    count = record.count if isinstance(record, UpdateRun) else 1
    for line in range(first, first + count):
        message = "a message after the recorded end of the connection"
        yield Issue(line, IssueKind.AFTER_CLOSE, message)


__all__ = [
    "Decoded",
    "Fact",
    "HotPath",
    "Read",
    "ReadStats",
    "decoded",
    "read_records",
    "settled_runs",
]
