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
from acptrace.render.wrapping import wrapped

LEGEND = (
    "→ to agent  ← to client  ┌ ├ └ replay window: resume, marker, response  "
    "┏ ┣ ┗ turn: prompt, first output, end  ╭ ╰ tool call  ⇢ answered at  ⇠ answers"
)
APPROXIMATE_LEGEND = "~ estimated from the Agent's stderr times (Zed dump), not measured"


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
        for line in wrapped(glued, width):
            yield unglued(line)


def timeline_footer(
    analysis: Analysis,
    rows: int,
    hidden_findings: int,
    approximate: bool,
    open_at_end: Iterable[ResumeRow],
    turns_open_at_end: Iterable[TurnRow],
) -> Iterator[Text]:
    """What is said under the last row: the source, how many rows were shown (and findings
    not), what `~` means when a time shown was estimated, and the replay windows and turns
    still open at the end."""
    source = analysis.source
    if not rows:
        yield Text("Nothing in this view.", "dim")
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
    for row in open_at_end:
        yield Text(
            f"Replay window of request {id_text(row.request_id)} "
            f"(line {row.request_line}) still open at the end: "
            f"{row.outcome.value} ({row.end.value}).",
            "dim",
        )
    for turn in turns_open_at_end:
        yield Text(
            f"Turn of request {id_text(turn.request_id)} (line {turn.request_line}) still open "
            f"at the end ({turn.end.value}).",
            "dim",
        )
