"""report.json: the versioned, documented form of a report (and of its comparison).

`schema_version` 2; fields may be added, none is renamed or removed without bumping it. The
report.json section of docs/report.md documents every field.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import fields
from enum import Enum
from typing import Any

import orjson

from acptrace.judge.idle_timers import verdict_fields
from acptrace.model.domain import Outcome
from acptrace.model.version import __version__
from acptrace.report.baseline import KIND, SCHEMA_VERSION, Comparison, Delta, Threshold
from acptrace.report.stats import PERCENTILE_METHOD, STATS, Distribution
from acptrace.report.summaries import (
    LOAD_OUTCOMES,
    Group,
    Report,
    ResumeRef,
    RuleCount,
    few_samples,
)
from acptrace.report.turn_summaries import PermissionRef, ToolCallRef, TurnFigures, TurnRef


def document(report: Report, comparison: Comparison | None = None) -> dict[str, Any]:
    """The whole report.json as plain data."""
    return {
        "schema_version": SCHEMA_VERSION,
        "kind": KIND,
        "generator": f"acptrace {__version__}",
        "group_by": report.group_by.value,
        "percentile_method": PERCENTILE_METHOD,
        "files": {"analysed": report.files, "failed": len(report.errors)},
        "groups": [group_document(group) for group in report.groups],
        "errors": [{"path": e.path, "message": e.message} for e in report.errors],
        "comparison": None if comparison is None else comparison_document(comparison),
    }


def dumps(report: Report, comparison: Comparison | None = None) -> bytes:
    """report.json as bytes (indented, one trailing newline)."""
    return orjson.dumps(
        document(report, comparison), option=orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE
    )


def group_document(group: Group) -> dict[str, Any]:
    """One group."""
    return {
        "name": group.name,
        "connections": group.connections,
        "issues": group.issues,
        "resumes": group.resumes,
        "replaying": group.replaying,
        "expecting_marker": group.expecting_marker,
        "loads": group.loads,
        "headline": group.headline.value,
        "outcomes": {o.value: n for o, n in group.outcomes.items()},
        "load_outcomes": {o.value: group.load_outcomes[o] for o in LOAD_OUTCOMES},
        "rates": {o.value: group.rate(o) for o in Outcome if o is not Outcome.NO_REPLAY},
        "child_outcomes": {o.value: n for o, n in group.child_outcomes.items()},
        "findings": _by_rule(group.findings),
        "findings_by_severity": {s.value: n for s, n in group.severities.items()},
        "findings_detail": [_rule_count(count) for count in group.findings],
        "metrics": {m.value: _distribution(d) for m, d in group.metrics.items()},
        "slowest": [_resume(ref) for ref in group.slowest],
        "incomplete": [_resume(ref) for ref in group.cut],  # (the cut replays: `CUT`)
        "incomplete_total": group.cut_total,
        "idle_timers": [verdict_fields(verdict) for verdict in group.idle_timers],
        **turns_document(group.turns),
    }


def turns_document(turns: TurnFigures) -> dict[str, Any]:
    """A group's turns, tool calls and permission requests beyond their `metrics`."""
    return {
        "turns": turns.turns,
        "tool_calls": turns.tool_calls,
        "permission_requests": turns.permission_requests,
        "left_out": {
            metric.value: {reason.value: n for reason, n in reasons.items()}
            for metric, reasons in turns.left_out.items()
        },
        "tool_call_kinds": {kind: _distribution(d) for kind, d in turns.kinds.items()},
        "slowest_first_output": [_listed(ref) for ref in turns.slowest_first_output],
        "longest_turns": [_listed(ref) for ref in turns.longest_turns],
        "slowest_tool_calls": [_listed(ref) for ref in turns.slowest_tool_calls],
        "longest_permission_waits": [_listed(ref) for ref in turns.longest_permission_waits],
    }


def _listed(ref: TurnRef | ToolCallRef | PermissionRef) -> dict[str, Any]:
    """A listed turn, tool call or permission request: its fields, as named and in order
    (`end` as its value)."""
    values = {field.name: getattr(ref, field.name) for field in fields(ref)}
    return {name: v.value if isinstance(v, Enum) else v for name, v in values.items()}


def _distribution(distribution: Distribution) -> dict[str, float | int | bool | None]:
    figures: dict[str, float | int | bool | None] = {s: distribution.stat(s) for s in STATS}
    figures["few_samples"] = few_samples(distribution)
    return figures


def _by_rule(counts: Iterable[RuleCount]) -> dict[str, int]:
    """Findings per rule, whatever their level (a rule of two levels has two counts)."""
    totals: dict[str, int] = {}
    for count in counts:
        totals[count.rule] = totals.get(count.rule, 0) + count.count
    return totals


def _rule_count(count: RuleCount) -> dict[str, Any]:
    return {
        "rule": count.rule,
        "severity": count.severity.value,
        "count": count.count,
        "first": [{"path": path, "line": line} for path, line in count.first],
    }


def _resume(ref: ResumeRef) -> dict[str, Any]:
    return {
        "path": ref.path,
        "line": ref.line,
        "session_id": ref.session_id,
        "outcome": ref.outcome.value,
        "end": ref.end.value,
        "error_code": ref.error_code,
        "replayed_updates": ref.replayed_updates,
        "marker_to_response_ms": ref.marker_to_response_ms,
        "request_to_response_ms": ref.request_to_response_ms,
    }


def comparison_document(comparison: Comparison) -> dict[str, Any]:
    """The comparison with a baseline."""
    return {
        "baseline": comparison.baseline,
        "thresholds": [_threshold(t) for t in comparison.thresholds],
        "passed": comparison.passed,
        "regressions": len(comparison.regressions),
        "only_new": list(comparison.only_new),
        "only_baseline": list(comparison.only_baseline),
        "unchecked": [limit.text for limit in comparison.unchecked],
        "deltas": [_delta(delta) for delta in comparison.deltas],
    }


def _threshold(threshold: Threshold) -> dict[str, Any]:
    return {
        "text": threshold.text,
        "measure": threshold.measure,
        "limit": threshold.limit,
        "unit": threshold.unit.value,
    }


def _delta(delta: Delta) -> dict[str, Any]:
    return {
        "group": delta.group,
        "measure": delta.measure,
        "old": delta.old,
        "new": delta.new,
        "change": delta.change,
        "change_pct": delta.change_pct,
        "limit": None if delta.threshold is None else delta.threshold.text,
        "regressed": delta.regressed,
    }
