"""What an analysis tells the timeline's rows: the replay windows in their lanes, the notes
under replaying requests and announcements (outcome, counts, latencies), the findings, the tree
of sessions; and, for an analysis known only at the end, what it tells about lines already
written."""

from __future__ import annotations

import heapq
from collections.abc import Iterator
from dataclasses import dataclass

from rich.text import Text

from acptrace.model.domain import Analysis, ResumeRow, Role
from acptrace.model.turns import ToolCallRow, TurnRow
from acptrace.render.ci import ms_text
from acptrace.render.entries import Entry, View
from acptrace.render.summary import OUTCOME_STYLE
from acptrace.render.text import inert
from acptrace.render.timeline.event_cell import session_text
from acptrace.render.timeline.findings import (
    FindingQueue,
    FindingsInOrder,
    HeldFindings,
    finding_note,
)
from acptrace.render.timeline.gutters import Window, is_request_of, windows_in_lanes
from acptrace.render.timeline.turn_notes import tool_note, turn_note


@dataclass(frozen=True, slots=True)
class Known:
    """What an analysis tells the rows: windows, outcomes, findings, the tree of sessions."""

    windows: list[Window]
    """The replay windows of requests, each in its gutter lane."""
    requested: dict[int, ResumeRow]
    """The row of each replaying request, by its line."""
    children: dict[int, list[ResumeRow]]
    """The rows of child sessions, by the line that announced them."""
    findings: FindingQueue
    """Every finding, in line order, taken as the rows pass their lines."""
    parents: dict[str, str | None]
    """Each session's parent."""
    rows: tuple[ResumeRow, ...]
    """Every resume row, in line order."""
    turns: tuple[TurnRow, ...]
    """Every turn, in line order (drawn as they come: `SpanGutter`)."""
    tool_calls: tuple[ToolCallRow, ...]
    """Every tool call, in line order."""
    view: View
    """What the timeline shows (whole or cut identifiers)."""

    @classmethod
    def of(cls, analysis: Analysis, view: View, findings: FindingsInOrder | None) -> Known:
        """What this analysis tells (its findings from `findings` when given)."""
        children: dict[int, list[ResumeRow]] = {}
        for row in analysis.resumes:
            if row.role is Role.CHILD and row.announce_line is not None:
                children.setdefault(row.announce_line, []).append(row)
        return cls(
            windows_in_lanes([r for r in analysis.resumes if r.role is Role.REQUESTED]),
            {r.request_line: r for r in analysis.resumes if r.role is Role.REQUESTED},
            children,
            FindingQueue((findings or HeldFindings(analysis)).in_line_order()),
            {s.session_id: s.parent_session_id for s in analysis.sessions},
            analysis.resumes,
            analysis.turns,
            analysis.tool_calls,
            view,
        )

    def has_notes(self, line: int) -> bool:
        """Whether `notes` may have something to say under this line (most have not)."""
        return line in self.requested or line in self.children

    def notes(self, entry: Entry) -> Iterator[Text]:
        """Under a replaying request: its outcome; under an announcement: the child's."""
        message = entry.message
        if message is None:
            return
        row = self.requested.get(entry.line)
        if row is not None and is_request_of(message, row):
            yield outcome_note(row, "", self.view)
        for child in self.children.get(entry.line, ()):
            if message.update_session_id == child.session_id:
                yield outcome_note(child, "child ", self.view)

    def late(self, written_to: int, focus: set[str]) -> tuple[Iterator[Text], int]:
        """What this tells about lines up to `written_to`, already written, in line order: the
        outcomes of replay windows and children, the findings (in a session or request view,
        those about a session in `focus`), the turns and tool calls; and how many of them are
        findings. The findings are taken now (the rows still to come take those after them);
        the turns and tool calls are said as they are read (there may be one for every few
        lines of a big transcript)."""
        told: list[tuple[int, Text]] = []
        for row in self.rows:
            line = row.request_line if row.role is Role.REQUESTED else row.announce_line
            if line is not None and line <= written_to and self._shown(line, row.session_id, focus):
                requested = row.role is Role.REQUESTED
                prefix = f"{inert(row.method).plain} " if requested else "child "  # (escaped)
                told.append((line, Text.assemble(f"{line}", outcome_note(row, prefix, self.view))))
        findings = 0
        while (finding := self.findings.next_before(written_to + 1)) is not None:
            if self._shown(finding.line, finding.session_id, focus):
                findings += 1
                told.append((finding.line, Text.assemble(f"{finding.line}", finding_note(finding))))
        told.sort(key=lambda pair: pair[0])
        merged = heapq.merge(told, self._late_spans(written_to, focus), key=lambda pair: pair[0])
        return (text for _, text in merged), findings

    def _late_spans(self, written_to: int, focus: set[str]) -> Iterator[tuple[int, Text]]:
        """The notes of the turns and tool calls that started by `written_to`, in line order."""
        full = self.view.full
        turns = (
            (row.request_line, turn_note(row))
            for row in self.turns
            if row.request_line <= written_to
            and self._shown(row.request_line, row.session_id, focus)
        )
        calls = (
            (row.first_line, tool_note(row, full))
            for row in self.tool_calls
            if row.first_line <= written_to and self._shown(row.first_line, row.session_id, focus)
        )
        for line, note in heapq.merge(turns, calls, key=lambda pair: pair[0]):
            yield line, Text.assemble(f"{line}", note)

    def _shown(self, line: int, session_id: str | None, focus: set[str]) -> bool:
        """Whether the view showed this line (of this session; `focus`: the sessions in view)."""
        view = self.view
        if view.focused and (view.session is None or session_id not in focus):
            return False  # (a request view: which lines it showed is not kept)
        return view.in_lines(line)


def outcome_note(row: ResumeRow, prefix: str, view: View) -> Text:
    """What is said under a replaying request (or, after `prefix` and its session, a child's
    announcement): the outcome, the updates replayed and held, the latencies."""
    text = Text("  ")
    if prefix:
        text.append(prefix)
        text.append_text(inert(session_text(row.session_id, view), "magenta"))
        text.append(": ")
    text.append(row.outcome.value, OUTCOME_STYLE[row.outcome])
    mark = "~" if row.approximate else ""
    if row.marker_count:
        latencies = (
            f" · →marker {mark}{ms_text(row.request_to_marker_ms)}"
            f" · marker→response {mark}{ms_text(row.marker_to_response_ms)}"
        )
    else:  # (no marker to time: a v1 load, a resume without replayFrom, a replay cut short)
        latencies = f" · →response {mark}{ms_text(row.request_to_response_ms)}"
    text.append(f" · {row.replayed_updates} replayed, {row.held_updates} held{latencies}", "dim")
    return text
