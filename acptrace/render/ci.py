"""What the CI presenters (JUnit, SARIF, GitHub, Markdown) share: one reading of an analysis.

Each presenter only lays out what these functions decide: which resume a finding concerns,
rule families in catalogue order, and the plain-text wording of rows, findings and latencies.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import orjson

from acptrace.judge.rules import RULES, Rule, applies_on
from acptrace.judge.rules.registry import REGISTRY
from acptrace.model.domain import Analysis, Finding, JsonId, ResumeRow, Role, Severity
from acptrace.model.options import Options
from acptrace.render.text import plural, printable

FAMILIES: tuple[str, ...] = tuple(dict.fromkeys(rule.family for rule in RULES))
"""Rule families in catalogue order."""

CHECKED_RULES: tuple[Rule, ...] = tuple(rule for rule in RULES if rule.severity is not None)
"""Rules that make findings (RC-INFLIGHT is an exception to others, not a check)."""


@dataclass(frozen=True, slots=True)
class Attributed:
    """An analysis's findings split by what they concern: a resume row, else their family."""

    by_row: tuple[tuple[ResumeRow, tuple[Finding, ...]], ...]
    """Every resume row with the findings about it."""
    by_family: tuple[tuple[str, tuple[Finding, ...]], ...]
    """Every rule family with its findings that concern no row."""


def attribute(analysis: Analysis) -> Attributed:
    """Each finding exactly once: on the resume row it concerns, or else on its rule family."""
    rows: dict[int, list[Finding]] = {i: [] for i in range(len(analysis.resumes))}
    families: dict[str, list[Finding]] = {family: [] for family in FAMILIES}
    for finding in analysis.findings:
        index = _concerned_row(analysis.resumes, finding)
        if index is not None:
            rows[index].append(finding)
        else:
            families.setdefault(family_of(finding), []).append(finding)
    return Attributed(
        tuple((row, tuple(rows[i])) for i, row in enumerate(analysis.resumes)),
        tuple((family, tuple(found)) for family, found in families.items()),
    )


def _concerned_row(rows: Sequence[ResumeRow], finding: Finding) -> int | None:
    """The latest row at or before the finding for its session and request id, if any."""
    best: int | None = None
    for index, row in enumerate(rows):
        if (
            row.session_id == finding.session_id
            and same_id(row.request_id, finding.request_id)
            and finding.request_id is not None
            and row.request_line <= finding.line
            and (best is None or row.request_line >= rows[best].request_line)
        ):
            best = index
    return best


def same_id(a: JsonId, b: JsonId) -> bool:
    """JSON-RPC id equality: `1` and `"1"` differ, and so do `1` and `true`."""
    return type(a) is type(b) and a == b


def family_of(finding: Finding) -> str:
    """The rule family of a finding (`other` for an ID the registry does not know)."""
    rule = REGISTRY.get(finding.rule)
    return rule.family if rule is not None else "other"


def judged(family: str, options: Options, protocol_version: int) -> str | None:
    """None when the family's rules were judged, else why not (for a skipped test case)."""
    rules = [rule for rule in CHECKED_RULES if rule.family == family]
    if rules and not any(applies_on(r.id, protocol_version) for r in rules):
        return "ACP v1 connection: the replay-marker rules apply to v2 only"
    if rules and not any(options.wants(rule.id, rule.family) for rule in rules):
        return "not selected (--select / --ignore / --no-child-rules)"
    return None


def count(findings: Iterable[Finding], severity: Severity) -> int:
    """How many of these findings have this level."""
    return sum(1 for f in findings if f.severity is severity)


# -- wording -------------------------------------------------------------------------------------


def id_text(value: JsonId) -> str:
    """A JSON-RPC id as JSON (`3`, `"abc"`), so its type stays visible."""
    return printable(orjson.dumps(value).decode())


def row_title(row: ResumeRow) -> str:
    """A stable name for a resume row (never its outcome, which changes between runs)."""
    request = f"{row.method} {id_text(row.request_id)}"
    if row.role is Role.CHILD:
        return (
            f"child {printable(row.session_id)} of {printable(row.parent_session_id)} ({request})"
        )
    return f"{request} {printable(row.session_id)}"


def row_facts(row: ResumeRow) -> str:
    """Outcome, counts and latencies of a row, in one line."""
    end = row.end.value + (f" {row.error_code}" if row.error_code is not None else "")
    cancelled = ", cancelled" if row.cancelled else ""
    return (
        f"outcome {row.outcome.value} (end {end}{cancelled}); "
        f"{row.replayed_updates} replayed, {row.held_updates} held, "
        f"{plural(row.marker_count, 'marker')}; "
        f"request→marker {ms_text(row.request_to_marker_ms, row.approximate)}, "
        f"marker→response {ms_text(row.marker_to_response_ms, row.approximate)}, "
        f"request→response {ms_text(row.request_to_response_ms, row.approximate)}"
        + (" (~ estimated from the Agent's stderr times)" if row.approximate else "")
    )


def finding_text(finding: Finding) -> str:
    """`line 9: RC-MISSING (error): message`."""
    rule, message = printable(finding.rule), printable(finding.message)
    return f"line {finding.line}: {rule} ({finding.severity.value}): {message}"


def ms_text(value: float | None, approximate: bool = False) -> str:
    """A latency for people: `806.5 ms`, `2.31 s`, or `—` when unknown; `~806.5 ms` when it
    comes from an estimated time (`ResumeRow.approximate`)."""
    if value is None:
        return "—"
    mark = "~" if approximate else ""
    if value >= 1000:
        return f"{mark}{value / 1000:.2f} s"
    return f"{mark}{value:.1f} ms"
