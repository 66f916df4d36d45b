"""The `--format json` contract of outcomes.md (`schema_version` 1): plain dicts, then bytes."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import fields
from typing import Any

import orjson

from acptrace.judge.idle_timers import DEFAULT_IDLE_TIMEOUTS_MS, idle_verdicts
from acptrace.model.domain import Analysis, PeerInfo, ResumeRow, Severity

SCHEMA_VERSION = 1
"""Bumped when a field of the contract is renamed or removed (adding fields does not bump it)."""


def report(
    analysis: Analysis, idle_timeouts_ms: Sequence[float] = DEFAULT_IDLE_TIMEOUTS_MS
) -> dict[str, Any]:
    """The JSON document for one analysis (idle timers judged for these timeouts)."""
    source = analysis.source
    connection = analysis.connection
    return {
        "schema_version": SCHEMA_VERSION,
        "source": {
            "path": source.path,
            "format": source.format,
            "lines": source.lines,
            "messages": source.messages,
            "events": source.events,
            "issues": len(analysis.issues),
            "connection_end": source.connection_end.value,
            "link": source.link,
            "connection": source.connection,
            "requirements": None if source.requirements is None else list(source.requirements),
            "test_status": source.test_status,
        },
        "connection": {
            "protocol_version": connection.protocol_version,
            "protocol_source": connection.protocol_source.value,
            "agent": _peer(connection.agent),
            "client": _peer(connection.client),
        },
        "summary": {
            "outcomes": dict(Counter(row.outcome.value for row in analysis.resumes)),
            "findings": {
                severity.value: sum(1 for f in analysis.findings if f.severity is severity)
                for severity in Severity
            },
        },
        # (dataclasses: orjson writes them as objects, field by field, much faster than asdict)
        "resumes": [_resume(row) for row in analysis.resumes],
        "findings": list(analysis.findings),
        "issues": list(analysis.issues),
        "sessions": list(analysis.sessions),
        "idle_timers": list(idle_verdicts(analysis.resumes, idle_timeouts_ms)),
    }


_ROW_FIELDS = tuple(f.name for f in fields(ResumeRow) if f.name != "approximate")


def _resume(row: ResumeRow) -> dict[str, Any]:
    """A resume row, with `"approximate": true` where its latencies are estimates (and no
    such member where they are not: the contract of measured rows does not change)."""
    values = {name: getattr(row, name) for name in _ROW_FIELDS}
    if row.approximate:
        values["approximate"] = True
    return values


def _peer(peer: PeerInfo | None) -> dict[str, Any] | None:
    """`{"name", "version"}` of one side, or None when it did not say."""
    if peer is None:
        return None
    return {"name": peer.name, "version": peer.version}


def dumps(
    analyses: Sequence[Analysis],
    *,
    as_array: bool | None = None,
    idle_timeouts_ms: Sequence[float] = DEFAULT_IDLE_TIMEOUTS_MS,
) -> bytes:
    """One document for one file; an array of documents for several files, or for the
    connections of a file that holds several (even one, or none). `as_array` None: an array
    unless there is exactly one analysis of a one-connection file."""
    documents = [report(a, idle_timeouts_ms) for a in analyses]
    if as_array is None:
        as_array = len(analyses) != 1 or analyses[0].source.connection is not None
    payload: Any = documents if as_array or len(documents) != 1 else documents[0]
    return orjson.dumps(payload, option=orjson.OPT_INDENT_2) + b"\n"
