"""The timeline of one connection as it streams: entries held in a look-ahead, then written
in batches of rows."""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator
from itertools import islice

from rich.console import Group, RenderableType
from rich.text import Text

from acptrace.correlate.correlator import Step
from acptrace.model.domain import Analysis, ConnectionEnd, Issue, UpdateRun
from acptrace.read.envelopes import RecorderEvent
from acptrace.render.entries import Entry, TimelineBuilder
from acptrace.render.timeline.entry_rows import EntryRows
from acptrace.render.timeline.findings import FindingsInOrder
from acptrace.render.timeline.frame import timeline_footer
from acptrace.render.timeline.known import Known
from acptrace.render.timeline.row_cells import PENDING_AT_END, UNANSWERED
from acptrace.render.timeline.rows import Row, Rows, Widths

LOOKAHEAD_ROWS = 1000
"""Entries held back before they are written: a request answered within them shows `⇢ N`, and
a transcript that ends within them is laid out as if read whole."""
LOOKAHEAD_CHARS = 4_000_000
"""…unless their payloads (`--full`) pass this many characters."""
BATCH_ROWS = 200
"""Entries written at a time once the look-ahead is full."""


class TimelineStream:
    """The timeline of one connection as the walk unfolds: feed each item to `add`, then call
    `finish` with the analysis; both give the renderables to write out, in order.

    What a row shows beyond its own message (the replay windows in the gutter, the outcome
    under a replaying request, the findings under a line, the depth of a child session) comes
    from `ahead`, an analysis of the same transcript read before (a file can be read twice);
    without it (stdin, a pipe) only from what has streamed by, and the whole analysis only at
    the end: rows written before then miss the windows, outcomes and findings, which `finish`
    lists after the last row. The findings come from `findings` when given (an analysis made
    with its findings parked on disk, `Walk.findings_sink`), read one by one as the rows pass
    their lines, else from the analysis. Entries wait in a look-ahead (`LOOKAHEAD_ROWS`)
    before they are written, so a request answered within it shows `⇢ N`, and a transcript
    that ends within it is laid out whole.
    """

    def __init__(
        self,
        builder: TimelineBuilder,
        ahead: Analysis | None,
        lookahead: int = LOOKAHEAD_ROWS,
        *,
        findings: FindingsInOrder | None = None,
    ) -> None:
        self.builder, self.view, self.lookahead = builder, builder.view, lookahead
        self.waiting: deque[Entry | Row] = deque()
        self.waiting_chars = 0
        self.widths = Widths()
        self.rows_written = 0
        self.findings = findings
        known = Known.of(ahead, self.view, findings) if ahead is not None else None
        self.entry_rows = EntryRows(builder, known)
        self.approximate = False
        """A row written showed a time estimated from a Zed dump's stderr times."""
        self.never_answered = UNANSWERED
        """The link of a request never answered (`finish` says which, by how the input ends)."""
        if known is not None and not self.view.full:
            builder.update_row = self.entry_rows.update_row  # (its row made as it is read)

    def add(self, item: Step | RecorderEvent | Issue | UpdateRun) -> list[RenderableType]:
        """Follow one item of the walk; the rows that leave the look-ahead (most often none:
        a list, not a generator made for every item). The look-ahead is checked after each
        entry (a run of updates gives many at once), so batches are cut where they would be
        were its updates added one by one."""
        self.builder.add(item)
        blocks: list[RenderableType] = []
        waiting, most = self.waiting, self.lookahead + BATCH_ROWS
        for entry in self.builder.take():
            waiting.append(entry)
            if type(entry) is Entry:  # (a row made ahead counts no characters: a cut view's
                self.waiting_chars += len(entry.detail)  # never reach `LOOKAHEAD_CHARS`)
            if len(waiting) > most or (self.waiting_chars > LOOKAHEAD_CHARS and len(waiting) > 1):
                keep = min(self.lookahead, len(waiting) - 1)
                blocks.append(self._batch(len(waiting) - keep, finished=False))
        return blocks

    def finish(
        self, analysis: Analysis, findings: FindingsInOrder | None = None
    ) -> Iterator[RenderableType]:
        """The rows still waiting, laid out with the finished analysis (and its `findings`,
        when they are kept apart from it), then the footer."""
        late: Iterator[Text] = iter(())
        if self.entry_rows.known is None:
            self.findings = findings
            self.entry_rows.know(Known.of(analysis, self.view, findings))
            late = self.entry_rows.late()
        if analysis.source.connection_end is ConnectionEnd.UNKNOWN:  # (the file stopped)
            self.never_answered = PENDING_AT_END
        yield self._batch(len(self.waiting), finished=True)
        told = list(islice(late, BATCH_ROWS))
        if told:
            yield Group(Text("Found after the lines above were written:", "dim"), *told)
        while told := list(islice(late, BATCH_ROWS)):  # (a note a turn: a batch at a time)
            yield Group(*told)
        yield Group(*self._footer(analysis))

    def _batch(self, count: int, *, finished: bool) -> Rows:
        """The next `count` entries waiting as rows (after the last, with `finished`, the
        findings left), laid out at the widths so far, widened to fit them."""
        rows: list[Row] = []
        waiting, add = self.waiting, self.entry_rows.add
        never_answered = self.never_answered if finished else None
        approximate, chars = self.approximate, 0
        for _ in range(count):
            entry = waiting.popleft()
            add(entry, rows, not waiting or waiting[0].line != entry.line, never_answered)
            if type(entry) is Entry:  # (not a plain update's row, made as it was read)
                chars += len(entry.detail)
                if not approximate and entry.stamp is not None:
                    approximate = entry.stamp.approximate
        self.waiting_chars -= chars
        self.rows_written += count
        self.approximate = approximate
        if finished:
            rows.extend(self.entry_rows.loose_before(None))
        self.widths = self.widths.over(rows)
        return Rows(rows, self.widths)

    def _footer(self, analysis: Analysis) -> Iterator[Text]:
        """What is said under the last row."""
        shown = self.entry_rows
        total = self.findings.count if self.findings is not None else len(analysis.findings)
        hidden = total - shown.findings_written
        return timeline_footer(
            analysis,
            self.rows_written,
            hidden,
            self.approximate,
            shown.open_at_end(),
            shown.turns_open_at_end(),
            self.view,
        )
