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
import math
import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
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
)
"""Group colours (matplotlib's tab10), in group order."""

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


def available() -> bool:
    """Whether matplotlib is installed (it is a dependency; a broken install may lack it)."""
    return importlib.util.find_spec("matplotlib") is not None


def counted(metric: Metric) -> str:
    """What a chart of the metric counts: resumes, or turns, tool calls, permission requests."""
    return "resumes" if metric in REPLAY_METRICS else f"{metric.row}s"


def group_colour(index: int) -> str:
    """The colour of the group at this index."""
    return PALETTE[index % len(PALETTE)]


def label(name: str) -> str:
    """A group name as a chart shows it: printable, shortened in the middle."""
    text = printable(name)
    if len(text) <= LABEL_CHARS:
        return text
    half = (LABEL_CHARS - 1) // 2
    return f"{text[:half]}…{text[-half:]}"


def ecdf_chart(
    groups: Sequence[Group],
    metric: Metric,
    names: Sequence[str] | None = None,
    only: Sequence[Group] | None = None,
) -> str | None:
    """Each group's ECDF of the metric, on one log axis (None when no group has samples);
    `names` are the groups' names as the page shows them (default: their own); `only` the
    groups to draw (default: all), each in the colour of its place among `groups`."""
    shown = names if names is not None else [g.name for g in groups]
    drawn_ids = None if only is None else {id(g) for g in only}
    indexed = [
        (i, g)
        for i, g in enumerate(groups)
        if (drawn_ids is None or id(g) in drawn_ids) and any(v > 0 for v in g.samples[metric])
    ]
    drawn = sorted(indexed, key=lambda item: -len(item[1].samples[metric]))[:OVERLAY_GROUPS]
    if not drawn:
        return None
    with _drawing():
        figure, axes = _figure(7.5, 3.6)
        for index, group in sorted(drawn, key=lambda item: item[0]):
            xs, ys = ecdf(v for v in group.samples[metric] if v > 0)
            axes.step(
                (xs[0], *xs),
                (0.0, *ys),
                where="post",
                color=group_colour(index),
                label=label(shown[index]),
            )
        for share, name in ((0.5, "p50"), (0.9, "p90"), (0.99, "p99")):
            axes.axhline(share, color="#999999", linewidth=0.6, linestyle=":")
            axes.annotate(name, (1.0, share), xycoords=("axes fraction", "data"), fontsize=7)
        positive = [v for _, g in drawn for v in g.samples[metric] if v > 0]
        _log_x(axes, min(positive), max(positive))
        axes.set_ylim(0, 1.02)
        axes.set_xlabel(f"{metric.label} (log scale)")
        axes.set_ylabel(f"share of {counted(metric)} at or below")
        axes.legend(loc="lower right", fontsize=8, frameon=False)
        return _svg(figure)


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
    figure, axes = _figure(7.5, 2.4)
    axes.hist(values, bins=list(edges), color=colour, alpha=0.85)
    for stat, style in (("p50", "-"), ("p90", "--"), ("p99", ":")):
        value = distribution.stat(stat)
        if value is not None and value > 0:
            axes.axvline(value, color="#333333", linewidth=0.9, linestyle=style, label=stat)
    low, high = step_below(edges[0]), step_above(edges[-1])
    _log_x(axes, low, high)
    axes.set_xlim(low, high)
    axes.set_xlabel(f"{metric.label} (log scale)")
    axes.set_ylabel(counted(metric))
    axes.yaxis.set_major_locator(MaxNLocator(integer=True))  # counts: no 0.5 of a resume
    axes.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=7, frameon=False)
    return figure


STEPS = (1.0, 2.0, 5.0)
"""The round numbers of a decade that a log axis labels."""


def step_below(value: float) -> float:
    """The largest 1-2-5 step (…, 0.5, 1, 2, 5, 10, …) at or below a positive value."""
    decade = 10.0 ** math.floor(math.log10(value))
    return max(decade * step for step in STEPS if decade * step <= value * (1 + 1e-9))


def step_above(value: float) -> float:
    """The smallest 1-2-5 step at or above a positive value."""
    decade = 10.0 ** math.floor(math.log10(value))
    return min(decade * step for step in (*STEPS, 10.0) if decade * step >= value * (1 - 1e-9))


def outcome_chart(groups: Sequence[Group], names: Sequence[str] | None = None) -> str | None:
    """Horizontal bars: each group's resumes by outcome (None without resumes); `names` as for
    `ecdf_chart`."""
    shown = names if names is not None else [g.name for g in groups]
    indexed = [(i, g) for i, g in enumerate(groups) if g.resumes]
    chosen = sorted(indexed, key=lambda item: -item[1].resumes)[:BAR_GROUPS]
    if not chosen:
        return None
    order = sorted(chosen, key=lambda item: item[0], reverse=True)  # first on top
    drawn = [g for _, g in order]
    present = [o for o in Outcome if any(g.outcomes[o] for g in drawn)]
    with _drawing():
        figure, axes = _figure(7.5, 0.8 + 0.32 * max(len(drawn), len(present) * 0.6))
        positions = range(len(drawn))
        left = [0] * len(drawn)
        for outcome in present:
            counts = [g.outcomes[outcome] for g in drawn]
            axes.barh(
                positions,
                counts,
                left=left,
                color=OUTCOME_COLOURS[outcome],
                label=outcome.value,
                height=0.6,
            )
            left = [a + b for a, b in zip(left, counts, strict=True)]
        axes.set_yticks(list(positions), [label(shown[i]) for i, _ in order])
        axes.set_xlabel("resumes")
        axes.grid(axis="y", visible=False)
        axes.legend(loc="center left", bbox_to_anchor=(1.01, 0.5), fontsize=8, frameon=False)
        return _svg(figure)


def _log_x(axes: Axes, low: float, high: float) -> None:
    """A log x axis with ticks at 1-2-5 steps (every step within one decade), labelled in plain
    text (`500 ms`, `2 s`): matplotlib's own log labels are mathtext, which is off here."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    axes.set_xscale("log")
    narrow = high < low * 10
    subs = tuple(float(n) for n in range(1, 10)) if narrow else (1.0, 2.0, 5.0)
    axes.xaxis.set_major_locator(LogLocator(base=10, subs=subs))
    axes.xaxis.set_major_formatter(FuncFormatter(lambda value, _: tick_text(value)))
    axes.xaxis.set_minor_formatter(NullFormatter())


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


def _figure(width: float, height: float) -> tuple[Figure, Axes]:
    from matplotlib.figure import Figure

    figure = Figure(figsize=(width, height), dpi=100, layout="constrained")
    return figure, figure.subplots()


def _svg(figure: Figure) -> str:
    buffer = io.StringIO()
    figure.savefig(buffer, format="svg", metadata={"Date": None})
    return buffer.getvalue()
