"""The rows of a connection's entries, in line order: each entry's cells and gutter, what is said
under it (the outcome of a replay window or a child session, the findings on its line), rows of
their own for findings on lines without one, and what the analysis tells late about lines
already written."""

from __future__ import annotations

from collections.abc import Iterator

from rich.text import Text

from acptrace.model.domain import Direction, Finding, ResumeRow
from acptrace.model.turns import TurnRow
from acptrace.render.cells import Cell
from acptrace.render.entries import Entry, TimelineBuilder, session_depth
from acptrace.render.timeline.event_cell import (
    LABELS_KEPT,
    Label,
    event_cell,
    indented,
    update_label,
    with_detail,
)
from acptrace.render.timeline.findings import finding_note
from acptrace.render.timeline.gutters import PLAIN_UPDATE, Gutters
from acptrace.render.timeline.known import Known
from acptrace.render.timeline.row_cells import (
    ARROWS,
    ISSUE_MARK,
    direction_cell,
    link_cell,
    time_cell,
    time_cell_at,
)
from acptrace.render.timeline.row_gutter import RowGutter
from acptrace.render.timeline.rows import NONE, Row
from acptrace.render.timeline.span_gutter import SpanGutter
from acptrace.render.timeline.spans import lanes_needed, spans_in_order
from acptrace.render.timeline.turn_notes import span_notes


class EntryRows:
    """Makes the rows of the entries a builder keeps, in line order. What the analysis tells
    them (windows, outcomes, findings, the tree of sessions) comes from `known`: from the start
    when the analysis was read ahead, else only once it is given (`know`), at the end."""

    def __init__(self, builder: TimelineBuilder, known: Known | None) -> None:
        self.builder, self.view = builder, builder.view
        self.known = known
        self.gutters, self.spans = self._gutters(known)
        self.written_to = 0
        """The line of the last entry written (0 before any)."""
        self.findings_written = 0
        """The findings shown so far: under rows, in rows of their own, or late."""
        self.depths: dict[str | None, int] = {}
        """The depth of each session in the tree `known` tells, once worked out."""
        self.update_heads: dict[tuple[bool, str, str | None], Label] = {}
        """The start of a plain update's event cell (indent and label) by marker, label and
        session (`update_row`; emptied when it holds `LABELS_KEPT`)."""

    def know(self, known: Known) -> None:
        """Take what the analysis tells for the rows still to come (it was read once: known
        only at its end)."""
        self.known = known
        self.gutters, self.spans = self._gutters(known)

    def _gutters(self, known: Known | None) -> tuple[Gutters | RowGutter, SpanGutter | None]:
        """The gutter of the rows: the replay windows' lanes, then the lanes of the turns and
        tool calls (of the sessions in view, in a session's view), when there are any."""
        if known is None:
            return Gutters(()), None
        windows = Gutters(known.windows)
        focus = self.builder.focus
        shown = focus.__contains__ if self.view.session is not None else None
        lanes = lanes_needed(spans_in_order(known.turns, known.tool_calls, shown))
        if not any(lanes):
            return windows, None
        spans = SpanGutter(spans_in_order(known.turns, known.tool_calls, shown), *lanes)
        return RowGutter(windows, spans), spans

    def add(
        self, entry: Entry | Row, rows: list[Row], last: bool, never_answered: Cell | None
    ) -> None:
        """The rows of an entry, or of a plain update's row made as its line was read
        (`update_row`: its gutter set here), and of what is said under it, appended to `rows`
        after the rows of the findings on lines before it that have none; `last`: no entry
        of the same line follows (the findings of a line go under its last row)."""
        line, known = entry.line, self.known
        if known is not None and known.findings.next_line < line:
            rows.extend(self.loose_before(line))
        if type(entry) is Row:
            gutter, continuation = self.gutters.at(line, PLAIN_UPDATE)
            entry.gutter, entry.continuation = gutter, continuation
            rows.append(entry)
            spans = self.spans
            if (spans is not None and spans.marked) or (
                last and known is not None and known.findings.next_line == line
            ):
                self._under(line, None, last, continuation, rows)  # (its spans' notes, findings)
        else:
            assert isinstance(entry, Entry)
            self._entry(entry, rows, last, never_answered)
        self.written_to = line

    def _entry(
        self, entry: Entry, rows: list[Row], last: bool, never_answered: Cell | None
    ) -> None:
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
                link_cell(entry, never_answered),
                wrap=view.full,
            )
        )
        self._under(entry.line, entry, last, continuation, rows)

    def update_row(
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
        `add` makes of its entry but the gutter, set when its batch is written. None (make
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
        known, spans = self.known, self.spans
        if known is None:
            return
        noted = entry is not None and known.has_notes(line)
        marked = spans.marked if spans is not None else None
        if not noted and not marked and (not last or known.findings.next_line != line):
            return  # (most rows: nothing said under them)
        under = [*known.notes(entry)] if entry is not None and noted else []
        if spans is not None and marked:
            under.extend(span_notes(marked, self.view.full))
            spans.marked = []
        if last:
            while (finding := known.findings.next_at(line)) is not None:
                under.append(finding_note(finding))
                self.findings_written += 1
        for text in under:
            rows.append(Row("", NONE, NONE, continuation, continuation, Cell.of(text), NONE, True))

    def loose_before(self, line: int | None) -> Iterator[Row]:
        """Rows for the findings before this line (all left, for None) on lines without one."""
        known = self.known
        if known is None:
            return
        findings = known.findings
        while (finding := findings.next_before(line)) is not None:
            fresh = finding.line > self.written_to  # (else listed late, by `late`)
            if fresh and not self.view.focused and self.view.in_lines(finding.line):
                self.findings_written += 1
                yield self._loose(finding)

    def _loose(self, finding: Finding) -> Row:
        """The row of a finding on a line without one."""
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

    def late(self) -> Iterator[Text]:
        """What the analysis tells about lines already written, in line order (`Known.late`)."""
        if self.known is None:
            return iter(())
        told, findings = self.known.late(self.written_to, self.builder.focus)
        self.findings_written += findings
        return told

    def turns_open_at_end(self) -> Iterator[TurnRow]:
        """The turns the recording does not end whose prompt was written (of the sessions in
        view, in a session's view)."""
        turns = self.known.turns if self.known is not None else ()
        focus, session = self.builder.focus, self.view.session
        for row in turns:
            if row.request_line > self.written_to:
                return
            if not row.end.finished and (session is None or row.session_id in focus):
                yield row

    def open_at_end(self) -> Iterator[ResumeRow]:
        """The replay windows still open at the end whose request was written."""
        windows = self.known.windows if self.known is not None else ()
        for window in windows:
            row = window.row
            if row.response_line is None and row.request_line <= self.written_to:
                yield row
