"""Rules on JSON-RPC 2.0 and the stdio transport (rules.md §5)."""

from __future__ import annotations

from collections.abc import Iterator

from acptrace.correlate.observations import DuplicateRequestId, OrphanResponse, Unanswered
from acptrace.decode.malformed import BatchedLifecycle, EmptyBatch, InvalidJsonRpc
from acptrace.judge.rules.registry import Verdict, rule
from acptrace.model.domain import Severity
from acptrace.model.excerpt import written_id


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
        f"response id {written_id(response.id)} matches no pending request",
        request_id=response.id,
    )


@rule("JR-DUPLICATE-ID", Severity.ERROR, "jsonrpc", "JSON-RPC 2.0", DuplicateRequestId)
def duplicate_id(observed: DuplicateRequestId) -> Iterator[Verdict]:
    """A request id reused by the same side while the first request with it is pending."""
    request = observed.message
    yield Verdict(
        request.line,
        f"{request.method} reuses id {written_id(request.id)} of the pending request at line "
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
        f"{request.method} (id {written_id(request.id)}) has no response by the connection end",
        request.session_id,
        request.id,
    )


@rule(
    "TR-BATCH-LIFECYCLE", Severity.WARNING, "transport", 'TR "SHOULD NOT batch"', BatchedLifecycle
)
def batched_lifecycle(observed: BatchedLifecycle) -> Iterator[Verdict]:
    """initialize, auth/login, session/new, session/resume or session/prompt inside a batch."""
    message = observed.message
    yield Verdict(
        message.line, f"{message.method} sent inside a batch", message.session_id, message.id
    )


@rule("TR-EMPTY-BATCH", Severity.ERROR, "transport", "TR", EmptyBatch)
def empty_batch(observed: EmptyBatch) -> Iterator[Verdict]:
    """An empty batch array."""
    yield Verdict(observed.line, "empty batch array")
