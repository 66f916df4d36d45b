"""The timeline of one connection as it streams: entries held in a look-ahead, then written
in batches of rows."""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.text import Text

from acptrace.correlate.correlator import Step
from acptrace.model.domain import (
    Analysis,
    ConnectionEnd,
    Direction,
    Finding,
    Issue,
    Role,
    UpdateRun,
)
from acptrace.read.envelopes import RecorderEvent
from acptrace.render.cells import Cell
from acptrace.render.ci import id_text
from acptrace.render.entries import Entry, TimelineBuilder, View, session_depth
from acptrace.render.facts import Facts
from acptrace.render.text import inert, plural
from acptrace.render.timeline.event_cell import (
    LABELS_KEPT,
    Label,
    event_cell,
    indented,
    update_label,
    with_detail,
)
from acptrace.render.timeline.findings import FindingsInOrder, finding_note
from acptrace.render.timeline.fitting import (
    GLUE,
    unglued,
)
from acptrace.render.timeline.gutters import (
    PLAIN_UPDATE,
    Gutters,
)
from acptrace.render.timeline.known import Known, outcome_note
from acptrace.render.timeline.row_cells import (
    ARROWS,
    ISSUE_MARK,
    PENDING_AT_END,
    UNANSWERED,
    direction_cell,
    link_cell,
    time_cell,
    time_cell_at,
)
from acptrace.render.timeline.rows import NONE, Row, Rows, Widths

LEGEND = (
    "→ to agent  ← to client  ┌ ├ └ replay window: resume, marker, response  "
    "⇢ answered at  ⇠ answers"
)
APPROXIMATE_LEGEND = "~ estimated from the Agent's stderr times (Zed dump), not measured"


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
        self.written_to = 0
        """The line of the last entry written (0 before any)."""
        self.rows_written = 0
        self.findings_written = 0
        self.findings = findings
        self.known = Known.of(ahead, self.view, findings) if ahead is not None else None
        self.gutters = Gutters(self.known.windows if self.known is not None else ())
        self.depths: dict[str | None, int] = {}
        """The depth of each session in the tree `known` tells, once worked out."""
        self.approximate = False
        """A row written showed a time estimated from a Zed dump's stderr times."""
        self.never_answered = UNANSWERED
        """The link of a request never answered (`finish` says which, by how the input ends)."""
        self.update_heads: dict[tuple[bool, str, str | None], Label] = {}
        """The start of a plain update's event cell (indent and label) by marker, label and
        session (`_update_row`; emptied when it holds `LABELS_KEPT`)."""
        if self.known is not None and not self.view.full:
            builder.update_row = self._update_row  # (its row made as its line is read)

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
        late: list[Text] = []
        if self.known is None:
            self.findings = findings
            self.known = Known.of(analysis, self.view, findings)
            self.gutters = Gutters(self.known.windows)
            late = list(self._late(self.known))
        if analysis.source.connection_end is ConnectionEnd.UNKNOWN:  # (the file stopped)
            self.never_answered = PENDING_AT_END
        yield self._batch(len(self.waiting), finished=True)
        if late:
            yield Group(Text("Found after the lines above were written:", "dim"), *late)
        yield Group(*self._footer(analysis))

    def _batch(self, count: int, *, finished: bool) -> Rows:
        rows: list[Row] = []
        waiting, known, entry_rows = self.waiting, self.known, self._entry
        findings = known.findings if known is not None else None
        approximate, chars = self.approximate, 0
        for _ in range(count):
            entry = waiting.popleft()
            line = entry.line
            if findings is not None and findings.next_line < line:
                rows.extend(self._loose_before(line))
            last = not waiting or waiting[0].line != line
            if type(entry) is Row:  # (a plain update's row, made as it was read)
                gutter, continuation = self.gutters.at(line, PLAIN_UPDATE)
                entry.gutter, entry.continuation = gutter, continuation
                rows.append(entry)
                if last and findings is not None and findings.next_line == line:
                    self._under(line, None, last, continuation, rows)  # (its findings)
                self.written_to = line
                continue
            assert isinstance(entry, Entry)
            chars += len(entry.detail)
            entry_rows(entry, rows, last, finished)
            if not approximate and entry.stamp is not None:
                approximate = entry.stamp.approximate
            self.written_to = line
        self.waiting_chars -= chars
        self.rows_written += count
        self.approximate = approximate
        if finished:
            rows.extend(self._loose_before(None))
        self.widths = self.widths.over(rows)
        return Rows(rows, self.widths)

    def _loose_before(self, line: int | None) -> Iterator[Row]:
        """Rows for the findings before this line (all left, for None) on lines without one."""
        known = self.known
        if known is None:
            return
        findings = known.findings
        while (finding := findings.next_before(line)) is not None:
            fresh = finding.line > self.written_to  # (else listed late, by `finish`)
            if fresh and not self.view.focused and self.view.in_lines(finding.line):
                self.findings_written += 1
                yield self._loose(finding)

    def _entry(self, entry: Entry, rows: list[Row], last: bool, finished: bool) -> None:
        """The entry's row, and the rows of what is said under it, appended to `rows`."""
        view = self.view
        gutter, continuation = self.gutters.at(entry.line, entry)
        rows.append(
            Row(
                str(entry.line),
                time_cell(self.builder.origin, entry.stamp),
                direction_cell(entry),
                gutter,
                continuation,
                event_cell(entry, self._depth(entry.session_id), view),
                link_cell(entry, self.never_answered if finished else None),
                wrap=view.full,
            )
        )
        self._under(entry.line, entry, last, continuation, rows)

    def _update_row(
        self,
        line: int,
        ts_ns: int | None,
        mono_ns: int | None,
        label: str,
        direction: Direction | None,
        session_id: str | None,
        detail: str,
        marker: bool,
    ) -> Row | None:
        """The row of a plain update read straight from its run's line, made as it is read
        (the analysis is known ahead, the view cut; `TimelineBuilder.update_row`): what
        `_entry` makes of its entry but the gutter, set when its batch is written. None (make
        its entry) before the first time is known."""
        origin = self.builder.origin
        if origin is None:
            return None
        key = (marker, label, session_id)
        head = self.update_heads.get(key)
        if head is None:  # (its label at its session's depth, made once)
            if len(self.update_heads) >= LABELS_KEPT:
                self.update_heads.clear()
            label_at = update_label(marker, label, session_id, self.view)
            head = self.update_heads[key] = indented(label_at, self._depth(session_id))
        return Row(
            str(line),
            time_cell_at(origin, ts_ns, mono_ns, False),
            ARROWS[direction or Direction.UNKNOWN],
            NONE,
            NONE,
            with_detail(head, detail),
            NONE,
            False,
            line,
        )

    def _depth(self, session_id: str | None) -> int:
        """How deep the session is in the tree of sessions (known: worked out once each)."""
        known = self.known
        if known is None:
            return session_depth(self.builder.parents, session_id)
        depth = self.depths.get(session_id, -1)
        if depth < 0:
            depth = self.depths[session_id] = session_depth(known.parents, session_id)
        return depth

    def _under(
        self, line: int, entry: Entry | None, last: bool, continuation: Cell, rows: list[Row]
    ) -> None:
        """The rows of what is said under a row at this line (its entry's notes, and with the
        line's `last` row its findings), appended to `rows` (a plain update's row: no entry,
        no notes)."""
        known = self.known
        if known is None:
            return
        noted = entry is not None and known.has_notes(line)
        if not noted and (not last or known.findings.next_line != line):
            return  # (most rows: nothing said under them)
        under = [*known.notes(entry)] if entry is not None and noted else []
        if last:
            while (finding := known.findings.next_at(line)) is not None:
                under.append(finding_note(finding))
                self.findings_written += 1
        for text in under:
            rows.append(Row("", NONE, NONE, continuation, continuation, Cell.of(text), NONE, True))

    def _loose(self, finding: Finding) -> Row:
        gutter, _ = self.gutters.at(finding.line, None)
        return Row(
            str(finding.line),
            NONE,
            ISSUE_MARK,
            gutter,
            gutter,
            Cell.of(finding_note(finding)),
            NONE,
            True,
        )

    def _late(self, known: Known) -> Iterator[Text]:
        """What the analysis tells about lines already written, in line order: the outcomes of
        replay windows and children, and the findings (in a session or request view, those
        about a session in view)."""
        written, view = self.written_to, self.view
        late: list[tuple[int, Text]] = []
        for row in known.rows:
            line = row.request_line if row.role is Role.REQUESTED else row.announce_line
            if line is not None and line <= written and self._in_view(line, row.session_id):
                requested = row.role is Role.REQUESTED
                prefix = f"{inert(row.method).plain} " if requested else "child "  # (escaped)
                late.append((line, Text.assemble(f"{line}", outcome_note(row, prefix, view))))
        while (finding := known.findings.next_before(written + 1)) is not None:
            if self._in_view(finding.line, finding.session_id):
                self.findings_written += 1
                late.append((finding.line, Text.assemble(f"{finding.line}", finding_note(finding))))
        for _, text in sorted(late, key=lambda pair: pair[0]):
            yield text

    def _in_view(self, line: int, session_id: str | None) -> bool:
        view = self.view
        if view.focused and (view.session is None or session_id not in self.builder.focus):
            return False  # (a request view: which lines it showed is not kept)
        return view.in_lines(line)

    def _footer(self, analysis: Analysis) -> Iterator[Text]:
        source = analysis.source
        if not self.rows_written:
            yield Text("Nothing in this view.", "dim")
        yield inert(
            f"{source.format} format · {plural(source.lines, 'line')} · "
            f"{plural(source.messages, 'message')} · end {source.connection_end.value}"
        )
        shown = f"shown: {plural(self.rows_written, 'row')}"
        total = self.findings.count if self.findings is not None else len(analysis.findings)
        hidden = total - self.findings_written
        if hidden:
            shown += f" · {plural(hidden, 'finding')} on lines not shown"
        yield Text(shown)
        if self.approximate:
            yield Text(APPROXIMATE_LEGEND, "dim")
        windows = self.known.windows if self.known is not None else ()
        for window in windows:
            row = window.row
            if row.response_line is None and row.request_line <= self.written_to:
                yield Text(
                    f"Replay window of request {id_text(row.request_id)} "
                    f"(line {row.request_line}) still open at the end: "
                    f"{row.outcome.value} ({row.end.value}).",
                    "dim",
                )


def timeline_heading(name: str, connection: str | None, view: View) -> RenderableType:
    """What the timeline shows: the file (and connection), the view, the legend."""
    lines: list[RenderableType] = [Facts([inert(name, "bold")])]  # (a long path breaks at a /)
    if connection is not None:
        lines.append(Text.assemble("connection ", inert(connection, "bold")))
    return Group(*lines, inert(f"view: {view.describe()}"), _Legend(LEGEND, "dim"))


class _Legend:
    """A legend of items parted by two spaces: wrapped only there, so that a symbol is never
    left at the end of one line and its meaning on the next (`⇢` / `answered at`); an item
    wider than the line is wrapped between its words, never inside one."""

    def __init__(self, text: str, style: str) -> None:
        self.text, self.style = text, style

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        width = options.max_width
        items = self.text.split("  ")
        kept = [i.replace(" ", GLUE) if cell_len(i) <= width else i for i in items]
        glued = Text("  ".join(kept), self.style)
        for line in glued.wrap(console, width, overflow="fold"):
            yield unglued(line)
