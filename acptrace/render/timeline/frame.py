"""What the timeline says around its rows: the heading and legend above them, the footer under
them."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.text import Text

from acptrace.model.domain import Analysis, ResumeRow
from acptrace.model.turns import TurnRow
from acptrace.render.ci import id_text
from acptrace.render.entries import View
from acptrace.render.facts import Facts
from acptrace.render.text import inert, plural
from acptrace.render.timeline.fitting import GLUE, unglued
from acptrace.render.turn_ends import lacking
from acptrace.render.wrapping import wrapped

DIRECTIONS = "→ to agent  ← to client"
WINDOWS = "┌ ├ └ replay window: resume, marker, response"
TURNS = "┏ ┣ ┗ turn: prompt, first output, end"
TOOL_CALLS = "╭ ╰ tool call"
LINKS = "⇢ answered at  ⇠ answers"
APPROXIMATE_LEGEND = "~ estimated from the Agent's stderr times (Zed dump), not measured"


def timeline_heading(
    name: str, connection: str | None, view: View, known: Analysis | None = None
) -> RenderableType:
    """What the timeline shows: the file (and connection), the view, the legend (of the marks
    the connection can show, when its analysis is `known` before its rows: `legend`)."""
    lines: list[RenderableType] = [Facts([inert(name, "bold")])]  # (a long path breaks at a /)
    if connection is not None:
        lines.append(Text.assemble("connection ", inert(connection, "bold")))
    return Group(*lines, inert(f"view: {view.describe()}"), _Legend(legend(known), "dim"))


def legend(known: Analysis | None) -> str:
    """The marks a connection's rows can show: its replay windows, turns and tool calls only
    when it has any; every mark when its analysis is not known before its rows (a transcript
    read once, from a pipe: the legend comes first, and holding it back would hold the rows)."""
    marks = [
        DIRECTIONS,
        *([WINDOWS] if known is None or known.resumes else []),
        *([TURNS] if known is None or known.turns else []),
        *([TOOL_CALLS] if known is None or known.tool_calls else []),
        LINKS,
    ]
    return "  ".join(marks)


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
        for line in wrapped(glued, width):
            yield unglued(line)


def timeline_footer(
    analysis: Analysis,
    rows: int,
    hidden_findings: int,
    approximate: bool,
    open_at_end: Iterable[ResumeRow],
    turns_open_at_end: Iterable[TurnRow],
    view: View | None = None,
) -> Iterator[Text]:
    """What is said under the last row: the source, how many rows were shown (and findings
    not; for none, why, where the view says: `nothing_shown`), what `~` means when a time
    shown was estimated, and the replay windows and turns still open at the end."""
    source = analysis.source
    if not rows:
        yield Text(nothing_shown(view, source.lines), "dim")
    yield inert(
        f"{source.format} format · {plural(source.lines, 'line')} · "
        f"{plural(source.messages, 'message')} · end {source.connection_end.value}"
    )
    shown = f"shown: {plural(rows, 'row')}"
    if hidden_findings:
        shown += f" · {plural(hidden_findings, 'finding')} on lines not shown"
    yield Text(shown)
    if approximate:
        yield Text(APPROXIMATE_LEGEND, "dim")
    windows = (
        f"Replay window of request {id_text(row.request_id)} (line {row.request_line}) still "
        f"open at the end: {row.outcome.value} ({row.end.value})."
        for row in open_at_end
    )
    yield from _capped(windows, "more replay window")
    turns = (
        f"Turn of request {id_text(turn.request_id)} (line {turn.request_line}) still open "
        f"at the end ({lacking(turn.end)})."
        for turn in turns_open_at_end
    )
    yield from _capped(turns, "more turn")


def nothing_shown(view: View | None, lines: int) -> str:
    """What a view that shows no row says: where it asks for lines past the transcript's end,
    how many it has; where it follows a request, that no request of the view has its id."""
    reasons = []
    first = view.first_line if view is not None else None
    if first is not None and first > lines:
        reasons.append(f"the transcript has {plural(lines, 'line')}")
    if view is not None and view.request is not None:
        where = "this session" if view.session else "the transcript"
        where = "these lines" if first is not None else where
        reasons.append(f"no request with id {view.request} in {where}")
    return f"Nothing in this view: {'; '.join(reasons)}." if reasons else "Nothing in this view."


OPEN_SHOWN = 10
"""Replay windows, and turns, still open at the end said one by one under the timeline; the
rest are counted (a recording cut in the middle of a busy session leaves hundreds)."""


def _capped(lines: Iterable[str], more: str) -> Iterator[Text]:
    """The first `OPEN_SHOWN` of these lines, then how many more there are (`more`: their
    noun)."""
    count = 0
    for count, line in enumerate(lines, 1):
        if count <= OPEN_SHOWN:
            yield Text(line, "dim")
    if count > OPEN_SHOWN:
        rest = plural(count - OPEN_SHOWN, more)
        yield Text(f"… and {rest} still open at the end (analyze --format json lists them).", "dim")
