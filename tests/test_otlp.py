"""`acptrace export --format otlp`: OpenTelemetry traces that the official protobuf definitions
decode (OTLP/JSON to a file, binary protobuf over OTLP/HTTP), with the ids, parents, times and
attributes docs/otlp.md promises, and a delivery that never hangs."""

from __future__ import annotations

import base64
import http.server
import os
import shutil
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import orjson
import pytest
from google.protobuf import json_format
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue
from opentelemetry.proto.trace.v1.trace_pb2 import Span, Status
from typer.testing import CliRunner

import acptrace
from acptrace.cli import app
from acptrace.export.otlp_http import headers_from_environment, traces_url
from acptrace.export.trace_context import parse_traceparent
from acptrace.model.errors import UsageError
from tests import shared
from tests.transcript import ADVERTISED, START_NS, Transcript

runner = CliRunner()
HEX_IDS = {"traceId": 32, "spanId": 16, "parentSpanId": 16}
"""OTLP/JSON's hex id fields, and their length in hex digits."""
TRACE = "4bf92f3577b34da6a3ce929d0e0e4736"
PARENT = "00f067aa0ba902b7"
"""A W3C example context: the Client's span the recording was part of."""


def ns(line_ms: float) -> int:
    """The wall clock time of a `Transcript` line at this many milliseconds."""
    return START_NS + int(line_ms * 1_000_000)


def recording(
    meta: dict[str, Any] | None = None, initialize_meta: dict[str, Any] | None = None
) -> tuple[Transcript, dict[str, int]]:
    """A v2 connection with a complete replay, a turn with a tool call and a permission request
    about it, a failed tool call, a refused resume and an unmarked replay of another session
    (RC-MISSING); the lines that matter, by name. `meta`, `initialize_meta`: the `_meta` of the
    prompt and of `initialize`."""
    t = Transcript()
    lines = {"open": t.open()}
    if initialize_meta is None:
        lines["initialize"] = t.initialize()
    else:
        lines["initialize"] = t.request(
            "initialize", {"protocolVersion": 2, "_meta": initialize_meta}, id=0
        )
        t.result(0, {"protocolVersion": 2, **ADVERTISED[True],
                     "info": {"name": "test-agent", "version": "9.9"}})  # fmt: skip
    lines["resume"] = t.resume(id=3)
    t.history()
    lines["marker"] = t.marker()
    t.update("state_update")
    lines["resumed"] = t.result(3)
    params = {"sessionId": "sess_1", "prompt": [{"type": "text", "text": "go"}]}
    lines["prompt"] = t.request("session/prompt", {**params, **({"_meta": meta} if meta else {})},
                                id=10)  # fmt: skip
    t.update("agent_message_chunk", content={"type": "text", "text": "hi"})
    lines["tool"] = t.tool("call_1", kind="read", title="Read README.md", status="pending")
    lines["permission"] = t.permission("call_1", id=50)
    lines["answer"] = t.choose(50, "allow")
    lines["tool_end"] = t.tool("call_1", status="completed")
    lines["failing"] = t.tool("call_2", kind="execute", title="make", status="in_progress")
    lines["failed"] = t.tool("call_2", status="failed")
    t.result(10)
    lines["idle"] = t.state("idle", stop_reason="end_turn")
    lines["refused"] = t.resume(id=20)
    lines["refusal"] = t.error(20, -32002)
    lines["unmarked"] = t.resume("sess_2", id=30)
    t.history("sess_2")
    t.update("state_update", "sess_2")
    lines["unmarked_end"] = t.result(30)
    lines["close"] = t.close()
    return t, lines


def line_ns(t: Transcript, line: int) -> int:
    """The wall clock time the transcript gave a line (each line `step_ms` after the one before)."""
    return ns(line * t.step_ms)


def decoded(document: bytes) -> ExportTraceServiceRequest:
    """An OTLP/JSON document read as a receiver reads it: the hex ids checked and turned into
    protobuf's base64, then parsed by the official definitions (unknown fields refused)."""
    data = orjson.loads(document)
    for resource in data["resourceSpans"]:
        for scope in resource["scopeSpans"]:
            for span in scope["spans"]:
                for entry in (span, *span.get("links", ())):
                    for key, digits in HEX_IDS.items():
                        if key in entry:
                            value = entry[key]
                            assert len(value) == digits, (key, value)
                            assert value == value.lower(), (key, value)
                            entry[key] = base64.b64encode(bytes.fromhex(value)).decode()
                assert isinstance(span["kind"], int), "OTLP/JSON enums are integers"
    request = ExportTraceServiceRequest()
    json_format.Parse(orjson.dumps(data), request)
    return request


def export(tmp_path: Path, *files: Path, name: str = "otlp.json") -> ExportTraceServiceRequest:
    """Export the files with the CLI and decode what it wrote."""
    out = tmp_path / name
    result = runner.invoke(app, ["export", "--format", "otlp", *map(str, files), "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert out.read_bytes().count(b"\n") == 1, "one line: a request, and a JSON-lines file"
    return decoded(out.read_bytes())


def spans_of(request: ExportTraceServiceRequest) -> list[Span]:
    return [span for r in request.resource_spans for s in r.scope_spans for span in s.spans]


def value(any_value: AnyValue) -> Any:
    field = any_value.WhichOneof("value")
    if field == "array_value":
        return [value(item) for item in any_value.array_value.values]
    return getattr(any_value, field) if field else None


def attrs(entries: Any) -> dict[str, Any]:
    pairs: list[KeyValue] = list(entries)
    assert len({pair.key for pair in pairs}) == len(pairs), "an attribute given twice"
    return {pair.key: value(pair.value) for pair in pairs}


def written(tmp_path: Path, t: Transcript, name: str = "rec.jsonl") -> Path:
    path = tmp_path / name
    path.write_bytes(t.text())
    return path


def test_the_export_is_a_trace_the_official_definitions_decode(tmp_path: Path) -> None:
    t, at = recording()
    request = export(tmp_path, written(tmp_path, t))
    (resource,) = request.resource_spans
    assert attrs(resource.resource.attributes)["service.name"] == "test-agent"
    assert resource.scope_spans[0].scope.name == "acptrace"
    spans = spans_of(request)
    by_name: dict[str, list[Span]] = {}
    for span in spans:
        by_name.setdefault(span.name, []).append(span)
        assert (len(span.trace_id), len(span.span_id)) == (16, 8)
        assert span.start_time_unix_nano <= span.end_time_unix_nano
    assert len({span.trace_id for span in spans}) == 1, "one trace per connection"
    assert len({span.span_id for span in spans}) == len(spans)
    (root,) = by_name["acp connection"]
    (session_1, session_2) = sorted(by_name["acp session"], key=lambda s: s.start_time_unix_nano)
    resumed, refused, unmarked = sorted(by_name["session/resume"],
                                        key=lambda s: s.start_time_unix_nano)  # fmt: skip
    (turn,) = by_name["invoke_agent test-agent"]
    (read,) = by_name["execute_tool read"]
    (failed,) = by_name["execute_tool execute"]
    (permission,) = by_name["session/request_permission"]
    assert len(spans) == 10
    # nesting: connection > session > replay / turn > tool call > permission wait
    assert root.parent_span_id == b""
    assert session_1.parent_span_id == session_2.parent_span_id == root.span_id
    assert resumed.parent_span_id == refused.parent_span_id == session_1.span_id
    assert unmarked.parent_span_id == session_2.span_id
    assert turn.parent_span_id == session_1.span_id
    assert read.parent_span_id == failed.parent_span_id == turn.span_id
    assert permission.parent_span_id == read.span_id
    # times: the recording's wall clock at the lines that start and end each span
    assert (root.start_time_unix_nano, root.end_time_unix_nano) == (
        line_ns(t, at["open"]), line_ns(t, at["close"]))  # fmt: skip
    assert (resumed.start_time_unix_nano, resumed.end_time_unix_nano) == (
        line_ns(t, at["resume"]), line_ns(t, at["resumed"]))  # fmt: skip
    assert (turn.start_time_unix_nano, turn.end_time_unix_nano) == (
        line_ns(t, at["prompt"]), line_ns(t, at["idle"]))  # fmt: skip
    assert (read.start_time_unix_nano, read.end_time_unix_nano) == (
        line_ns(t, at["tool"]), line_ns(t, at["tool_end"]))  # fmt: skip
    assert (permission.start_time_unix_nano, permission.end_time_unix_nano) == (
        line_ns(t, at["permission"]), line_ns(t, at["answer"]))  # fmt: skip
    assert session_1.end_time_unix_nano == root.end_time_unix_nano, "open at the end"
    # kinds and status
    assert turn.kind == resumed.kind == Span.SpanKind.SPAN_KIND_CLIENT
    assert read.kind == root.kind == Span.SpanKind.SPAN_KIND_INTERNAL
    assert refused.status.code == failed.status.code == Status.StatusCode.STATUS_CODE_ERROR
    assert attrs(refused.attributes)["error.type"] == "-32002"
    ok = (root, session_1, resumed, unmarked, turn, read, permission)
    assert {span.status.code for span in ok} == {Status.StatusCode.STATUS_CODE_UNSET}


def test_the_attributes_are_the_conventions_and_the_analysis(tmp_path: Path) -> None:
    t, at = recording()
    analysis = t.analyze()
    spans = {span.name: span for span in spans_of(export(tmp_path, written(tmp_path, t)))}
    turn = attrs(spans["invoke_agent test-agent"].attributes)
    assert turn["gen_ai.operation.name"] == "invoke_agent"
    assert turn["gen_ai.agent.name"] == "test-agent"
    assert turn["gen_ai.agent.version"] == "9.9"
    assert turn["gen_ai.conversation.id"] == turn["acp.session.id"] == "sess_1"
    assert turn["gen_ai.response.finish_reasons"] == ["end_turn"]
    (row,) = analysis.turns
    assert turn["acp.turn.duration_ms"] == row.duration_ms == (at["idle"] - at["prompt"]) * 10
    assert turn["acp.turn.first_output_ms"] == row.first_output_ms
    assert (turn["acp.turn.end"], turn["acp.line"], turn["acp.end_line"]) == (
        "idle", at["prompt"], at["idle"])  # fmt: skip
    assert (turn["acp.request.id"], turn["acp.protocol_version"]) == ("10", 2)
    tool = attrs(spans["execute_tool read"].attributes)
    assert tool["gen_ai.operation.name"] == "execute_tool"
    assert (tool["gen_ai.tool.name"], tool["gen_ai.tool.call.id"]) == ("read", "call_1")
    assert (tool["acp.tool_call.title"], tool["acp.tool_call.status"]) == (
        "Read README.md", "completed")  # fmt: skip
    permission = attrs(spans["session/request_permission"].attributes)
    assert permission["acp.permission.outcome"] == "selected"
    assert permission["acp.permission.option_kind"] == "allow_once"
    assert permission["acp.permission.wait_ms"] == 10.0
    replay = next(s for s in spans_of(export(tmp_path, written(tmp_path, t)))
                  if s.name == "session/resume")  # fmt: skip
    resumed = attrs(replay.attributes)
    complete = analysis.resumes[0]
    assert (resumed["acp.outcome"], resumed["acp.method"]) == ("complete", "session/resume")
    for latency in ("request_to_marker_ms", "marker_to_response_ms", "request_to_response_ms",
                    "request_to_first_update_ms", "max_replay_gap_ms"):  # fmt: skip
        assert resumed[f"acp.{latency}"] == getattr(complete, latency), latency
    assert resumed["acp.replay_from"] == '{"type":"start"}'
    (marker,) = replay.events
    assert (marker.name, marker.time_unix_nano) == ("acp.marker", line_ns(t, at["marker"]))
    root = attrs(spans["acp connection"].attributes)
    assert (root["acp.protocol_version"], root["acp.format"]) == (2, "acptrace")


def test_a_tool_call_never_final_ends_with_its_turn(tmp_path: Path) -> None:
    """As in the trace-event export: a tool call that never reached a final status nests in
    its turn and ends with it, not at the connection's end; its attributes still say it never
    ended."""
    t = Transcript()
    t.initialize()
    t.new_session()
    prompt = t.request("session/prompt", {"sessionId": "sess_1", "prompt": []}, id=10)
    started = t.tool("call_1", kind="read", title="Read", status="pending")
    t.result(10)
    idle = t.state("idle", stop_reason="end_turn")
    for _ in range(5):
        t.update("usage_update", used=1, size=2)
    t.close()
    spans = {span.name: span for span in spans_of(export(tmp_path, written(tmp_path, t)))}
    turn, tool = spans["invoke_agent test-agent"], spans["execute_tool read"]
    assert tool.parent_span_id == turn.span_id
    assert (turn.start_time_unix_nano, turn.end_time_unix_nano) == (
        line_ns(t, prompt), line_ns(t, idle))  # fmt: skip
    assert (tool.start_time_unix_nano, tool.end_time_unix_nano) == (
        line_ns(t, started), line_ns(t, idle))  # fmt: skip
    assert spans["acp connection"].end_time_unix_nano > turn.end_time_unix_nano
    values = attrs(tool.attributes)
    assert "acp.end_line" not in values and "acp.tool_call.duration_ms" not in values


def test_each_finding_is_an_event_on_the_span_it_concerns(tmp_path: Path) -> None:
    t, at = recording()
    analysis = t.analyze(schema_rules=True)  # (as export judges it: the builder's messages
    assert "RC-MISSING" in {finding.rule for finding in analysis.findings}  # break the schema)
    spans = spans_of(export(tmp_path, written(tmp_path, t)))
    events = {
        (event.name, attrs(event.attributes)["acp.line"]): (span, event)
        for span in spans
        for event in span.events
        if "acp.finding.rule" in attrs(event.attributes)
    }
    assert len(events) == len(analysis.findings)
    for finding in analysis.findings:
        span, event = events[(finding.rule, finding.line)]
        values = attrs(event.attributes)
        assert values["acp.finding.severity"] == finding.severity.value
        assert values["acp.message"] == finding.message
        assert event.time_unix_nano == line_ns(t, finding.line)
        if finding.rule == "RC-MISSING":
            assert span.name == "session/resume"
            assert attrs(span.attributes)["acp.request.id"] == "30"
            assert finding.line in (at["unmarked"], at["unmarked_end"])


def test_re_exports_give_the_same_ids_from_any_folder(tmp_path: Path) -> None:
    t, _ = recording()
    first = spans_of(export(tmp_path, written(tmp_path, t)))
    (tmp_path / "elsewhere").mkdir()
    moved = tmp_path / "elsewhere" / "rec.jsonl"
    shutil.copy(tmp_path / "rec.jsonl", moved)
    again = spans_of(export(tmp_path, moved, name="again.json"))
    assert [(s.trace_id, s.span_id, s.parent_span_id) for s in first] == [
        (s.trace_id, s.span_id, s.parent_span_id) for s in again
    ]
    other = spans_of(export(tmp_path, written(tmp_path, t, "other.jsonl"), name="other.json"))
    assert other[0].trace_id != first[0].trace_id, "another recording, another trace"


def test_a_traceparent_in_meta_is_the_trace_and_the_roots_parent(tmp_path: Path) -> None:
    prompt_span = "b7ad6b7169203331"
    t, _ = recording(
        meta={"traceparent": f"00-{TRACE}-{prompt_span}-01", "tracestate": "vendor=1"},
        initialize_meta={"traceparent": f"00-{TRACE}-{PARENT}-01", "tracestate": "rojo=00f0"},
    )
    spans = spans_of(export(tmp_path, written(tmp_path, t)))
    assert {span.trace_id.hex() for span in spans} == {TRACE}
    root = next(span for span in spans if span.name == "acp connection")
    assert (root.parent_span_id.hex(), root.trace_state) == (PARENT, "rojo=00f0")
    turn = next(span for span in spans if span.name.startswith("invoke_agent"))
    (link,) = turn.links
    assert (link.trace_id.hex(), link.span_id.hex(), link.trace_state) == (
        TRACE, prompt_span, "vendor=1")  # fmt: skip
    session = next(span for span in spans if span.name == "acp session")
    assert turn.parent_span_id == session.span_id, "nested in its session still"
    assert all(not span.links for span in spans if span is not turn)


@pytest.mark.parametrize(
    "text",
    ["00-" + "0" * 32 + f"-{PARENT}-01", f"00-{TRACE}-{'0' * 16}-01", f"ff-{TRACE}-{PARENT}-01",
     f"00-{TRACE.upper()}-{PARENT}-01", f"00-{TRACE}-{PARENT}-01-extra", "00-abc-123-01", 7],
)  # fmt: skip
def test_an_invalid_traceparent_is_no_context(text: Any) -> None:
    assert parse_traceparent(text) is None
    assert parse_traceparent(f"01-{TRACE}-{PARENT}-01-later") is not None, "a later version"


def test_a_recording_without_wall_clock_is_refused(tmp_path: Path) -> None:
    t, _ = recording()
    records = [orjson.loads(line) for line in t.lines]
    bare = tmp_path / "bare.jsonl"  # (bare JSON-RPC: no times at all)
    bare.write_bytes(b"".join(orjson.dumps(r["msg"]) + b"\n" for r in records if "msg" in r))
    mono = tmp_path / "mono.jsonl"  # (the monotonic clock only)
    untimed = [{k: v for k, v in r.items() if k != "ts"} for r in records]
    mono.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in untimed))
    for path in (bare, mono):
        out = tmp_path / "out.json"
        result = runner.invoke(app, ["export", "-f", "otlp", str(path), "-o", str(out)])
        assert result.exit_code == 2, result.output
        assert f"{path}: no wall clock time in the recording" in result.output
        assert "--format trace-event" in result.output
        assert not out.exists()


def test_endpoint_needs_the_otlp_format() -> None:
    result = runner.invoke(app, ["export", "x.jsonl", "--endpoint", "http://127.0.0.1:9"])
    assert result.exit_code == 2
    assert "--format otlp" in result.output


# -- OTLP/HTTP --------------------------------------------------------------------------------


class Receiver(http.server.ThreadingHTTPServer):
    """An OTLP/HTTP receiver on 127.0.0.1: what it was sent, and the answers it gives (200 with
    an empty `ExportTraceServiceResponse` once those run out)."""

    def __init__(self, answers: list[int] | None = None) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.answers = list(answers or [])
        self.received: list[tuple[str, str, bytes]] = []

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


class _Handler(http.server.BaseHTTPRequestHandler):
    server: Receiver

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["Content-Length"]))
        self.server.received.append((self.path, self.headers["Content-Type"], body))
        status = self.server.answers.pop(0) if self.server.answers else 200
        data = ExportTraceServiceResponse().SerializeToString() if status == 200 else b"busy"
        self.send_response(status)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", str(len(data)))
        if status == 503:
            self.send_header("Retry-After", "0")
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def no_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    """Requests to 127.0.0.1 go there, whatever proxy the environment names."""
    for name in ("http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy"):
        monkeypatch.delenv(name, raising=False)
    for name in ("OTEL_EXPORTER_OTLP_HEADERS", "OTEL_EXPORTER_OTLP_TRACES_HEADERS"):
        monkeypatch.delenv(name, raising=False)


@contextmanager
def receiving(answers: list[int] | None = None) -> Iterator[Receiver]:
    """A receiver serving in a thread while the block runs."""
    server = Receiver(answers)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.usefixtures("no_proxy")
def test_endpoint_delivers_the_same_spans_as_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    t, _ = recording()
    path = written(tmp_path, t)
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_HEADERS", "authorization=Bearer%20x,x-team=acp")
    with receiving(answers=[503]) as server:  # (one retryable answer first)
        result = runner.invoke(app, ["export", "-f", "otlp", str(path), "--endpoint", server.url])
    assert result.exit_code == 0, result.output
    assert result.stdout == "", "sent, not written"
    assert f"sent 10 spans of 1 trace to {server.url}/v1/traces (1 request)" in result.stderr
    assert len(server.received) == 2, "retried once after the 503"
    assert server.received[0] == server.received[1]
    target, content_type, body = server.received[1]
    assert (target, content_type) == ("/v1/traces", "application/x-protobuf")
    sent = ExportTraceServiceRequest()
    sent.ParseFromString(body)
    assert sent == export(tmp_path, path)


@pytest.mark.usefixtures("no_proxy")
def test_a_final_refusal_is_one_line_naming_the_endpoint(tmp_path: Path) -> None:
    t, _ = recording()
    path = written(tmp_path, t)
    with receiving(answers=[400]) as server:
        url = f"{server.url}/otlp/v1/traces"
        result = runner.invoke(app, ["export", "-f", "otlp", str(path), "--endpoint", url])
    assert len(server.received) == 1, "400 is never retried"
    assert server.received[0][0] == "/otlp/v1/traces", "a full traces URL is taken as it is"
    assert result.exit_code == 2
    assert result.output.strip().splitlines() == [
        f"acptrace: error: {url} refused the spans: HTTP 400 Bad Request (busy)"
    ]


@pytest.mark.usefixtures("no_proxy")
def test_an_unreachable_endpoint_fails_within_seconds(tmp_path: Path) -> None:
    t, _ = recording()
    path = written(tmp_path, t)
    with socket.socket() as probe:  # (a free port: nothing listens there once it is closed)
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    started = time.monotonic()
    url = f"http://127.0.0.1:{port}"
    result = runner.invoke(app, ["export", "-f", "otlp", str(path), "--endpoint", url])
    assert time.monotonic() - started < 8
    assert result.exit_code == 2
    assert result.output.startswith(f"acptrace: error: cannot send to {url}/v1/traces: connection")
    assert len(result.output.strip().splitlines()) == 1


@pytest.mark.usefixtures("no_proxy")
def test_an_endpoint_that_never_answers_costs_the_timeout_not_a_hang(tmp_path: Path) -> None:
    t, _ = recording()
    path = written(tmp_path, t)
    with socket.socket() as silent:  # (accepts connections in its backlog, never answers)
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        url = f"http://127.0.0.1:{silent.getsockname()[1]}"
        started = time.monotonic()
        arguments = ["export", "-f", "otlp", str(path), "--endpoint", url, "--timeout", "1"]
        result = runner.invoke(app, arguments)
        elapsed = time.monotonic() - started
    assert result.exit_code == 2
    assert 0.9 < elapsed < 5
    assert f"cannot send to {url}/v1/traces: no answer in time" in result.output


def test_the_endpoint_is_a_base_url_unless_it_names_the_traces_path() -> None:
    assert traces_url("http://localhost:4318") == "http://localhost:4318/v1/traces"
    assert traces_url("http://localhost:4318/") == "http://localhost:4318/v1/traces"
    assert traces_url("https://otlp.example/api/") == "https://otlp.example/api/v1/traces"
    assert traces_url("http://c:4318/v1/traces") == "http://c:4318/v1/traces"
    for bad in ("localhost:4318", "ftp://c/", "http://"):
        with pytest.raises(UsageError):
            traces_url(bad)


def test_headers_come_from_the_opentelemetry_variables() -> None:
    both = {"OTEL_EXPORTER_OTLP_HEADERS": "a=1", "OTEL_EXPORTER_OTLP_TRACES_HEADERS": "b=x%3Dy"}
    assert headers_from_environment(both) == {"b": "x=y"}
    assert headers_from_environment({"OTEL_EXPORTER_OTLP_HEADERS": " a = 1 , c=2"}) == {
        "a": "1", "c": "2"}  # fmt: skip
    with pytest.raises(UsageError, match="OTEL_EXPORTER_OTLP_HEADERS") as raised:
        headers_from_environment({"OTEL_EXPORTER_OTLP_HEADERS": "secret-token"})
    assert "secret-token" not in str(raised.value)


# -- real recordings --------------------------------------------------------------------------


@pytest.mark.shared
def test_every_recording_of_agents_2026_12b_exports(tmp_path: Path) -> None:
    folder = shared.REAL_WORLD / "agents-2026-12b"
    files = sorted(folder.rglob("*.jsonl"))
    request = export(tmp_path, folder)
    analyses = [a for path in files for a in acptrace.analyze_file(path)]
    assert len(request.resource_spans) == len(analyses)
    for resource, analysis in zip(request.resource_spans, analyses, strict=True):
        spans = [span for scope in resource.scope_spans for span in scope.spans]
        assert attrs(resource.resource.attributes)["acp.file"] == os.fspath(
            analysis.source.path)  # fmt: skip
        expected = 1 + len(analysis.sessions) + len(analysis.resumes) + len(analysis.turns)
        expected += len(analysis.tool_calls) + len(analysis.permissions)
        assert len(spans) == expected
        root = spans[0]
        ids = {span.span_id for span in spans}
        for span in spans[1:]:
            assert span.parent_span_id in ids
            assert span.trace_id == root.trace_id
            assert root.start_time_unix_nano <= span.start_time_unix_nano
            assert span.start_time_unix_nano <= span.end_time_unix_nano
            assert span.end_time_unix_nano <= root.end_time_unix_nano
        rules = [attrs(event.attributes).get("acp.finding.rule")
                 for span in spans for event in span.events]  # fmt: skip
        assert sorted(filter(None, rules)) == sorted(f.rule for f in analysis.findings)
