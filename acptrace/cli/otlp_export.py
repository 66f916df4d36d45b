"""`acptrace export --format otlp`: the transcripts as OpenTelemetry traces, written as
OTLP/JSON or sent to a collector over OTLP/HTTP (docs/otlp.md). Imported only for that
format, so that no other run loads protobuf."""

from __future__ import annotations

import typer

from acptrace.cli.common import EXIT_ERROR, fail, print_error, print_note
from acptrace.cli.output import check_output, write_output
from acptrace.export.otlp import otlp_json, otlp_request
from acptrace.export.otlp_http import headers_from_environment, send, traces_url
from acptrace.export.otlp_spans import spans_of
from acptrace.model.errors import DeliveryFailed, NoWallClock, UnreadableInput, UsageError
from acptrace.model.options import Options
from acptrace.render.text import plural


def export_otlp(
    paths: list[str],
    options: Options,
    *,
    output: str | None,
    endpoint: str | None,
    timeout_s: float,
    quiet: bool,
) -> None:
    """Write the traces to `output` (stdout without it, unless they are sent), and send them to
    `endpoint` when given; every failure is one line and exit 2, with nothing written."""
    headers = {}
    try:
        if endpoint is not None:
            traces_url(endpoint)  # (a URL that is none is refused before any work)
            headers = headers_from_environment()
        if output is not None or endpoint is None:
            check_output(output)
        request = otlp_request(paths, options, require_transcripts=True)
    except (UsageError, NoWallClock) as error:
        fail(str(error))
    except UnreadableInput as error:
        print_error(f"{error} (nothing was written)")
        raise typer.Exit(EXIT_ERROR) from None
    spans = spans_of(request.resource_spans)
    traces = plural(len(request.resource_spans), "trace")
    if endpoint is not None:
        try:
            delivered = send(request, endpoint, timeout_s, headers)
        except DeliveryFailed as error:
            fail(str(error))
        for warning in delivered.warnings:
            print_note(f"{delivered.url} said: {warning}")
        if not quiet:
            sent = plural(delivered.requests, "request")
            print_note(f"sent {plural(spans, 'span')} of {traces} to {delivered.url} ({sent})")
    if output is None and endpoint is not None:
        return
    write_output(otlp_json(request), output)
    if not quiet:
        print_note(f"wrote {plural(spans, 'span')} of {traces} to {output or 'stdout'}")
