"""The turns table of `acptrace analyze`: each `session/prompt`, how soon the Agent answered,
how long the turn took, and its tool calls and permission waits (docs/turns.md)."""

from __future__ import annotations

from collections.abc import Iterator

from rich.console import RenderableType
from rich.text import Text

from acptrace.model.turns import TurnRow
from acptrace.render.fitted import Column, FittedTable
from acptrace.render.latency import latency
from acptrace.render.text import inert, plural, short_id
from acptrace.render.turn_ends import END_STYLE, end_text

TURNS_SHOWN = 20
"""Turns listed one by one; the rest are counted (`--format json` or `export` has them all)."""
REPLAY_LEGEND = "* a replay of the session was pending: the turn's updates may be history"


def turns_section(turns: tuple[TurnRow, ...]) -> Iterator[RenderableType]:
    """The turns table, what it leaves out, and its legend (nothing without turns)."""
    if not turns:
        return
    yield _table(turns[:TURNS_SHOWN], len(turns))
    notes = []
    if len(turns) > TURNS_SHOWN:
        rest = plural(len(turns) - TURNS_SHOWN, "more turn")
        notes.append(Text(f"… {rest}: --format json, or the turns table of acptrace export", "dim"))
    if any(turn.during_replay for turn in turns[:TURNS_SHOWN]):
        notes.append(Text(REPLAY_LEGEND, "dim"))
    if notes:  # (and the blank line every section ends with, as the table's own)
        yield from notes
        yield Text("")


def _table(shown: tuple[TurnRow, ...], total: int) -> FittedTable:
    """One row per turn; at narrow widths the stop reason, then the counts, then the waits go,
    never the line, the session, the end or a latency."""
    table = FittedTable(
        TURN_COLUMNS(), legend="turns", title=f"Turns ({total})", title_justify="left"
    )
    for turn in shown:
        approximate = turn.approximate
        table.add_row(
            f"{'*' if turn.during_replay else ''}{turn.request_line}",
            inert(short_id(turn.session_id)),
            Text(end_text(turn.end), END_STYLE[turn.end]),
            latency(turn.first_output_ms, approximate),
            latency(turn.duration_ms, approximate),
            str(turn.updates),
            str(turn.tool_calls),
            _permissions(turn),
            inert(turn.stop_reason or "—", "" if turn.stop_reason else "dim"),
        )
    return table


def TURN_COLUMNS() -> list[Column]:
    """The columns of the turns table, with what each gives up when space is short."""
    right = "right"
    return [
        Column("line", right),
        Column("session"),
        Column("end"),
        Column("first out", right, drop=5),
        Column("duration", right),
        Column("upd", right, drop=3),
        Column("tools", right, drop=2),
        Column("perm wait", right, drop=4, idle_first=True),
        Column("stop", drop=1),
    ]


def _permissions(turn: TurnRow) -> Text:
    """The permission requests' summed wait, with their count when more than one."""
    if not turn.permission_requests:
        return Text("—", "dim")
    waited = latency(turn.permission_wait_ms, turn.approximate)
    if turn.permission_requests > 1:
        waited.append(f" ({turn.permission_requests})")
    return waited
