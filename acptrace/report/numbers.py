"""Numbers as the report's views show them (terminal, Markdown, HTML alike)."""

from __future__ import annotations

from collections.abc import Sequence

from acptrace.model.domain import Outcome
from acptrace.report.baseline import Comparison, Delta
from acptrace.report.baseline import measure_label as measure_label
from acptrace.report.stats import PERCENTILES, Distribution
from acptrace.report.summaries import FEW_REPLAYS, REPLAY_METRICS, Group, Metric, few_samples

NONE = "—"
"""Shown for a missing value."""


def ms_text(value: float | None) -> str:
    """`812.5 ms`, `1.51 s`."""
    if value is None:
        return NONE
    if abs(value) >= 1000:
        return f"{value / 1000:.2f} s"
    return f"{value:.1f} ms"


FEW_MARK = "*"
"""After a percentile of fewer than `FEW_REPLAYS` values."""
FEW_LEGEND = f"{FEW_MARK} from fewer than {FEW_REPLAYS} replays: one more can move it a lot"
"""The line that explains the mark, under a table that shows it."""
_PERCENTILE_STATS = frozenset(f"p{p}" for p in PERCENTILES)


def stat_text(metric: Metric, distribution: Distribution, stat: str) -> str:
    """One statistic with its unit (a count bare); a percentile of few values marked `*`."""
    value = distribution.stat(stat)
    if stat == "count":
        return str(value)
    text = metric_text(metric, value)
    return text + FEW_MARK if value is not None and marked(distribution, stat) else text


def marked(distribution: Distribution, stat: str) -> bool:
    """Whether this statistic of the distribution gets the few-samples mark."""
    return stat in _PERCENTILE_STATS and few_samples(distribution)


def shows_few(distribution: Distribution) -> bool:
    """Whether the distribution's percentiles are shown with the few-samples mark."""
    return distribution.count > 0 and few_samples(distribution)


def throughput_text(value: float | None) -> str:
    """`1,234/s`."""
    return NONE if value is None else f"{value:,.0f}/s"


def metric_text(metric: Metric, value: float | None) -> str:
    """A value of the metric with its unit."""
    return throughput_text(value) if metric is Metric.THROUGHPUT else ms_text(value)


def rate_text(rate: float | None) -> str:
    """`93.8%`."""
    return NONE if rate is None else f"{rate * 100:.1f}%"


def share_text(count: int, whole: int, rate: float | None) -> str:
    """`77/78 (98.7%)`: the count, what it is a share of, and the share (a bare `77 (98.7%)`
    once read as a share of the resumes shown beside it)."""
    return f"{count}/{whole} ({rate_text(rate)})"


def measure_text(measure: str, value: float | None) -> str:
    """A measure's value with its unit."""
    kind, _, name = measure.partition(".")
    if kind == "rate":
        return rate_text(value)
    if name == "count":
        return NONE if value is None else f"{value:.0f}"
    return metric_text(Metric(kind), value)


def change_text(delta: Delta) -> str:
    """`+120.0 ms (+15.0%)`, `-1.2 pp`, `—`."""
    absolute, relative = change_parts(delta)
    return f"{absolute} ({relative})" if relative else absolute


def change_parts(delta: Delta) -> tuple[str, str]:
    """The change and, when there is one, the relative change: (`+120.0 ms`, `+15.0%`),
    (`-1.2 pp`, ``), (`—`, ``)."""
    if delta.change is None:
        return NONE, ""
    kind, _, _ = delta.measure.partition(".")
    if kind == "rate":
        return f"{delta.change:+.1f} pp", ""
    metric = Metric(kind)
    if metric is Metric.THROUGHPUT:
        absolute = f"{delta.change:+,.0f}/s"
    else:
        absolute = ("+" if delta.change >= 0 else "-") + ms_text(abs(delta.change))
    if delta.change_pct is None:
        return absolute, ""
    return absolute, f"{delta.change_pct:+.1f}%"


def verdict_text(delta: Delta) -> str:
    """`regressed`, `ok` (within its limit) or empty (no limit)."""
    if delta.threshold is None:
        return ""
    if delta.old is None or delta.new is None:
        return "no data"
    return "REGRESSED" if delta.regressed else "ok"


def gate_failures(comparison: Comparison) -> list[str]:
    """What failed the gate: `1 regression`, `2 limits checked nothing` (none when it passed)."""
    failures = []
    if comparison.regressions:
        failures.append(count_text(len(comparison.regressions), "regression"))
    if comparison.unchecked:
        failures.append(f"{count_text(len(comparison.unchecked), 'limit')} checked nothing")
    return failures


def count_text(count: int, noun: str) -> str:
    """`1 file`, `3 files`."""
    return f"{count} {noun}" + ("" if count == 1 else "s")


SHORT_LABELS = {
    Metric.MARKER_TO_RESPONSE: "marker→resp",
    Metric.REQUEST_TO_RESPONSE: "request→resp",
}
"""A headline latency named in a table cell."""


def common_headline(groups: Sequence[Group]) -> Metric | None:
    """The headline latency every group has, or None when they differ."""
    headlines = {g.headline for g in groups}
    return headlines.pop() if len(headlines) == 1 else None


def complete_text(group: Group) -> str:
    """`9/21 (42.9%)`: complete replays of those that owe a marker (the `complete` column of
    `acptrace.model.columns`); `—` where none does (never `0/N` for replays that owe none)."""
    if not group.owes_marker:
        return NONE
    complete = group.replay_outcomes[Outcome.COMPLETE]
    return share_text(complete, group.expecting_marker, group.rate(Outcome.COMPLETE))


UNMEASURED_NOTE = (
    "A metric no replay of a group has is left out (marker → response, request → marker and "
    "replay throughput need a marker)."
)
"""Under the latency table, when it left a metric out."""


def measured(group: Group) -> list[Metric]:
    """The metrics the group has values of (its headline when it has none at all): a v1 Agent's
    group is one line of request → response, not three of dashes."""
    return [m for m in REPLAY_METRICS if group.metrics[m].count] or [group.headline]
