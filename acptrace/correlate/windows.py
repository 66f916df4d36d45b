"""Replay windows: from each `session/resume` / `session/load` to its response or the end.

A window follows the requested session and every child announced in it (at any depth): where
each session's marker falls, what came before and after it, and what the Agent asked meanwhile.
Children are announced per replay window (rules.md §3): a parent's replayed `subagent_update`
announces its child again in each window that replays it, and a marker counts for every open
window whose tree holds its session. Markers that fit no window are reported as misplaced.
Memory holds open windows, and the sessions they and earlier answered resumes named.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

import msgspec

from acptrace.correlate.observations import (
    AnsweredResume,
    ConcurrentResume,
    MisplacedMarker,
    Misplacement,
    Observation,
    WindowClosed,
)
from acptrace.correlate.tracks import Track, Window
from acptrace.model.domain import Message, Stamp, UpdateRun, WindowEnd
from acptrace.model.tags import ANNOUNCE_TAG, TagClass, TagPolicy

REPLAYING_METHODS = frozenset({"session/resume", "session/load"})
"""Requests that open a window."""


class WindowBook(msgspec.Struct):
    """Every open window, the children they announced, and markers waiting for an owner."""

    policy: TagPolicy
    """Which tags are history and which one is the marker."""
    emit: Callable[[Observation], None]
    """Where observations go."""
    is_active: Callable[[str], bool]
    """Whether the transcript shows a session active right now."""
    prompt_pending: Callable[[str], bool]
    """Whether a `session/prompt` of a session is pending right now."""
    by_session: dict[str, list[Window]] = msgspec.field(default_factory=dict)
    """Open windows by the session their request names."""
    child_tracks: dict[str, list[tuple[Window, Track]]] = msgspec.field(default_factory=dict)
    """Open replay windows whose tree holds a child, with the track following it there."""
    ever_announced: set[str] = msgspec.field(default_factory=set)
    """Every session some `subagent_update` named on the connection."""
    answered: dict[str, AnsweredResume] = msgspec.field(default_factory=dict)
    """The latest answered replaying resume whose tree held each session (RC-AFTER-RESPONSE)."""
    seen_markers: dict[str, list[Message]] = msgspec.field(default_factory=dict)
    """Markers since a window opened: a later announcement in it makes them early."""
    unclaimed: dict[str, list[Message]] = msgspec.field(default_factory=dict)
    """Markers that fit no window yet: a later announcement may still claim them."""

    def open(self, request: Message, session_id: str, *, v1: bool = False) -> Window:
        """Start following a resume or load request.

        Only a v2 `session/resume` with `replayFrom` opens a replay window (markers, children);
        a `session/load` (either version) is counted like one but owes no marker (rules.md).
        """
        is_load = request.method == "session/load"
        replaying = not is_load and request.replay_from is not None and not v1
        track = Track(
            session_id,
            replaying or is_load,
            self.is_active(session_id),
            replay_at=Stamp.of(request),
        )
        window = Window(request, session_id, replaying, track)
        siblings = self.by_session.setdefault(session_id, [])
        if window.replays:
            earlier = next((other for other in siblings if other.replays), None)
            if earlier is not None:  # (once per later request, rules.md §11)
                self.emit(ConcurrentResume(request, earlier.request))
        siblings.append(window)
        return window

    def on_update(self, message: Message) -> UpdateRun | None:
        """Follow one `session/update` into every window it concerns: as a run of one (which
        it returns), or a marker (None)."""
        session_id = message.session_id
        assert session_id is not None
        tag = message.update_tag or ""
        if tag == self.policy.marker_tag:
            self._place_marker(message, session_id)
            return None
        live = ((message.line, tag),) if self.policy.classify(tag) is TagClass.LIVE else ()
        run = UpdateRun.single(message, live)
        self.on_run(run)
        if tag == ANNOUNCE_TAG and message.update_session_id is not None:
            self._announce(message, session_id, message.update_session_id)
        return run

    def on_run(self, run: UpdateRun) -> None:
        """Follow updates that are no marker into every window their session's track is in
        (a run of them, or one: `on_update`); an announcement is `on_update`'s to make."""
        session_id = run.first.session_id
        assert session_id is not None
        windows = self.by_session.get(session_id, ())
        overlap = len(windows) > 1 and _overlap(windows)
        # (user messages while no prompt and no replay of the session is pending were replayed
        # by a resume that asked for none, RC-REPLAY-WITHOUT-CURSOR; beside a replay, they are
        # the replay's, as markers are, rules.md §4)
        unasked = run.users
        if unasked is not None and (
            self.prompt_pending(session_id) or any(w.replays for w in windows)
        ):
            unasked = None
        for window in windows:
            if overlap and window.replays:
                window.requested.pass_over(run)  # it belongs to neither (rules.md §10, §11)
                continue
            window.requested.record_updates(run)
            if unasked is not None and window.asks_for_no_replay:
                window.requested.record_unasked(unasked)
        for _, track in self.child_tracks.get(session_id, ()):
            track.record_updates(run)

    def measuring(self, session_id: str) -> bool:
        """Whether a track the session's updates go to (`on_run`) measures their silences
        (`Track.measuring`): only then must a run of them measure them (`Watch.PAUSES`)."""
        for window in self.by_session.get(session_id, ()):  # (asked as each run begins: loops)
            if window.requested.measuring:
                return True
        children = self.child_tracks.get(session_id)
        return children is not None and any(track.measuring for _, track in children)

    def replaying(self, session_id: str) -> bool:
        """Whether updates for the session now are replayed history: a replay of it (a load, a
        replaying resume) is pending, or of a parent that announced it."""
        windows = self.by_session.get(session_id, ())
        return any(w.replays for w in windows) or session_id in self.child_tracks

    def on_agent_request(self, message: Message) -> None:
        """Note an Agent request that names a requested session (RC-REQUEST-BEFORE-MARKER)."""
        session_id = message.session_id
        assert session_id is not None
        for window in self.by_session.get(session_id, ()):
            window.requested.record_request(message)

    def close(self, window: Window, end: WindowEnd, response: Message | None) -> None:
        """End a window at its response (or at the end of the connection)."""
        siblings = self.by_session.get(window.session_id, [])
        if window in siblings:
            siblings.remove(window)
        if not siblings:
            self.by_session.pop(window.session_id, None)
        for child in window.children:
            self._drop_child_track(child, window)
        if window.replaying and response is not None:
            answered = AnsweredResume(window.request.id, window.session_id, response.line)
            self.answered[window.session_id] = answered
            for child in window.children:
                self.answered[child] = answered
        error_code = response.error_code if response is not None else None
        stamp = Stamp.of(response) if response is not None else None
        self.emit(WindowClosed(window, end, stamp, error_code))
        if not self.by_session:
            self._flush_unclaimed()

    def finish(self, end: WindowEnd) -> None:
        """Close every window still open when the transcript ends: replays of one session
        still overlapping at an unknown end are ambiguous (rules.md §11)."""
        for windows in list(self.by_session.values()):
            if end is WindowEnd.TRACE_END and len(windows) > 1:
                _overlap(windows)
            for window in list(windows):
                self.close(window, end, None)
        self._flush_unclaimed()

    def _place_marker(self, message: Message, session_id: str) -> None:
        """Give a marker to every window it belongs to, or report where it should not be
        (a `session/load` window is none: a marker there belongs to no window)."""
        pending = self.by_session.get(session_id, ())
        overlap = len(pending) > 1 and _overlap(pending)  # (it belongs to neither, §11)
        windows = [] if overlap else [w for w in pending if w.method != "session/load"]
        replaying = [w for w in windows if w.replaying]
        for window in replaying:
            window.requested.record_marker(message)
        holders = self.child_tracks.get(session_id, ())
        for _, track in holders:
            if replaying:  # the Client's own resume of the child judges its duplicates
                track.judged_elsewhere.add(len(track.markers))
            track.record_marker(message)
        if self.by_session:
            self.seen_markers.setdefault(session_id, []).append(message)
        if replaying or holders or overlap:
            return
        if windows:
            windows[0].requested.record_marker(message)
            placement, request_id = Misplacement.WITHOUT_CURSOR, windows[0].request.id
            self.emit(MisplacedMarker(message, placement, request_id))
        elif (answered := self.answered.get(session_id)) is not None:
            placement = Misplacement.AFTER_RESPONSE
            self.emit(MisplacedMarker(message, placement, answered.request_id, answered))
        elif self.by_session:
            self.unclaimed.setdefault(session_id, []).append(message)
        else:
            self.emit(MisplacedMarker(message, Misplacement.UNSOLICITED))

    def _announce(self, message: Message, parent_id: str, child_id: str) -> None:
        """A `subagent_update` on a session: it announces the child in every open replay window
        whose tree holds the parent, where it is the parent's replayed history (before the
        parent's marker there) or the first one for the child on the connection."""
        first_ever = child_id not in self.ever_announced
        self.ever_announced.add(child_id)
        for window, parent in self._replaying_tracks_of(parent_id):
            if child_id in window.children or child_id == window.session_id:
                continue
            if parent.markers and not first_ever:
                continue  # a live metadata patch after the parent's marker
            track = Track(
                child_id,
                replaying=True,
                active_at_request=self.is_active(child_id),
                parent_id=parent_id,
                announce=Stamp.of(message),
            )
            window.children[child_id] = track
            self.child_tracks.setdefault(child_id, []).append((window, track))
            self._claim_early_markers(window, track)

    def _claim_early_markers(self, window: Window, track: Track) -> None:
        """Markers for a child that came in the window before its announcement there."""
        unclaimed = self.unclaimed.get(track.session_id, [])
        for early in self.seen_markers.get(track.session_id, ()):
            if early.line < window.request.line:
                continue
            track.record_early_marker(early)
            placement = Misplacement.BEFORE_ANNOUNCE
            self.emit(MisplacedMarker(early, placement, window.request.id))
            unclaimed[:] = [marker for marker in unclaimed if marker is not early]

    def _replaying_tracks_of(self, session_id: str) -> list[tuple[Window, Track]]:
        """Each open replay window whose tree holds the session, with the session's track."""
        found = [(w, w.requested) for w in self.by_session.get(session_id, ()) if w.replaying]
        found.extend(self.child_tracks.get(session_id, ()))
        return found

    def _drop_child_track(self, child_id: str, window: Window) -> None:
        """Stop following a child in a window that closed."""
        holders = [pair for pair in self.child_tracks.get(child_id, ()) if pair[0] is not window]
        if holders:
            self.child_tracks[child_id] = holders
        else:
            self.child_tracks.pop(child_id, None)

    def _flush_unclaimed(self) -> None:
        """Markers no window can claim any more are unsolicited."""
        for markers in self.unclaimed.values():
            for marker in markers:
                self.emit(MisplacedMarker(marker, Misplacement.UNSOLICITED))
        self.unclaimed.clear()
        self.seen_markers.clear()


def _overlap(windows: Iterable[Window]) -> bool:
    """Whether more than one of a session's pending windows is a replay (a load or a replaying
    resume, rules.md §11): an update for the session now belongs to neither, and each becomes
    `ambiguous`."""
    replays = [w for w in windows if w.replays]
    if len(replays) < 2:
        return False
    for window in replays:
        window.ambiguous = True
    return True
