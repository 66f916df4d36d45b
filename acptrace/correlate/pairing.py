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
from acptrace.model.domain import Direction, JsonId, Message

if TYPE_CHECKING:
    from acptrace.correlate.tracks import Window

IdKey = tuple[str, JsonId]


def id_key(value: JsonId) -> IdKey:
    """A hashable key under which equal JSON-RPC ids (and only those) meet."""
    if isinstance(value, str):
        return ("s", value)
    if value is None:
        return ("z", None)
    return ("n", value)


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


class PendingTable(msgspec.Struct):
    """Pending requests by the direction they travelled and their id."""

    by_direction: dict[Direction, dict[IdKey, deque[Pending]]] = msgspec.field(
        default_factory=lambda: {d: {} for d in Direction}
    )

    def add(self, pending: Pending) -> Pending | None:
        """Queue a request; returns the earlier pending request with the same id, if any."""
        queues = self.by_direction[pending.request.direction]
        queue = queues.setdefault(id_key(pending.request.id), deque())
        earlier = queue[0] if queue else None
        queue.append(pending)
        return earlier

    def take(self, response: Message) -> Pending | None:
        """Remove and return the request a response answers; None for an orphan.

        A response with a known direction answers a request from the other side (or one whose
        direction is unknown); otherwise the most recent pending request with its id.
        """
        if response.direction is Direction.UNKNOWN:
            sides = tuple(Direction)
        else:
            sides = (response.direction.opposite(), Direction.UNKNOWN)
        return self._pop_latest(sides, id_key(response.id))

    def find(self, request_id: JsonId, sides: tuple[Direction, ...]) -> Pending | None:
        """The oldest pending request with this id travelling one of these ways."""
        key = id_key(request_id)
        for side in sides:
            queue = self.by_direction[side].get(key)
            if queue:
                return queue[0]
        return None

    def remaining(self) -> Iterator[Pending]:
        """Every request still waiting, in the order they were sent."""
        everything = [
            p for queues in self.by_direction.values() for q in queues.values() for p in q
        ]
        return iter(sorted(everything, key=lambda p: p.request.line))

    def _pop_latest(self, sides: tuple[Direction, ...], key: IdKey) -> Pending | None:
        """Pop the head of the queue, among these sides, whose head was sent last."""
        best: deque[Pending] | None = None
        for side in sides:
            queue = self.by_direction[side].get(key)
            if queue and (best is None or queue[0].request.line > best[0].request.line):
                best = queue
        if best is None:
            return None
        found = best.popleft()
        if not best:
            del self.by_direction[found.request.direction][key]
        return found
