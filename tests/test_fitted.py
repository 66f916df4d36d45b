"""Tables laid out for their width (`acptrace.render.fitted`): the quick check that a table
fits must never keep a column that rich would have needed dropped."""

from __future__ import annotations

import random

import pytest
from rich.console import Console
from rich.measure import Measurement
from rich.text import Text

import acptrace.render.fitted as fitted_module
from acptrace.render.fitted import UNBOUNDED, Column, FittedTable, surely_fits, widest


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
