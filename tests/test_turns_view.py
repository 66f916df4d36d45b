"""The turns table of `acptrace analyze` (render/turns_view.py): what it says of each turn at
60, 80 and 120 columns, and what it leaves out."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from acptrace.model.domain import Analysis
from acptrace.render.summary import summaries
from acptrace.render.turns_view import REPLAY_LEGEND, TURNS_SHOWN
from tests.test_turns import started
from tests.transcript import Transcript


def printed(analysis: Analysis, width: int) -> str:
    buffer = io.StringIO()
    console = Console(file=buffer, width=width, color_system=None, highlight=False)
    for renderable in summaries([analysis]):
        console.print(renderable)
    return buffer.getvalue()


def turns_of(t: Transcript) -> Analysis:
    return t.analyze()


def two_turns() -> Transcript:
    """Two turns: one ended (prompt on line `FIRST`), one the transcript stops inside."""
    t = started()
    t.prompt(id=5, at_ms=1000)
    t.update("agent_message_chunk", at_ms=1250)
    t.tool("t1", status="pending", at_ms=1300)
    t.permission("t1", id=0, at_ms=1400)
    t.choose(0, "allow", at_ms=3400)
    t.tool("t1", status="completed", at_ms=3500)
    t.state("idle", stop_reason="end_turn", at_ms=4000)
    t.prompt(id=6, at_ms=5000)  # (never ends: the transcript stops)
    return t


def row(text: str, line: int) -> str:
    """The table's row of the turn whose prompt is on this line."""
    return next(row for row in text.splitlines() if row.strip().startswith(f"{line} "))


@pytest.mark.parametrize("width", [60, 80, 120])
def test_each_turn_shows_its_end_first_output_and_duration_at_every_width(width: int) -> None:
    analysis = turns_of(two_turns())
    text = printed(analysis, width)
    assert "Turns (2)" in text
    first = row(text, analysis.turns[0].request_line)
    assert "idle" in first
    assert "250.0 ms" in first  # (first output)
    assert "3.00 s" in first  # (duration)
    assert "open (trace end)" in row(text, analysis.turns[1].request_line)
    assert all(len(line) <= width for line in text.splitlines())


def test_the_permission_wait_and_the_counts_show_where_there_is_room() -> None:
    analysis = turns_of(two_turns())
    first = row(printed(analysis, 120), analysis.turns[0].request_line)
    assert first.split()[7:] == ["4", "1", "2.00", "s", "end_turn"]


def test_without_turns_nothing_is_said_of_them() -> None:
    t = started()
    assert "Turns" not in printed(t.analyze(), 80)


def test_turns_beyond_the_shown_ones_are_counted_not_listed() -> None:
    t = started(version=1)
    for n in range(TURNS_SHOWN + 3):
        t.prompt(id=10 + n)
        t.result(10 + n, {"stopReason": "end_turn"})
    text = printed(t.analyze(), 100)
    assert f"Turns ({TURNS_SHOWN + 3})" in text
    assert "… 3 more turns: --format json, or the turns table of acptrace export\n\n" in text


def test_a_turn_a_replay_overlaps_is_starred_and_the_legend_says_why() -> None:
    t = started()
    t.resume(id=9)
    prompt = t.prompt(id=5)
    t.history()
    t.marker()
    t.result(9, {})
    t.state("idle")
    text = printed(t.analyze(), 100)
    assert f"*{prompt}" in text
    assert f"{REPLAY_LEGEND}\n\n" in text  # (a blank line before the next section)


def test_a_connection_without_resumes_says_so_and_leaves_a_blank_line_before_its_turns() -> None:
    text = printed(turns_of(two_turns()), 80)
    assert "No resumes or loads.\n\nTurns (2)" in text
