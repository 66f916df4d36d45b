"""`--format sarif`: SARIF 2.1.0, one result per finding, rule metadata from the registry.

One run for all the transcripts analysed; each result's physical location is the transcript
file and the finding's line. Input issues are tool execution notifications, not results, so
results stay one for one with findings.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import PurePath
from typing import Any
from urllib.parse import quote

import orjson

from acptrace.judge.rules import Rule
from acptrace.model.domain import Analysis, Finding, Issue, Severity
from acptrace.model.version import __version__
from acptrace.render.ci import CHECKED_RULES

SARIF_VERSION = "2.1.0"
SARIF_SCHEMA = (
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
)

LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.NOTE: "note"}
"""SARIF `level` of each finding severity."""

_RULE_INDEX = {rule.id: index for index, rule in enumerate(CHECKED_RULES)}


def sarif_log(analyses: Sequence[Analysis]) -> dict[str, Any]:
    """The SARIF log for these analyses."""
    artifacts = [{"location": {"uri": artifact_uri(a.source.path)}} for a in analyses]
    results = [
        _result(finding, index, artifacts[index]["location"]["uri"])
        for index, analysis in enumerate(analyses)
        for finding in analysis.findings
    ]
    notifications = [
        _notification(issue, index, artifacts[index]["location"]["uri"])
        for index, analysis in enumerate(analyses)
        for issue in analysis.issues
    ]
    run: dict[str, Any] = {
        "tool": {
            "driver": {
                "name": "acptrace",
                "version": __version__,
                "rules": [_rule(rule) for rule in CHECKED_RULES],
            }
        },
        "artifacts": artifacts,
        "invocations": [{"executionSuccessful": True, "toolExecutionNotifications": notifications}],
        "results": results,
    }
    return {"$schema": SARIF_SCHEMA, "version": SARIF_VERSION, "runs": [run]}


def sarif_bytes(analyses: Sequence[Analysis]) -> bytes:
    """The SARIF log as indented JSON."""
    return orjson.dumps(sarif_log(analyses), option=orjson.OPT_INDENT_2) + b"\n"


def artifact_uri(path: str) -> str:
    """A transcript path as a SARIF URI: relative paths stay relative (with `/`), others `file:`."""
    pure = PurePath(path)
    if pure.is_absolute():
        return "file://" + quote(pure.as_posix(), safe="/")
    return quote(pure.as_posix(), safe="/")


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
        "message": {"text": finding.message},
        "locations": [_location(uri, artifact, finding.line)],
        "properties": {"sessionId": finding.session_id, "requestId": finding.request_id},
    }
    if finding.rule in _RULE_INDEX:
        result["ruleIndex"] = _RULE_INDEX[finding.rule]
    return result


def _notification(issue: Issue, artifact: int, uri: str) -> dict[str, Any]:
    return {
        "level": "warning",
        "message": {"text": f"input issue {issue.kind}: {issue.message}"},
        "locations": [_location(uri, artifact, issue.line)],
        "descriptor": {"id": issue.kind},
    }
