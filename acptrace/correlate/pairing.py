"""Requests waiting for their responses, per direction, with JSON-RPC id semantics.

Ids `1` and `"1"` are different; a reused id waits in line behind the first (FIFO), so every
request is accounted for exactly once.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator
from typing import TYPE_CHECKING

import msgspec

from acptrace.correlate.observations import PromptState
from acptrace.model.domain import UNKNOWN_DIRECTION, Direction, JsonId, Message

if TYPE_CHECKING:
    from acptrace.correlate.tracks import Window

IdKey = str | int | tuple[str, JsonId]
"""A JSON-RPC id as a dict key: a string or an integer as it is (the two never compare equal),
anything else (a float, None) tagged, so that `1.0` does not meet `1`."""


def id_key(value: JsonId) -> IdKey:
    """A hashable key under which equal JSON-RPC ids (and only those) meet; nothing made for
    the ids of nearly every request, a string or an integer (a million may be pending)."""
    kind = type(value)
    if kind is str or kind is int:
        return value  # type: ignore[return-value]  # (checked just above)
    return ("z", None) if value is None else ("n", value)


class Pending(msgspec.Struct, eq=False):
    """A request that has not been answered yet."""

    request: Message
    """The request."""
    cancelled: bool = False
    """A `$/cancel_request` named it."""
    window: Window | None = None
    """The replay window it opened (resume and load)."""
    prompt_state: tuple[PromptState, str] | None = None
    """For `session/prompt`: what the transcript showed of the session when it was sent."""
    judged: bool = True
    """False when it went the wrong way: it is paired, but takes part in no RC, LC or CX rule."""


Waiting = Pending | deque[Pending]
"""The requests waiting under one id: the one alone (nearly always), else those that reused
it, oldest first. Held per pending request, so it is kept small: a `deque` for each, as it
was, took 600 bytes."""


class PendingTable(msgspec.Struct):
    """Pending requests by the direction they travelled and their id."""

    by_direction: dict[Direction, dict[IdKey, Waiting]] = msgspec.field(
        default_factory=lambda: {d: {} for d in Direction}
    )

    def add(self, pending: Pending) -> Pending | None:
        """Queue a request; returns the earlier pending request with the same id, if any."""
        waiting = self.by_direction[pending.request.direction]
        key = id_key(pending.request.id)
        earlier = waiting.get(key)
        if earlier is None:
            waiting[key] = pending
            return None
        if isinstance(earlier, deque):
            earlier.append(pending)
            return earlier[0]
        waiting[key] = deque((earlier, pending))
        return earlier

    def take(self, response: Message) -> Pending | None:
        """Remove and return the request a response answers; None for an orphan.

        A response with a known direction answers a request from the other side (or one whose
        direction is unknown); otherwise the most recent pending request with its id.
        """
        if response.direction is UNKNOWN_DIRECTION:
            sides = tuple(Direction)
        else:
            sides = (response.direction.opposite(), UNKNOWN_DIRECTION)
        return self._pop_latest(sides, id_key(response.id))

    def find(self, request_id: JsonId, sides: tuple[Direction, ...]) -> Pending | None:
        """The oldest pending request with this id travelling one of these ways."""
        key = id_key(request_id)
        for side in sides:
            waiting = self.by_direction[side].get(key)
            if waiting is not None:
                return waiting[0] if isinstance(waiting, deque) else waiting
        return None

    def remaining(self) -> Iterator[Pending]:
        """Every request still waiting, in the order they were sent."""
        everything = [
            p
            for waiting in self.by_direction.values()
            for entry in waiting.values()
            for p in (entry if isinstance(entry, deque) else (entry,))
        ]
        return iter(sorted(everything, key=lambda p: p.request.line))

    def _pop_latest(self, sides: tuple[Direction, ...], key: IdKey) -> Pending | None:
        """Pop the oldest request under this id, among these sides, of the side whose oldest
        was sent last."""
        best: Pending | None = None
        for side in sides:
            waiting = self.by_direction[side].get(key)
            head = waiting[0] if isinstance(waiting, deque) else waiting
            if head is not None and (best is None or head.request.line > best.request.line):
                best = head
        if best is None:
            return None
        table = self.by_direction[best.request.direction]
        waiting = table[key]
        if isinstance(waiting, deque):
            waiting.popleft()
            if len(waiting) == 1:
                table[key] = waiting[0]
        else:
            del table[key]
        return best
