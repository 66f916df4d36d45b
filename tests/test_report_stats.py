"""Percentiles, distributions and histograms (acptrace/report/stats.py); regression limits
(acptrace/report/baseline.py)."""

from __future__ import annotations

import math
import statistics

import pytest
from hypothesis import given
from hypothesis import strategies as st

from acptrace.report.baseline import Threshold, Unit, parse_threshold, parse_thresholds
from acptrace.report.stats import (
    EMPTY,
    Distribution,
    describe,
    histogram,
    log_edges,
    percentile,
)


@pytest.mark.parametrize(
    ("values", "p", "expected"),
    [
        ([5.0], 50, 5.0),
        ([5.0], 99, 5.0),
        ([1.0, 2.0], 50, 1.5),
        ([1.0, 2.0, 3.0, 4.0], 50, 2.5),
        ([1.0, 2.0, 3.0, 4.0], 0, 1.0),
        ([1.0, 2.0, 3.0, 4.0], 100, 4.0),
        ([10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0, 90.0, 100.0], 90, 91.0),
        ([10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0, 90.0, 100.0], 99, 99.1),
        ([0.0, 1000.0], 99, 990.0),
    ],
)
def test_percentile_interpolates_linearly_between_ranks(
    values: list[float], p: float, expected: float
) -> None:
    assert percentile(values, p) == pytest.approx(expected, abs=1e-9)


@given(st.lists(st.floats(0, 1e7, allow_nan=False), min_size=2, max_size=60))
def test_percentile_is_the_statistics_modules_inclusive_method(values: list[float]) -> None:
    ordered = sorted(values)
    cuts = statistics.quantiles(ordered, n=100, method="inclusive")
    for p in (50, 90, 99):
        assert math.isclose(percentile(ordered, p), cuts[p - 1], rel_tol=1e-9, abs_tol=1e-6)


def test_percentile_of_nothing_or_out_of_range_is_an_error() -> None:
    with pytest.raises(ValueError, match="no values"):
        percentile([], 50)
    with pytest.raises(ValueError, match="outside"):
        percentile([1.0], 101)


def test_describe_rounds_away_float_noise() -> None:
    assert describe([0.1, 0.2, 0.3]) == Distribution(3, 0.1, 0.2, 0.28, 0.298, 0.3, 0.2)
    assert describe([]) == EMPTY
    assert EMPTY.stat("p90") is None
    with pytest.raises(KeyError):
        EMPTY.stat("p95")


def test_histogram_clamps_into_the_edge_bins() -> None:
    edges = log_edges(10.0, 1000.0, 2)
    assert edges == pytest.approx((10.0, 100.0, 1000.0))
    assert histogram([1.0, 10.0, 99.0, 101.0, 1000.0, 5000.0], edges) == (3, 3)
    assert log_edges(5.0, 5.0, 1) == (5.0, 10.0)
    with pytest.raises(ValueError, match="positive"):
        log_edges(0.0, 1.0, 4)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("p90=20%", Threshold("p90=20%", "marker_to_response_ms.p90", 20.0, Unit.PERCENT)),
        (
            "request_to_response.p99=500ms",
            Threshold("request_to_response.p99=500ms", "request_to_response_ms.p99", 500, Unit.MS),
        ),
        (
            "request_to_marker_ms.mean=1.5s",
            Threshold("request_to_marker_ms.mean=1.5s", "request_to_marker_ms.mean", 1500, Unit.MS),
        ),
        (
            "throughput.p50=10%",
            Threshold("throughput.p50=10%", "replay_updates_per_s.p50", 10.0, Unit.PERCENT),
        ),
        ("complete=1pp", Threshold("complete=1pp", "rate.complete", 1.0, Unit.POINTS)),
        (
            "rate.truncated=0.5pp",
            Threshold("rate.truncated=0.5pp", "rate.truncated", 0.5, Unit.POINTS),
        ),
    ],
)
def test_limits_parse(text: str, expected: Threshold) -> None:
    assert parse_threshold(text) == expected


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("p90", "expected NAME=LIMIT"),
        ("p90=fast", "expected NAME=LIMIT"),
        ("p95=10%", "unknown measure 'p95'"),
        ("latency.p90=10%", "unknown measure 'latency.p90'"),
        ("p90=2pp", "is in %, ms or s"),
        ("throughput.p50=5ms", "is in %"),
        ("complete=5%", "percentage points"),
        ("no_replay=1pp", "no rate"),
    ],
)
def test_bad_limits_say_why(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse_threshold(text)


def test_limits_may_be_comma_separated() -> None:
    assert [t.measure for t in parse_thresholds(["p50=5%, p99=10%", "truncated=2pp"])] == [
        "marker_to_response_ms.p50",
        "marker_to_response_ms.p99",
        "rate.truncated",
    ]
