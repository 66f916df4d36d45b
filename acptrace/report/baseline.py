"""Comparing a report with an earlier report.json: per-group deltas and regression limits.

A *measure* is one number of a group: a statistic of a metric (`marker_to_response_ms.p90`) or
the share of replaying resumes with an outcome (`rate.complete`, a fraction 0..1). The new
report's measures come from its groups, the baseline's from its report.json, by the same names.

A limit (`--max-regression`) is `[METRIC.]STAT=N%|Nms|Ns` for latencies and throughput
(relative or absolute change in the worse direction: up for latencies, down for throughput;
METRIC defaults to `marker_to_response`; the latencies of turns are `first_output`,
`turn_duration`, `tool_call_duration` and `permission_wait`) or `OUTCOME=Npp` for rates
(percentage points; worse is down for `complete` and `loaded`, up for the others). A group
regresses when the change in the worse direction is strictly more than the limit; a group
missing on either side, or a measure without data on either side, is shown but never fails (a
measure neither side has is shown only when a limit names it).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

import orjson

from acptrace.model.domain import Outcome
from acptrace.model.errors import AcptraceError
from acptrace.report.stats import DIGITS, PERCENTILES
from acptrace.report.summaries import MARKER_OWED, REPLAY_METRICS, Group, GroupBy, Metric, Report

KIND = "acptrace-report"
"""The `kind` field of report.json."""
SCHEMA_VERSION = 2
"""The report.json schema this version writes and reads."""

LIMITED_STATS = ("min", "p50", "p90", "p99", "max", "mean")
"""Statistics a limit may name."""
SHOWN_STATS = tuple(f"p{p}" for p in PERCENTILES)
"""Statistics every comparison shows, for every metric."""
SHOWN_RATES = (Outcome.COMPLETE, Outcome.TRUNCATED, Outcome.LOADED)
"""Outcome rates every comparison shows (where a group has them)."""
HIGHER_IS_BETTER = frozenset({Outcome.COMPLETE, Outcome.LOADED})
"""Outcomes whose rate regresses downwards."""
_METRIC_NAMES = {
    **{metric.value: metric for metric in Metric},
    "marker_to_response": Metric.MARKER_TO_RESPONSE,
    "request_to_marker": Metric.REQUEST_TO_MARKER,
    "request_to_response": Metric.REQUEST_TO_RESPONSE,
    "throughput": Metric.THROUGHPUT,
    "first_output": Metric.FIRST_OUTPUT,
    "turn_duration": Metric.TURN_DURATION,
    "tool_call_duration": Metric.TOOL_CALL_DURATION,
    "permission_wait": Metric.PERMISSION_WAIT,
}
"""The metrics a limit may name: by the name it has in report.json, or without its unit (as
`instead` suggests them)."""
_LIMIT = re.compile(r"^\s*([0-9]+(?:\.[0-9]+)?)\s*(%|ms|s|pp)\s*$")

Figures = dict[str, float | None]
"""A group's measures by name."""


class BaselineError(AcptraceError):
    """The baseline cannot be used: unreadable, not a report.json, or grouped differently."""


class Unit(StrEnum):
    """How a limit measures change."""

    PERCENT = "%"
    MS = "ms"
    POINTS = "pp"


@dataclass(frozen=True, slots=True)
class Threshold:
    """The most a measure may get worse."""

    text: str
    """The limit as given (`p90=20%`)."""
    measure: str
    """The measure's name (`marker_to_response_ms.p90`, `rate.complete`)."""
    limit: float
    """How much worse it may get, in `unit`."""
    unit: Unit
    """Relative (%), milliseconds, or percentage points."""


@dataclass(frozen=True, slots=True)
class Delta:
    """One measure of one group, before and after."""

    group: str
    """The group's name."""
    measure: str
    """The measure's name."""
    old: float | None
    """The baseline's value."""
    new: float | None
    """The new value."""
    change: float | None
    """new - old: in the metric's unit, or in percentage points for a rate."""
    change_pct: float | None
    """The relative change in percent (None for rates and from 0)."""
    threshold: Threshold | None
    """The limit that applies, if any."""
    regressed: bool
    """Worse than the limit allows."""


@dataclass(frozen=True, slots=True)
class Comparison:
    """A report compared with a baseline."""

    baseline: str
    """The baseline's path."""
    thresholds: tuple[Threshold, ...]
    """The limits that were checked."""
    deltas: tuple[Delta, ...]
    """Per group (in the report's order) and measure."""
    only_new: tuple[str, ...]
    """Groups the baseline does not have."""
    only_baseline: tuple[str, ...]
    """Groups the baseline has and the new report does not."""
    judged: frozenset[str] = frozenset()
    """The measures (every one, shown or not) that some group has a value of in both reports:
    what a limit can be checked on."""

    @property
    def regressions(self) -> tuple[Delta, ...]:
        """The deltas beyond their limit."""
        return tuple(delta for delta in self.deltas if delta.regressed)

    @property
    def unchecked(self) -> tuple[Threshold, ...]:
        """The limits that judged no group: their measure has no value on one side or the
        other in every group both reports have (`p90=20%`, of marker → response, where no
        replay had a marker, as v1 Agents send none). A gate that can check nothing fails
        (rules.md §11): `report` exits 2 naming each one (`unchecked_note`)."""
        judged = self.judged
        return tuple(limit for limit in self.thresholds if limit.measure not in judged)

    @property
    def passed(self) -> bool:
        """No group regressed beyond a limit, and every limit checked some group."""
        return not self.regressions and not self.unchecked

    def unchecked_note(self, limit: Threshold) -> str:
        """Why a limit checked nothing, in one line, and the measure of its kind that does
        have values in both reports: `p90=20% checked nothing: no group has marker →
        response p90 in both reports; request → response p90 has values
        (request_to_response.p90=20% checks it)`."""
        note = f"{limit.text.strip()} checked nothing: "
        if not self.compared:
            return note + "no group is in both reports"
        note += f"no group has {measure_label(limit.measure)} in both reports"
        instead = self.instead(limit)
        if instead is None:
            return note
        given = next((t for t in self.thresholds if t.measure == instead), None)
        suggested = given.text.strip() if given else f"{_limit_name(instead)}={limit_bound(limit)}"
        checks = "checks it" if given else "would check it"
        return f"{note}; {measure_label(instead)} has values ({suggested} {checks})"

    @property
    def compared(self) -> tuple[str, ...]:
        """The groups both reports have."""
        return tuple(dict.fromkeys(d.group for d in self.deltas))

    def instead(self, limit: Threshold) -> str | None:
        """The measure of the limit's kind that some group has in both reports, for a limit
        that checked nothing: request → response for a latency that needs a marker (replays
        without one, as from v1 Agents, have none), the loads' success share for a share of
        the replays that owe a marker; None when there is none."""
        kind, _, stat = limit.measure.partition(".")
        if kind == "rate":
            candidates = [rate_measure(Outcome.LOADED)] if Outcome(stat) in MARKER_OWED else []
        elif Metric(kind) not in REPLAY_METRICS:  # (a turn latency has no stand-in)
            candidates = []
        else:
            metrics = [Metric.REQUEST_TO_RESPONSE, Metric.MARKER_TO_RESPONSE]
            metrics += [Metric.REQUEST_TO_MARKER, Metric.THROUGHPUT]
            if limit.unit is not Unit.PERCENT:  # (throughput takes % only)
                metrics.remove(Metric.THROUGHPUT)
            candidates = [metric_measure(m, stat) for m in metrics]
        judged = self.judged
        return next((c for c in candidates if c != limit.measure and c in judged), None)


def limit_bound(limit: Threshold) -> str:
    """The bound of a limit as given (`20%` of `p90=20%`)."""
    return limit.text.partition("=")[2].strip()


def _limit_name(measure: str) -> str:
    """How a limit names a measure (`request_to_response.p90`, `loaded`)."""
    kind, _, name = measure.partition(".")
    return name if kind == "rate" else f"{kind.removesuffix('_ms')}.{name}"


def measure_label(measure: str) -> str:
    """`marker → response p90`, `complete rate`."""
    kind, _, name = measure.partition(".")
    if kind == "rate":
        return f"{Outcome(name).value} rate"
    return f"{Metric(kind).label} {name}"


@dataclass(frozen=True, slots=True)
class Baseline:
    """The measures of an earlier report, by group."""

    path: str
    """Where it was read from."""
    group_by: str
    """How it grouped its files."""
    groups: dict[str, Figures]
    """Each group's measures."""
    schema_version: int = SCHEMA_VERSION
    """The report.json's `schema_version` (1: its shares were over every replaying request,
    before rules.md §11 made them over what owes the thing shared)."""

    @property
    def note(self) -> str | None:
        """What a user should know before reading the comparison, if anything."""
        if self.schema_version >= SCHEMA_VERSION:
            return None
        return (
            f"baseline {self.path} is report.json schema_version {self.schema_version}: its "
            "shares were counted over every replay, not over what owes them (rules.md §11); "
            "make it again with this acptrace to compare shares"
        )


# -- measures ---------------------------------------------------------------------------------


def metric_measure(metric: Metric, stat: str) -> str:
    """`marker_to_response_ms.p90`."""
    return f"{metric.value}.{stat}"


def rate_measure(outcome: Outcome) -> str:
    """`rate.complete`."""
    return f"rate.{outcome.value}"


def higher_is_worse(measure: str) -> bool:
    """Which way a measure regresses."""
    kind, _, name = measure.partition(".")
    if kind == "rate":
        return Outcome(name) not in HIGHER_IS_BETTER
    return Metric(kind).higher_is_worse


def group_figures(group: Group) -> Figures:
    """The measures of a group of the new report."""
    figures: Figures = {}
    for metric, distribution in group.metrics.items():
        for stat in ("count", *LIMITED_STATS):
            figures[metric_measure(metric, stat)] = distribution.stat(stat)
    for outcome in Outcome:
        if outcome is not Outcome.NO_REPLAY:
            figures[rate_measure(outcome)] = group.rate(outcome)
    return figures


def document_figures(group: Mapping[str, Any]) -> Figures:
    """The measures of a group of a report.json."""
    figures: Figures = {}
    for metric_name, stats in _mapping(group.get("metrics")).items():
        for stat, value in _mapping(stats).items():
            figures[f"{metric_name}.{stat}"] = _number(value)
    for outcome, value in _mapping(group.get("rates")).items():
        figures[f"rate.{outcome}"] = _number(value)
    return figures


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, dict) else {}


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


# -- limits -----------------------------------------------------------------------------------


def parse_thresholds(texts: Iterable[str]) -> tuple[Threshold, ...]:
    """Every limit in the texts (each may hold several, comma-separated). Two limits on one
    measure are refused (ValueError): one of them would not be checked."""
    limits: dict[str, Threshold] = {}
    for part in (part for text in texts for part in text.split(",") if part.strip()):
        limit = parse_threshold(part)
        earlier = limits.setdefault(limit.measure, limit)
        if earlier is not limit:
            raise ValueError(
                f"{part!r}: a second limit on {limit.measure} (after {earlier.text!r}): give one"
            )
    return tuple(limits.values())


def parse_threshold(text: str) -> Threshold:
    """One limit: `p90=20%`, `request_to_response.p99=500ms`, `throughput.p50=10%`,
    `complete=1pp`. Raises ValueError with a message for the user."""
    name, equals, limit_text = text.partition("=")
    match = _LIMIT.match(limit_text)
    if not equals or match is None:
        raise ValueError(f"{text!r}: expected NAME=LIMIT with LIMIT like 20%, 150ms, 2s or 1pp")
    number, unit_text = float(match.group(1)), match.group(2)
    name = name.strip()
    if name.removeprefix("rate.") in {o.value for o in Outcome}:
        return _rate_threshold(text, name.removeprefix("rate."), number, unit_text)
    metric_name, dot, stat = name.rpartition(".")
    metric = _METRIC_NAMES.get(metric_name) if dot else Metric.MARKER_TO_RESPONSE
    if metric is None or stat not in LIMITED_STATS:
        raise ValueError(
            f"{text!r}: unknown measure {name!r} (expected [METRIC.]STAT with STAT one of "
            f"{', '.join(LIMITED_STATS)}, METRIC one of marker_to_response, request_to_marker, "
            "request_to_response, throughput, first_output, turn_duration, tool_call_duration, "
            "permission_wait; or an outcome such as complete or truncated)"
        )
    if unit_text == "pp" or (metric is Metric.THROUGHPUT and unit_text != "%"):
        allowed = "%" if metric is Metric.THROUGHPUT else "%, ms or s"
        raise ValueError(f"{text!r}: a limit on {metric.value} is in {allowed}")
    if unit_text == "s":
        return Threshold(text, metric_measure(metric, stat), number * 1000, Unit.MS)
    return Threshold(text, metric_measure(metric, stat), number, Unit(unit_text))


def _rate_threshold(text: str, outcome: str, number: float, unit_text: str) -> Threshold:
    if outcome == Outcome.NO_REPLAY.value:
        raise ValueError(f"{text!r}: no_replay resumes have no rate among replaying resumes")
    if unit_text != "pp":
        raise ValueError(f"{text!r}: a limit on an outcome rate is in percentage points (pp)")
    return Threshold(text, rate_measure(Outcome(outcome)), number, Unit.POINTS)


# -- baseline ---------------------------------------------------------------------------------


def load_baseline(path: str) -> Baseline:
    """Read an earlier report.json; raises `BaselineError` when it cannot be used."""
    try:
        data = orjson.loads(Path(path).read_bytes())
    except OSError as error:
        raise BaselineError(f"cannot read baseline {path}: {error.strerror or error}") from None
    except orjson.JSONDecodeError as error:
        raise BaselineError(f"baseline {path} is not JSON: {error}") from None
    if not isinstance(data, dict) or data.get("kind") != KIND:
        raise BaselineError(f"baseline {path} is not an acptrace report.json (no kind {KIND!r})")
    version = data.get("schema_version")
    if not isinstance(version, int) or isinstance(version, bool) or version > SCHEMA_VERSION:
        raise BaselineError(
            f"baseline {path} has schema_version {version!r}; this acptrace reads "
            f"{SCHEMA_VERSION} and older"
        )
    groups = data.get("groups")
    if not isinstance(groups, list):
        raise BaselineError(f"baseline {path} has no groups list")
    named = [g for g in groups if isinstance(g, dict) and isinstance(g.get("name"), str)]
    return Baseline(
        path=path,
        group_by=str(data.get("group_by")),
        groups={g["name"]: document_figures(g) for g in named},
        schema_version=version,
    )


def check_grouping(baseline: Baseline, by: GroupBy) -> None:
    """Raise `BaselineError` unless the baseline grouped its files the same way."""
    if baseline.group_by == by.value:
        return
    if baseline.group_by in {g.value for g in GroupBy}:
        raise BaselineError(
            f"baseline {baseline.path} groups by {baseline.group_by}, this report by "
            f"{by.value}: use --by {baseline.group_by}"
        )
    raise BaselineError(f"baseline {baseline.path} has an unknown group_by {baseline.group_by!r}")


def compare(report: Report, baseline: Baseline, thresholds: Iterable[Threshold]) -> Comparison:
    """The deltas of every group both reports have, judged against the limits."""
    check_grouping(baseline, report.group_by)
    limits = tuple(thresholds)
    by_measure = {t.measure: t for t in limits}
    measures = _shown_measures(limits)
    names = [group.name for group in report.groups]
    both = [
        (group.name, baseline.groups[group.name], group_figures(group))
        for group in report.groups
        if group.name in baseline.groups
    ]
    deltas = [  # (a measure neither side has is left out, unless a limit names it)
        _delta(name, measure, old, new, by_measure.get(measure))
        for name, old, new in both
        for measure in measures
        if measure in by_measure or old.get(measure) is not None or new.get(measure) is not None
    ]
    judged = {
        measure
        for _, old, new in both
        for measure, value in new.items()
        if value is not None and old.get(measure) is not None
    }
    return Comparison(
        baseline=baseline.path,
        thresholds=limits,
        deltas=tuple(deltas),
        only_new=tuple(name for name in names if name not in baseline.groups),
        only_baseline=tuple(name for name in baseline.groups if name not in names),
        judged=frozenset(judged),
    )


def _shown_measures(limits: tuple[Threshold, ...]) -> list[str]:
    shown = [metric_measure(m, s) for m in Metric for s in SHOWN_STATS]
    shown += [rate_measure(outcome) for outcome in SHOWN_RATES]
    return shown + [t.measure for t in limits if t.measure not in shown]


def _delta(
    group: str, measure: str, old_figures: Figures, new_figures: Figures, limit: Threshold | None
) -> Delta:
    old, new = old_figures.get(measure), new_figures.get(measure)
    rate = measure.startswith("rate.")
    change = change_pct = None
    if old is not None and new is not None:
        change = round((new - old) * 100 if rate else new - old, DIGITS)
        if not rate and old != 0:
            change_pct = round((new - old) / abs(old) * 100, DIGITS)
    regressed = limit is not None and _regressed(measure, old, new, limit)
    return Delta(group, measure, old, new, change, change_pct, limit, regressed)


def _regressed(measure: str, old: float | None, new: float | None, limit: Threshold) -> bool:
    """Whether the change in the worse direction is more than the limit."""
    if old is None or new is None:
        return False
    worse = new - old if higher_is_worse(measure) else old - new
    match limit.unit:
        case Unit.PERCENT:
            if old == 0:
                return worse > 0
            return round(worse / abs(old) * 100, DIGITS) > limit.limit
        case Unit.MS:
            return round(worse, DIGITS) > limit.limit
        case Unit.POINTS:
            return round(worse * 100, DIGITS) > limit.limit
