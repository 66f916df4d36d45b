"""Numbers over many resumes: percentiles, distributions, histogram bins. Pure functions.

Percentiles interpolate linearly between the two nearest ranks (Hyndman & Fan type 7, numpy's
default `linear`, `statistics.quantiles(method="inclusive")`): for n sorted values the p-th
percentile sits at rank h = (n - 1) * p / 100, so p50 of 4 values is the mean of the middle two,
p0 is the minimum and p100 the maximum; a single value is every percentile.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

PERCENTILE_METHOD = "linear"
"""The method's name as report.json states it."""

PERCENTILES = (50, 90, 99)
"""The percentiles every distribution reports."""

STATS = ("count", "min", "p50", "p90", "p99", "max", "mean")
"""The statistics of a distribution, in display order."""

DIGITS = 6
"""Statistics are rounded to this many decimals (nanoseconds for milliseconds), so float noise
from interpolation never shows (`700.0000000000001`)."""


def percentile(ordered: Sequence[float], p: float) -> float:
    """The p-th percentile (0 to 100) of values sorted ascending, by linear interpolation."""
    if not ordered:
        raise ValueError("percentile of no values")
    if not 0 <= p <= 100:
        raise ValueError(f"percentile {p} is outside 0..100")
    rank = (len(ordered) - 1) * p / 100
    low = math.floor(rank)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (rank - low) * (ordered[high] - ordered[low])


@dataclass(frozen=True, slots=True)
class Distribution:
    """Count, extremes, percentiles and mean of some values (None for each when there are none)."""

    count: int
    """How many values."""
    min: float | None
    """The smallest value."""
    p50: float | None
    """The median."""
    p90: float | None
    """The 90th percentile."""
    p99: float | None
    """The 99th percentile."""
    max: float | None
    """The largest value."""
    mean: float | None
    """The arithmetic mean."""

    def stat(self, name: str) -> float | None:
        """A statistic by its name in `STATS`."""
        if name not in STATS:
            raise KeyError(name)
        value: float | int | None = getattr(self, name)
        return value


EMPTY = Distribution(0, None, None, None, None, None, None)
"""The distribution of no values."""


def describe(values: Iterable[float]) -> Distribution:
    """The distribution of the values."""
    ordered = sorted(values)
    if not ordered:
        return EMPTY
    p50, p90, p99 = (round(percentile(ordered, p), DIGITS) for p in PERCENTILES)
    mean = round(math.fsum(ordered) / len(ordered), DIGITS)
    return Distribution(len(ordered), ordered[0], p50, p90, p99, ordered[-1], mean)


def log_edges(low: float, high: float, bins: int) -> tuple[float, ...]:
    """`bins + 1` bin edges spaced evenly on a log scale from `low` to `high` (both > 0)."""
    if bins < 1:
        raise ValueError("at least one bin")
    if low <= 0 or high <= 0:
        raise ValueError("log bins need positive bounds")
    if high <= low:
        high = low * 2
    step = (math.log(high) - math.log(low)) / bins
    inner = tuple(math.exp(math.log(low) + step * i) for i in range(1, bins))
    return (low, *inner, high)


def histogram(values: Iterable[float], edges: Sequence[float]) -> tuple[int, ...]:
    """How many values fall in each bin `[edges[i], edges[i + 1])`, the last bin closed; values
    outside the edges are clamped into the first or last bin."""
    counts = [0] * (len(edges) - 1)
    for value in values:
        index = _bin(value, edges)
        counts[index] += 1
    return tuple(counts)


def _bin(value: float, edges: Sequence[float]) -> int:
    last = len(edges) - 2
    for index in range(last):
        if value < edges[index + 1]:
            return index
    return last


def ecdf(values: Iterable[float]) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """The empirical cumulative distribution: sorted values and the share at or below each."""
    ordered = tuple(sorted(values))
    count = len(ordered)
    return ordered, tuple((i + 1) / count for i in range(count))
