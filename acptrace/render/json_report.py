"""The `--format json` contract of outcomes.md (`schema_version` 2): plain dicts, then bytes,
written piece by piece (`chunks`) so that a million findings never sit in memory as text."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence
from operator import attrgetter
from typing import Any

from msgspec.structs import asdict

from acptrace.judge.idle_timers import DEFAULT_IDLE_TIMEOUTS_MS, idle_verdicts, verdict_fields
from acptrace.model.domain import Analysis, PeerInfo, ResumeRow, Severity
from acptrace.render.jsonstream import Streamed, json_chunks

SCHEMA_VERSION = 2
"""Bumped when a field of the contract is renamed or removed, or a field may hold a value it
could not before (adding fields does not bump it): 2 since outcome `refused` (2026-12-07)."""


def report(
    analysis: Analysis, idle_timeouts_ms: Sequence[float] = DEFAULT_IDLE_TIMEOUTS_MS
) -> dict[str, Any]:
    """The JSON document for one analysis (idle timers judged for these timeouts)."""
    document = _document(analysis, idle_timeouts_ms)
    for key, value in document.items():
        if isinstance(value, Streamed):
            document[key] = list(value.items)
    return document


def _document(analysis: Analysis, idle_timeouts_ms: Sequence[float]) -> dict[str, Any]:
    """The document, its lists of rows left to be written one by one."""
    source = analysis.source
    connection = analysis.connection
    severities = Counter(f.severity for f in analysis.findings)
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
            "protocol_reason": connection.protocol_reason,
            "agent": _peer(connection.agent),
            "client": _peer(connection.client),
        },
        "summary": {
            "outcomes": dict(Counter(row.outcome.value for row in analysis.resumes)),
            "findings": {severity.value: severities[severity] for severity in Severity},
        },
        # (msgspec Structs of flat fields, which orjson does not write by itself: it writes
        # `asdict`'s dicts in 0.8 of the instructions of `to_builtins`'s, and a million
        # findings so in 0.8 of the time it took when they were dataclasses)
        "resumes": Streamed(_resume(row) for row in analysis.resumes),
        "findings": Streamed(map(asdict, analysis.findings)),
        "issues": Streamed(map(asdict, analysis.issues)),
        "sessions": Streamed(map(asdict, analysis.sessions)),
        "turns": Streamed(map(asdict, analysis.turns)),
        "tool_calls": Streamed(map(asdict, analysis.tool_calls)),
        "permissions": Streamed(map(asdict, analysis.permissions)),
        "idle_timers": [
            verdict_fields(verdict) for verdict in idle_verdicts(analysis.resumes, idle_timeouts_ms)
        ],
    }


_ROW_FIELDS = tuple(name for name in ResumeRow.__struct_fields__ if name != "approximate")
_row_values = attrgetter(*_ROW_FIELDS)
"""A row's values in `_ROW_FIELDS` order, read in C (a dict comprehension of getattr calls was
a third of writing a big document)."""


def _resume(row: ResumeRow) -> dict[str, Any]:
    """A resume row (its pauses as objects), with `"approximate": true` where its latencies
    are estimates (and no such member where they are not: the contract of measured rows does
    not change)."""
    values = dict(zip(_ROW_FIELDS, _row_values(row), strict=True))
    if row.replay_pauses:
        values["replay_pauses"] = [asdict(pause) for pause in row.replay_pauses]
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
    return b"".join(chunks(analyses, as_array=as_array, idle_timeouts_ms=idle_timeouts_ms))


def chunks(
    analyses: Sequence[Analysis],
    *,
    as_array: bool | None = None,
    idle_timeouts_ms: Sequence[float] = DEFAULT_IDLE_TIMEOUTS_MS,
) -> Iterator[bytes]:
    """The bytes of `dumps`, in pieces: each list of rows is written a batch at a time."""
    documents = [_document(a, idle_timeouts_ms) for a in analyses]
    if as_array is None:
        as_array = len(analyses) != 1 or analyses[0].source.connection is not None
    payload: Any = documents if as_array or len(documents) != 1 else documents[0]
    return json_chunks(payload)
