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
    UnidentifiedMessages,
    UnknownSessionTraffic,
    WrongDirection,
)
from acptrace.judge.rules.registry import Verdict, rule
from acptrace.model.domain import Direction, Message, Severity
from acptrace.model.excerpt import plural, written_json

REQUEST_CANCELLED = -32800
FAILED_ON_ITS_OWN = frozenset({-32601, -32602})
"""Errors a cancelled request got for itself, not for the cancel: method not found, invalid
params (CX-WRONG-CODE leaves them be, rules.md §11)."""


@rule("RC-CONCURRENT", Severity.WARNING, "client", 'RFD FAQ "SHOULD NOT"', ConcurrentResume)
def concurrent_resume(observed: ConcurrentResume) -> Iterator[Verdict]:
    """A replay of a session (a load, a replaying resume) sent while another is pending."""
    request, earlier = observed.request, observed.pending_request
    yield Verdict(
        request.line,
        f"{_replay(request)} of {request.session_id} sent while the {_replay(earlier)} at line "
        f"{earlier.line} is pending: any update while both are pending belongs to neither",
        request.session_id,
        request.id,
    )


def _replay(request: Message) -> str:
    """A replaying request as a finding names it: a load says load (rules.md §11)."""
    return "session/load" if request.method == "session/load" else "replaying session/resume"


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
            crossing = "the prompt crossed it"
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


@rule(
    "LC-NO-MESSAGE-ID",
    Severity.ERROR,
    "lifecycle",
    'MSGID "every streamed … message chunk MUST include a messageId"; SETUP (replay)',
    UnidentifiedMessages,
)
def no_message_id(observed: UnidentifiedMessages) -> Iterator[Verdict]:
    """On ACP v2, a user, agent or thought message update (or a chunk of one) without a
    messageId (once per session, with the count)."""
    replayed = f"{observed.in_replay} in a replay" if observed.in_replay else "none in a replay"
    yield Verdict(
        observed.first_line,
        f"{plural(observed.count, 'message update')} for {observed.session_id} without a "
        f"messageId ({replayed}), the first here: on ACP v2 each carries one",
        observed.session_id,
    )


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
            f"cancelled {request.method} (id {written_json(request.id)}) never got a response",
            request.session_id,
            request.id,
        )


@rule("CX-WRONG-CODE", Severity.NOTE, "cancel", "CX", CancelledAnswered)
def cancelled_wrong_code(observed: CancelledAnswered) -> Iterator[Verdict]:
    """A cancelled request answered with an error other than -32800."""
    response = observed.response
    code = response.error_code
    if response.is_error and code != REQUEST_CANCELLED and code not in FAILED_ON_ITS_OWN:
        request = observed.request
        yield Verdict(
            response.line,
            f"cancelled {request.method} (id {written_json(request.id)}) answered with error "
            f"{response.error_code}, not -32800",
            request.session_id,
            request.id,
        )
