"""Rules on Client behaviour, session lifecycle and cancellation (rules.md §4)."""

from __future__ import annotations

from collections.abc import Iterator

from acptrace.correlate.correlator import SESSION_NOT_ACTIVE
from acptrace.correlate.observations import (
    CancelledAnswered,
    ConcurrentResume,
    PromptAnswered,
    PromptState,
    Unanswered,
    UnknownSessionTraffic,
    WrongDirection,
)
from acptrace.judge.rules.registry import Verdict, rule
from acptrace.model.domain import Direction, Severity
from acptrace.model.excerpt import written_id

REQUEST_CANCELLED = -32800


@rule("RC-CONCURRENT", Severity.WARNING, "client", 'RFD FAQ "SHOULD NOT"', ConcurrentResume)
def concurrent_resume(observed: ConcurrentResume) -> Iterator[Verdict]:
    """A second replaying resume (or load) of a session while one is pending (v1 too)."""
    request = observed.request
    what = "session/load" if request.method == "session/load" else "replaying session/resume"
    yield Verdict(
        request.line,
        f"{what} of {request.session_id} while the one at line "
        f"{observed.pending_request.line} is pending: both outcomes are ambiguous",
        request.session_id,
        request.id,
    )


@rule("LC-PROMPT-INACTIVE", Severity.ERROR, "lifecycle", "ERR; RFD", PromptAnswered)
def prompt_inactive(observed: PromptAnswered) -> Iterator[Verdict]:
    """session/prompt succeeded although the transcript shows the session inactive."""
    if observed.response.is_error:
        return
    request = observed.request
    text = f"session/prompt for {request.session_id} succeeded although {observed.why_inactive}"
    match observed.state:
        case PromptState.INACTIVE | PromptState.NEVER_ACTIVATED:
            yield Verdict(observed.response.line, text, request.session_id, request.id)
        case PromptState.RESUME_PENDING:
            crossing = "the prompt crossed the pending resume"
            yield Verdict(
                observed.response.line,
                text,
                request.session_id,
                request.id,
                crossing,
                Severity.NOTE,
            )
        case PromptState.ACTIVE | PromptState.UNSEEN:
            return


@rule("LC-ACTIVE-REJECTED", Severity.ERROR, "lifecycle", "ERR", PromptAnswered)
def active_rejected(observed: PromptAnswered) -> Iterator[Verdict]:
    """A -32002 answer to session/prompt sent while the session was Active."""
    if observed.state is PromptState.ACTIVE and observed.response.error_code == SESSION_NOT_ACTIVE:
        request = observed.request
        yield Verdict(
            observed.response.line,
            f"session/prompt for {request.session_id} rejected with -32002 although the session "
            "was active when it was sent",
            request.session_id,
            request.id,
        )


@rule(
    "LC-UNKNOWN-SESSION",
    Severity.WARNING,
    "lifecycle",
    "SETUP; openclaw#110455 in the wild",
    UnknownSessionTraffic,
)
def unknown_session(observed: UnknownSessionTraffic) -> Iterator[Verdict]:
    """A session/update for a session that is not Known (once per session, with the count)."""
    if not observed.start_seen:
        return  # a transcript that starts mid-connection cannot tell what was named before
    later = ""
    if observed.named_line is not None:
        later = f"; the {_naming(observed.named_by)} at line {observed.named_line} named it later"
    yield Verdict(
        observed.first_line,
        f"{observed.count} session/update for {observed.session_id} (the last at line "
        f"{observed.last_line}) while no session/new, session/fork, session/resume, "
        f"session/load, session/list or announcement had named it{later}",
        observed.session_id,
    )


def _naming(by: str | None) -> str:
    """What named a session, as a message says it (`session/new` names it in its response)."""
    match by:
        case "session/new" | "session/fork" | "session/list":
            return f"{by} response"
        case "subagent_update":
            return "announcement"
        case _:
            return f"{by} request"


@rule("LC-WRONG-DIRECTION", Severity.ERROR, "lifecycle", "SCHEMA x-side", WrongDirection)
def wrong_direction(observed: WrongDirection) -> Iterator[Verdict]:
    """A request or notification of a method with one known direction sent by the other side."""
    message = observed.message
    sender = "Agent" if observed.expected is Direction.C2A else "Client"
    for offset in range(observed.count):
        yield Verdict(
            message.line + offset,
            f"{message.method} sent by the {sender}, but only the other side sends it: "
            "left out of the session and replay rules",
            message.session_id,
            message.id,
        )


@rule("CX-NO-RESPONSE", Severity.ERROR, "cancel", 'CX "still gets a response"', Unanswered)
def cancelled_unanswered(observed: Unanswered) -> Iterator[Verdict]:
    """A request cancelled with $/cancel_request has no response by the connection end."""
    if observed.cancelled:
        request = observed.request
        yield Verdict(
            request.line,
            f"cancelled {request.method} (id {written_id(request.id)}) never got a response",
            request.session_id,
            request.id,
        )


@rule("CX-WRONG-CODE", Severity.NOTE, "cancel", "CX", CancelledAnswered)
def cancelled_wrong_code(observed: CancelledAnswered) -> Iterator[Verdict]:
    """A cancelled request answered with an error other than -32800."""
    response = observed.response
    if response.is_error and response.error_code != REQUEST_CANCELLED:
        request = observed.request
        yield Verdict(
            response.line,
            f"cancelled {request.method} (id {written_id(request.id)}) answered with error "
            f"{response.error_code}, not -32800",
            request.session_id,
            request.id,
        )
