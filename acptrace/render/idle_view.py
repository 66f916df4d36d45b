"""The idle-timer table: for each timeout, the replays a quiet-period timer would have cut."""

from __future__ import annotations

from collections.abc import Sequence

from rich import box
from rich.table import Table
from rich.text import Text

from acptrace.judge.idle_timers import IdleVerdict, timeout_text
from acptrace.render.text import inert

TITLE = "Idle timers: replays cut short"


def idle_table(groups: Sequence[tuple[str | None, Sequence[IdleVerdict]]]) -> Table:
    """One row per timeout of each (group name, verdicts); without a name (one file's replays)
    no group column. Red where a timer would have lost updates."""
    named = any(name is not None for name, _ in groups)
    table = Table(title=TITLE, title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False)
    if named:
        table.add_column("group", no_wrap=True)
    table.add_column("timeout", justify="right", no_wrap=True)
    table.add_column("cut short", justify="right", no_wrap=True)
    table.add_column("updates lost", justify="right", no_wrap=True)
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
