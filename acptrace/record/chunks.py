"""Streamed messages: a secret split across the chunks of one message is redacted in each.

An Agent streams a message as `session/update` notifications (`agent_message_chunk`,
`agent_thought_chunk`, `user_message_chunk`), each holding a few characters: a key the model
writes out lands in several of them, and no chunk alone holds enough of it for a shape. The
recorder writes line by line and cannot hold a whole message (it may never end), so
`ChunkJoiner` holds the chunks of a stream (one direction, session and kind) only until
something else comes from that direction (the message is over), or the caller says to let go
(`flush`: the recorder's bounds on time and memory): then it searches the text of the held
chunks joined, after the last `TAIL_CHARS` of the stream's earlier text, and replaces in each
chunk its part of every secret found. Records that come meanwhile wait behind the chunks, so
the order is kept.

What cannot be done: a secret that started before a `flush` (chunks already written) keeps
its part written then; only the part after is replaced.
"""

from __future__ import annotations

import time
from collections import OrderedDict, deque
from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

import orjson

from acptrace.record.redact import (
    REDACTED,
    RedactionPolicy,
    reading_of,
    redact_message,
    replace_spans,
)
from acptrace.record.spans import Span, secret_spans

T = TypeVar("T")
CHUNK_KINDS = frozenset({"agent_message_chunk", "agent_thought_chunk", "user_message_chunk"})
"""The `sessionUpdate` kinds that stream a message in pieces."""
TAIL_CHARS = 1024
"""How much of a stream's text already written is searched again with the chunks after it."""
MAX_HELD = 1024
"""Records held at most (chunks and what waits behind them) before they are let go."""
MAX_HELD_BYTES = 1024 * 1024
"""Bytes held at most (as the caller counts them: its lines) before they are let go: a
streamed message is rarely a tenth of it, and searching what is held costs a few times as
much memory again (an Agent flooding chunks must not grow the recorder)."""
_STREAMS = 256
"""Streams whose tail is remembered (the least recently used are forgotten)."""

StreamKey = tuple[Hashable, ...]
_CHUNK_MARK = b'_chunk"'


@dataclass(slots=True)
class _Entry(Generic[T]):
    tag: T
    value: Any
    count: int = 0
    final: bool = True
    text: str | None = None
    """A held chunk's text, as it came."""


class ChunkJoiner(Generic[T]):
    """Takes parsed records in order; gives them back redacted, in the same order, each chunk
    once its message is over."""

    def __init__(self, policy: RedactionPolicy) -> None:
        self.policy = policy
        """What to redact."""
        self._entries: deque[_Entry[T]] = deque()
        self._held: dict[StreamKey, list[_Entry[T]]] = {}
        self._tails: OrderedDict[StreamKey, str] = OrderedDict()
        self.holding_since: float | None = None
        """When the oldest record now held came (monotonic seconds), if one is."""
        self._held_bytes = 0

    def push(
        self, tag: T, value: Any, direction: Hashable, size: int = 0
    ) -> list[tuple[T, Any, int]]:
        """A record from `direction` (`size` bytes as the caller counts them): `value` its
        parsed JSON if it may be a chunk (anything else may be left None: it is the caller's
        to redact), and the records now ready, in the order they were pushed: (tag, the chunk
        redacted or None, values replaced)."""
        chunk = chunk_text(value)
        key = _key(direction, value) if chunk is not None else None
        self._finish(direction, keep=key)
        entry: _Entry[T] = _Entry(tag, None)
        if key is not None:
            entry = _Entry(tag, value, final=False, text=chunk)
            self._held.setdefault(key, []).append(entry)
            if self.holding_since is None:
                self.holding_since = time.monotonic()
        if not self._entries and entry.final:
            return [(tag, None, 0)]
        self._entries.append(entry)
        self._held_bytes += size
        if len(self._entries) > MAX_HELD or self._held_bytes > MAX_HELD_BYTES:
            return self.flush()
        return self._ready()

    def flush(self) -> list[tuple[T, Any, int]]:
        """Let every held record go (what they hold searched as far as it came)."""
        for key in list(self._held):
            self._finalize(key)
        return self._ready()

    def _finish(self, direction: Hashable, keep: StreamKey | None) -> None:
        """Something else came from this direction: its other streams' messages are over."""
        if not self._held:
            return
        for key in [k for k in self._held if k[0] == direction and k != keep]:
            self._finalize(key)

    def _finalize(self, key: StreamKey) -> None:
        entries = self._held.pop(key)
        tail = self._tails.pop(key, "")
        joined = tail + "".join(entry.text or "" for entry in entries)
        spans = secret_spans(joined, self.policy, reading_of(joined), REDACTED, rules=False)
        start = len(tail)
        for entry in entries:
            text = entry.text or ""
            pieces = _pieces(spans, start, start + len(text))
            start += len(text)
            value = _with_text(entry.value, replace_spans(text, pieces)) if pieces else entry.value
            entry.value, count = redact_message(value, self.policy)
            entry.count = count + len(pieces)
            entry.final = True
            entry.text = None
        self._tails[key] = joined[-TAIL_CHARS:]
        while len(self._tails) > _STREAMS:
            self._tails.popitem(last=False)

    def _ready(self) -> list[tuple[T, Any, int]]:
        ready: list[tuple[T, Any, int]] = []
        while self._entries and self._entries[0].final:
            entry = self._entries.popleft()
            ready.append((entry.tag, entry.value, entry.count))
        if not self._entries:
            self.holding_since = None
            self._held_bytes = 0
        return ready


def _pieces(spans: list[Span], start: int, end: int) -> list[Span]:
    """The parts of the spans that fall in [start, end), relative to `start`."""
    return [(max(s, start) - start, min(e, end) - start) for s, e in spans if s < end and e > start]


def parsed_chunk(line: bytes) -> Any:
    """A line's JSON when it may be a chunk (it holds `_chunk"`, as `"agent_message_chunk"`
    does), else None: only such lines are parsed for the joiner."""
    if _CHUNK_MARK not in line:
        return None
    try:
        return orjson.loads(line)
    except orjson.JSONDecodeError:
        return None


def chunk_text(value: Any) -> str | None:
    """The text of a streamed chunk (a canonical record's `msg`, a JSON-RPC message or a Zed
    entry), None for anything else."""
    if not isinstance(value, dict):
        return None
    message = value.get("msg", value)
    if not isinstance(message, dict) or message.get("method") != "session/update":
        return None
    params = message.get("params")
    update = params.get("update") if isinstance(params, dict) else None
    if not isinstance(update, dict) or update.get("sessionUpdate") not in CHUNK_KINDS:
        return None
    content = update.get("content")
    if not isinstance(content, dict) or content.get("type") != "text":
        return None
    text = content.get("text")
    return text if isinstance(text, str) else None


def _key(direction: Hashable, value: dict[str, Any]) -> StreamKey:
    params = value.get("msg", value)["params"]
    return (direction, params.get("sessionId"), params["update"]["sessionUpdate"])


def _with_text(value: dict[str, Any], text: str) -> dict[str, Any]:
    """A copy of the chunk with this text (the rest shared)."""
    message = value.get("msg", value)
    params = message["params"]
    update = params["update"]
    new_update = {**update, "content": {**update["content"], "text": text}}
    new_message = {**message, "params": {**params, "update": new_update}}
    return {**value, "msg": new_message} if "msg" in value else new_message
