"""Facts the correlator reports as it walks a transcript; rules turn them into findings.

Each observation is a small frozen record of something that happened (a response nobody asked
for, a window that closed, a marker nobody expected). The correlator decides *what happened*;
the rules in `acptrace.judge.rules` decide *whether it breaks the protocol*, and how badly.
The decoder's own facts (`acptrace.decode.malformed`) are observations too.
"""

from __future__ import annotations

from enum import StrEnum

import msgspec

from acptrace.correlate.tracks import Window
from acptrace.decode.malformed import EmptyBatch, InvalidJsonRpc
from acptrace.model.domain import Direction, JsonId, Message, Stamp, WindowEnd


class BatchesSent(msgspec.Struct, frozen=True):
    """The batch arrays with members on one connection (TR-BATCH, once per connection)."""

    first_line: int
    """The first one."""
    count: int
    """How many there were."""
    messages: int
    """How many messages they held in all."""


class OrphanResponse(msgspec.Struct, frozen=True):
    """A response whose id matches no pending request from the other side."""

    message: Message


class DuplicateRequestId(msgspec.Struct, frozen=True):
    """A request id reused by the same side while the first request with it is pending."""

    message: Message
    first_line: int


class Unanswered(msgspec.Struct, frozen=True):
    """A request with no response at the (recorded or assumed) connection end."""

    request: Message
    cancelled: bool


class CancelledAnswered(msgspec.Struct, frozen=True):
    """A request cancelled with `$/cancel_request` that got a response."""

    request: Message
    response: Message


class ConcurrentResume(msgspec.Struct, frozen=True):
    """A replaying resume of a session sent while another replaying resume of it is pending,
    or a `session/load` while another load of it is pending (rules.md §4, §10)."""

    request: Message
    pending_request: Message


class Misplacement(StrEnum):
    """Why a marker belongs to no replay window."""

    WITHOUT_CURSOR = "without_cursor"
    AFTER_RESPONSE = "after_response"
    UNSOLICITED = "unsolicited"
    BEFORE_ANNOUNCE = "before_announce"


class AnsweredResume(msgspec.Struct, frozen=True):
    """A replaying resume that got its response: where a late marker should have come."""

    request_id: JsonId
    """The resume's id."""
    session_id: str
    """The session the resume named (a child's parent tree starts there)."""
    response_line: int
    """Its response."""


class MisplacedMarker(msgspec.Struct, frozen=True):
    """A marker outside the place the RFD allows for it."""

    message: Message
    placement: Misplacement
    request_id: JsonId = None
    answered: AnsweredResume | None = None
    """For a marker after the response: the resume it came too late for."""


class WindowClosed(msgspec.Struct, frozen=True):
    """A replay window (or a non-replaying resume's window) ended."""

    window: Window
    end: WindowEnd
    response: Stamp | None
    error_code: int | None


class PromptState(StrEnum):
    """What the transcript shows of a session when a prompt for it was sent."""

    ACTIVE = "active"
    RESUME_PENDING = "resume_pending"
    INACTIVE = "inactive"
    NEVER_ACTIVATED = "never_activated"
    UNSEEN = "unseen"


class PromptAnswered(msgspec.Struct, frozen=True):
    """A `session/prompt` got its response."""

    request: Message
    response: Message
    state: PromptState
    why_inactive: str


class UnknownSessionTraffic(msgspec.Struct, frozen=True):
    """Updates for a session while it was not Known (reported once per session)."""

    session_id: str
    first_line: int
    count: int
    start_seen: bool
    """The transcript starts at `initialize` (else it cannot tell what was named)."""
    last_line: int
    """The last such update."""
    named_line: int | None = None
    """The later line that named the session (a `session/new` response, …), if one did."""
    named_by: str | None = None
    """What named it there (`session/new`, `session/list`, …)."""


class UnidentifiedMessages(msgspec.Struct, frozen=True):
    """A session's message updates without a string `messageId` (LC-NO-MESSAGE-ID: reported once
    per session, judged on ACP v2 only)."""

    session_id: str
    first_line: int
    count: int
    in_replay: int
    """How many came while a replay of the session was pending."""


class ChildTrafficBeforeAnnounce(msgspec.Struct, frozen=True):
    """Messages bearing a child's session ID while it was not Known, before its announcement."""

    session_id: str
    line: int
    """The first such message."""
    announce_line: int
    total: int
    """How many messages bore the ID before the announcement."""
    start_seen: bool
    """The transcript starts at `initialize` (else it cannot tell what was Known)."""


class WrongDirection(msgspec.Struct, frozen=True):
    """A request or notification of a method with one known direction, sent by the other side."""

    message: Message
    expected: Direction
    """The direction the method travels."""
    count: int = 1
    """How many such messages on consecutive lines from `message`'s (a run of updates)."""


class UnadvertisedUse(msgspec.Struct, frozen=True):
    """A method the Client used that the `initialize` result did not advertise (rules.md §4b),
    at its first use, with how often it was used."""

    first: Message
    """The first request or notification of the method."""
    count: int
    """How many there were."""
    capability: str
    """The capability it needs, as rules.md §4b writes it (`capabilities.session.fork`,
    `loadSession`, a child's `capabilities.cancel` …: `correlate.capabilities.path`)."""
    v1_load: bool
    """A v1 `session/load` (the v1 docs' MUST NOT: an error, not a warning)."""


class NotHonoured(msgspec.Struct, frozen=True):
    """Requests of an advertised method answered `-32601` (method not found): the first, and
    how many there were (reported once per method, rules.md §11)."""

    request: Message
    response: Message
    capability: str
    """The capability that advertised it (written as `UnadvertisedUse.capability` is)."""
    count: int = 1
    """How many requests of the method were answered so."""


Observation = (
    InvalidJsonRpc
    | EmptyBatch
    | BatchesSent
    | OrphanResponse
    | DuplicateRequestId
    | Unanswered
    | CancelledAnswered
    | ConcurrentResume
    | MisplacedMarker
    | WindowClosed
    | PromptAnswered
    | UnknownSessionTraffic
    | UnidentifiedMessages
    | ChildTrafficBeforeAnnounce
    | WrongDirection
    | UnadvertisedUse
    | NotHonoured
)
"""Everything rules can observe."""
