"""The timeline as a rich view: relative time, direction, method or update tag, ids and links.

Replay windows are drawn as blocks in a gutter (request ┌, its marker ├, response └, one lane
per overlapping window), child sessions are indented under their parent, findings sit under the
line they concern, and requests and responses point at each other (⇢ answered at, ⇠ answers,
with the duration). Transcript text goes through `inert`: never markup, never control codes.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from rich.align import AlignMethod
from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.segment import Segment
from rich.text import Text

from acptrace.model.domain import (
    Analysis,
    Direction,
    Finding,
    Message,
    MessageKind,
    ResumeRow,
    Role,
    Stamp,
)
from acptrace.model.tags import ANNOUNCE_TAG
from acptrace.render.ci import id_text, ms_text, same_id
from acptrace.render.entries import Entry, TimelineBuilder, View, session_depths
from acptrace.render.summary import OUTCOME_STYLE, SEVERITY_STYLE
from acptrace.render.text import inert, plural, short_id

ARROW = {Direction.C2A: "→", Direction.A2C: "←", Direction.UNKNOWN: "?"}
LEGEND = (
    "→ to agent  ← to client  ┌ ├ └ replay window: resume, marker, response  "
    "⇢ answered at  ⇠ answers"
)
APPROXIMATE_LEGEND = "~ estimated from the Agent's stderr times (Zed dump), not measured"


@dataclass(frozen=True, slots=True)
class _Window:
    """A replay window drawn in one gutter lane."""

    row: ResumeRow
    lane: int

    @property
    def end(self) -> float:
        """The last line of the window (infinite while it is open at the end)."""
        response = self.row.response_line
        return float("inf") if response is None else response


def render_timeline(builder: TimelineBuilder, analysis: Analysis) -> RenderableType:
    """The timeline of the entries a builder kept, with what the analysis found."""
    layout = _Layout(builder, analysis)
    rows = _Rows(list(layout.rows()))
    header = _header(builder, analysis, layout.findings_shown)
    return Group(*header, rows, *_footer(builder.entries, layout.windows))


@dataclass(slots=True)
class _Row:
    """One row: fixed cells, then the event cell (cut to one line, or wrapped), then the link."""

    line: str
    time: Text
    direction: Text
    gutter: Text
    continuation: Text
    """The gutter of the lines an event wraps onto."""
    event: Text
    link: Text
    wrap: bool


class _Rows:
    """The rows laid out in columns at the console's width (a table without a table's cost)."""

    def __init__(self, rows: list[_Row]) -> None:
        self.rows = rows

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        rows = self.rows
        width_line = max((len(r.line) for r in rows), default=0)
        width_time = max((r.time.cell_len for r in rows), default=0)
        width_gutter = max((r.gutter.cell_len for r in rows), default=0)
        width_link = max((r.link.cell_len for r in rows), default=0)
        fixed = width_line + width_time + 1 + width_gutter + 4
        width_event = max(16, options.max_width - fixed - (width_link + 1 if width_link else 0))
        for row in rows:
            if row.wrap:
                lines = list(row.event.wrap(console, width_event, overflow="fold"))
            else:
                cut = row.event.copy()
                cut.truncate(width_event, overflow="ellipsis")
                lines = [cut]
            for index, event in enumerate(lines):
                first = index == 0
                text = Text.assemble(
                    row.line.rjust(width_line) if first else " " * width_line,
                    " ",
                    _aligned(row.time if first else Text(), width_time, "right"),
                    " ",
                    _aligned(row.direction if first else Text(), 1, "left"),
                    " ",
                    _aligned(row.gutter if first else row.continuation, width_gutter, "left"),
                    " ",
                )
                text.append_text(event)
                if first and row.link:
                    text.append(" " * (width_event - event.cell_len + 1))
                    text.append_text(_aligned(row.link, width_link, "right"))
                yield from text.render(console)
                yield Segment.line()


def _aligned(text: Text, width: int, align: AlignMethod) -> Text:
    copy = text.copy()
    copy.align(align, width)
    return copy


class _Layout:
    """The rows: entries, the notes and findings under them, findings on lines without a row."""

    def __init__(self, builder: TimelineBuilder, analysis: Analysis) -> None:
        self.builder, self.analysis, self.view = builder, analysis, builder.view
        self.windows = _lanes([r for r in analysis.resumes if r.role is Role.REQUESTED])
        self.gutters = _Gutters(self.windows)
        self.depth = session_depths(analysis.sessions)
        lines = {entry.line for entry in builder.entries}
        self.attached: dict[int, list[Finding]] = {}
        for finding in analysis.findings:
            if finding.line in lines:
                self.attached.setdefault(finding.line, []).append(finding)
        self.loose = [  # findings on lines with no row (an empty batch…) get rows of their own
            f
            for f in analysis.findings
            if f.line not in lines and not self.view.focused and self.view.in_lines(f.line)
        ]
        self.findings_shown = sum(map(len, self.attached.values())) + len(self.loose)
        self.requested = {r.request_line: r for r in analysis.resumes if r.role is Role.REQUESTED}
        self.children: dict[int, list[ResumeRow]] = {}
        for row in analysis.resumes:
            if row.role is Role.CHILD and row.announce_line is not None:
                self.children.setdefault(row.announce_line, []).append(row)

    def rows(self) -> Iterator[_Row]:
        entries = self.builder.entries
        last_of_line = {entry.line: index for index, entry in enumerate(entries)}
        loose = iter(self.loose)
        pending = next(loose, None)
        for index, entry in enumerate(entries):
            while pending is not None and pending.line < entry.line:
                yield self._loose(pending)
                pending = next(loose, None)
            yield from self._entry(entry, last=last_of_line[entry.line] == index)
        while pending is not None:
            yield self._loose(pending)
            pending = next(loose, None)

    def _entry(self, entry: Entry, *, last: bool) -> Iterator[_Row]:
        view = self.view
        gutter, continuation = self.gutters.at(entry.line, entry)
        yield _Row(
            str(entry.line),
            _time(self.builder.origin, entry.stamp),
            _direction(entry),
            gutter,
            continuation,
            _event(entry, self.depth, view),
            _link(entry),
            wrap=view.full,
        )
        under = [*self._notes(entry)]
        if last:
            under += [_finding(f) for f in self.attached.get(entry.line, ())]
        for text in under:
            yield _Row("", Text(), Text(), continuation, continuation, text, Text(), wrap=True)

    def _loose(self, finding: Finding) -> _Row:
        gutter, _ = self.gutters.at(finding.line, None)
        mark = Text("!", "bold yellow")
        return _Row(
            str(finding.line), Text(), mark, gutter, gutter, _finding(finding), Text(), True
        )

    def _notes(self, entry: Entry) -> Iterator[Text]:
        """Under a replaying request: its outcome; under an announcement: the child's."""
        message = entry.message
        if message is None:
            return
        row = self.requested.get(entry.line)
        if row is not None and _is_request_of(message, row):
            yield _row_note(row, "", self.view)
        for child in self.children.get(entry.line, ()):
            if message.update_session_id == child.session_id:
                yield _row_note(child, "child ", self.view)


def _header(builder: TimelineBuilder, analysis: Analysis, shown: int) -> Iterator[Text]:
    source = analysis.source
    header = Text()
    header.append_text(inert(source.path, "bold"))
    header.append(
        f"  {source.format} · {plural(source.lines, 'line')} · "
        f"{plural(source.messages, 'message')} · "
        f"end {source.connection_end.value}"
    )
    yield header
    view = f"view: {builder.view.describe()} · {plural(len(builder.entries), 'row')}"
    hidden = len(analysis.findings) - shown
    if hidden:
        view += f" · {plural(hidden, 'finding')} on lines not shown"
    yield inert(view)
    yield Text(LEGEND, "dim")
    if any(e.stamp is not None and e.stamp.approximate for e in builder.entries):
        yield Text(APPROXIMATE_LEGEND, "dim")


def _lanes(rows: Sequence[ResumeRow]) -> list[_Window]:
    """Give each window the lowest gutter lane free when its request was sent."""
    windows: list[_Window] = []
    free: list[int] = []
    busy: list[tuple[float, int]] = []
    for row in sorted(rows, key=lambda r: r.request_line):
        while busy and busy[0][0] < row.request_line:
            heapq.heappush(free, heapq.heappop(busy)[1])
        lane = heapq.heappop(free) if free else len(busy)
        window = _Window(row, lane)
        heapq.heappush(busy, (window.end, lane))
        windows.append(window)
    return windows


class _Gutters:
    """The gutter of each line, asked for in line order: the windows open there, one per lane."""

    def __init__(self, windows: Sequence[_Window]) -> None:
        self.waiting = sorted(windows, key=lambda w: w.row.request_line, reverse=True)
        self.open: list[_Window] = []
        self.width = max((w.lane + 1 for w in windows), default=0)

    def at(self, line: int, entry: Entry | None) -> tuple[Text, Text]:
        """The gutter of a row at this line, and of the lines under it.

        ┌ at the resume request, ├ at its marker, └ at its response, │ in between.
        """
        while self.waiting and self.waiting[-1].row.request_line <= line:
            self.open.append(self.waiting.pop())
        self.open = [w for w in self.open if w.end >= line]
        cells, under = [" "] * self.width, [" "] * self.width
        for window in self.open:
            cells[window.lane], under[window.lane] = _cells(window.row, line, entry)
        return Text("".join(cells), "blue"), Text("".join(under), "blue")


def _cells(row: ResumeRow, line: int, entry: Entry | None) -> tuple[str, str]:
    message = entry.message if entry is not None else None
    if entry is None or message is None:
        return "│", "│"
    if _is_request_of(message, row):
        return "┌", "│"
    if _is_response_of(entry, row):
        return "└", " "
    return ("├" if line == row.marker_line else "│"), "│"


def _is_request_of(message: Message, row: ResumeRow) -> bool:
    return (
        message.kind is MessageKind.REQUEST
        and message.line == row.request_line
        and same_id(message.id, row.request_id)
    )


def _is_response_of(entry: Entry, row: ResumeRow) -> bool:
    return (
        entry.kind == MessageKind.RESPONSE.value
        and entry.line == row.response_line
        and entry.request is not None
        and _is_request_of(entry.request, row)
    )


def _time(origin: Stamp | None, stamp: Stamp | None) -> Text:
    if origin is None or stamp is None:
        return Text("")
    ms = origin.ms_until(stamp)
    mark = "~" if origin.approximate or stamp.approximate else ""
    return Text("" if ms is None else f"{mark}+{ms / 1000:.3f}s", "dim")


def _direction(entry: Entry) -> Text:
    if entry.kind == "event":
        return Text("·", "dim")
    if entry.kind == "issue":
        return Text("!", "bold yellow")
    return Text(ARROW[entry.direction or Direction.UNKNOWN])


def _event(entry: Entry, depth: dict[str, int], view: View) -> Text:
    """The row's main cell: label, ids, session and payload."""
    indent = "  " * depth.get(entry.session_id or "", 0)
    text = Text(indent)
    message = entry.message
    if entry.kind == "issue":
        text.append_text(inert(entry.label, "yellow"))
    elif entry.kind == "event":
        text.append_text(inert(entry.label, "dim"))
    elif message is not None:
        text.append_text(_message_label(entry, message, view))
    if entry.detail:
        text.append(" ")
        text.append_text(inert(entry.detail, "dim"))
    return text


def _message_label(entry: Entry, message: Message, view: View) -> Text:
    text = Text()
    match message.kind:
        case MessageKind.RESPONSE:
            text.append("↩ ")
            if message.is_error:
                text.append(f"error {message.error_code}", "red")
            else:
                text.append("result", "green")
            text.append_text(inert(f" #{id_text(message.id)}", "bold"))
            return text
        case MessageKind.REQUEST:
            text.append_text(inert(f"{entry.label} #{id_text(message.id)}", "bold"))
        case MessageKind.NOTIFICATION:
            text.append_text(inert(("◆ " if entry.marker else "") + entry.label, "cyan"))
    if message.session_id is not None:
        text.append(" ")
        text.append_text(inert(_session(message.session_id, view), "magenta"))
    if message.update_tag == ANNOUNCE_TAG and message.update_session_id is not None:
        text.append(" announces ")
        text.append_text(inert(_session(message.update_session_id, view), "magenta"))
    return text


def _session(session_id: str, view: View) -> str:
    return session_id if view.full else short_id(session_id)


def _link(entry: Entry) -> Text:
    """⇢ N on a request (answered at line N), ⇠ N · duration on a response."""
    if entry.kind == MessageKind.REQUEST.value and entry.message is not None:
        answer = entry.answered_by
        return Text(f"⇢ {answer.line}" if answer is not None else "⇢ unanswered", "dim")
    if entry.kind == MessageKind.RESPONSE.value:
        if entry.request is None:
            return Text("⇠ no request", "red")
        sent = Stamp.of(entry.request)
        duration = sent.ms_until(entry.stamp)
        mark = "~" if sent.approximate or (entry.stamp and entry.stamp.approximate) else ""
        timed = f" · {mark}{ms_text(duration)}" if duration is not None else ""
        return Text(f"⇠ {entry.request.line}{timed}", "dim")
    return Text("")


def _row_note(row: ResumeRow, prefix: str, view: View) -> Text:
    text = Text("  ")
    if prefix:
        text.append(prefix)
        text.append_text(inert(_session(row.session_id, view), "magenta"))
        text.append(": ")
    text.append(row.outcome.value, OUTCOME_STYLE[row.outcome])
    mark = "~" if row.approximate else ""
    text.append(
        f" · {row.replayed_updates} replayed, {row.held_updates} held"
        f" · →marker {mark}{ms_text(row.request_to_marker_ms)}"
        f" · marker→response {mark}{ms_text(row.marker_to_response_ms)}",
        "dim",
    )
    return text


def _finding(finding: Finding) -> Text:
    text = Text("  ▲ ", SEVERITY_STYLE[finding.severity])
    text.append(f"{finding.severity.value} {finding.rule}", SEVERITY_STYLE[finding.severity])
    text.append(": ")
    text.append_text(inert(finding.message))
    return text


def _footer(entries: Sequence[Entry], windows: Sequence[_Window]) -> Iterator[Text]:
    if not entries:
        yield Text("Nothing in this view.", "dim")
    last = entries[-1].line if entries else 0
    for window in windows:
        row = window.row
        if row.response_line is None and row.request_line <= last:
            yield Text(
                f"Replay window of request {id_text(row.request_id)} (line {row.request_line}) "
                f"still open at the end: {row.outcome.value} ({row.end.value}).",
                "dim",
            )
