"""A log axis's minor ticks as one line of tick marks (imported only when a chart is drawn).

matplotlib makes each tick an object with a line and a label, which the constrained layout
measures and the SVG writer draws one by one: ~2 ms a tick, and a log axis has dozens of minor
ticks, half of a chart's time (a report of 40 charts took 6 s). Unlabelled, they need none of
that: one line whose markers are tick marks, drawn where and as matplotlib draws them (a test
compares the places).
"""

from __future__ import annotations

import math
from typing import Any

from matplotlib import rcParams
from matplotlib.axes import Axes
from matplotlib.lines import Line2D
from matplotlib.markers import TICKDOWN, MarkerStyle
from matplotlib.ticker import LogLocator

TOLERANCE = 1e-5
"""A minor tick this close to a major one (a share of the axis, in log space) is not drawn,
as `matplotlib.axis.Axis.get_minorticklocs` has it."""


class MinorTicks(Line2D):
    """The x axis's minor ticks (the axis's own minor locator is then a `NullLocator`), placed
    as they are drawn, when the axis's limits and length are final."""

    def __init__(self, axes: Axes) -> None:
        super().__init__(
            [],
            [],
            transform=axes.get_xaxis_transform(),  # (x in data, y in the axes: 0 is the axis)
            marker=MarkerStyle(TICKDOWN),
            linestyle="None",
            markersize=rcParams["xtick.minor.size"],
            markeredgewidth=rcParams["xtick.minor.width"],
            color=rcParams["xtick.color"],
            clip_on=False,
        )
        self.set_in_layout(False)  # (inside the room the tick labels take)
        self._locator = LogLocator(base=10, subs="auto")  # (a log axis's minor locator)
        self._locator.set_axis(axes.xaxis)
        self._plot = axes

    def draw(self, renderer: Any) -> None:
        places = minor_places(self._plot, self._locator())
        self.set_data(places, [0.0] * len(places))
        super().draw(renderer)


def minor_places(axes: Axes, located: Any) -> list[float]:
    """Where the minor ticks of a log x axis go, of the places its minor locator gives: those
    within its limits, but a major tick's."""
    low, high = sorted(axes.get_xlim())
    majors = [math.log10(m) for m in axes.xaxis.get_majorticklocs() if m > 0]
    tolerance = (math.log10(high) - math.log10(low)) * TOLERANCE
    return [
        float(place)
        for place in located
        if low <= place <= high
        and all(abs(math.log10(place) - major) > tolerance for major in majors)
    ]
