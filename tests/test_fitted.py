"""Tables laid out for their width (`acptrace.render.fitted`): the quick check that a table
fits must never keep a column that rich would have needed dropped."""

from __future__ import annotations

import io
import random
from collections.abc import Sequence

import pytest
from rich.console import Console
from rich.measure import Measurement
from rich.text import Text

import acptrace.render.fitted as fitted_module
from acptrace.render.fitted import (
    ROOMY_NAME,
    UNBOUNDED,
    Column,
    FittedTable,
    surely_fits,
    widest,
)
from acptrace.render.text import cut_names


def _table(seed: int) -> FittedTable:
    chance = random.Random(seed)
    columns = [
        Column("h" * chance.randint(1, 12), chance.choice(["left", "right"]), drop=index or None)
        for index in range(chance.randint(1, 9))
    ]
    table = FittedTable(columns, title="T" if seed % 2 else None, title_justify="left")
    for _ in range(chance.randint(0, 6)):
        table.add_row(*("é→" * chance.randint(0, 9) for _ in columns))  # (wide and narrow cells)
    return table


@pytest.mark.parametrize("seed", range(60))
def test_widest_is_never_less_than_what_rich_takes(seed: int) -> None:
    fitted = _table(seed)
    console = Console(width=200)
    table = fitted.layout(console, console.options)
    unbounded = console.options.update(max_width=UNBOUNDED)
    rich_takes = Measurement.get(console, unbounded, table).maximum
    assert rich_takes <= widest(fitted.columns) <= rich_takes + 3  # (close: the check is used)


@pytest.mark.parametrize("seed", range(20))
def test_the_quick_check_drops_what_measuring_drops(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """At every width, the table keeps the same columns with and without the quick check."""
    fitted = _table(seed)
    full = widest(fitted.columns)
    widths = range(max(full - 40, 5), full + 3)
    quick = [_kept(fitted, width) for width in widths]
    monkeypatch.setattr(fitted_module, "surely_fits", lambda columns, width: False)
    assert [_kept(fitted, width) for width in widths] == quick


def _kept(fitted: FittedTable, width: int) -> list[str]:
    """The headings of the columns the table keeps at this width."""
    console = Console(width=width)
    return [str(column.header) for column in fitted.layout(console, console.options).columns]


def test_surely_fits_counts_cells_by_their_width_on_screen() -> None:
    wide = Column("x", cells=[Text("界" * 5)])  # (ten cells wide, five characters)
    assert widest([wide]) == 10 + 3 + 1
    assert surely_fits([wide], 14)
    assert not surely_fits([wide], 13)


# -- long names: whole when there is room, shortened and told apart when not ------------------

NAMES = [f"/work/runs/nightly/{agent}-acp/replay-{n}.jsonl" for agent in "ab" for n in (1, 2)]


def _names_table(minor: int = 0, names: Sequence[str] = NAMES) -> FittedTable:
    columns = [
        Column("group", shorten=cut_names, least=12),
        Column("count", "right", drop=2),
        Column("mean", "right", drop=1),
    ]
    table = FittedTable(columns, minor)
    for index, name in enumerate(names):
        table.add_row(name, str(index), "12.5 ms")
    return table


def _shown(table: FittedTable, width: int) -> list[str]:
    """The heading line, the rows, then what follows (the note), as printed at `width`."""
    console = Console(width=width, file=io.StringIO(), color_system=None)
    console.print(table)
    lines = console.file.getvalue().splitlines()  # type: ignore[attr-defined]
    rule = next(i for i, line in enumerate(lines) if "───" in line)
    return [lines[rule - 1], *lines[rule + 1 :]]


@pytest.mark.parametrize("width", [30, 40, 50, 60, 200])
def test_names_are_whole_when_there_is_room_else_cut_and_told_apart(width: int) -> None:
    lines = _shown(_names_table(), width)
    rows = [line.split() for line in lines[1:5]]
    names = [row[0] for row in rows]
    assert len(set(names)) == len(NAMES)
    assert all(len(line.rstrip()) <= width for line in lines)
    if width >= 60:  # (the table takes 59 columns)
        assert names == NAMES
    else:
        assert all("…" in name for name in names)
    assert all(row[-1] == "ms" for row in rows) or "mean" in " ".join(lines[5:])


def test_minor_columns_go_before_names_are_cut() -> None:
    full = max(len(line.rstrip()) for line in _shown(_names_table(), 200))
    names_first = _shown(_names_table(minor=0), full - 3)
    assert "…" in names_first[1]  # (the names gave way, every column kept)
    assert "mean" in names_first[0]
    roomy = _shown(_names_table(minor=1), full - 3)
    assert "…" in roomy[1]  # (names a little shorter, still over `ROOMY_NAME`, keep minor columns)
    assert "mean" in roomy[0]
    assert "Left out at" not in "\n".join(roomy)
    short = [f"nightly-{agent}-acp-replay-{n}.jsonl" for agent in "ab" for n in (1, 2)]
    full = max(len(line.rstrip()) for line in _shown(_names_table(names=short), 200))
    over = len(short[0]) - ROOMY_NAME + 1  # (the names would go under `ROOMY_NAME`)
    mean_first = _shown(_names_table(minor=1, names=short), full - over)
    assert mean_first[1].split()[0] == short[0]
    assert "mean" not in mean_first[0]
    assert "Left out at" in "\n".join(mean_first)
    assert "mean" in "\n".join(mean_first[5:])


def test_cut_names_leaves_out_shared_folders_then_cuts_near_the_middle() -> None:
    assert cut_names(["a/b/long-name-1", "a/b/x"], 12) == ["…long-name-1", "a/b/x"]
    alike = ["prefix-same-middle-1", "prefix-same-middle-2"]
    cut = cut_names(alike, 9)
    assert len(set(cut)) == 2
    assert all(len(name) == 9 and "…" in name for name in cut)
    assert cut_names(["short"], 9) == ["short"]


# -- columns with no value in any row ---------------------------------------------------------


def _latency_table(marker_cells: list[str], idle_first: bool = True) -> FittedTable:
    columns = [
        Column("line", "right"),
        Column("end", drop=1),
        Column("repl", "right", drop=2),
        Column("→marker", "right", drop=3, idle_first=idle_first),
    ]
    table = FittedTable(columns)
    for index, marker in enumerate(marker_cells):
        table.add_row(str(index), "error -32601", "12", marker)
    return table


def test_a_column_with_no_value_in_any_row_goes_first_when_marked_so() -> None:
    full = max(len(line.rstrip()) for line in _shown(_latency_table(["—", ""]), 200))
    heading, *rest = _shown(_latency_table(["—", ""]), full - 1)
    assert heading.split() == ["line", "end", "repl"]  # (the dashes went, not `end`)
    assert "Left out at" in "\n".join(rest)
    assert "→marker" in "\n".join(rest)
    assert "error -32601" in rest[0]


def test_a_column_with_a_value_or_not_marked_keeps_its_place() -> None:
    full = max(len(line.rstrip()) for line in _shown(_latency_table(["—", "1.5 s"]), 200))
    with_value = _shown(_latency_table(["—", "1.5 s"]), full - 1)
    assert with_value[0].split() == ["line", "repl", "→marker"]  # (`end` goes first, by order)
    unmarked = _shown(_latency_table(["—", "—"], idle_first=False), full - 1)
    assert unmarked[0].split() == ["line", "repl", "→marker"]  # (a dash that is a verdict stays)


def test_names_that_cannot_be_told_apart_in_the_room_left_fold_and_no_number_is_cut() -> None:
    """Names alike up to their last characters need more room than the width leaves once every
    column that may go has gone: they fold over lines; the number beside them stays whole."""
    alike = [f"/runs/{'x' * 30}-{agent}/replay.jsonl" for agent in ("claude", "codex")]
    table = FittedTable(
        [Column("file", shorten=cut_names, least=12), Column("first output", "right")]
    )
    for index, name in enumerate(alike):
        table.add_row(name, f"{index + 1}.25 s")
    console = Console(width=30, file=io.StringIO(), color_system=None)
    console.print(table)
    printed = console.file.getvalue()  # type: ignore[attr-defined]
    assert all(len(line.rstrip()) <= 30 for line in printed.splitlines())
    assert "1.25 s" in printed
    assert "2.25 s" in printed
    names = [line.split()[0] for line in printed.splitlines() if line.strip().startswith("…")]
    assert len(set(names)) == 2  # (told apart, each folded over two lines)


@pytest.mark.parametrize("width", range(30, 100))
def test_the_left_out_note_keeps_its_hint_whole(width: int) -> None:
    """The hint that says how wide a terminal shows every column is never cut in two: it ends
    the note's line when it fits there, else it has a line of its own."""
    names = [Column(name) for name in ("kind", "end", "mk", "repl", "held", "total", "max gap")]
    out = io.StringIO()
    Console(file=out, width=width).print(fitted_module.left_out_note(names, width, 115))
    lines = out.getvalue().splitlines()
    hint = [line for line in lines if "COLUMNS=" in line]
    assert len(hint) == 1, lines
    assert hint[0].rstrip().endswith("(COLUMNS=115 shows all)"), lines
    assert lines[0].startswith("Left out at")
