"""How a turn ended, in the words and colours every terminal view uses (analyze's turns table, the
timeline's notes and footer): its end (`idle`, `response`, `error`), or `open (disconnect)` /
`open (trace end)` where the recording lacks it. The JSON and the tables keep the enum's
values (`disconnect`, `trace_end`)."""

from __future__ import annotations

from acptrace.model.turns import TurnEnd

END_STYLE = {
    TurnEnd.RESPONSE: "green",
    TurnEnd.IDLE: "green",
    TurnEnd.ERROR: "red",
    TurnEnd.DISCONNECT: "yellow",
    TurnEnd.TRACE_END: "dim",
}
"""How a turn's end is coloured: a recording that only stops says nothing wrong (dim)."""


def lacking(end: TurnEnd) -> str:
    """An end the recording lacks, in words: `disconnect` or `trace end`."""
    return "disconnect" if end is TurnEnd.DISCONNECT else "trace end"


def end_text(end: TurnEnd) -> str:
    """How the turn ended; an end the recording lacks says so (`open (trace end)`)."""
    return end.value if end.finished else f"open ({lacking(end)})"
