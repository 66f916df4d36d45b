"""`--format sarif`: SARIF 2.1.0, one result per finding, rule metadata from the registry.

One run for all the transcripts analysed; each result's physical location is the transcript
file and the finding's line; each transcript's artifact says, in its property bag, what its
replays came to (outcome counts). Input issues are tool execution notifications, not results, so
results stay one for one with findings. Messages show control characters as escapes (`\\x1b`),
as the other formats do; results and notifications are written a batch at a time.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence
from pathlib import PurePath
from typing import Any
from urllib.parse import quote

from acptrace.judge.rules import Rule
from acptrace.model.domain import Analysis, Finding, Issue, Severity
from acptrace.model.excerpt import name_bytes
from acptrace.model.version import __version__
from acptrace.render.ci import CHECKED_RULES
from acptrace.render.jsonstream import Streamed, json_chunks
from acptrace.render.text import printable

SARIF_VERSION = "2.1.0"
SARIF_SCHEMA = (
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
)

LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.NOTE: "note"}
"""SARIF `level` of each finding severity."""

_RULE_INDEX = {rule.id: index for index, rule in enumerate(CHECKED_RULES)}


def sarif_log(analyses: Sequence[Analysis]) -> dict[str, Any]:
    """The SARIF log for these analyses."""
    log = _log(analyses)
    run = log["runs"][0]
    run["results"] = list(run["results"].items)
    invocation = run["invocations"][0]
    invocation["toolExecutionNotifications"] = list(invocation["toolExecutionNotifications"].items)
    return log


def sarif_bytes(analyses: Sequence[Analysis]) -> bytes:
    """The SARIF log as indented JSON."""
    return b"".join(sarif_chunks(analyses))


def sarif_chunks(analyses: Sequence[Analysis]) -> Iterator[bytes]:
    """The bytes of `sarif_bytes` in pieces, results and notifications a batch at a time."""
    return json_chunks(_log(analyses))


def _log(analyses: Sequence[Analysis]) -> dict[str, Any]:
    """The log, its results and notifications left to be made and written one by one."""
    artifacts = [
        {"location": {"uri": artifact_uri(a.source.path)}, "properties": _outcomes(a)}
        for a in analyses
    ]
    uris = [artifact["location"]["uri"] for artifact in artifacts]
    results = (
        _result(finding, index, uris[index])
        for index, analysis in enumerate(analyses)
        for finding in analysis.findings
    )
    notifications = (
        _notification(issue, index, uris[index])
        for index, analysis in enumerate(analyses)
        for issue in analysis.issues
    )
    run: dict[str, Any] = {
        "tool": {
            "driver": {
                "name": "acptrace",
                "version": __version__,
                "rules": [_rule(rule) for rule in CHECKED_RULES],
            }
        },
        "artifacts": artifacts,
        "invocations": [
            {"executionSuccessful": True, "toolExecutionNotifications": Streamed(notifications)}
        ],
        "results": Streamed(results),
    }
    return {"$schema": SARIF_SCHEMA, "version": SARIF_VERSION, "runs": [run]}


def _outcomes(analysis: Analysis) -> dict[str, Any]:
    """What a transcript's replays came to (a property bag: SARIF has no place for them): the
    count of each outcome (outcomes.md), and the protocol version they were judged for."""
    counts = Counter(row.outcome.value for row in analysis.resumes)
    return {"protocolVersion": analysis.connection.protocol_version, "outcomes": dict(counts)}


def artifact_uri(path: str) -> str:
    """A transcript path (as `file_name` shows it) as a SARIF URI: relative paths stay
    relative (with `/`), others `file:`; the bytes of the name percent-encoded (`bad%FF`)."""
    pure = PurePath(path)
    encoded = quote(name_bytes(pure.as_posix()), safe="/")
    return "file://" + encoded if pure.is_absolute() else encoded


def _rule(rule: Rule) -> dict[str, Any]:
    assert rule.severity is not None
    return {
        "id": rule.id,
        "shortDescription": {"text": rule.help},
        "help": {"text": f"{rule.help} Source: {rule.source}."},
        "defaultConfiguration": {"level": LEVEL[rule.severity]},
        "properties": {"family": rule.family, "source": rule.source, "tags": [rule.family]},
    }


def _location(uri: str, index: int, line: int) -> dict[str, Any]:
    return {
        "physicalLocation": {
            "artifactLocation": {"uri": uri, "index": index},
            "region": {"startLine": max(1, line)},
        }
    }


def _result(finding: Finding, artifact: int, uri: str) -> dict[str, Any]:
    result: dict[str, Any] = {
        "ruleId": finding.rule,
        "level": LEVEL[finding.severity],
        "message": {"text": printable(finding.message)},
        "locations": [_location(uri, artifact, finding.line)],
        "properties": {"sessionId": finding.session_id, "requestId": finding.request_id},
    }
    if finding.rule in _RULE_INDEX:
        result["ruleIndex"] = _RULE_INDEX[finding.rule]
    return result


def _notification(issue: Issue, artifact: int, uri: str) -> dict[str, Any]:
    return {
        "level": "warning",
        "message": {"text": printable(f"input issue {issue.kind}: {issue.message}")},
        "locations": [_location(uri, artifact, issue.line)],
        "descriptor": {"id": issue.kind},
    }
