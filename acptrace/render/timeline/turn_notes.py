"""What is said of a turn or a tool call under the row where its span starts (its end, counts
and latencies, as a replay window's outcome is said under its request), and under the update
that ended a v2 turn (how long it took, since its prompt may be far above)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from rich.text import Text

from acptrace.model.turns import ToolCallRow, TurnRow
from acptrace.render.ci import ms_text
from acptrace.render.entries import PAYLOAD_CHARS
from acptrace.render.text import inert, plural
from acptrace.render.timeline.span_gutter import END, START
from acptrace.render.timeline.spans import Span
from acptrace.render.turn_ends import END_STYLE, end_text

STATUS_STYLE = {"completed": "green", "failed": "red", "cancelled": "yellow"}
"""A tool call's final status (another one: it never reached one)."""


def span_notes(marked: Sequence[tuple[Span, int]], full: bool) -> Iterator[Text]:
    """The notes of the spans marked at a row: a turn's or a tool call's where it starts, and
    the end of a turn that an update ended (a response's link already says how long)."""
    for span, drawn in marked:
        row = span.row
        if drawn & START:
            yield tool_note(row, full) if isinstance(row, ToolCallRow) else turn_note(row)
        elif drawn & END and isinstance(row, TurnRow) and not span.ends_at_response:
            yield turn_end_note(row)


def turn_note(row: TurnRow) -> Text:
    """`turn: idle · end_turn · 16 updates, 1 tool call · →first output 1.07 s · →idle 1.78 s`
    (unfinished: `turn: open (trace end)`, without the last latency)."""
    text = Text("  turn: ")
    text.append(end_text(row.end), END_STYLE[row.end])
    rest = [inert(row.stop_reason).plain] if row.stop_reason is not None else []
    counts = [plural(row.updates, "update")]
    if row.tool_calls:
        counts.append(plural(row.tool_calls, "tool call"))
    if row.permission_requests:
        counts.append(plural(row.permission_requests, "permission request"))
    rest.append(", ".join(counts))
    mark = "~" if row.approximate else ""
    if row.first_output_ms is not None:
        rest.append(f"→first output {mark}{ms_text(row.first_output_ms)}")
    if row.end.finished:
        rest.append(f"→{row.end.value} {mark}{ms_text(row.duration_ms)}")
    if row.permission_wait_ms is not None:
        rest.append(f"waited for permission {mark}{ms_text(row.permission_wait_ms)}")
    if row.during_replay:
        rest.append("during a replay of its session")
    text.append(" · " + " · ".join(rest), "dim")
    return text


def turn_end_note(row: TurnRow) -> Text:
    """Under the update that ended a v2 turn: `end of the turn of line 17 · 1.78 s`."""
    mark = "~" if row.approximate else ""
    return Text(f"  end of the turn of line {row.request_line} · {mark}{ms_text(row.duration_ms)}")


def tool_note(row: ToolCallRow, full: bool) -> Text:
    """`tool call read "Read README.md": completed · 3 updates · →completed 228.4 ms`, with the
    permission the Agent waited for (unfinished: `in_progress, unfinished`); its title cut
    unless the view is `full`."""
    text = Text("  tool call")
    if row.kind is not None:
        text.append(" ")
        text.append_text(inert(row.kind))
    text.append(" ")
    named = row.tool_call_id if row.title is None else f'"{_cut(row.title, full)}"'
    text.append_text(inert(named, "cyan"))
    text.append(": ")
    status = row.last_status
    finished = row.end_line is not None
    if finished and status is not None:
        text.append(status, STATUS_STYLE.get(status, ""))
    else:
        text.append(f"{status or 'no status'}, unfinished", "yellow")
    rest = [plural(row.updates, "update")]
    mark = "~" if row.approximate else ""
    if finished:
        rest.append(f"→{status} {mark}{ms_text(row.duration_ms)}")
    if row.permission_line is not None:
        rest.append(
            f"permission asked at line {row.permission_line}, "
            f"waited {mark}{ms_text(row.permission_wait_ms)}"
        )
    text.append(" · " + " · ".join(rest), "dim")
    return text


def _cut(text: str, full: bool) -> str:
    """A title as long as a payload is shown (whole in a full view)."""
    if full or len(text) <= PAYLOAD_CHARS:
        return text
    return text[: PAYLOAD_CHARS - 1] + "…"
