"""One connection's analysis as OpenTelemetry spans: an OTLP `ResourceSpans` made of the
official protobuf classes (`opentelemetry-proto`).

One trace per connection, its spans nested as the work was: the connection (the root), each
session in it (a child session in the session that announced it), in a session its replays
(`session/resume`, `session/load`) and its turns (`session/prompt`), in a turn its tool calls,
in a tool call its permission requests (a permission request about no tool call of the turn
sits in the turn). The OpenTelemetry GenAI conventions name what they have a name for (a turn
is `invoke_agent`, a tool call `execute_tool`, the session is `gen_ai.conversation.id`); the
rest is `acp.*` (docs/otlp.md lists every attribute). Findings are events on the span they
concern (the replay or turn of their request, else their session, else the root), input
issues events on the root.

Times are the recording's wall clock: each span starts and ends at the wall clock time of the
lines that started and ended it (`Timing`); one whose end the recording lacks ends with the
connection. The latencies measured on the monotonic clock are attributes, as the analysis
gives them.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import orjson
from opentelemetry.proto.common.v1.common_pb2 import (
    AnyValue,
    ArrayValue,
    InstrumentationScope,
    KeyValue,
)
from opentelemetry.proto.resource.v1.resource_pb2 import Resource
from opentelemetry.proto.trace.v1.trace_pb2 import ResourceSpans, ScopeSpans, Span, Status

from acptrace.export.trace_context import TraceContext, recording_id, span_id
from acptrace.model.domain import (
    Analysis,
    Finding,
    JsonId,
    Outcome,
    ResumeRow,
    Role,
    SessionInfo,
    WindowEnd,
)
from acptrace.model.turns import PermissionRow, ToolCallRow, TurnEnd, TurnRow
from acptrace.model.version import __version__

SCOPE = InstrumentationScope(name="acptrace", version=__version__)
"""What made the spans."""
UNKNOWN_AGENT = "acp-agent"
"""`service.name` when the recording does not say the Agent's name."""
FAILED_OUTCOMES = frozenset({Outcome.COMPLETE_FAILED, Outcome.TRUNCATED, Outcome.REFUSED})
"""Replays whose span has the error status: the replay failed or was refused."""
KIND = {
    "internal": Span.SpanKind.SPAN_KIND_INTERNAL,
    "client": Span.SpanKind.SPAN_KIND_CLIENT,
}


@dataclass(frozen=True, slots=True)
class Timing:
    """What the spans need of a connection beyond its analysis (gathered as it is walked)."""

    times: Mapping[int, int]
    """The wall clock time (ns since the epoch) of each line the spans start or end at."""
    first_ns: int
    """The first record's wall clock time: the connection's start."""
    last_ns: int
    """The last record's: the connection's end, and of every span whose end is not recorded."""
    contexts: Mapping[int, TraceContext] = field(default_factory=dict)
    """The trace context a message's `_meta` carried, by its line."""
    error_codes: Mapping[int, int] = field(default_factory=dict)
    """The error code of each request answered with an error, by the request's line."""


def lines_needed(analysis: Analysis) -> set[int]:
    """Every line whose time the spans of the analysis take."""
    lines: set[int] = set()
    for info in analysis.sessions:
        lines.update((info.first_line, info.closed_line or 0))
    for row in analysis.resumes:
        lines.update((row.request_line, row.announce_line or 0, row.marker_line or 0))
        lines.add(row.response_line or 0)
    for turn in analysis.turns:
        lines.update((turn.request_line, turn.end_line or 0))
    for tool in analysis.tool_calls:
        lines.update((tool.first_line, tool.end_line or 0))
    for permission in analysis.permissions:
        lines.update((permission.request_line, permission.response_line or 0))
    lines.update(finding.line for finding in analysis.findings)
    lines.update(issue.line for issue in analysis.issues)
    lines.discard(0)
    return lines


def connection_spans(analysis: Analysis, timing: Timing) -> ResourceSpans:
    """The connection's spans, with its Agent as the resource (`service.name`)."""
    builder = _Builder(analysis, timing)
    builder.build()
    agent = analysis.connection.agent
    client = analysis.connection.client
    resource = Resource(
        attributes=attributes(
            {
                "service.name": (agent and agent.name) or UNKNOWN_AGENT,
                "service.version": agent and agent.version,
                "acp.client.name": client and client.name,
                "acp.client.version": client and client.version,
                "acp.file": analysis.source.path,
                "acp.connection": analysis.source.connection,
            }
        )
    )
    return ResourceSpans(
        resource=resource, scope_spans=[ScopeSpans(scope=SCOPE, spans=builder.spans)]
    )


def attributes(values: Mapping[str, Any]) -> list[KeyValue]:
    """OTLP attributes of the values that are not None."""
    return [
        KeyValue(key=key, value=_any(value)) for key, value in values.items() if value is not None
    ]


def _any(value: Any) -> AnyValue:
    if isinstance(value, bool):
        return AnyValue(bool_value=value)
    if isinstance(value, int):
        return AnyValue(int_value=value)
    if isinstance(value, float):
        return AnyValue(double_value=value)
    if isinstance(value, str):
        return AnyValue(string_value=str(value))  # (a StrEnum as the text it stands for)
    if isinstance(value, list | tuple):
        return AnyValue(array_value=ArrayValue(values=[_any(item) for item in value]))
    return AnyValue(string_value=orjson.dumps(value).decode())  # (a `replayFrom` cursor)


def id_text(value: JsonId) -> str | None:
    """A JSON-RPC id as an attribute: strings as they are, numbers as JSON (as the tables)."""
    if value is None or isinstance(value, str):
        return value
    return orjson.dumps(value).decode()


class _Builder:
    """The spans of one connection, made parents first, and what finds a finding's span."""

    __slots__ = ("agent", "analysis", "own", "replays", "root", "sessions", "spans", "timing",
                 "tools", "trace_id", "turns")  # fmt: skip

    def __init__(self, analysis: Analysis, timing: Timing) -> None:
        self.analysis, self.timing = analysis, timing
        source = analysis.source
        self.own = recording_id(
            os.path.basename(source.path), source.connection, timing.first_ns, source.lines
        )
        context = next(iter(timing.contexts.values()), None)
        self.trace_id = context.trace_id if context is not None else self.own
        agent = analysis.connection.agent
        self.agent = {
            "gen_ai.agent.name": agent and agent.name,
            "gen_ai.agent.version": agent and agent.version,
        }
        self.spans: list[Span] = []
        self.sessions: dict[str, Span] = {}
        self.replays: dict[tuple[str, str | None], Span] = {}
        self.turns: dict[tuple[str, str | None], Span] = {}
        self.tools: dict[tuple[str, str], list[tuple[int, Span]]] = {}
        self.root = self.connection(context)

    def build(self) -> None:
        for info in self.analysis.sessions:
            self.session(info)
        for row in self.analysis.resumes:
            self.replay(row)
        for turn in self.analysis.turns:
            self.turn(turn)
        for tool in self.analysis.tool_calls:
            self.tool_call(tool)
        for permission in self.analysis.permissions:
            self.permission(permission)
        for finding in self.analysis.findings:
            self.finding(finding)
        for issue in self.analysis.issues:
            values = {"acp.issue.kind": issue.kind, "acp.line": issue.line}
            self.event(self.root, "acp.issue", issue.line, {**values, "acp.message": issue.message})

    # -- spans -------------------------------------------------------------------------------

    def span(
        self,
        key: tuple[Any, ...],
        parent: Span | None,
        name: str,
        lines: tuple[int | None, int | None],
        values: Mapping[str, Any],
        kind: str = "internal",
    ) -> Span:
        """A span from the time of its first line to that of its last (the connection's end
        when it has none), parented, attributed and kept."""
        start = self.at(lines[0])
        end = self.timing.last_ns if lines[1] is None else self.at(lines[1])
        made = Span(
            trace_id=self.trace_id,
            span_id=span_id(self.own, *key),
            parent_span_id=parent.span_id if parent is not None else b"",
            name=name,
            kind=KIND[kind],
            start_time_unix_nano=start,
            end_time_unix_nano=max(start, end),
            attributes=attributes(values),
        )
        self.spans.append(made)
        return made

    def at(self, line: int | None) -> int:
        """The wall clock time of a line (the connection's start for none)."""
        return self.timing.first_ns if line is None else self.timing.times[line]

    def connection(self, context: TraceContext | None) -> Span:
        analysis = self.analysis
        connection, source = analysis.connection, analysis.source
        values = {
            **self.agent,
            "acp.protocol_version": connection.protocol_version,
            "acp.protocol_source": connection.protocol_source,
            "acp.format": source.format,
            "acp.connection_end": source.connection_end,
            "acp.messages": source.messages,
            "acp.findings": len(analysis.findings),
            "acp.issues": len(analysis.issues),
        }
        root = self.span(("connection",), None, "acp connection", (None, None), values)
        if context is not None:  # (the Client's span that the connection was part of)
            root.parent_span_id = context.span_id
            root.trace_state = context.state
        return root

    def session(self, info: SessionInfo) -> None:
        parent = self.sessions.get(info.parent_session_id or "", self.root)
        values = {
            "gen_ai.conversation.id": info.session_id,
            "acp.session.id": info.session_id,
            "acp.session.parent_id": info.parent_session_id,
            "acp.session.named_by": info.named_by,
            "acp.session.updates": info.updates,
            "acp.session.prompts": info.prompts,
            "acp.session.resumes": info.resumes,
            "acp.session.active_at_end": info.active_at_end,
            "acp.line": info.first_line,
            "acp.end_line": info.closed_line,
        }
        lines = (info.first_line, info.closed_line)
        key = ("session", info.session_id)
        self.sessions[info.session_id] = self.span(key, parent, "acp session", lines, values)

    def replay(self, row: ResumeRow) -> None:
        opened = row.announce_line if row.role is Role.CHILD else None
        first = opened or row.request_line
        values = {
            "gen_ai.conversation.id": row.session_id,
            "acp.session.id": row.session_id,
            "acp.method": row.method,
            "acp.request.id": id_text(row.request_id),
            "acp.replay.role": row.role,
            "acp.session.parent_id": row.parent_session_id,
            "acp.replay_from": row.replay_from,
            "acp.outcome": row.outcome,
            "acp.replay.end": row.end,
            "acp.error_code": row.error_code,
            "acp.cancelled": row.cancelled,
            "acp.replay.markers": row.marker_count,
            "acp.replay.replayed_updates": row.replayed_updates,
            "acp.replay.held_updates": row.held_updates,
            "acp.line": first,
            "acp.marker_line": row.marker_line,
            "acp.end_line": row.response_line,
            "acp.request_to_first_update_ms": row.request_to_first_update_ms,
            "acp.request_to_marker_ms": row.request_to_marker_ms,
            "acp.marker_to_response_ms": row.marker_to_response_ms,
            "acp.request_to_response_ms": row.request_to_response_ms,
            "acp.max_replay_gap_ms": row.max_replay_gap_ms,
            "acp.approximate": row.approximate or None,
        }
        parent = self.sessions.get(row.session_id, self.root)
        key = ("replay", row.session_id, first, row.role)
        made = self.span(key, parent, row.method, (first, row.response_line), values, "client")
        self.link(made, row.request_line)
        if row.marker_line is not None:
            self.event(made, "acp.marker", row.marker_line, {"acp.line": row.marker_line})
        if row.outcome in FAILED_OUTCOMES or row.end is WindowEnd.ERROR:
            self.fail(made, row.error_code, f"{row.method}: {row.outcome}")
        self.replays[(row.session_id, id_text(row.request_id))] = made

    def turn(self, turn: TurnRow) -> None:
        name = self.agent["gen_ai.agent.name"]
        code = self.timing.error_codes.get(turn.request_line)
        values = {
            "gen_ai.operation.name": "invoke_agent",
            **self.agent,
            "gen_ai.conversation.id": turn.session_id,
            "gen_ai.response.finish_reasons": [turn.stop_reason] if turn.stop_reason else None,
            "acp.session.id": turn.session_id,
            "acp.method": "session/prompt",
            "acp.request.id": id_text(turn.request_id),
            "acp.protocol_version": turn.protocol_version,
            "acp.turn.end": turn.end,
            "acp.error_code": code,
            "acp.line": turn.request_line,
            "acp.end_line": turn.end_line,
            "acp.turn.first_update_ms": turn.first_update_ms,
            "acp.turn.first_output_ms": turn.first_output_ms,
            "acp.turn.duration_ms": turn.duration_ms,
            "acp.turn.updates": turn.updates,
            "acp.turn.tool_calls": turn.tool_calls,
            "acp.turn.permission_requests": turn.permission_requests,
            "acp.turn.permission_wait_ms": turn.permission_wait_ms,
            "acp.turn.during_replay": turn.during_replay,
            "acp.approximate": turn.approximate or None,
        }
        parent = self.sessions.get(turn.session_id, self.root)
        key = ("turn", turn.session_id, turn.request_line)
        lines = (turn.request_line, turn.end_line)
        made = self.span(key, parent, f"invoke_agent {name}" if name else "invoke_agent",
                         lines, values, "client")  # fmt: skip
        self.link(made, turn.request_line)
        start = made.start_time_unix_nano
        for label, ms in (("first_update", turn.first_update_ms),
                          ("first_output", turn.first_output_ms)):  # fmt: skip
            if ms is not None:  # (the prompt's time and the latency: the update's line is not kept)
                made.events.add(time_unix_nano=start + round(ms * 1e6), name=f"acp.{label}")
        if turn.end is TurnEnd.ERROR:
            self.fail(made, code, "session/prompt answered with an error")
        self.turns[(turn.session_id, id_text(turn.request_id))] = made

    def tool_call(self, tool: ToolCallRow) -> None:
        values = {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": tool.kind,
            "gen_ai.tool.call.id": tool.tool_call_id,
            "gen_ai.conversation.id": tool.session_id,
            "acp.session.id": tool.session_id,
            "acp.tool_call.title": tool.title,
            "acp.tool_call.first_status": tool.first_status,
            "acp.tool_call.status": tool.last_status,
            "acp.tool_call.updates": tool.updates,
            "acp.tool_call.duration_ms": tool.duration_ms,
            "acp.tool_call.permission_wait_ms": tool.permission_wait_ms,
            "acp.turn.request_id": id_text(tool.turn_request_id),
            "acp.line": tool.first_line,
            "acp.end_line": tool.end_line,
            "acp.permission_line": tool.permission_line,
            "acp.approximate": tool.approximate or None,
        }
        parent = self.in_turn(tool.session_id, tool.turn_request_id)
        key = ("tool", tool.session_id, tool.tool_call_id, tool.first_line)
        name = f"execute_tool {tool.kind}" if tool.kind else "execute_tool"
        made = self.span(key, parent, name, (tool.first_line, tool.end_line), values)
        if tool.end_line is None:  # (never final: it ends with its turn, never outlives it)
            made.end_time_unix_nano = max(
                made.start_time_unix_nano, min(made.end_time_unix_nano, parent.end_time_unix_nano)
            )
        if tool.last_status == "failed":
            self.fail(made, None, "the tool call failed")
        self.tools.setdefault((tool.session_id, tool.tool_call_id), []).append(
            (tool.first_line, made)
        )

    def permission(self, permission: PermissionRow) -> None:
        code = self.timing.error_codes.get(permission.request_line)
        values = {
            "gen_ai.tool.call.id": permission.tool_call_id,
            "gen_ai.conversation.id": permission.session_id,
            "acp.session.id": permission.session_id,
            "acp.method": "session/request_permission",
            "acp.request.id": id_text(permission.request_id),
            "acp.permission.outcome": permission.outcome,
            "acp.permission.option_id": permission.option_id,
            "acp.permission.option_kind": permission.option_kind,
            "acp.permission.wait_ms": permission.wait_ms,
            "acp.error_code": code,
            "acp.turn.request_id": id_text(permission.turn_request_id),
            "acp.line": permission.request_line,
            "acp.end_line": permission.response_line,
            "acp.approximate": permission.approximate or None,
        }
        parent = self.about_tool(permission) or self.in_turn(
            permission.session_id, permission.turn_request_id
        )
        key = ("permission", permission.session_id, permission.request_line)
        lines = (permission.request_line, permission.response_line)
        made = self.span(key, parent, "session/request_permission", lines, values)
        self.link(made, permission.request_line)
        if permission.outcome == "error":
            self.fail(made, code, "session/request_permission answered with an error")

    def in_turn(self, session_id: str, turn_request_id: JsonId) -> Span:
        """The span of a turn of the session (its session's outside a turn, the root's
        without one)."""
        turn = self.turns.get((session_id, id_text(turn_request_id)))
        return turn or self.sessions.get(session_id, self.root)

    def about_tool(self, permission: PermissionRow) -> Span | None:
        """The tool call a permission request is about: the latest of that id seen by then."""
        if permission.tool_call_id is None:
            return None
        seen = self.tools.get((permission.session_id, permission.tool_call_id), [])
        before = [span for line, span in seen if line <= permission.request_line]
        return before[-1] if before else None

    # -- what is on a span -------------------------------------------------------------------

    def finding(self, finding: Finding) -> None:
        key = (finding.session_id or "", id_text(finding.request_id))
        span = self.root
        if finding.session_id is not None:
            session = self.sessions.get(finding.session_id, self.root)
            span = self.replays.get(key) or self.turns.get(key) or session
        values = {
            "acp.finding.rule": finding.rule,
            "acp.finding.severity": finding.severity,
            "acp.line": finding.line,
            "acp.message": finding.message,
            "acp.session.id": finding.session_id,
            "acp.request.id": id_text(finding.request_id),
        }
        self.event(span, finding.rule, finding.line, values)

    def event(self, span: Span, name: str, line: int, values: Mapping[str, Any]) -> None:
        span.events.add(time_unix_nano=self.at(line), name=name, attributes=attributes(values))

    def link(self, span: Span, line: int) -> None:
        """A link to the span context the message on this line carried, unless it is the
        root's parent (the Client's span the connection is part of)."""
        context = self.timing.contexts.get(line)
        if context is None or context.span_id == self.root.parent_span_id:
            return
        span.links.add(trace_id=context.trace_id, span_id=context.span_id,
                       trace_state=context.state)  # fmt: skip

    def fail(self, span: Span, code: int | None, message: str) -> None:
        """The error status, and `error.type`: the error code, else `_OTHER` (GenAI
        conventions: a low-cardinality class of the error)."""
        span.status.CopyFrom(Status(code=Status.StatusCode.STATUS_CODE_ERROR, message=message))
        error_type = str(code) if code is not None else "_OTHER"
        span.attributes.extend(attributes({"error.type": error_type}))


def spans_of(resources: Iterable[ResourceSpans]) -> int:
    """How many spans these resources hold."""
    return sum(len(scope.spans) for resource in resources for scope in resource.scope_spans)
