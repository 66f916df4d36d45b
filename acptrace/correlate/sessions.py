"""Session lifecycle: which sessions the connection named, which are active, who their parent is.

Known and Active follow rules.md's notation. Known: named by a `session/new` or `session/fork`
result, a `session/resume` or `session/load` request, a `session/list` result or a child
announcement. Active: from a `session/new` or `session/fork` result or a successful resume/load,
until a successful `session/close`, a `-32002` answer to `session/close` or a successful
`session/archive`. Traffic for a session that is not Known yet is held per session until it is
named (a child's announcement makes it RC-CHILD-TRAFFIC-BEFORE-ANNOUNCE, anything else
LC-UNKNOWN-SESSION) or the transcript ends.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator

import msgspec

from acptrace.correlate.observations import (
    ChildTrafficBeforeAnnounce,
    Observation,
    PromptState,
    UnidentifiedMessages,
    UnknownSessionTraffic,
)
from acptrace.model.domain import Message, SessionInfo, Tally


class SessionRecord(msgspec.Struct, gc=False):
    """What is known of one session so far (kept for every session to the end: numbers and
    strings only, so not tracked by the garbage collector, 16 bytes less each)."""

    session_id: str
    first_line: int
    named_by: str
    parent_id: str | None = None
    updates: int = 0
    resumes: int = 0
    prompts: int = 0
    pending_resumes: int = 0
    pending_method: str = "session/resume"
    """The method of the latest resume or load sent."""
    active: bool = False
    inactive_reason: str | None = None
    closed_line: int | None = None

    def info(self) -> SessionInfo:
        """The public summary of this record."""
        return SessionInfo(
            session_id=self.session_id,
            parent_session_id=self.parent_id,
            first_line=self.first_line,
            named_by=self.named_by,
            updates=self.updates,
            resumes=self.resumes,
            prompts=self.prompts,
            active_at_end=self.active,
            closed_line=self.closed_line,
        )


class UnnamedTraffic(msgspec.Struct):
    """Messages bearing a session ID while the session is not Known."""

    first_line: int | None = None
    """The first of them (markers left out: a child's early marker is RC-CHILD-BEFORE-ANNOUNCE
    only)."""
    total: int = 0
    """How many messages bore the ID (markers left out)."""
    first_update_line: int | None = None
    """The first `session/update` among them."""
    last_update_line: int | None = None
    """The last `session/update` among them."""
    updates: int = 0
    """How many of them were `session/update`s."""

    def add(self, line: int, is_update: bool, is_marker: bool = False, count: int = 1) -> None:
        """Count one more message (or `count` of them, on consecutive lines from `line`)."""
        if not is_marker:
            self.total += count
            if self.first_line is None:
                self.first_line = line
        if is_update:
            self.updates += count
            self.last_update_line = line + count - 1
            if self.first_update_line is None:
                self.first_update_line = line

    def as_unknown(
        self, session_id: str, start_seen: bool, named: tuple[int, str] | None = None
    ) -> UnknownSessionTraffic | None:
        """The updates among this traffic as one observation (None without updates); `named`:
        the later line that named the session, and what named it there."""
        if self.first_update_line is None or self.last_update_line is None:
            return None
        named_line, named_by = named if named is not None else (None, None)
        return UnknownSessionTraffic(
            session_id,
            self.first_update_line,
            self.updates,
            start_seen,
            self.last_update_line,
            named_line,
            named_by,
        )


class SessionBook(msgspec.Struct):
    """Every session named on the connection, and traffic for sessions not named yet."""

    emit: Callable[[Observation], None]
    """Where observations go."""
    child_rules: bool = True
    """The child rules are judged: early traffic for a child is RC-CHILD-TRAFFIC-BEFORE-ANNOUNCE
    (else LC-UNKNOWN-SESSION, like any session that was not Known)."""
    records: dict[str, SessionRecord] = msgspec.field(default_factory=dict)
    """Named sessions, in order of first appearance."""
    unnamed: dict[str, UnnamedTraffic] = msgspec.field(default_factory=dict)
    """Messages bearing a session ID nothing has named yet."""
    start_seen: bool = False
    """The transcript starts at `initialize` (its first message is an `initialize` request)."""
    prompts: dict[str, int] = msgspec.field(default_factory=dict)
    """How many `session/prompt`s of each session are pending (none: absent)."""
    without_ids: dict[str, UnidentifiedMessages] = msgspec.field(default_factory=dict)
    """Each session's message updates without a `messageId` so far."""

    def name(
        self, session_id: str, by: str, line: int, parent_id: str | None = None
    ) -> SessionRecord:
        """Record that something on the connection named the session (first naming wins)."""
        record = self.records.get(session_id)
        if record is None:
            session_id = sys.intern(session_id)  # (the one string every message names it by)
            record = SessionRecord(session_id, line, by, parent_id)
            self.records[session_id] = record
            self._settle_unnamed(session_id, by, line)
        elif parent_id is not None and record.parent_id is None:
            record.parent_id = parent_id
        return record

    def bear(self, message: Message, is_marker: bool = False, count: int = 1) -> None:
        """A message that carries `params.sessionId` (or `count` alike on consecutive lines,
        from `message`'s: a run of updates)."""
        session_id = message.session_id
        assert session_id is not None
        is_update = message.method == "session/update"
        record = self.records.get(session_id)
        if record is None:
            traffic = self.unnamed.setdefault(session_id, UnnamedTraffic())
            traffic.add(message.line, is_update, is_marker, count)
            return
        if is_update:
            record.updates += count
        elif message.method == "session/prompt":
            record.prompts += count

    def prompt_sent(self, session_id: str) -> None:
        """A `session/prompt` of the session is pending."""
        self.prompts[session_id] = self.prompts.get(session_id, 0) + 1

    def prompt_answered(self, session_id: str) -> None:
        """A `session/prompt` of the session got its response."""
        left = self.prompts.get(session_id, 0) - 1
        if left > 0:
            self.prompts[session_id] = left
        else:
            self.prompts.pop(session_id, None)

    def prompt_pending(self, session_id: str) -> bool:
        """Whether a `session/prompt` of the session is pending."""
        return session_id in self.prompts

    def unidentified(self, session_id: str, found: Tally, in_replay: bool) -> None:
        """Message updates for the session without a `messageId` (`in_replay`: while a replay
        of it was pending)."""
        replayed = found.count if in_replay else 0
        earlier = self.without_ids.get(session_id)
        if earlier is None:
            self.without_ids[session_id] = UnidentifiedMessages(
                session_id, found.first_line, found.count, replayed
            )
        else:
            self.without_ids[session_id] = UnidentifiedMessages(
                session_id, earlier.first_line, earlier.count + found.count,
                earlier.in_replay + replayed,
            )  # fmt: skip

    def is_active(self, session_id: str) -> bool:
        """Whether the transcript shows the session active now."""
        record = self.records.get(session_id)
        return record is not None and record.active

    def prompt_state(self, session_id: str) -> tuple[PromptState, str]:
        """What the transcript shows of a session a prompt is sent for, and why it is inactive."""
        record = self.records.get(session_id)
        if record is not None and record.active:
            return PromptState.ACTIVE, ""
        if record is not None and record.pending_resumes:
            what = "load" if record.pending_method == "session/load" else "resume"
            return PromptState.RESUME_PENDING, f"its {what} is still pending"
        if record is not None and record.inactive_reason:
            return PromptState.INACTIVE, record.inactive_reason
        if self.start_seen:
            return PromptState.NEVER_ACTIVATED, "it was never activated on this connection"
        return PromptState.UNSEEN, ""

    def resume_sent(self, session_id: str, method: str, line: int) -> None:
        """A `session/resume` or `session/load` request for the session."""
        record = self.name(session_id, method, line)
        record.resumes += 1
        record.pending_resumes += 1
        record.pending_method = method

    def resume_answered(self, session_id: str, method: str, success: bool) -> None:
        """The response to a resume or load: success activates, failure leaves it inactive."""
        record = self.records[session_id]
        record.pending_resumes = max(0, record.pending_resumes - 1)
        if success:
            self._activate(record)
        elif not record.active:
            record.inactive_reason = f"its {method} failed"

    def created(self, session_id: str, method: str, line: int) -> None:
        """A `session/new` or `session/fork` result created the session."""
        self._activate(self.name(session_id, method, line))

    def ended(self, session_id: str, why: str, closed_line: int | None = None) -> None:
        """A close (success or `-32002`) or an archive ended the session (neither names one)."""
        record = self.records.get(session_id)
        if record is None:
            return
        record.active = False
        record.inactive_reason = why
        if closed_line is not None:
            record.closed_line = closed_line

    def finish(self) -> None:
        """Report traffic for sessions that were never named, and message updates without an
        id."""
        for session_id, traffic in self.unnamed.items():
            unknown = traffic.as_unknown(session_id, self.start_seen)
            if unknown is not None:
                self.emit(unknown)
        self.unnamed.clear()
        for unidentified in self.without_ids.values():
            self.emit(unidentified)
        self.without_ids.clear()

    def infos(self) -> Iterator[SessionInfo]:
        """The summary of every named session, in order of first appearance."""
        return (record.info() for record in self.records.values())

    def _activate(self, record: SessionRecord) -> None:
        record.active = True
        record.inactive_reason = None

    def _settle_unnamed(self, session_id: str, by: str, line: int) -> None:
        """Traffic held for a session that has just been named."""
        traffic = self.unnamed.pop(session_id, None)
        if traffic is None:
            return
        self.records[session_id].updates += traffic.updates
        if by == "subagent_update" and self.child_rules:
            if traffic.first_line is not None:
                self.emit(
                    ChildTrafficBeforeAnnounce(
                        session_id, traffic.first_line, line, traffic.total, self.start_seen
                    )
                )
        else:
            unknown = traffic.as_unknown(session_id, self.start_seen, (line, by))
            if unknown is not None:
                self.emit(unknown)
