"""OTLP/HTTP: an `ExportTraceServiceRequest` POSTed to a collector as binary protobuf
(`application/x-protobuf`, the OpenTelemetry exporters' default), with the standard library's
`urllib` (one POST needs no HTTP dependency).

The endpoint is taken as OpenTelemetry's exporters take `OTEL_EXPORTER_OTLP_ENDPOINT`: the
collector's base URL (`http://localhost:4318`), to which the signal's path `/v1/traces` is
added; a URL whose path already ends in `/v1/traces` (what `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`
holds) is taken as it is. Headers come from `OTEL_EXPORTER_OTLP_TRACES_HEADERS` or
`OTEL_EXPORTER_OTLP_HEADERS` (`key=value,...`, values URL-encoded), as for those exporters: an
API key stays out of the command line.

Delivery follows the OTLP specification: requests of at most `MAX_REQUEST_BYTES`; a connection
that fails, a timeout, a server that hangs up, and the answers 429, 502, 503 and 504 are retried
with exponential backoff and jitter (or after `Retry-After`), the rest are final; a partial
success is not retried. Every try and every wait fits in one time budget, so an endpoint that
never answers costs that budget, never a hang.
"""

from __future__ import annotations

import http.client
import os
import random
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.proto.trace.v1.trace_pb2 import ResourceSpans, ScopeSpans, Span

from acptrace.model.errors import DeliveryFailed, UsageError
from acptrace.model.excerpt import printable
from acptrace.model.version import __version__

TRACES_PATH = "/v1/traces"
"""OTLP/HTTP's path for traces."""
MAX_REQUEST_BYTES = 4 * 1024 * 1024
"""The largest request sent: what a gRPC collector takes by default (OTLP/HTTP's recommended
limit is 20 MiB), so a request forwarded on from HTTP to gRPC is not refused."""
RETRYABLE = frozenset({429, 502, 503, 504})
"""Answers to try again (the OTLP specification's list)."""
TRIES = 5
"""Tries of one request at most."""
FIRST_WAIT_S = 0.25
"""The wait before the second try; it doubles after each, with jitter."""
HEADER_VARIABLES = ("OTEL_EXPORTER_OTLP_TRACES_HEADERS", "OTEL_EXPORTER_OTLP_HEADERS")
"""Where headers for the endpoint come from, the first set one."""
SHOWN = 200
"""Characters of an error answer's body shown."""


@dataclass(frozen=True, slots=True)
class Delivered:
    """What the endpoint took."""

    url: str
    """Where the requests went."""
    requests: int
    """The POSTs it took to send them."""
    warnings: tuple[str, ...] = ()
    """What the endpoint said while it accepted everything (a partial success of 0 spans)."""


def traces_url(endpoint: str) -> str:
    """The URL to POST traces to (`UsageError` for one that is not http(s))."""
    parts = urllib.parse.urlsplit(endpoint.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise UsageError(f"--endpoint {endpoint!r}: not an http:// or https:// URL")
    path = parts.path.rstrip("/")
    if not path.endswith(TRACES_PATH):
        path += TRACES_PATH
    return urllib.parse.urlunsplit(parts._replace(path=path))


def headers_from_environment(environ: Mapping[str, str] = os.environ) -> dict[str, str]:
    """The headers the OpenTelemetry variables give (`UsageError`, naming the variable but not
    its value, which may be a secret, when one is malformed)."""
    for variable in HEADER_VARIABLES:
        text = environ.get(variable, "").strip()
        if not text:
            continue
        headers = {}
        for entry in text.split(","):
            key, equals, value = entry.partition("=")
            if not equals or not key.strip():
                raise UsageError(f"{variable}: each entry must be key=value")
            headers[key.strip()] = urllib.parse.unquote(value.strip())
        return headers
    return {}


def send(
    request: ExportTraceServiceRequest,
    endpoint: str,
    timeout_s: float,
    headers: Mapping[str, str] | None = None,
) -> Delivered:
    """POST the request (in pieces of at most `MAX_REQUEST_BYTES`), all within `timeout_s`;
    `DeliveryFailed` (one line naming the URL) when a piece cannot be delivered."""
    url = traces_url(endpoint)
    deadline = time.monotonic() + timeout_s
    sent, warnings = 0, []
    for body in request_bodies(request):
        warning = _post(url, body, dict(headers or {}), deadline, timeout_s)
        sent += 1
        if warning:
            warnings.append(warning)
    return Delivered(url, sent, tuple(warnings))


def request_bodies(request: ExportTraceServiceRequest) -> Iterator[bytes]:
    """The request serialized in pieces of at most `MAX_REQUEST_BYTES` (a span larger than
    that alone), each whole resources and scopes with some of their spans."""
    if request.ByteSize() <= MAX_REQUEST_BYTES:
        yield request.SerializeToString()
        return
    piece, size = ExportTraceServiceRequest(), 0
    for part in _parts(request):
        part_size = part.ByteSize()
        if piece.resource_spans and size + part_size > MAX_REQUEST_BYTES:
            yield piece.SerializeToString()
            piece, size = ExportTraceServiceRequest(), 0
        piece.resource_spans.append(part)
        size += part_size
    if piece.resource_spans:
        yield piece.SerializeToString()


def _parts(request: ExportTraceServiceRequest) -> Iterator[ResourceSpans]:
    """Each resource's spans in runs of at most `MAX_REQUEST_BYTES`, each run a resource."""
    for resource in request.resource_spans:
        for scope in resource.scope_spans:
            run: list[Span] = []
            size = 0
            for span in scope.spans:
                if run and size + span.ByteSize() > MAX_REQUEST_BYTES:
                    yield _part(resource, scope, run)
                    run, size = [], 0
                run.append(span)
                size += span.ByteSize()
            if run:
                yield _part(resource, scope, run)


def _part(resource: ResourceSpans, scope: ScopeSpans, spans: list[Span]) -> ResourceSpans:
    return ResourceSpans(
        resource=resource.resource,
        schema_url=resource.schema_url,
        scope_spans=[ScopeSpans(scope=scope.scope, schema_url=scope.schema_url, spans=spans)],
    )


def _post(
    url: str, body: bytes, headers: dict[str, str], deadline: float, budget: float
) -> str | None:
    """POST one body until it is taken, a final answer, or the deadline; what a partial
    success of no span said, if anything."""
    headers |= {"Content-Type": "application/x-protobuf", "User-Agent": f"acptrace/{__version__}"}
    tried, wait, why = 0, FIRST_WAIT_S, "no time left to send it"
    while tried < TRIES:
        left = deadline - time.monotonic()
        if left <= 0:
            break
        tried += 1
        asked = 0.0
        post = urllib.request.Request(url, data=body, headers=headers, method="POST")
        try:
            with urllib.request.urlopen(post, timeout=left) as answer:
                return _accepted(url, answer.read())
        except urllib.error.HTTPError as error:
            why = f"HTTP {error.code} {error.reason}"
            if error.code not in RETRYABLE:
                raise DeliveryFailed(f"{url} refused the spans: {why}{_said(error)}") from None
            asked = _retry_after(error.headers.get("Retry-After"))
        except (urllib.error.URLError, OSError, http.client.HTTPException) as error:
            why = _reason(error)
        pause = asked or wait * random.uniform(0.5, 1.0)  # (jitter: clients do not retry in step)
        if tried == TRIES or time.monotonic() + pause >= deadline:
            break
        time.sleep(pause)
        wait *= 2
    raise DeliveryFailed(f"cannot send to {url}: {why} ({_tries(tried)}, --timeout {budget:g} s)")


def _accepted(url: str, data: bytes) -> str | None:
    """The answer to a taken request: `DeliveryFailed` for a partial success that rejected
    spans (not to be retried), what it said when it rejected none."""
    answer = ExportTraceServiceResponse()
    try:
        answer.ParseFromString(data)
    except Exception:  # (protobuf's DecodeError: a body that is not the response; it was 200)
        return None
    partial = answer.partial_success
    message = printable(partial.error_message[:SHOWN])
    if partial.rejected_spans:
        detail = f": {message}" if message else ""
        raise DeliveryFailed(f"{url} rejected {partial.rejected_spans} spans{detail}")
    return message or None


def _said(error: urllib.error.HTTPError) -> str:
    """A short excerpt of an error answer's body, if it is text."""
    try:
        text = error.read(SHOWN).decode("utf-8", "replace").strip()
    except (OSError, http.client.HTTPException):
        return ""
    shown = printable(" ".join(text.split()))
    return f" ({shown})" if shown else ""


def _retry_after(value: str | None) -> float:
    """The seconds a `Retry-After` of seconds asks for (0 for none, or an HTTP date)."""
    try:
        return max(0.0, float(value)) if value else 0.0
    except ValueError:
        return 0.0


def _reason(error: BaseException) -> str:
    """Why a try failed, in a few words."""
    if isinstance(error, urllib.error.URLError) and not isinstance(error.reason, str):
        error = error.reason if isinstance(error.reason, BaseException) else error
    if isinstance(error, TimeoutError):
        return "no answer in time"
    if isinstance(error, ConnectionRefusedError):
        return "connection refused"
    if isinstance(error, http.client.RemoteDisconnected | ConnectionResetError):
        return "the server closed the connection without answering"
    text = getattr(error, "strerror", None) or getattr(error, "reason", None) or str(error)
    return printable(str(text)) or type(error).__name__


def _tries(count: int) -> str:
    return "1 try" if count == 1 else f"{count} tries"
