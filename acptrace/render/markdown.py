"""`--format markdown`: a summary to post as a pull-request comment (GitHub-flavoured Markdown).

Transcript text is untrusted: identifiers go in code spans, free text has every Markdown
punctuation character escaped and `@` mentions broken, so a transcript cannot add links,
images, HTML, mentions or table cells to the comment.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator, Sequence

from acptrace.judge.policy import FailOn, Policy
from acptrace.model.domain import Analysis, Finding, PeerInfo, Severity
from acptrace.render.ci import count, id_text, ms_text
from acptrace.render.markdown_text import literal
from acptrace.render.text import plural, printable, transcript_name

FINDINGS_SHOWN = 50
"""Findings listed per file before the rest are only counted (comments have a size limit)."""
ISSUES_SHOWN = 10
"""Input issues listed per file."""
TEXT_CHARS = 200
"""Longer untrusted text is cut (`…`)."""

ICON = {Severity.ERROR: "❌", Severity.WARNING: "⚠️", Severity.NOTE: "ℹ️"}  # noqa: RUF001


def markdown_summary(analyses: Sequence[Analysis], policy: Policy) -> bytes:
    """The whole comment."""
    return ("\n".join(_lines(analyses, policy)) + "\n").encode()


def _lines(analyses: Sequence[Analysis], policy: Policy) -> Iterator[str]:
    yield _headline(analyses, policy)
    yield ""
    yield "| transcript | messages | resumes | errors | warnings | notes | issues |"
    yield "|---|---:|---|---:|---:|---:|---:|"
    for analysis in analyses:
        findings = analysis.findings
        yield (
            f"| {code(transcript_name(analysis.source))} | {analysis.source.messages} "
            f"| {_outcomes(analysis)} | {count(findings, Severity.ERROR)} "
            f"| {count(findings, Severity.WARNING)} | {count(findings, Severity.NOTE)} "
            f"| {len(analysis.issues)} |"
        )
    for analysis in analyses:
        yield ""
        yield from _details(analysis)


def _headline(analyses: Sequence[Analysis], policy: Policy) -> str:
    """The verdict under `--fail-on` (with `never`, none: the findings by level instead); a
    passing one names the findings below the threshold."""
    findings = [f for a in analyses for f in a.findings]
    failing = [f for a in analyses for f in policy.failing(a)]
    strict_issues = sum(len(a.issues) for a in analyses) if policy.strict else 0
    threshold = policy.fail_on.value
    if policy.fail_on is FailOn.NEVER and not strict_issues:
        return f"## acptrace: {_by_level(findings)} (`--fail-on never`: none fails the run)"
    if failing or strict_issues:
        parts = [plural(len(failing), "finding") + f" at or above `{threshold}`"] if failing else []
        parts += [plural(strict_issues, "input issue") + " (`--strict`)"] if strict_issues else []
        return f"## ❌ acptrace: {' and '.join(parts)}"
    below = f" ({_by_level(findings)} below it)" if findings else ""
    return f"## ✅ acptrace: no finding at or above `{threshold}`{below}"


def _by_level(findings: Sequence[Finding]) -> str:
    """`1 error, 5 warnings and 2 notes` (the levels found), or `no finding`."""
    parts = [plural(n, s.value) for s in Severity if (n := count(findings, s))]
    if not parts:
        return "no finding"
    return ", ".join(parts[:-1]) + " and " + parts[-1] if len(parts) > 1 else parts[0]


def _outcomes(analysis: Analysis) -> str:
    counts = Counter(row.outcome.value for row in analysis.resumes)
    return ", ".join(f"{n} {outcome}" for outcome, n in counts.items()) or "—"


def _details(analysis: Analysis) -> Iterator[str]:
    source, connection = analysis.source, analysis.connection
    yield f"### {code(transcript_name(source))}"
    yield ""
    yield (
        f"ACP v{connection.protocol_version} ({connection.protocol_source.value}) · "
        f"agent {_peer(connection.agent)} · client {_peer(connection.client)} · "
        f"{plural(source.lines, 'line')} · connection end {source.connection_end.value}"
    )
    if analysis.resumes:
        yield ""
        yield "| request | session | outcome | end | replayed | held | marker → response |"
        yield "|---|---|---|---|---:|---:|---:|"
        for row in analysis.resumes:
            session = code(row.session_id)
            if row.parent_session_id is not None:
                session = f"↳ {session} (child of {code(row.parent_session_id)})"
            end = row.end.value + (f" {row.error_code}" if row.error_code is not None else "")
            yield (
                f"| {code(row.method)} {code(id_text(row.request_id))} (line {row.request_line}) "
                f"| {session} | **{row.outcome.value}** | {end} | {row.replayed_updates} "
                f"| {row.held_updates} | {ms_text(row.marker_to_response_ms, row.approximate)} |"
            )
    if analysis.findings:
        yield ""
        yield from _findings(analysis.findings)
    if analysis.issues:
        yield ""
        yield from _issues(analysis)


def _findings(findings: Sequence[Finding]) -> Iterator[str]:
    yield "| level | line | rule | message |"
    yield "|---|---:|---|---|"
    for finding in findings[:FINDINGS_SHOWN]:
        level = f"{ICON[finding.severity]} {finding.severity.value}"
        yield f"| {level} | {finding.line} | {code(finding.rule)} | {text(finding.message)} |"
    if len(findings) > FINDINGS_SHOWN:
        yield ""
        rest = len(findings) - FINDINGS_SHOWN
        yield f"… and {plural(rest, 'more finding')} (the SARIF or JSON output has all)."


def _issues(analysis: Analysis) -> Iterator[str]:
    issues = analysis.issues
    yield f"<details><summary>{plural(len(issues), 'input issue')}</summary>"
    yield ""
    for issue in issues[:ISSUES_SHOWN]:
        yield f"- line {issue.line}: {code(issue.kind)} {text(issue.message)}"
    if len(issues) > ISSUES_SHOWN:
        yield f"- … and {len(issues) - ISSUES_SHOWN} more"
    yield ""
    yield "</details>"


def _peer(peer: PeerInfo | None) -> str:
    if peer is None or peer.name is None:
        return "unknown"
    return code(f"{peer.name} {peer.version or ''}".strip())


def text(value: object) -> str:
    """Untrusted free text, inert in Markdown: one line, what would be markup escaped
    (`markdown_text.literal`), mentions broken."""
    cleaned = _cut(printable(value))
    return literal(cleaned)


def code(value: object) -> str:
    """Untrusted text as a code span (nothing inside is Markdown), safe inside a table cell."""
    cleaned = _cut(printable(value)).replace("|", "\\|")
    longest = max((len(run) for run in re.findall(r"`+", cleaned)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if cleaned.startswith("`") or cleaned.endswith("`") or not cleaned else ""
    return f"{fence}{pad}{cleaned}{pad}{fence}"


def _cut(value: str) -> str:
    return value if len(value) <= TEXT_CHARS else value[: TEXT_CHARS - 1] + "…"
