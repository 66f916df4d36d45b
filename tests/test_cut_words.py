"""Words are never cut where a narrow terminal ends a line (#37 item 10): an identifier
(`session/request_permission`, `available_commands_update`, a session id) wraps only after a
`/`, `_` or `-`, or not at all, in the findings and issues of `analyze` and in `timeline`; a
table's heading is never cut. The terminal runs are in a real pseudo-terminal."""

from __future__ import annotations

import re

import pytest
from rich.text import Text

from acptrace.render.wrapping import Wrapped, pieces, wrapped
from tests.golden import ROOT
from tests.shared import REAL_WORLD
from tests.terminal import in_terminal, plain

RULES_HISTORY = str(ROOT / "sample_traces" / "rules-history.jsonl")
OVERLAP = REAL_WORLD / "agents-2026-12b" / "codex-acp-2.6.0_v1_overlap.jsonl"
SESSION_ID = "01a24e72-d935-71a0-b28a-8431d26462d9"
BOUNDARY = "/_-"
LEFT_OUT = re.compile(r"Left out at \d+ columns:.*?shows all\)", re.DOTALL)
"""The note under a table that gave up columns (only a narrow terminal shows it)."""


def shown(args: list[str], columns: int) -> str:
    """What a terminal `columns` wide shows of acptrace run from this checkout."""
    return plain(in_terminal(args, columns, ROOT))


def words(shown: str) -> list[str]:
    """The words of what a terminal showed, without the frames and punctuation around them."""
    return [word.strip("│├└┌()[],.:;'\"") for word in shown.split()]


def cut_words(narrow: str, wide: str) -> list[str]:
    """The words shown at a narrow width that are neither a word of the wide output nor a part
    of one that starts and ends at its edges or at a `/`, `_`, `-` boundary."""
    whole = set(words(wide))
    cut = []
    for word in words(LEFT_OUT.sub("", narrow)):
        if not word or "…" in word or word in whole or set(word) <= set("─"):
            continue
        parted = (
            (start == 0 or wide[start - 1] in BOUNDARY + " ")
            and (wide[start - 1] in BOUNDARY or word[-1] in BOUNDARY)
            for start in (m.start() for m in re.finditer(re.escape(word), wide))
        )
        if not any(parted):
            cut.append(word)
    return cut


def test_an_identifier_wraps_after_its_separators_only() -> None:
    message = Text("session/request_permission (id 0) for sess_hist before its replay_complete")
    lines = [line.plain for line in wrapped(message, 24)]
    assert lines == [
        "session/request_",
        "permission (id 0) for",
        "sess_hist before its",
        "replay_complete",
    ]
    ids = [line.plain for line in wrapped(Text(f"resumed {SESSION_ID} twice"), 20)]
    assert ids == ["resumed 01a24e72-", "d935-71a0-b28a-", "8431d26462d9 twice"]


def test_a_word_without_a_boundary_is_cut_only_where_it_is_wider_than_the_line() -> None:
    assert [line.plain for line in wrapped(Text("an abcdefghij word"), 12)] == [
        "an",
        "abcdefghij",
        "word",
    ]
    assert [line.plain for line in wrapped(Text("abcdefghij"), 4)] == ["abcd", "efgh", "ij"]
    assert pieces("a/b_c--d") == ["a/", "b_", "c--", "d"]


def test_a_cell_is_measured_by_its_longest_piece() -> None:
    from rich.console import Console

    console = Console(width=80)
    measured = console.measure(Wrapped(Text("for available_commands_update then")))
    assert (measured.minimum, measured.maximum) == (len("available_"), 34)


@pytest.mark.parametrize("command", ["analyze", "timeline"])
def test_at_60_columns_no_identifier_is_cut(command: str) -> None:
    narrow = shown([command, RULES_HISTORY], 60)
    wide = shown([command, RULES_HISTORY], 200)
    assert "session/request_" in narrow or command == "timeline"
    assert "request_permissi\n" not in narrow
    assert "commands_updat\n" not in narrow
    assert cut_words(narrow, wide) == []


@pytest.mark.shared
@pytest.mark.parametrize("command", ["analyze", "timeline"])
def test_a_session_id_wraps_at_its_hyphens(command: str) -> None:
    narrow = shown([command, str(OVERLAP)], 60)
    wide = shown([command, str(OVERLAP)], 200)
    assert SESSION_ID in wide
    assert cut_words(narrow, wide) == []


@pytest.mark.shared
def test_a_turns_table_gives_up_a_column_before_cutting_a_heading() -> None:
    path = REAL_WORLD / "acplazybridge__tool_calls.jsonl"
    analysis = shown(["analyze", str(path)], 60)
    turns = analysis[analysis.index("Turns (") :]
    heading = turns.splitlines()[2].split()
    assert heading[-1] == "duration"
    assert "first out" in turns[turns.index("Left out at 60 columns") :]
