"""What a replay window has seen so far: the window, and one track per session it follows."""

from __future__ import annotations

from collections.abc import Iterator

import msgspec

from acptrace.model.domain import JsonId, Message, Stamp, Tally, UpdateRun, add_tally


class Track(msgspec.Struct, eq=False):
    """One session's progress inside a window: the requested session or an announced child."""

    session_id: str
    """The session followed."""
    replaying: bool
    """Whether its updates count as replayed history until a marker (a replay or a load)."""
    active_at_request: bool
    """The session was active when the request was sent (RC-INFLIGHT demotion)."""
    parent_id: str | None = None
    """For a child: the session whose `subagent_update` announced it."""
    announce: Stamp | None = None
    """For a child: its announcement."""
    markers: list[Stamp] = msgspec.field(default_factory=list)
    """Every marker for the session in the window, in order."""
    first_update: Stamp | None = None
    """The first update for the session in the window (a marker included)."""
    replayed: int = 0
    """Updates before the marker."""
    held: int = 0
    """Updates after the marker (every update, when not replaying)."""
    live_before_marker: list[tuple[int, str]] = msgspec.field(default_factory=list)
    """(line, tag) of never-history updates before the first marker."""
    requests_before_marker: list[tuple[int, str, JsonId]] = msgspec.field(default_factory=list)
    """(line, method, id) of Agent requests naming the session before the first marker."""
    snapshot_after_marker: bool = False
    """A `state_update` came after the first marker."""
    snapshot_seen: bool = False
    """A `state_update` came at all."""
    early: set[int] = msgspec.field(default_factory=set)
    """Where in `markers` a child's markers came before its announcement in the window
    (RC-CHILD-BEFORE-ANNOUNCE): counted in `marker_count`, not towards RC-CHILD-DUPLICATE."""
    judged_elsewhere: set[int] = msgspec.field(default_factory=set)
    """Where in `markers` a child's markers came while the Client's own replaying resume of
    the child was pending: that resume judges them (RC-DUPLICATE, not RC-CHILD-DUPLICATE)."""
    replay_at: Stamp | None = None
    """The replay's last message so far: the request (a child's announcement), then each
    update before the marker (idle-timer verdicts)."""
    pauses: list[tuple[int, int]] = msgspec.field(default_factory=list)
    """(gap_ns, updates replayed before it) of each silence in the replay wider than any before."""
    unasked: Tally | None = None
    """For a resume that asked for no replay: the user's messages it carried while no prompt
    of the session was pending (RC-REPLAY-WITHOUT-CURSOR)."""

    def __post_init__(self) -> None:
        if self.replay_at is None:
            self.replay_at = self.announce

    @property
    def measuring(self) -> bool:
        """The silences between its updates are measured (`record_updates`): it replays, and
        no marker came yet."""
        return self.replaying and not self.markers

    def record_updates(self, run: UpdateRun) -> None:
        """Count a run of non-marker updates for this session."""
        if self.first_update is None:
            self.first_update = Stamp.of(run.first)
        self.snapshot_seen = self.snapshot_seen or run.snapshot
        if not self.measuring:
            self.held += run.count
            if self.markers:
                self.snapshot_after_marker = self.snapshot_after_marker or run.snapshot
            return
        self._pause_before(Stamp.of(run.first))
        for line, gap in run.pauses:  # (the run's lines are consecutive)
            _widen(self.pauses, gap, self.replayed + line - run.first.line)
        self.replay_at = run.end
        self.replayed += run.count
        self.live_before_marker.extend(run.live)

    def pass_over(self, run: UpdateRun) -> None:
        """Updates for this session that belong to no one window (an overlap of two replays,
        rules.md §11): counted nowhere, but the replay was not silent while they came, and a
        `state_update` among them may have been this window's (RC-NO-SNAPSHOT gives it the
        benefit of the doubt)."""
        if self.replaying and not self.markers:
            self.replay_at = run.end
        self.snapshot_seen = self.snapshot_seen or run.snapshot
        if self.markers:
            self.snapshot_after_marker = self.snapshot_after_marker or run.snapshot

    def record_unasked(self, users: Tally) -> None:
        """User's messages in the window of a resume that asked for no replay."""
        self.unasked = add_tally(self.unasked, users)

    def record_marker(self, message: Message) -> None:
        """Count a marker for this session."""
        stamp = Stamp.of(message)
        if self.first_update is None:
            self.first_update = stamp
        if self.replaying and not self.markers:
            self._pause_before(stamp)
        self.markers.append(stamp)

    def record_early_marker(self, message: Message) -> None:
        """Count a child's marker that came before its announcement in the window: it counts
        in `marker_count` and ends the replay, but measures no pause (it came first)."""
        stamp = Stamp.of(message)
        if self.first_update is None:
            self.first_update = stamp
        self.early.add(len(self.markers))
        self.markers.append(stamp)

    def first_marker(self) -> Stamp | None:
        """The marker the latencies run to: the first after the announcement (else any)."""
        for position, stamp in enumerate(self.markers):
            if position not in self.early:
                return stamp
        return self.markers[0] if self.markers else None

    def counted_markers(self) -> list[Stamp]:
        """A child's markers that count towards RC-CHILD-DUPLICATE (all but early ones and
        those a Client's own resume of the child judges)."""
        uncounted = self.early | self.judged_elsewhere
        return [stamp for n, stamp in enumerate(self.markers) if n not in uncounted]

    def replay_pauses(
        self, response: Stamp | None, overlapped: bool = False
    ) -> list[tuple[int, int]]:
        """(gap_ns, updates replayed before it) of each silence of the replay wider than any
        before, up to the marker, or up to `response` (the window's end) without one; none for
        an `overlapped` replay (`Window.ambiguous`) that has no update of its own."""
        if not self.replaying or (overlapped and not self.replayed and not self.markers):
            return []  # (an overlapped replay with nothing of its own has no silence of its own)
        pauses = list(self.pauses)
        if not self.markers and response is not None and self.replay_at is not None:
            _widen(pauses, self.replay_at.ns_until(response), self.replayed)
        return pauses

    def _pause_before(self, stamp: Stamp) -> None:
        """Measure the silence between the replay's last message and this one."""
        if self.replay_at is not None:
            _widen(self.pauses, self.replay_at.ns_until(stamp), self.replayed)
        self.replay_at = stamp

    def record_request(self, message: Message) -> None:
        """Note an Agent request naming this session, if it came before the marker."""
        if self.replaying and not self.markers:
            self.requests_before_marker.append((message.line, message.method or "", message.id))


def _widen(pauses: list[tuple[int, int]], gap_ns: int | None, replayed_before: int) -> None:
    """Add the silence to `pauses` when it is wider than every one there."""
    if gap_ns is not None and gap_ns > (pauses[-1][0] if pauses else -1):
        pauses.append((gap_ns, replayed_before))


class Window(msgspec.Struct, eq=False):
    """One resume or load request and what the transcript shows until it ended."""

    request: Message
    """The `session/resume` or `session/load` request."""
    session_id: str
    """The session the request names."""
    replaying: bool
    """A replay window: a v2 `session/resume` with a non-null `replayFrom` (never a load)."""
    requested: Track
    """The requested session's track."""
    children: dict[str, Track] = msgspec.field(default_factory=dict)
    """Children announced in the window, in order of announcement."""
    ambiguous: bool = False
    """An update for the session (a marker included) came while another replay of it (a load or
    a replaying resume) was pending too: that update belongs to neither (rules.md §11)."""
    cancelled: bool = False
    """The Client cancelled it with `$/cancel_request`."""

    @property
    def method(self) -> str:
        """`session/resume` or `session/load`."""
        return self.request.method or ""

    @property
    def replays(self) -> bool:
        """The request asks for history: a replaying resume or a load (they may overlap)."""
        return self.requested.replaying

    @property
    def asks_for_no_replay(self) -> bool:
        """A `session/resume` without a cursor (or on v1): it MUST NOT replay (§11)."""
        return self.method == "session/resume" and not self.replaying

    def tracks(self) -> Iterator[Track]:
        """The requested session's track, then each child's."""
        yield self.requested
        yield from self.children.values()
