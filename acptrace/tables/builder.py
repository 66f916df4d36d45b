"""The analysis as tables: one long message table and views derived from it (polars frames).

The only module that builds frames. Every table has a fixed schema (`TABLES`), so an empty
transcript still gives typed, headed tables, and `file` and `connection` columns, so tables of
many transcripts (and of the connections of one file) can be concatenated. Messages and
requests stream from a walk in batches of `BATCH_ROWS` rows; sessions, resumes, turns, tool
calls, permission requests, findings, issues and connections come from the finished analysis.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any, BinaryIO

import msgspec
import orjson
import polars as pl

from acptrace.correlate.correlator import Step
from acptrace.judge.rules.registry import REGISTRY
from acptrace.model.domain import (
    Analysis,
    Finding,
    Issue,
    JsonId,
    Message,
    PeerInfo,
    ResumeRow,
    SessionInfo,
    Stamp,
)
from acptrace.model.options import Options
from acptrace.model.turns import PermissionRow, ToolCallRow, TurnRow
from acptrace.pipeline.analysis import Walk
from acptrace.pipeline.transcripts import open_walks

BATCH_ROWS = 50_000
"""Rows of the streamed tables (messages, requests) per frame."""

UTC_MICROSECONDS = pl.Datetime("us", "UTC")


@dataclass(frozen=True, slots=True)
class Column:
    """One column of a table."""

    name: str
    """Column name."""
    dtype: Any
    """Its polars type."""
    doc: str
    """What it holds."""


@dataclass(frozen=True, slots=True)
class Table:
    """A table's fixed schema."""

    name: str
    """Table name (and file name when exported)."""
    doc: str
    """One row is …"""
    columns: tuple[Column, ...]
    """Columns in order."""

    @property
    def schema(self) -> pl.Schema:
        """The polars schema."""
        return pl.Schema([(c.name, c.dtype) for c in self.columns])

    def empty(self) -> pl.DataFrame:
        """A typed frame with no rows."""
        return pl.DataFrame(schema=self.schema)

    def frame(self, rows: Iterable[dict[str, Any]]) -> pl.DataFrame:
        """A frame of these rows (dicts with every column)."""
        columns: dict[str, list[Any]] = {c.name: [] for c in self.columns}
        for row in rows:
            for name, values in columns.items():
                values.append(row[name])
        return pl.DataFrame(columns, schema=self.schema)


def _c(name: str, dtype: Any, doc: str) -> Column:
    return Column(name, dtype, doc)


_FILE = _c("file", pl.String, "The transcript's path as given (`-` for stdin).")
_CONNECTION = _c(
    "connection",
    pl.String,
    "In a file that holds several connections, the one (an acp-tck test's nodeid, an "
    "acp-inspector-trace connection, the number `1`, `2`, … of each recording of a joined file, "
    "the first's too); null for a file of one connection.",
)

Origin = dict[str, str | None]
"""The `file` and `connection` columns of every row of one walk."""

MESSAGES = Table(
    "messages",
    "one JSON-RPC message (a batch line gives one row per member)",
    (
        _FILE,
        _CONNECTION,
        _c("seq", pl.Int64, "0-based position of the message in the transcript."),
        _c("line", pl.Int64, "Input line (batch members share it)."),
        _c("direction", pl.String, "`c2a`, `a2c` or `unknown`."),
        _c("kind", pl.String, "`request`, `notification` or `response`."),
        _c("id", pl.String, 'JSON-RPC id as text (`1` and `"1"` both read `1`); null if none.'),
        _c("method", pl.String, "Method of a request or notification."),
        _c("session_id", pl.String, "`params.sessionId`."),
        _c("update_tag", pl.String, "`params.update.sessionUpdate` of a `session/update`."),
        _c("update_session_id", pl.String, "The child a `subagent_update` announces."),
        _c("in_batch", pl.Boolean, "Sent inside a batch array."),
        _c("is_error", pl.Boolean, "A response carrying `error`."),
        _c("error_code", pl.Int64, "`error.code` of an error response."),
        _c("ts", UTC_MICROSECONDS, "Wall clock (UTC, microseconds); null without one."),
        _c("mono_ns", pl.Int64, "Monotonic clock, nanoseconds; null without one."),
        _c("approximate", pl.Boolean, "`ts` is an estimate (a Zed dump's stderr times)."),
    ),
)

REQUESTS = Table(
    "requests",
    "one request with its response (in the order answered; unanswered requests last)",
    (
        _FILE,
        _CONNECTION,
        _c("request_line", pl.Int64, "Line of the request."),
        _c("response_line", pl.Int64, "Line of its response; null when unanswered."),
        _c("id", pl.String, "JSON-RPC id as text."),
        _c("method", pl.String, "The request's method."),
        _c("direction", pl.String, "Which way the request travelled."),
        _c("session_id", pl.String, "The request's `params.sessionId`."),
        _c("outcome", pl.String, "`success`, `error` or `unanswered` (by the transcript's end)."),
        _c("error_code", pl.Int64, "`error.code` of an error response."),
        _c("ts", UTC_MICROSECONDS, "Wall clock of the request."),
        _c("duration_ms", pl.Float64, "Request to response (monotonic clock where both have it)."),
        _c("approximate", pl.Boolean, "`ts` or `duration_ms` comes from an estimated time."),
    ),
)

SESSIONS = Table(
    "sessions",
    "one session the transcript names (`SessionInfo`)",
    (
        _FILE,
        _CONNECTION,
        _c("session_id", pl.String, "The session ID."),
        _c("parent_session_id", pl.String, "For a child: the session that announced it."),
        _c("first_line", pl.Int64, "The first line that names it."),
        _c("named_by", pl.String, "How it became known: `session/new`, `subagent_update`, …"),
        _c("updates", pl.Int64, "`session/update` notifications for it."),
        _c("resumes", pl.Int64, "`session/resume` / `session/load` requests for it."),
        _c("prompts", pl.Int64, "`session/prompt` requests for it."),
        _c("active_at_end", pl.Boolean, "Active when the transcript ended."),
        _c("closed_line", pl.Int64, "Line of the last successful `session/close` response."),
    ),
)

RESUMES = Table(
    "resumes",
    "one outcome row (`ResumeRow`): a replaying request, a non-replaying resume, or a child",
    (
        _FILE,
        _CONNECTION,
        _c("request_id", pl.String, "The resume / load request's id as text."),
        _c("session_id", pl.String, "The session the row judges."),
        _c("role", pl.String, "`requested` or `child`."),
        _c("parent_session_id", pl.String, "For a child: the announcing session."),
        _c("method", pl.String, "`session/resume` or `session/load`."),
        _c("replay_from", pl.String, "`replayFrom` as JSON text; null when absent."),
        _c("outcome", pl.String, "`complete`, `truncated`, … (see Outcomes)."),
        _c("end", pl.String, "`success`, `error`, `disconnect` or `trace_end`."),
        _c("error_code", pl.Int64, "The error response's code."),
        _c("cancelled", pl.Boolean, "Cancelled by the Client with `$/cancel_request`."),
        _c("marker_count", pl.Int64, "Markers for the session in the window."),
        _c("replayed_updates", pl.Int64, "Updates for the session before the marker."),
        _c("held_updates", pl.Int64, "Updates after the marker, before the response."),
        _c("request_line", pl.Int64, "Line of the request."),
        _c("marker_line", pl.Int64, "Line of the first marker."),
        _c("response_line", pl.Int64, "Line of the response."),
        _c("request_to_first_update_ms", pl.Float64, "Request to first update."),
        _c("request_to_marker_ms", pl.Float64, "Request to marker."),
        _c("marker_to_response_ms", pl.Float64, "Marker to response."),
        _c("request_to_response_ms", pl.Float64, "Request to response."),
        _c("announce_line", pl.Int64, "For a child: the line of its announcement."),
        _c("max_replay_gap_ms", pl.Float64, "Longest silence in the replay."),
        _c(
            "replay_pauses",
            pl.String,
            "JSON text: each silence longer than all before it (`gap_ms`, `updates_after`).",
        ),
        _c("approximate", pl.Boolean, "A latency of the row comes from an estimated time."),
    ),
)

TURNS = Table(
    "turns",
    "one `session/prompt` and what happened until its end (`TurnRow`, docs/turns.md)",
    (
        _FILE,
        _CONNECTION,
        _c("session_id", pl.String, "The prompt's session."),
        _c("request_id", pl.String, "The prompt's id as text."),
        _c("request_line", pl.Int64, "Line of the prompt."),
        _c("protocol_version", pl.Int64, "The version its end was judged by."),
        _c("end", pl.String, "`response`, `idle`, `error`, `disconnect` or `trace_end`."),
        _c("end_line", pl.Int64, "The line that ended it; null when the recording lacks it."),
        _c("stop_reason", pl.String, "v1: the response's `stopReason`; v2: the `idle` update's."),
        _c("first_update_ms", pl.Float64, "Prompt to the first update for the session."),
        _c("first_output_ms", pl.Float64, "Prompt to the first message or thought (or chunk)."),
        _c("first_output_line", pl.Int64, "Line of that first output; null without one."),
        _c("duration_ms", pl.Float64, "Prompt to its end; null when unfinished or untimed."),
        _c("updates", pl.Int64, "Updates for the session while it was open."),
        _c("tool_calls", pl.Int64, "Tool calls first seen while it was open."),
        _c("permission_requests", pl.Int64, "Permission requests sent while it was open."),
        _c("permission_wait_ms", pl.Float64, "Request to answer of those, summed."),
        _c("during_replay", pl.Boolean, "A replay of the session was pending while it was open."),
        _c("approximate", pl.Boolean, "Its times are estimates (a Zed dump's)."),
    ),
)

TOOL_CALLS = Table(
    "tool_calls",
    "one tool call of a turn, by `toolCallId` (`ToolCallRow`, docs/turns.md)",
    (
        _FILE,
        _CONNECTION,
        _c("session_id", pl.String, "Its session."),
        _c("tool_call_id", pl.String, "Its `toolCallId`."),
        _c(
            "turn_request_id",
            pl.String,
            "The id (as text) of the prompt of the turn it was first seen in: `request_id` of "
            "`turns`; null outside a turn.",
        ),
        _c("first_line", pl.Int64, "The line it was first seen on."),
        _c("kind", pl.String, "Its latest kind (`read`, `edit`, `execute`, …)."),
        _c("title", pl.String, "Its latest title."),
        _c("first_status", pl.String, "The first status it was given."),
        _c("last_status", pl.String, "The latest status it was given."),
        _c("end_line", pl.Int64, "The update that brought it to a final status."),
        _c("duration_ms", pl.Float64, "First update to a final status; null without one."),
        _c("updates", pl.Int64, "The updates that patched it."),
        _c("permission_line", pl.Int64, "Line of its permission request, if any."),
        _c("permission_wait_ms", pl.Float64, "Its permission request to the answer."),
        _c("approximate", pl.Boolean, "Its times are estimates (a Zed dump's)."),
    ),
)

PERMISSIONS = Table(
    "permissions",
    "one `session/request_permission` and its answer (`PermissionRow`, docs/turns.md)",
    (
        _FILE,
        _CONNECTION,
        _c("session_id", pl.String, "The request's session."),
        _c("request_id", pl.String, "The request's id as text."),
        _c("request_line", pl.Int64, "Line of the request."),
        _c("tool_call_id", pl.String, "The tool call it asks about."),
        _c("turn_request_id", pl.String, "The id (as text) of the prompt of its turn."),
        _c("response_line", pl.Int64, "Line of the Client's answer; null when unanswered."),
        _c("wait_ms", pl.Float64, "Request to answer: how long the Agent waited on the Client."),
        _c("outcome", pl.String, "`selected`, `cancelled`, `error`, or null (no answer)."),
        _c("option_id", pl.String, "The option chosen."),
        _c("option_kind", pl.String, "Its kind as the request listed it (`allow_once`, …)."),
        _c("approximate", pl.Boolean, "Its times are estimates (a Zed dump's)."),
    ),
)

FINDINGS = Table(
    "findings",
    "one rule violation (`Finding`)",
    (
        _FILE,
        _CONNECTION,
        _c("rule", pl.String, "Rule ID."),
        _c("severity", pl.String, "`error`, `warning` or `note` (after any demotion)."),
        _c("family", pl.String, "The rule's family (`marker`, `history`, …)."),
        _c("line", pl.Int64, "The line that shows the violation."),
        _c("message", pl.String, "What happened."),
        _c("session_id", pl.String, "The session concerned."),
        _c("request_id", pl.String, "The request concerned, id as text."),
    ),
)

ISSUES = Table(
    "issues",
    "one input problem (`Issue`)",
    (
        _FILE,
        _CONNECTION,
        _c("line", pl.Int64, "Input line."),
        _c("kind", pl.String, "`not_json`, `truncated_line`, …"),
        _c("message", pl.String, "What is wrong."),
    ),
)

CONNECTIONS = Table(
    "connections",
    "one analysed connection (a transcript, or one connection of a file that holds several): "
    "who talked, in which version, and how much was read",
    (
        _FILE,
        _CONNECTION,
        _c("format", pl.String, "The input format that was used."),
        _c("link", pl.String, "For multi-hop traces: the link analysed; null otherwise."),
        _c("lines", pl.Int64, "Lines of the input."),
        _c("messages", pl.Int64, "JSON-RPC messages (a batch counts each member)."),
        _c("connection_end", pl.String, "`recorded`, `assumed` or `unknown`."),
        _c("protocol_version", pl.Int64, "The version the rules were applied for."),
        _c("protocol_source", pl.String, "`initialize`, `initialize_request`, `inferred`, …"),
        _c("protocol_reason", pl.String, "What showed the version (the evidence, if inferred)."),
        _c("agent_name", pl.String, "The Agent's name from `initialize`; null if not given."),
        _c("agent_version", pl.String, "The Agent's version string."),
        _c("agent_protocol_version", pl.Int64, "The `protocolVersion` the Agent answered."),
        _c("client_name", pl.String, "The Client's name from `initialize`."),
        _c("client_version", pl.String, "The Client's version string."),
        _c("client_protocol_version", pl.Int64, "The `protocolVersion` the Client asked for."),
        _c("issues", pl.Int64, "Input issues (rows of `issues`)."),
        _c("findings", pl.Int64, "Findings (rows of `findings`)."),
        _c("resumes", pl.Int64, "Outcome rows (rows of `resumes`)."),
        _c("turns", pl.Int64, "Turns (rows of `turns`)."),
        _c("tool_calls", pl.Int64, "Tool calls (rows of `tool_calls`)."),
        _c("permissions", pl.Int64, "Permission requests (rows of `permissions`)."),
    ),
)

TABLES: tuple[Table, ...] = (
    MESSAGES,
    REQUESTS,
    SESSIONS,
    RESUMES,
    TURNS,
    TOOL_CALLS,
    PERMISSIONS,
    FINDINGS,
    ISSUES,
    CONNECTIONS,
)
"""Every table, in the order they are documented and exported."""
STREAMED = (MESSAGES, REQUESTS)
"""The tables a walk yields in batches as it goes (the others once it has ended)."""


# -- rows ------------------------------------------------------------------------------------------


def id_value(value: JsonId) -> str | None:
    """A JSON-RPC id as a string column value: strings as they are, numbers as JSON."""
    if value is None or isinstance(value, str):
        return value
    return orjson.dumps(value).decode()


def _us(ts_ns: int | None) -> int | None:
    return None if ts_ns is None else ts_ns // 1000


def message_row(origin: Origin, seq: int, message: Message) -> dict[str, Any]:
    """The `messages` row of one message."""
    return {
        **origin,
        "seq": seq,
        "line": message.line,
        "direction": message.direction.value,
        "kind": message.kind.value,
        "id": id_value(message.id),
        "method": message.method,
        "session_id": message.session_id,
        "update_tag": message.update_tag,
        "update_session_id": message.update_session_id,
        "in_batch": message.in_batch,
        "is_error": message.is_error,
        "error_code": message.error_code,
        "ts": _us(message.ts_ns),
        "mono_ns": message.mono_ns,
        "approximate": message.approximate,
    }


def request_row(origin: Origin, request: Message, response: Message | None) -> dict[str, Any]:
    """The `requests` row of a request and its response (None: unanswered)."""
    outcome = "unanswered" if response is None else "error" if response.is_error else "success"
    return {
        **origin,
        "request_line": request.line,
        "response_line": response.line if response is not None else None,
        "id": id_value(request.id),
        "method": request.method,
        "direction": request.direction.value,
        "session_id": request.session_id,
        "outcome": outcome,
        "error_code": response.error_code if response is not None else None,
        "ts": _us(request.ts_ns),
        "duration_ms": Stamp.of(request).ms_until(Stamp.of(response)) if response else None,
        "approximate": _approximate(request, response),
    }


def _approximate(request: Message, response: Message | None) -> bool:
    """Whether the request's time, or its duration, comes from an estimated time (an
    approximate message always has a time; the duration needs the request's)."""
    if request.approximate:
        return True
    return response is not None and response.approximate and request.ts_ns is not None


def session_row(origin: Origin, session: SessionInfo) -> dict[str, Any]:
    """The `sessions` row of one session."""
    return {**origin, **_fields(session)}


def resume_row(origin: Origin, row: ResumeRow) -> dict[str, Any]:
    """The `resumes` row of one outcome row."""
    values = _fields(row)
    replay_from = row.replay_from
    values["request_id"] = id_value(row.request_id)
    values["replay_from"] = None if replay_from is None else orjson.dumps(replay_from).decode()
    values["replay_pauses"] = orjson.dumps(
        list(map(msgspec.structs.asdict, row.replay_pauses))
    ).decode()
    return {**origin, **values}


def turn_row(origin: Origin, row: TurnRow) -> dict[str, Any]:
    """The `turns` row of one turn."""
    values = _fields(row)
    values["request_id"] = id_value(row.request_id)
    return {**origin, **values}


def tool_call_row(origin: Origin, row: ToolCallRow) -> dict[str, Any]:
    """The `tool_calls` row of one tool call."""
    values = _fields(row)
    values["turn_request_id"] = id_value(row.turn_request_id)
    return {**origin, **values}


def permission_row(origin: Origin, row: PermissionRow) -> dict[str, Any]:
    """The `permissions` row of one permission request."""
    values = _fields(row)
    values["request_id"] = id_value(row.request_id)
    values["turn_request_id"] = id_value(row.turn_request_id)
    return {**origin, **values}


def finding_row(origin: Origin, finding: Finding) -> dict[str, Any]:
    """The `findings` row of one finding."""
    rule = REGISTRY.get(finding.rule)
    values = _fields(finding)
    values["request_id"] = id_value(finding.request_id)
    return {**origin, "family": rule.family if rule else None, **values}


def issue_row(origin: Origin, issue: Issue) -> dict[str, Any]:
    """The `issues` row of one input issue."""
    return {**origin, **_fields(issue)}


def connection_row(origin: Origin, analysis: Analysis) -> dict[str, Any]:
    """The `connections` row of one analysed connection."""
    source, connection = analysis.source, analysis.connection
    agent, client = connection.agent or PeerInfo(), connection.client or PeerInfo()
    return {
        **origin,
        "format": source.format,
        "link": source.link,
        "lines": source.lines,
        "messages": source.messages,
        "connection_end": source.connection_end.value,
        "protocol_version": connection.protocol_version,
        "protocol_source": connection.protocol_source.value,
        "protocol_reason": connection.protocol_reason,
        "agent_name": agent.name,
        "agent_version": agent.version,
        "agent_protocol_version": agent.protocol_version,
        "client_name": client.name,
        "client_version": client.version,
        "client_protocol_version": client.protocol_version,
        "issues": len(analysis.issues),
        "findings": len(analysis.findings),
        "resumes": len(analysis.resumes),
        "turns": len(analysis.turns),
        "tool_calls": len(analysis.tool_calls),
        "permissions": len(analysis.permissions),
    }


def _fields(row: msgspec.Struct) -> dict[str, Any]:
    """A record's fields (a msgspec Struct's), enums as their values."""
    values = msgspec.structs.asdict(row)
    return {k: v.value if isinstance(v, Enum) else v for k, v in values.items()}


# -- frames from a walk ------------------------------------------------------------------------


class _Buffer:
    """Rows of one streamed table, handed out as a frame every `size` rows."""

    def __init__(self, table: Table, size: int) -> None:
        self.table, self.size, self.rows = table, size, list[dict[str, Any]]()

    def add(self, row: dict[str, Any]) -> pl.DataFrame | None:
        self.rows.append(row)
        return self.take() if len(self.rows) >= self.size else None

    def take(self) -> pl.DataFrame:
        frame, self.rows = self.table.frame(self.rows), []
        return frame


def walk_frames(walk: Walk, batch_rows: int = BATCH_ROWS) -> Iterator[tuple[Table, pl.DataFrame]]:
    """Iterate a walk, yielding each table's rows as frames (the streamed ones in batches).

    Only the current batch is in memory; `walk.analysis` is ready once this is exhausted. The
    first recording of a joined file is named only once walked (`Walk.connection`): batches of
    its messages and requests yielded before then have no connection, and the caller names
    them (`named`) when the walk's connection differs from what it was before the walk.
    """
    origin: Origin = {"file": walk.name, "connection": walk.connection}
    messages, requests = _Buffer(MESSAGES, batch_rows), _Buffer(REQUESTS, batch_rows)
    seq = 0
    for item in walk:
        if not isinstance(item, Step):
            continue
        if (frame := messages.add(message_row(origin, seq, item.message))) is not None:
            yield MESSAGES, frame
        seq += 1
        if item.request is None:
            continue
        if (frame := requests.add(request_row(origin, item.request, item.message))) is not None:
            yield REQUESTS, frame
    for request in walk.unanswered:
        if (frame := requests.add(request_row(origin, request, None))) is not None:
            yield REQUESTS, frame
    yield MESSAGES, named(messages.take(), walk.connection)
    yield REQUESTS, named(requests.take(), walk.connection)
    origin = {"file": walk.name, "connection": walk.connection}  # (named now, see `named`)
    analysis = walk.analysis
    yield SESSIONS, SESSIONS.frame(session_row(origin, s) for s in analysis.sessions)
    yield RESUMES, RESUMES.frame(resume_row(origin, r) for r in analysis.resumes)
    yield TURNS, TURNS.frame(turn_row(origin, t) for t in analysis.turns)
    yield TOOL_CALLS, TOOL_CALLS.frame(tool_call_row(origin, c) for c in analysis.tool_calls)
    yield PERMISSIONS, PERMISSIONS.frame(permission_row(origin, p) for p in analysis.permissions)
    yield FINDINGS, FINDINGS.frame(finding_row(origin, f) for f in analysis.findings)
    yield ISSUES, ISSUES.frame(issue_row(origin, i) for i in analysis.issues)
    yield CONNECTIONS, CONNECTIONS.frame([connection_row(origin, analysis)])


def named(frame: pl.DataFrame, connection: str | None) -> pl.DataFrame:
    """The frame's rows as rows of this connection (unchanged for a file of one)."""
    if connection is None:
        return frame
    return frame.with_columns(pl.lit(connection, pl.String).alias("connection"))


def frames(
    sources: Sequence[str | os.PathLike[str] | BinaryIO], options: Options | None = None
) -> dict[str, pl.DataFrame]:
    """Every table of these transcripts, in memory (for notebooks; `export` streams to disk)."""
    parts: dict[str, list[pl.DataFrame]] = {table.name: [table.empty()] for table in TABLES}
    for source in sources:
        with open_walks(source, options) as walks:
            for walk in walks:
                before, walked = walk.connection, list(walk_frames(walk))
                for table, frame in walked:
                    renamed = walk.connection != before and table in STREAMED
                    parts[table.name].append(named(frame, walk.connection) if renamed else frame)
    return {name: pl.concat(found, how="vertical") for name, found in parts.items()}


def schema_markdown() -> str:
    """Every table's columns as Markdown (docs/tables.md embeds exactly this)."""
    out = []
    for table in TABLES:
        out += [f"`{table.name}`: {table.doc}.", "", "| column | type | meaning |", "|---|---|---|"]
        for column in table.columns:
            out.append(f"| `{column.name}` | {type_name(column.dtype)} | {column.doc} |")
        out.append("")
    return "\n".join(out)


def type_name(dtype: Any) -> str:
    """A column type in words: `Int64`, `String`, `Datetime(µs, UTC)`."""
    if dtype == UTC_MICROSECONDS:
        return "Datetime(µs, UTC)"
    return str(dtype)
