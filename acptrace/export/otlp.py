"""Transcripts as OpenTelemetry traces: one OTLP `ExportTraceServiceRequest` (the official
protobuf classes of `opentelemetry-proto`), written as OTLP/JSON or sent over OTLP/HTTP
(`acptrace.export.otlp_http`).

Each connection is walked once: its analysis, and what the spans need beyond it (`Timing`):
the wall clock time of the lines they start and end at, the trace context messages carried in
their `_meta`, the error code of each error response. The times of every record are parked on
disk as they come (`acptrace.model.spill`), and only the lines the analysis names are looked up
at the end, so a long transcript takes the memory of its spans, not of its lines.

The spans themselves are `acptrace.export.otlp_spans`'s. The protobuf modules are imported only
here and there, when an export asks for them.
"""

from __future__ import annotations

import base64
import os
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, BinaryIO

import orjson
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from acptrace.correlate.correlator import Step
from acptrace.decode.views import may_hold, shown_payload
from acptrace.export.otlp_spans import Timing, connection_spans, lines_needed
from acptrace.export.trace_context import TraceContext, meta_context
from acptrace.model.domain import Analysis, MessageKind, connection_name
from acptrace.model.errors import NoWallClock
from acptrace.model.options import Execution, Options
from acptrace.model.spill import Spill
from acptrace.model.temporary import scratch_folder
from acptrace.pipeline.analysis import Walk
from acptrace.pipeline.transcripts import open_walks, require_transcript
from acptrace.read.envelopes import RecorderEvent

ID_FIELDS = ("traceId", "spanId", "parentSpanId")
"""The OTLP/JSON fields that are hex, not the base64 of protobuf's JSON mapping."""


class _Recording:
    """What one connection's walk shows beyond its analysis: each record's wall clock time (on
    disk), the trace contexts in `_meta`, the codes of error responses."""

    __slots__ = ("contexts", "error_codes", "first_ns", "last_ns", "times")

    def __init__(self, folder: Path) -> None:
        self.times = Spill(folder / "times")
        """(line, wall clock ns) of each record that has one, in order."""
        self.first_ns: int | None = None
        self.last_ns: int | None = None
        self.contexts: dict[int, TraceContext] = {}
        self.error_codes: dict[int, int] = {}

    def take(self, item: object) -> None:
        if isinstance(item, Step):
            message = item.message
            self.timed(message.line, message.ts_ns)
            if message.kind is MessageKind.RESPONSE:
                if message.error_code is not None and item.request is not None:
                    self.error_codes[item.request.line] = message.error_code
            elif may_hold(item.payload, b"traceparent"):
                context = meta_context(shown_payload(item.payload))
                if context is not None:
                    self.contexts.setdefault(message.line, context)
        elif isinstance(item, RecorderEvent):
            self.timed(item.line, item.ts_ns)

    def timed(self, line: int, ts_ns: int | None) -> None:
        if ts_ns is None:
            return
        self.times.add((line, ts_ns))
        if self.first_ns is None:
            self.first_ns = ts_ns
        self.last_ns = ts_ns

    def timing(self, analysis: Analysis) -> Timing | None:
        """What the spans of the analysis need; None without any wall clock time."""
        if self.first_ns is None or self.last_ns is None:
            return None
        times = _times_of(self.times.records(), sorted(lines_needed(analysis)))
        return Timing(times, self.first_ns, self.last_ns, self.contexts, self.error_codes)


def _times_of(records: Iterator[tuple[Any, ...]], lines: list[int]) -> dict[int, int]:
    """The time of each line asked for (in order): that of the last timed record at or before
    it (of the first timed record for a line before any)."""
    times: dict[int, int] = {}
    asked = 0
    last: int | None = None
    for line, ts_ns in records:
        while asked < len(lines) and lines[asked] < line:
            times[lines[asked]] = ts_ns if last is None else last
            asked += 1
        last = ts_ns
    for line in lines[asked:]:
        assert last is not None, "a recording with times has a last one"
        times[line] = last
    return times


def otlp_request(
    sources: Sequence[str | os.PathLike[str] | BinaryIO],
    options: Options | None = None,
    *,
    require_transcripts: bool = False,
) -> ExportTraceServiceRequest:
    """One request holding the traces of these transcripts, one per connection, in order.
    Raises `NoWallClock` for a connection without wall clock times, `UnreadableInput` for a
    source that cannot be read (`NotATranscript` for one that is none, with
    `require_transcripts`)."""
    options = options or Options()
    request = ExportTraceServiceRequest()
    for source in sources:
        with open_walks(source, options, execution=Execution(payloads=True)) as walks:
            walked = [_walked(walk) for walk in walks]
            if require_transcripts and walks:
                require_transcript(walks[0].name, [analysis for _, analysis, _ in walked])
        for name, analysis, timing in walked:
            if not analysis.looks_like_transcript:
                continue  # (nothing to trace: an empty part of a file of several)
            if timing is None:
                raise NoWallClock(
                    f"{name}: no wall clock time in the recording (format "
                    f"{analysis.source.format}): spans need the time of day of its messages "
                    "(--format trace-event lays an untimed recording out by line)"
                )
            request.resource_spans.append(connection_spans(analysis, timing))
    return request


def _walked(walk: Walk) -> tuple[str, Analysis, Timing | None]:
    """A connection walked: its name, its analysis and what its spans need (None: it has no
    wall clock)."""
    with scratch_folder(tempfile.gettempdir(), "otlp") as folder:
        recording = _Recording(folder)
        try:
            for item in walk:
                recording.take(item)
            timing = recording.timing(walk.analysis)
        finally:
            recording.times.close()
    return connection_name(walk.name, walk.connection), walk.analysis, timing


def otlp_json(request: ExportTraceServiceRequest) -> bytes:
    """The request in the OTLP/JSON encoding, on one line (a file the Collector's
    `otlpjsonfile` receiver reads, a body `curl` can POST to `/v1/traces`): protobuf's JSON
    mapping (`google.protobuf.json_format`) with OTLP's two deviations, hex trace and span ids
    (not base64) and enums as integers (not names)."""
    from google.protobuf.json_format import MessageToDict

    document = MessageToDict(request, use_integers_for_enums=True)
    for resource in document.get("resourceSpans", ()):
        for scope in resource.get("scopeSpans", ()):
            for span in scope.get("spans", ()):
                _hex_ids(span)
                for link in span.get("links", ()):
                    _hex_ids(link)
    return orjson.dumps(document) + b"\n"


def _hex_ids(entry: dict[str, Any]) -> None:
    for key in ID_FIELDS:
        if key in entry:
            entry[key] = base64.b64decode(entry[key]).hex()
