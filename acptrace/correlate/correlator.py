"""One pass over the messages: pair requests with responses, follow sessions and replay windows.

The correlator keeps only what is still open (pending requests, open windows, sessions) and
reports what it sees as observations; rules judge them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec

from acptrace.correlate.capabilities import CapabilityBook
from acptrace.correlate.observations import (
    BatchesSent,
    CancelledAnswered,
    DuplicateRequestId,
    Observation,
    OrphanResponse,
    PromptAnswered,
    Unanswered,
    WrongDirection,
)
from acptrace.correlate.pairing import Pending, PendingTable
from acptrace.correlate.protocol import Evidence
from acptrace.correlate.sessions import SessionBook
from acptrace.correlate.turns import TurnBook
from acptrace.correlate.windows import REPLAYING_METHODS, WindowBook
from acptrace.decode.directions import wrong_direction
from acptrace.decode.malformed import Batch
from acptrace.model.domain import (
    A2C,
    NOTIFICATION,
    REQUEST,
    RESPONSE,
    UNKNOWN_DIRECTION,
    ConnectionEnd,
    Direction,
    Issue,
    IssueKind,
    Message,
    PeerInfo,
    ProtocolSource,
    Tally,
    UpdateRun,
    WindowEnd,
)
from acptrace.model.tags import ANNOUNCE_TAG, TagPolicy
from acptrace.model.turns import PERMISSION_METHOD, Watch

CREATING_METHODS = frozenset({"session/new", "session/fork"})
"""Requests whose result creates a session (Known and Active)."""

KNOWN_PROTOCOL = 2
"""The newest ACP version this analyzer knows; a higher one is judged as it (rules.md §7)."""

SESSION_NOT_ACTIVE = -32002
"""The error code of an inactive session; an answer to `session/close` with it ends the session."""


class Step(msgspec.Struct, frozen=True, gc=False):
    """One message as the correlator understood it: a response knows its request (a Struct:
    one is made for every message a view follows, eight times faster than a dataclass)."""

    message: Message
    """The message (a response's direction resolved from its request)."""
    request: Message | None = None
    """For a response: the request it answers (None for an orphan)."""
    payload: Any = None
    """The message's JSON object as recorded (for views that show it; the analysis never does)."""


class ProtocolVerdict(msgspec.Struct, frozen=True):
    """The protocol version the rules apply for, and what showed it (rules.md §7)."""

    version: int
    source: ProtocolSource
    reason: str
    """What showed it (`Connection.protocol_reason`)."""
    shown: bool = True
    """False: inferred for want of any evidence (`Connection.protocol_shown`)."""


class Correlator:
    """The state of one connection as the transcript unfolds (a plain class: a dataclass would
    compile its methods at import, ~0.7 ms of every run's start-up)."""

    __slots__ = (
        "agent",
        "agent_line",
        "batches",
        "capabilities",
        "child_rules",
        "client",
        "client_line",
        "emit",
        "evidence",
        "forced_protocol",
        "pending",
        "policy",
        "seen_message",
        "sessions",
        "turns",
        "windows",
    )

    def __init__(
        self,
        policy: TagPolicy,
        emit: Callable[[Observation], None],
        forced_protocol: int | None = None,
        child_rules: bool = True,
        report_version: int | None = None,
    ) -> None:
        """`report_version`: the protocol version an acp-tck report states for its tests."""
        self.policy = policy
        """Which tags are history and which one is the marker."""
        self.emit = emit
        """Where observations go."""
        self.forced_protocol = forced_protocol
        """The protocol version the user asked for (`--protocol`), if any."""
        self.child_rules = child_rules
        """The child rules are judged (else early traffic for a child is LC-UNKNOWN-SESSION)."""
        self.pending = PendingTable()
        """Requests waiting for a response."""
        self.sessions = SessionBook(emit, child_rules=child_rules)
        """Every session the connection named."""
        self.windows = WindowBook(
            policy, emit, self.sessions.is_active, self.sessions.prompt_pending
        )
        """Open replay windows."""
        self.capabilities = CapabilityBook(emit, self._version)
        """What `initialize` advertised, against what the Client uses."""
        self.turns = TurnBook(self.windows.replaying, self._version)
        """Turns, tool calls and permission requests (docs/turns.md)."""
        self.client: PeerInfo | None = None
        """What the Client said of itself in `initialize`."""
        self.agent: PeerInfo | None = None
        """What the Agent said of itself in its latest success `initialize` result."""
        self.client_line = 0
        """The line of the latest `initialize` request."""
        self.agent_line = 0
        """The line of the latest success `initialize` response."""
        self.seen_message = False
        """Any message was seen yet."""
        self.evidence = Evidence(report_version=report_version)
        """What the transcript shows of its version, where it has no `initialize` (§7)."""
        self.batches: BatchesSent | None = None
        """The batch arrays so far (TR-BATCH is reported once, at the end)."""

    def on_message(self, message: Message, payload: Any = None) -> Step:
        """Follow one message (`payload`, its JSON object, is only passed on in the step)."""
        if not self.seen_message:
            self.seen_message = True
            if message.method == "initialize" and message.kind is REQUEST:
                self.sessions.start_seen = True
        if self.client is None and self.agent is None:  # (the version may be inferred)
            self.evidence.message(message)
        kind = message.kind
        if kind is REQUEST:
            self._request(message)
        elif kind is NOTIFICATION:
            self._notification(message)
        elif kind is RESPONSE:
            return self._response(message, payload)
        return Step(message, payload=payload)

    def watch(self, session_id: str) -> int:
        """What the next updates of the session must tell (`Watch`), asked as a run of them
        begins: the turn book's needs, and their silences where a replay measures them."""
        watch = self.turns.watch(session_id)
        return watch | Watch.PAUSES if self.windows.measuring(session_id) else watch

    def on_run(self, run: UpdateRun) -> None:
        """Follow a run of plain updates as `on_message` would follow each of them."""
        first = run.first
        self.seen_message = True  # (a run never starts with `initialize`)
        assert first.session_id is not None
        if self.client is None and self.agent is None:  # (the version may be inferred)
            for line, tag in run.evidence:
                self.evidence.tag(line, tag)
        expected = wrong_direction(first.method, first.direction)
        if expected is not None:
            self.emit(WrongDirection(first, expected, run.count))
            return
        self.sessions.bear(first, count=run.count)
        self._note_message_ids(first.session_id, run.unidentified)
        self.windows.on_run(run)
        self.turns.on_updates(run)

    def on_batch(self, batch: Batch) -> None:
        """A batch array with members (its messages follow, one by one)."""
        seen = self.batches
        if seen is None:
            self.batches = BatchesSent(batch.line, 1, batch.size)
        else:
            self.batches = BatchesSent(seen.first_line, seen.count + 1, seen.messages + batch.size)

    def finish(self, end: ConnectionEnd) -> tuple[Message, ...]:
        """The connection ended; judge what is still open. Returns the requests left pending."""
        pending_at_end = tuple(self.pending.remaining())
        if end is not ConnectionEnd.UNKNOWN:
            for pending in pending_at_end:
                self.emit(Unanswered(pending.request, pending.cancelled))
        known = end is not ConnectionEnd.UNKNOWN
        self.windows.finish(WindowEnd.DISCONNECT if known else WindowEnd.TRACE_END)
        self.turns.finish(end)
        self.sessions.finish()
        self.capabilities.finish()
        if self.batches is not None:
            self.emit(self.batches)
        return tuple(pending.request for pending in pending_at_end)

    def _version(self) -> int:
        """The protocol version the rules apply for, as far as the transcript has gone (what
        `protocol` says, without saying why: asked at every turn's end)."""
        if self.forced_protocol is not None:
            return self.forced_protocol
        negotiated = self._negotiated()
        if negotiated is not None:
            return negotiated[0]
        return self.evidence.version()

    def _known_v1(self) -> bool:
        """The connection is known to be ACP v1 so far (by option or by `initialize`)."""
        if self.forced_protocol is not None:
            return self.forced_protocol < 2
        negotiated = self._negotiated()
        return negotiated is not None and negotiated[0] < 2

    def protocol(self, forced: int | None) -> ProtocolVerdict:
        """The protocol version the rules apply for, where it came from and why (rules.md §7)."""
        if forced is not None:
            return ProtocolVerdict(forced, ProtocolSource.OPTION, "--protocol")
        negotiated = self._negotiated()
        if negotiated is not None:
            version, source = negotiated
            if source is ProtocolSource.INITIALIZE:
                why = f"the initialize result's protocolVersion (line {self.agent_line})"
            else:
                why = (
                    f"the initialize request's protocolVersion (line {self.client_line}): no "
                    "success response names one"
                )
            return ProtocolVerdict(version, source, why)
        version, why, shown = self.evidence.inferred()
        return ProtocolVerdict(version, ProtocolSource.INFERRED, why, shown)

    def version_issue(self, forced: int | None) -> Issue | None:
        """An `unknown_protocol_version` issue when `initialize` gave a version above 2 (§7)."""
        negotiated = self._negotiated() if forced is None else None
        if negotiated is None or negotiated[0] <= KNOWN_PROTOCOL:
            return None
        version, source = negotiated
        line = self.agent_line if source is ProtocolSource.INITIALIZE else self.client_line
        return Issue(
            line,
            IssueKind.UNKNOWN_PROTOCOL_VERSION,
            f"protocolVersion {version} is newer than ACP v{KNOWN_PROTOCOL}: judged as v2",
        )

    def negotiated_version(self, forced: int | None) -> int | None:
        """The version `protocol` gives once forced or negotiated (by `initialize`), without
        saying why; None while it is only inferred (a cheap question, asked per message)."""
        if forced is not None:
            return forced
        negotiated = self._negotiated()
        return None if negotiated is None else negotiated[0]

    def _negotiated(self) -> tuple[int, ProtocolSource] | None:
        """The version of the latest success response to `initialize`, else of the request."""
        if self.agent is not None and self.agent.protocol_version is not None:
            return self.agent.protocol_version, ProtocolSource.INITIALIZE
        if self.client is not None and self.client.protocol_version is not None:
            return self.client.protocol_version, ProtocolSource.INITIALIZE_REQUEST
        return None

    def _request(self, message: Message) -> None:
        expected = wrong_direction(message.method, message.direction)
        pending = Pending(message, judged=expected is None)
        if message.id is not None:  # (a request with an invalid id, JR-INVALID, is never pending)
            earlier = self.pending.add(pending)
            if earlier is not None:
                self.emit(DuplicateRequestId(message, earlier.request.line))
        if expected is not None:
            self.emit(WrongDirection(message, expected))
            return
        method = message.method
        session_id = message.session_id
        self.capabilities.used(message)
        if method == "initialize":
            self.client, self.client_line = message.peer, message.line
        if session_id is None:
            return
        if method in REPLAYING_METHODS:
            self.sessions.resume_sent(session_id, method or "", message.line)
            pending.window = self.windows.open(message, session_id, v1=self._known_v1())
            self.turns.replay_opened(session_id)
            return
        self.sessions.bear(message)
        if method == "session/prompt":
            pending.prompt_state = self.sessions.prompt_state(session_id)
            self.sessions.prompt_sent(session_id)
            self.turns.prompt(message)
        if message.direction is A2C:
            self.windows.on_agent_request(message)
            if method == PERMISSION_METHOD:
                self.turns.permission_asked(message)

    def _notification(self, message: Message) -> None:
        expected = wrong_direction(message.method, message.direction)
        if expected is not None:
            self.emit(WrongDirection(message, expected))
            return
        session_id = message.session_id
        self.capabilities.used(message)
        if message.method == "$/cancel_request":
            self._cancel(message)
        elif message.method == "session/update" and session_id is not None:
            self.sessions.bear(message, is_marker=message.update_tag == self.policy.marker_tag)
            run = self.windows.on_update(message)
            self._note_message_ids(session_id, run.unidentified if run is not None else None)
            self.turns.on_updates(run if run is not None else UpdateRun.single(message))
            child = message.update_session_id
            if message.update_tag == ANNOUNCE_TAG and child is not None:
                self.capabilities.announced(message)
                self.sessions.name(child, ANNOUNCE_TAG, message.line, parent_id=session_id)
        elif session_id is not None:
            self.sessions.bear(message)

    def _note_message_ids(self, session_id: str, unidentified: Tally | None) -> None:
        """Message updates without a `messageId` (LC-NO-MESSAGE-ID; judged on v2 only)."""
        if unidentified is not None:
            in_replay = self.windows.replaying(session_id)
            self.sessions.unidentified(session_id, unidentified, in_replay)

    def _cancel(self, message: Message) -> None:
        """A `$/cancel_request`: the requester names one of its own pending requests."""
        sides: tuple[Direction, ...]
        if message.direction is Direction.UNKNOWN:
            sides = (Direction.C2A, Direction.A2C, Direction.UNKNOWN)
        else:
            sides = (message.direction, Direction.UNKNOWN)
        pending = self.pending.find(message.cancel_target, sides)
        if pending is None or not pending.judged:
            return
        pending.cancelled = True
        if pending.window is not None:
            pending.window.cancelled = True

    def _response(self, message: Message, payload: Any) -> Step:
        if message.id is None:  # JR-INVALID, or an error for a request it could not identify
            return Step(message, payload=payload)
        pending = self.pending.take(message)
        if pending is None:
            self.emit(OrphanResponse(message))
            return Step(message, payload=payload)
        request = pending.request
        if message.direction is UNKNOWN_DIRECTION and request.direction is not UNKNOWN_DIRECTION:
            message = msgspec.structs.replace(message, direction=request.direction.opposite())
        if pending.cancelled:
            self.emit(CancelledAnswered(request, message))
        if pending.judged:
            self._answered(pending, message)
        return Step(message, request, payload)

    def _answered(self, pending: Pending, response: Message) -> None:
        """What a response means for the connection, by the method it answers."""
        request = pending.request
        success = not response.is_error
        method = request.method
        session_id = request.session_id
        self.capabilities.answered(request, response)
        self.turns.answered(request, response)
        if success and method == "initialize":
            self.capabilities.initialized(response)
        if pending.window is not None:
            window = pending.window
            self.sessions.resume_answered(window.session_id, window.method, success)
            end = WindowEnd.SUCCESS if success else WindowEnd.ERROR
            self.windows.close(window, end, response)
        elif method == "session/prompt" and pending.prompt_state is not None:
            state, why = pending.prompt_state
            assert session_id is not None  # (a prompt with a state named its session)
            self.sessions.prompt_answered(session_id)
            self.emit(PromptAnswered(request, response, state, why))
        elif method == "session/close" and session_id is not None:
            if success:
                self.sessions.ended(session_id, "it was closed", response.line)
            elif response.error_code == SESSION_NOT_ACTIVE:
                self.sessions.ended(session_id, "its close was answered -32002")
        elif not success:
            return
        elif method == "initialize":
            self.agent, self.agent_line = response.peer, response.line
        elif method in CREATING_METHODS and response.result_session_ids:
            self.sessions.created(response.result_session_ids[0], method or "", response.line)
        elif method == "session/list":
            for listed in response.result_session_ids:
                self.sessions.name(listed, "session/list", response.line)
        elif method == "session/archive" and session_id is not None:
            self.sessions.ended(session_id, "it was archived")
