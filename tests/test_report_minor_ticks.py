"""A chart's log axis draws its minor ticks as one line of tick marks (`MinorTicks`), not as
matplotlib's tick objects (half of a chart's time): at the places matplotlib's own minor
locator gives, within the limits, but where a major tick is."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.ticker import LogLocator, NullLocator

from acptrace.report import build_report
from acptrace.report import charts as charts_module
from acptrace.report.minor_ticks import MinorTicks
from acptrace.report.stats import describe
from acptrace.report.summaries import Group, Metric
from tests.test_report import complete, transcript

RANGES = [
    (0.1, 10_000.0, True),
    (1.0, 2_000.0, True),
    (0.5, 3.0, None),
    (300.0, 900.0, None),
    (0.001, 1e7, False),
]
"""Axis spans in milliseconds, and whether minor ticks are drawn on every chart: five
decades and three (between labels 1-2-5 apart: yes), less than one and a third of one (on
some charts: the narrow one labels fewer steps), ten (more decades than minor ticks are
drawn for: none)."""


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Group:
    """A group of one Agent, whose samples each test replaces."""
    root = tmp_path_factory.mktemp("ticks")
    Path(root / "a.jsonl").write_bytes(transcript("agent", "1.0", complete(10.0, 20.0)).text())
    (group,) = build_report([str(root)], jobs=1).groups
    return group


def _group(template: Group, metric: Metric, low: float, high: float) -> Group:
    values = tuple(low * (high / low) ** (k / 30) for k in range(31))
    return replace(
        template,
        metrics={**template.metrics, metric: describe(values)},
        samples={**template.samples, metric: values},
    )


def _figures(group: Group, metric: Metric, low: float, high: float) -> list[Figure]:
    edges = tuple(low * (high / low) ** (k / 24) for k in range(25))
    return [
        charts_module.ecdf_figure([(0, group)], metric, ["g"]),
        charts_module.ecdf_figure([(0, group)], metric, ["g"], narrow=True),
        charts_module.histogram_figure(group, metric, edges, "#1f77b4"),
    ]


def _matplotlibs_own(axes: Axes) -> list[float]:
    """The minor ticks matplotlib draws on this axis with its own minor locator."""
    axis = axes.xaxis
    axis.set_minor_locator(LogLocator(base=10, subs="auto"))
    try:
        low, high = sorted(axes.get_xlim())
        return [float(x) for x in axis.get_minorticklocs() if low <= x <= high]
    finally:
        axis.set_minor_locator(NullLocator())


@pytest.mark.parametrize(("low", "high", "some"), RANGES)
def test_minor_ticks_are_where_matplotlib_puts_them(
    template: Group, low: float, high: float, some: bool | None
) -> None:
    metric = Metric.FIRST_OUTPUT
    group = _group(template, metric, low, high)
    with charts_module._drawing():
        for figure in _figures(group, metric, low, high):
            figure.draw_without_rendering()
            (axes,) = figure.axes
            (marks,) = [line for line in axes.get_lines() if isinstance(line, MinorTicks)]
            drawn = np.asarray(marks.get_xdata(), dtype=float).tolist()
            assert drawn == pytest.approx(_matplotlibs_own(axes))
            majors = set(axes.xaxis.get_majorticklocs())
            assert not majors & set(drawn)
            assert some is None or bool(drawn) is some
            assert not axes.xaxis.get_minorticklocs().size  # (no tick objects of its own)


def test_minor_ticks_look_like_ticks() -> None:
    """Marks below the axis, of the minor ticks' size, width and colour."""
    with charts_module._drawing():
        figure = Figure()
        axes = figure.subplots()
        marks = MinorTicks(axes)
        tick = axes.xaxis.get_minor_ticks(1)[0].tick1line
        assert marks.get_marker() == tick.get_marker()
        assert marks.get_markersize() == tick.get_markersize()
        assert marks.get_markeredgewidth() == tick.get_markeredgewidth()
        assert marks.get_color() == tick.get_color()
        assert marks.get_clip_on() is False
