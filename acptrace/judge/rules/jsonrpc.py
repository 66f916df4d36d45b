"""Rules on JSON-RPC 2.0 and the stdio transport (rules.md §5)."""

from __future__ import annotations

from collections.abc import Iterator

from acptrace.correlate.observations import (
    BatchesSent,
    DuplicateRequestId,
    OrphanResponse,
    Unanswered,
)
from acptrace.decode.malformed import EmptyBatch, InvalidJsonRpc
from acptrace.judge.rules.registry import Verdict, retired, rule
from acptrace.model.domain import Severity
from acptrace.model.excerpt import plural, written_json


@rule("JR-INVALID", Severity.ERROR, "jsonrpc", "JSON-RPC 2.0", InvalidJsonRpc)
def invalid(observed: InvalidJsonRpc) -> Iterator[Verdict]:
    """An object meant as JSON-RPC that breaks JSON-RPC 2.0."""
    yield Verdict(observed.line, f"invalid JSON-RPC: {observed.reason}")


@rule("JR-ORPHAN-RESPONSE", Severity.ERROR, "jsonrpc", "JSON-RPC 2.0", OrphanResponse)
def orphan_response(observed: OrphanResponse) -> Iterator[Verdict]:
    """A response whose id matches no pending request from the other side."""
    response = observed.message
    yield Verdict(
        response.line,
        f"response id {written_json(response.id)} matches no pending request",
        request_id=response.id,
    )


@rule("JR-DUPLICATE-ID", Severity.ERROR, "jsonrpc", "JSON-RPC 2.0", DuplicateRequestId)
def duplicate_id(observed: DuplicateRequestId) -> Iterator[Verdict]:
    """A request id reused by the same side while the first request with it is pending."""
    request = observed.message
    yield Verdict(
        request.line,
        f"{request.method} reuses id {written_json(request.id)} of the pending request at line "
        f"{observed.first_line}",
        request.session_id,
        request.id,
    )


@rule("JR-UNANSWERED", Severity.WARNING, "jsonrpc", "JSON-RPC 2.0", Unanswered)
def unanswered(observed: Unanswered) -> Iterator[Verdict]:
    """A request with no response by the connection end (recorded or assumed)."""
    request = observed.request
    yield Verdict(
        request.line,
        f"{request.method} (id {written_json(request.id)}) has no response by the connection end",
        request.session_id,
        request.id,
    )


retired(
    "TR-BATCH-LIFECYCLE",
    "transport",
    "TR (the June v2 batch guidance, withdrawn)",
    "Retired 2026-12-07: was initialize, auth/login, session/new, session/resume or "
    "session/prompt inside a batch; TR-BATCH replaces it.",
    "ACP defines no JSON-RPC batches since the v2 schema of 2026-11 (rules.md §11)",
)


@rule(
    "TR-BATCH",
    Severity.NOTE,
    "transport",
    "SCHEMA (2026-11: no batch branches); Rust SDK 5.0.0",
    BatchesSent,
)
def batch(observed: BatchesSent) -> Iterator[Verdict]:
    """A batch array: ACP defines no JSON-RPC batches (once per connection, with the count)."""
    held = plural(observed.messages, "message")
    if observed.count == 1:
        what = f"a batch array of {held}"
    else:
        what = f"{observed.count} batch arrays ({held} in all; the first here)"
    yield Verdict(
        observed.first_line,
        f"{what}: ACP defines no JSON-RPC batches, so the other side may not accept it; "
        "its members are read in array order",
    )


@rule("TR-EMPTY-BATCH", Severity.ERROR, "transport", "TR", EmptyBatch)
def empty_batch(observed: EmptyBatch) -> Iterator[Verdict]:
    """An empty batch array."""
    yield Verdict(observed.line, "empty batch array")
