"""Facts the correlator reports as it walks a transcript; rules turn them into findings.

Each observation is a small frozen record of something that happened (a response nobody asked
for, a window that closed, a marker nobody expected). The correlator decides *what happened*;
the rules in `acptrace.judge.rules` decide *whether it breaks the protocol*, and how badly.
The decoder's own facts (`acptrace.decode.malformed`) are observations too.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from acptrace.correlate.tracks import Window
from acptrace.decode.malformed import BatchedLifecycle, EmptyBatch, InvalidJsonRpc
from acptrace.model.domain import Direction, JsonId, Message, Stamp, WindowEnd


@dataclass(frozen=True, slots=True)
class OrphanResponse:
    """A response whose id matches no pending request from the other side."""

    message: Message


@dataclass(frozen=True, slots=True)
class DuplicateRequestId:
    """A request id reused by the same side while the first request with it is pending."""

    message: Message
    first_line: int


@dataclass(frozen=True, slots=True)
class Unanswered:
    """A request with no response at the (recorded or assumed) connection end."""

    request: Message
    cancelled: bool


@dataclass(frozen=True, slots=True)
class CancelledAnswered:
    """A request cancelled with `$/cancel_request` that got a response."""

    request: Message
    response: Message


@dataclass(frozen=True, slots=True)
class ConcurrentResume:
    """A replaying resume of a session sent while another replaying resume of it is pending."""

    request: Message
    pending_request: Message


class Misplacement(StrEnum):
    """Why a marker belongs to no replay window."""

    WITHOUT_CURSOR = "without_cursor"
    AFTER_RESPONSE = "after_response"
    UNSOLICITED = "unsolicited"
    BEFORE_ANNOUNCE = "before_announce"


@dataclass(frozen=True, slots=True)
class AnsweredResume:
    """A replaying resume that got its response: where a late marker should have come."""

    request_id: JsonId
    """The resume's id."""
    session_id: str
    """The session the resume named (a child's parent tree starts there)."""
    response_line: int
    """Its response."""


@dataclass(frozen=True, slots=True)
class MisplacedMarker:
    """A marker outside the place the RFD allows for it."""

    message: Message
    placement: Misplacement
    request_id: JsonId = None
    answered: AnsweredResume | None = None
    """For a marker after the response: the resume it came too late for."""


@dataclass(frozen=True, slots=True)
class WindowClosed:
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


@dataclass(frozen=True, slots=True)
class PromptAnswered:
    """A `session/prompt` got its response."""

    request: Message
    response: Message
    state: PromptState
    why_inactive: str


@dataclass(frozen=True, slots=True)
class UnknownSessionTraffic:
    """Updates for a session while it was not Known (reported once per session)."""

    session_id: str
    first_line: int
    count: int
    start_seen: bool
    """The transcript starts at `initialize` (else it cannot tell what was named)."""
    last_line: int
    """The last such update."""


@dataclass(frozen=True, slots=True)
class ChildTrafficBeforeAnnounce:
    """Messages bearing a child's session ID while it was not Known, before its announcement."""

    session_id: str
    line: int
    """The first such message."""
    announce_line: int
    total: int
    """How many messages bore the ID before the announcement."""
    start_seen: bool
    """The transcript starts at `initialize` (else it cannot tell what was Known)."""


@dataclass(frozen=True, slots=True)
class WrongDirection:
    """A request or notification of a method with one known direction, sent by the other side."""

    message: Message
    expected: Direction
    """The direction the method travels."""
    count: int = 1
    """How many such messages on consecutive lines from `message`'s (a run of updates)."""


@dataclass(frozen=True, slots=True)
class UnadvertisedUse:
    """A method the Client used that the `initialize` result did not advertise (rules.md §4b),
    at its first use, with how often it was used."""

    first: Message
    """The first request or notification of the method."""
    count: int
    """How many there were."""
    capability: str
    """The capability it needs (`session.fork`, `loadSession`, `cancel` of a child …)."""
    v1_load: bool
    """A v1 `session/load` (the v1 docs' MUST NOT: an error, not a warning)."""


@dataclass(frozen=True, slots=True)
class NotHonoured:
    """A request of an advertised method answered `-32601` (method not found)."""

    request: Message
    response: Message
    capability: str
    """The capability that advertised it."""


Observation = (
    InvalidJsonRpc
    | EmptyBatch
    | BatchedLifecycle
    | OrphanResponse
    | DuplicateRequestId
    | Unanswered
    | CancelledAnswered
    | ConcurrentResume
    | MisplacedMarker
    | WindowClosed
    | PromptAnswered
    | UnknownSessionTraffic
    | ChildTrafficBeforeAnnounce
    | WrongDirection
    | UnadvertisedUse
    | NotHonoured
)
"""Everything rules can observe."""
