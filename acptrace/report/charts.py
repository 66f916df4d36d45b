"""The HTML report's charts, drawn by matplotlib as self-contained SVG (no fonts, no scripts).

matplotlib is a dependency, imported only here and only when a chart is drawn (so no other
command pays for it); `available()` says whether it can be found, and the HTML report shows
tables with a note instead of charts when it cannot (a broken install). Glyphs are drawn as
paths (`svg.fonttype: path`), so the SVG needs no font and transcript text in a label is
geometry, never markup; `$` never starts mathtext (`text.parse_math: False`). The output is
deterministic (fixed hash salt, no date).
"""

from __future__ import annotations

import importlib.util
import io
import itertools
import math
import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any

from acptrace.model.domain import Outcome
from acptrace.render.text import printable
from acptrace.report.stats import ecdf
from acptrace.report.summaries import REPLAY_METRICS, Group, Metric

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure
    from matplotlib.typing import RcKeyType

OVERLAY_GROUPS = 12
"""Groups drawn in the ECDF chart (those with most samples)."""
BAR_GROUPS = 40
"""Groups drawn in the outcome chart (those with most resumes)."""
LABEL_CHARS = 40
"""Longer group names are shortened in the middle."""

PALETTE = (
    "#1f77b4",
    "#ff7f0e",
    "#2ca02c",
    "#d62728",
    "#9467bd",
    "#8c564b",
    "#e377c2",
    "#7f7f7f",
    "#bcbd22",
    "#17becf",
    "#393b79",
    "#e7ba52",
    "#637939",
    "#843c39",
    "#7b4173",
    "#000000",
    "#6baed6",
    "#fd8d3c",
    "#74c476",
    "#ce6dbd",
)
"""Group colours in group order: matplotlib's tab10, then ten more that differ from them in
hue or lightness (a page of 11 groups once drew its first and eleventh alike)."""
DASHES = ("solid", "dashed", "dotted")
"""After every colour, the lines of the next groups are dashed, then dotted (the HTML
swatches show the same, as CSS border styles): 60 groups are told apart."""
_MPL_DASHES = {"solid": "-", "dashed": (0, (5.0, 2.0)), "dotted": (0, (1.0, 1.5))}

OUTCOME_COLOURS = {
    Outcome.COMPLETE: "#2ca02c",
    Outcome.COMPLETE_FAILED: "#ff7f0e",
    Outcome.TRUNCATED: "#d62728",
    Outcome.REFUSED: "#bcbd22",
    Outcome.UNMARKED_SUCCESS: "#9467bd",
    Outcome.NO_REPLAY: "#c7c7c7",
    Outcome.LOADED: "#17becf",
    Outcome.AMBIGUOUS: "#8c564b",
    Outcome.UNKNOWN: "#7f7f7f",
}
"""One colour per outcome (green complete, red truncated, …)."""

DRAWN: ContextVar[Callable[[], None] | None] = ContextVar("DRAWN", default=None)
"""Told of each chart once it is drawn (its SVG for a page and for a phone: one chart), for a
progress display (`cli.progress`): drawing is most of the time report.html takes."""


def available() -> bool:
    """Whether matplotlib is installed (it is a dependency; a broken install may lack it)."""
    return importlib.util.find_spec("matplotlib") is not None


def counted(metric: Metric) -> str:
    """What a chart of the metric counts: resumes, or turns, tool calls, permission requests."""
    return "resumes" if metric in REPLAY_METRICS else f"{metric.row}s"


def group_colour(index: int) -> str:
    """The colour of the group at this index."""
    return PALETTE[index % len(PALETTE)]


def group_dash(index: int) -> str:
    """The line style of the group at this index (`DASHES`)."""
    return DASHES[index // len(PALETTE) % len(DASHES)]


def label(name: str, chars: int = LABEL_CHARS) -> str:
    """A group name as a chart shows it: printable, shortened in the middle to `chars`."""
    text = printable(name)
    if len(text) <= chars:
        return text
    half = (chars - 1) // 2
    return f"{text[:half]}…{text[-half:]}"


def ecdf_chart(
    groups: Sequence[Group],
    metric: Metric,
    names: Sequence[str] | None = None,
    only: Sequence[Group] | None = None,
) -> tuple[str, str] | None:
    """Each group's ECDF of the metric, on one log axis, as SVG for a page and for a phone
    (None when no group has samples); `names` are the groups' names as the page shows them
    (default: their own); `only` the groups to draw (default: all), each in the colour of
    its place among `groups`."""
    shown = names if names is not None else [g.name for g in groups]
    drawn = ecdf_groups(groups, metric, only)
    if not drawn:
        return None
    with _drawing():
        wide = _svg(ecdf_figure(drawn, metric, shown))
        return wide, _svg(ecdf_figure(drawn, metric, shown, narrow=True))


WIDE = 7.5
"""A chart's width on a page, in inches (100 pixels each)."""
NARROW = 3.8
"""A chart's width on a phone (390 pixels, less the margins): drawn apart, with the same
text size, since the wide one scaled down to it has text too small to read."""
HISTOGRAM = 5.4
"""A group's histogram's width: one chart for page and phone alike (a page has one per group
and measure: two of each would double its size), narrow enough that a phone shows its text
at two thirds of its size."""


def ecdf_groups(
    groups: Sequence[Group], metric: Metric, only: Sequence[Group] | None = None
) -> list[tuple[int, Group]]:
    """The groups `ecdf_chart` draws, with their places among `groups`: of `only` (default:
    all), those with samples, most samples first, up to `OVERLAY_GROUPS`."""
    drawn_ids = None if only is None else {id(g) for g in only}
    indexed = [
        (i, g)
        for i, g in enumerate(groups)
        if (drawn_ids is None or id(g) in drawn_ids) and any(v > 0 for v in g.samples[metric])
    ]
    return sorted(indexed, key=lambda item: -len(item[1].samples[metric]))[:OVERLAY_GROUPS]


def ecdf_figure(
    drawn: Sequence[tuple[int, Group]],
    metric: Metric,
    names: Sequence[str],
    *,
    narrow: bool = False,
) -> Figure:
    """The ECDF's figure (drawn inside `_drawing`): a line per group (`drawn`: each with its
    index, for its colour and dash), the legend under the plot, where it covers none of them
    (in two columns, one when `narrow`)."""
    columns = 1 if narrow else 2
    rows = math.ceil(len(drawn) / columns)
    width = NARROW if narrow else WIDE
    figure, axes = _figure(width, 3.0 + 0.17 * rows)
    for index, group in sorted(drawn, key=lambda item: item[0]):
        xs, ys = ecdf(v for v in group.samples[metric] if v > 0)
        axes.step(
            (xs[0], *xs),
            (0.0, *ys),
            where="post",
            color=group_colour(index),
            linestyle=_MPL_DASHES[group_dash(index)],
            label=label(names[index]),
        )
    for share, name in ((0.5, "p50"), (0.9, "p90"), (0.99, "p99")):
        axes.axhline(share, color="#999999", linewidth=0.6, linestyle=":")
        axes.annotate(name, (1.0, share), xycoords=("axes fraction", "data"), fontsize=7)
    positive = [v for _, g in drawn for v in g.samples[metric] if v > 0]
    _log_x(axes, min(positive), max(positive), width)
    axes.set_ylim(0, 1.02)
    axes.set_xlabel(f"{metric.label} (log scale)")
    axes.set_ylabel(f"share of {counted(metric)} at or below")
    figure.legend(loc="outside lower center", ncols=columns, fontsize=8, frameon=False)
    return figure


def histogram_chart(group: Group, metric: Metric, edges: Sequence[float], colour: str) -> str:
    """One group's histogram of the metric over shared log bins, with its p50/p90/p99."""
    with _drawing():
        return _svg(histogram_figure(group, metric, edges, colour))


def histogram_figure(group: Group, metric: Metric, edges: Sequence[float], colour: str) -> Figure:
    """The histogram's figure (drawn inside `_drawing`). The axis runs from a 1-2-5 step at or
    below the first edge to one at or above the last, so both ends carry a label (bins up to
    1.8 s end on `2 s`, not on an unlabelled edge past `1 s`); the legend of the percentile
    lines stands right of the axes, where it can cover none of them."""
    from matplotlib.ticker import MaxNLocator

    values = [v for v in group.samples[metric] if v > 0]
    distribution = group.metrics[metric]
    figure, axes = _figure(HISTOGRAM, 2.4)
    axes.hist(values, bins=list(edges), color=colour, alpha=0.85)
    for stat, style in (("p50", "-"), ("p90", "--"), ("p99", ":")):
        value = distribution.stat(stat)
        if value is not None and value > 0:
            axes.axvline(value, color="#333333", linewidth=0.9, linestyle=style, label=stat)
    low, high = axis_ends(edges[0], edges[-1], HISTOGRAM)
    _log_x(axes, low, high, HISTOGRAM)
    axes.set_xlim(low, high)
    axes.set_xlabel(f"{metric.label} (log scale)")
    axes.set_ylabel(counted(metric))
    axes.yaxis.set_major_locator(MaxNLocator(integer=True))  # counts: no 0.5 of a resume
    axes.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=7, frameon=False)
    return figure


STEPS = (1.0, 2.0, 5.0)
"""The round numbers of a decade that a log axis labels."""
LABEL_INCHES = 0.6
"""The room a tick label needs (`500 ms` and a gap), in inches of axis."""
MARGIN_INCHES = 1.2
"""What of a chart's width its axis does not take (the y label, the ticks, the margins)."""
LABEL_STEPS = (
    tuple(float(n) for n in range(1, 10)),
    (1.0, 2.0, 3.0, 5.0),
    STEPS,
    (1.0,),
)
"""The steps of a decade a log axis may label, the densest first: it labels the densest whose
labels do not run into each other (`100 ms200 ms`), unlabelled minor ticks marking the rest."""


def labelled_steps(low: float, high: float, width: float = WIDE) -> tuple[float, ...]:
    """The steps of each decade a log axis from `low` to `high` labels in a chart `width`
    inches wide: the densest of `LABEL_STEPS` whose labels keep `LABEL_INCHES` apart."""
    per_decade = (width - MARGIN_INCHES) / max(math.log10(high / low), 1e-9)
    for steps in LABEL_STEPS:
        ticks = _ticks(low, high, steps)
        gaps = [math.log10(b / a) for a, b in itertools.pairwise(ticks)]
        if min(gaps, default=1.0) * per_decade >= LABEL_INCHES:
            return steps
    return LABEL_STEPS[-1]


def _ticks(low: float, high: float, steps: tuple[float, ...]) -> list[float]:
    """The steps from `low` to `high` (both kept, give or take a rounding)."""
    decade = 10.0 ** math.floor(math.log10(low))
    ticks = []
    while decade <= high * (1 + 1e-9):
        ticks += [decade * s for s in steps if low * (1 - 1e-9) <= decade * s <= high * (1 + 1e-9)]
        decade *= 10
    return ticks


def axis_ends(first: float, last: float, width: float = WIDE) -> tuple[float, float]:
    """The ends of a histogram's axis: labelled steps at or below the first edge and at or
    above the last, so that both ends carry a label (snapped to sparser steps, and so wider,
    until the labels of the axis fit)."""
    steps: tuple[float, ...] = STEPS
    low, high = step_below(first, steps), step_above(last, steps)
    while (fitting := labelled_steps(low, high, width)) != steps and len(fitting) < len(steps):
        steps = fitting
        low, high = step_below(first, steps), step_above(last, steps)
    return low, high


def step_below(value: float, steps: tuple[float, ...] = STEPS) -> float:
    """The largest step (1-2-5 by default: …, 0.5, 1, 2, 5, 10, …) at or below a positive
    value."""
    decade = 10.0 ** math.floor(math.log10(value))
    return max(decade * step for step in steps if decade * step <= value * (1 + 1e-9))


def step_above(value: float, steps: tuple[float, ...] = STEPS) -> float:
    """The smallest step (1-2-5 by default) at or above a positive value."""
    decade = 10.0 ** math.floor(math.log10(value))
    return min(decade * step for step in (*steps, 10.0) if decade * step >= value * (1 - 1e-9))


def outcome_chart(
    groups: Sequence[Group], names: Sequence[str] | None = None
) -> tuple[str, str] | None:
    """Horizontal bars: each group's resumes by outcome, for a page and for a phone (None
    without resumes); `names` as for `ecdf_chart`."""
    shown = names if names is not None else [g.name for g in groups]
    indexed = [(i, g) for i, g in enumerate(groups) if g.resumes]
    chosen = sorted(indexed, key=lambda item: -item[1].resumes)[:BAR_GROUPS]
    if not chosen:
        return None
    order = sorted(chosen, key=lambda item: item[0], reverse=True)  # first on top
    labels = [shown[i] for i, _ in order]
    drawn = [g for _, g in order]
    with _drawing():
        wide = _svg(outcome_figure(drawn, labels))
        return wide, _svg(outcome_figure(drawn, labels, narrow=True))


NARROW_LABEL_CHARS = 20
"""Group names on a phone's chart are shortened to this (in the middle)."""


def outcome_figure(drawn: Sequence[Group], names: Sequence[str], *, narrow: bool = False) -> Figure:
    """The outcome bars' figure (drawn inside `_drawing`), `drawn` bottom up; the legend right
    of the bars, or under them when `narrow`."""
    present = [o for o in Outcome if any(g.outcomes[o] for g in drawn)]
    height = 0.8 + 0.32 * max(len(drawn), len(present) * 0.6)
    figure, axes = _figure(NARROW if narrow else WIDE, height + (0.6 if narrow else 0))
    positions = range(len(drawn))
    left = [0] * len(drawn)
    for outcome in present:
        counts = [g.outcomes[outcome] for g in drawn]
        axes.barh(
            positions, counts, left=left, color=OUTCOME_COLOURS[outcome], label=outcome.value,
            height=0.6,
        )  # fmt: skip
        left = [a + b for a, b in zip(left, counts, strict=True)]
    chars = NARROW_LABEL_CHARS if narrow else LABEL_CHARS
    axes.set_yticks(list(positions), [label(name, chars) for name in names])
    axes.set_xlabel("resumes")
    axes.grid(axis="y", visible=False)
    if narrow:
        figure.legend(loc="outside lower center", ncols=2, fontsize=8, frameon=False)
    else:
        axes.legend(loc="center left", bbox_to_anchor=(1.01, 0.5), fontsize=8, frameon=False)
    return figure


def _log_x(axes: Axes, low: float, high: float, width: float) -> None:
    """A log x axis with labelled ticks at `labelled_steps`, in plain text (`500 ms`, `2 s`):
    matplotlib's own log labels are mathtext, which is off here. Its minor ticks are one
    line of tick marks (`MinorTicks`)."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullLocator

    from acptrace.report.minor_ticks import MinorTicks

    axes.set_xscale("log")
    axes.xaxis.set_major_locator(LogLocator(base=10, subs=labelled_steps(low, high, width)))
    axes.xaxis.set_major_formatter(FuncFormatter(lambda value, _: tick_text(value)))
    axes.xaxis.set_minor_locator(NullLocator())
    axes.add_line(MinorTicks(axes))


def tick_text(ms: float) -> str:
    """A round number of milliseconds as an axis shows it: `500 ms`, `2 s`."""
    return f"{ms / 1000:g} s" if ms >= 1000 else f"{ms:g} ms"


@contextmanager
def _drawing() -> Iterator[None]:
    import matplotlib

    style: dict[RcKeyType, Any] = {
        "svg.fonttype": "path",
        "svg.hashsalt": "acptrace",
        "text.parse_math": False,
        "font.size": 9,
        "axes.spines.top": False,
        "axes.spines.right": False,
        "axes.grid": True,
        "grid.color": "#e5e5e5",
        "axes.axisbelow": True,
    }
    with matplotlib.rc_context(style), warnings.catch_warnings():
        # a transcript's name may use glyphs DejaVu Sans lacks; they are drawn as boxes
        warnings.filterwarnings("ignore", message="Glyph .* missing from", category=UserWarning)
        yield
    if (drawn := DRAWN.get()) is not None:
        drawn()


def _figure(width: float, height: float) -> tuple[Figure, Axes]:
    from matplotlib.figure import Figure

    figure = Figure(figsize=(width, height), dpi=100, layout="constrained")
    return figure, figure.subplots()


def _svg(figure: Figure) -> str:
    buffer = io.StringIO()
    figure.savefig(buffer, format="svg", metadata={"Date": None})
    return buffer.getvalue()
