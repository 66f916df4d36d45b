"""The idle-timer table: for each timeout, the replays a quiet-period timer would have cut."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from rich.text import Text

from acptrace.judge.idle_timers import IdleVerdict, timeout_text
from acptrace.render.fitted import Column, FittedTable
from acptrace.render.text import cut_names, inert

TITLE = "Idle timers: replays cut short"


def idle_table(
    groups: Sequence[tuple[str | None, Sequence[IdleVerdict]]],
    shorten: Callable[[Sequence[str], int], list[str]] = cut_names,
    least: int = 12,
) -> FittedTable:
    """One row per timeout of each (group name, verdicts); without a name (one file's replays)
    no group column. Red where a timer would have lost updates. Long group names are shortened
    by `shorten` (in the middle by default; a report cuts them as in its other tables) only
    when the terminal is too narrow for them whole. Under it, the legend (what `of N` counts:
    `IdleVerdict.replays`)."""
    named = any(name is not None for name, _ in groups)
    columns = [
        *([Column("group", shorten=shorten, least=least)] if named else []),
        Column("timeout", "right"),
        Column("cut short", "right"),
        Column("updates lost", "right"),
    ]
    table = FittedTable(columns, legend="idle", title=TITLE, title_justify="left")
    for name, verdicts in groups:
        for index, verdict in enumerate(verdicts):
            style = "red" if verdict.cut_short else "green"
            cells = [
                Text(timeout_text(verdict.timeout_ms)),
                Text(f"{verdict.cut_short} of {verdict.replays}", style),
                Text(f"{verdict.updates_lost:,}", style),
            ]
            if named:
                cells.insert(0, inert(name or "") if index == 0 else Text(""))
            table.add_row(*cells)
    return table
