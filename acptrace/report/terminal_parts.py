"""The parts of the terminal report's tables and charts: group and `file:line` columns that
shorten without losing what tells them apart, fitted tables with their legends, and bar charts
of a metric per group over shared log-spaced bins. The replay sections (`terminal`) and the
turn sections (`turn_terminal`) are built of them."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Sequence
from typing import Final

from rich.console import Console, ConsoleOptions, RenderableType, RenderResult
from rich.console import Group as Lines
from rich.table import Table
from rich.text import Text

from acptrace.render.fitted import Column, FittedTable
from acptrace.render.text import printable
from acptrace.report.groups import shared_edges
from acptrace.report.numbers import FEW_LEGEND, count_text
from acptrace.report.relative import BOOK, end_names, short_places
from acptrace.report.stats import histogram
from acptrace.report.summaries import Group, Metric

BAR_BINS = 8
"""Bins of each group's bar chart: log-spaced, shared by every group so that they compare."""
BAR_GROUPS = 6
"""Groups that get a bar chart (those with most samples; report.html has one for every group)."""
BAR_WIDTH = 40
"""The longest bar, in cells (less when the terminal is narrow)."""
EIGHTHS = " ▏▎▍▌▋▊▉"
"""Partial blocks, none to seven eighths of a cell."""
NAME_CHARS = 12
"""Group names are never shortened below this (in the middle, when the terminal is narrow)."""
PATH_CHARS = 16
"""`file:line` cells are never shortened below this (leading directories first; the line number
is always kept)."""
RIGHT: Final = "right"
"""How a number is aligned in a column."""


def group_name(name: str) -> Text:
    """A group name as the terminal shows it: printable, whole (`GROUP` shortens it when the
    terminal is narrow)."""
    return Text(printable(name))


def group_column(heading: str = "group") -> Column:
    """The column of group names: kept, shortened by `end_names` (one way in every table: the
    report's `NameBook`) when the terminal is narrow."""
    return Column(heading, shorten=BOOK.get() or end_names, least=NAME_CHARS)


def place_column(heading: str = "file:line", drop: int | None = None) -> Column:
    """The `file:line` column: kept, shortened by `short_places` when the terminal is narrow
    (one way in every table: the report's `NameBook`)."""
    return Column(heading, shorten=place_cut(), least=PATH_CHARS, drop=drop)


def place_cut() -> Callable[[Sequence[str], int], list[str]]:
    """How `file:line` cells are shortened: as the report's book cuts paths, else alone."""
    book = BOOK.get()
    return short_places if book is None else book.places


def place(path: str, line: int) -> Text:
    """`path:line`, whole (`place_column` shortens it)."""
    return Text(f"{printable(path)}:{line}")


def fitted(
    title: str, columns: Sequence[Column], minor: int, legend: str | None = None
) -> FittedTable:
    """A table of these columns; those with a `drop` up to `minor` go before names are cut;
    under it the legend of the table `legend` names (`acptrace.model.columns`), if any; names
    are cut one way in every table of the report (`report.relative.NameBook`)."""
    table = FittedTable(columns, minor, legend, title=title, title_justify="left")
    book = BOOK.get()
    return table if book is None else book.register(table)


def with_legend(table: RenderableType, few: bool, legend: str = FEW_LEGEND) -> RenderableType:
    """The table, and under it the line that explains `*` when it shows one."""
    return Lines(table, Text(legend, style="dim")) if few else table


EDGE_DECIMALS = 3
"""Decimals a bin edge may get beyond `ms_text`'s, to tell it from its neighbours."""


class LatencyBars:
    """Per group, values per bin of a metric (replays of the headline latency, turns of the
    first output, …) as horizontal bars (one line a bin), as wide as the terminal allows up to
    `BAR_WIDTH`."""

    def __init__(self, groups: Sequence[Group], metric: Metric, edges: tuple[float, ...]) -> None:
        self.groups = groups
        self.metric = metric
        self.edges = edges

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        edges = edge_texts(self.edges)
        labels = [f"{low} to {high}" for low, high in itertools.pairwise(edges)]
        counted = [histogram(positive(group, self.metric), self.edges) for group in self.groups]
        label_width = max(len(label) for label in labels)
        count_width = max(len(str(n)) for counts in counted for n in counts)
        room = options.max_width - label_width - count_width - 6  # indent and two gaps
        width = max(4, min(BAR_WIDTH, room))
        noun = self.metric.row
        yield Text(f"{self.metric.label}: {noun}s per log-spaced bin", style="bold")
        for index, (group, counts) in enumerate(zip(self.groups, counted, strict=True)):
            title = group_name(group.name).append(f" · {count_text(sum(counts), noun)}")
            if index:
                yield Text("")
            table = Table.grid(padding=(0, 1), pad_edge=False)
            table.add_column(width=1)  # the indent
            table.add_column(justify=RIGHT, no_wrap=True)
            table.add_column(no_wrap=True, width=width)
            table.add_column(justify=RIGHT, no_wrap=True)
            top = max(counts)
            for label, count in zip(labels, counts, strict=True):
                table.add_row("", label, Text(bar(count, top, width), style="cyan"), str(count))
            yield title
            yield table


def edge_texts(edges: Sequence[float]) -> list[str]:
    """The bin edges as latencies, with as many decimals as it takes to tell neighbours apart
    (`807.04 ms to 807.09 ms` where one decimal would say `807.0 ms to 807.1 ms` for every bin
    of a narrow spread)."""
    texts: list[str] = []
    for extra in range(EDGE_DECIMALS + 1):
        texts = [_latency(edge, extra) for edge in edges]
        if all(low != high for low, high in itertools.pairwise(texts)):
            break
    return texts


def _latency(value: float, extra: int) -> str:
    """`ms_text` with `extra` more decimals."""
    if abs(value) >= 1000:
        return f"{value / 1000:.{2 + extra}f} s"
    return f"{value:.{1 + extra}f} ms"


def bar(count: int, top: int, width: int) -> str:
    """A bar of `count` out of `top` in `width` cells, to an eighth of a cell (at least one
    eighth when count is not 0)."""
    if not count or not top:
        return ""
    eighths = max(1, round(count * width * 8 / top))
    full, rest = divmod(eighths, 8)
    return "█" * full + (EIGHTHS[rest] if rest else "")


def bar_charts(
    groups: Sequence[Group], metrics: Sequence[Metric], charted: Callable[[Group], Metric]
) -> Iterator[LatencyBars]:
    """The bar charts of the `BAR_GROUPS` groups with most samples of the metric each is
    charted by, in group order: one chart per metric of `metrics`, its bins shared by the
    groups it shows."""
    sampled = [g for g in groups if positive(g, charted(g))]
    chosen = sorted(sampled, key=lambda g: -len(positive(g, charted(g))))[:BAR_GROUPS]
    for metric in metrics:
        alike = [g for g in groups if g in chosen and charted(g) is metric]
        edges = shared_edges(alike, metric, BAR_BINS)
        if edges is not None:
            yield LatencyBars(alike, metric, edges)


def positive(group: Group, metric: Metric) -> list[float]:
    return [v for v in group.samples[metric] if v > 0]
