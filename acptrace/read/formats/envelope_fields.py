"""The shape most recorders share: an object with a time, a direction and a payload.

Recorders differ in field names and direction words; an `EnvelopeFormat` is one recorder's
vocabulary. Field synonyms from input-formats.md are accepted for every one of them: time in
`ts`/`timestamp`/`time`, direction in `dir`/`direction`/`source`/`origin`/`_direction`/`from`,
payload in `msg`/`message`/`raw`/`json`/`payload` (a string payload is parsed as JSON).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from acptrace.model.domain import Direction, Issue, IssueKind
from acptrace.model.excerpt import excerpt
from acptrace.read.envelopes import DIRECTION_KEYS, TIME_KEYS, Envelope, Record, RecorderEvent
from acptrace.read.formats.base import Stateless
from acptrace.read.jsontext import JSONDecodeError, Mended, parsed
from acptrace.read.timestamps import integer_ns, seconds_ns, wall_ns

PAYLOAD_KEYS = ("msg", "message", "raw", "json", "payload")

STDERR, META = "stderr", "meta"
_TRAFFIC_KEYS = ("msg", "raw")


class EnvelopeFormat(Stateless, frozen=True):
    """A recorder that writes `{time, direction, payload}` objects with its own vocabulary."""

    name: str
    """Stable name for `--input-format` and `source.format`."""
    summary: str
    """Who writes it and what it looks like."""
    example: str
    """One record as it appears in a file."""
    directions: Mapping[str, str]
    """The recorder's direction words -> `c2a`, `a2c`, `stderr` or `meta`."""
    producers: str = ""
    """Which tools write it."""
    monotonic_key: str | None = None
    """A field with a monotonic clock (`mono_ns`, `t_rel`), if the recorder writes one."""
    monotonic_in_seconds: bool = True
    """Whether that clock counts seconds (else integer nanoseconds)."""
    other_words: frozenset[str] | None = None
    """When set, a record whose `dir` holds a word that is neither this recorder's nor one of
    these (other recorders' `dir` words) is still this format's: an issue `unknown_direction`,
    its message read with the direction left to inference."""

    def detect(self, record: Any) -> bool:
        """An object whose direction field holds one of this recorder's words."""
        if not isinstance(record, dict):
            return False
        return _direction_word(record) in self.directions or self._unknown_word(record)

    def _unknown_word(self, record: dict[str, Any]) -> bool:
        """A traffic record of this format with a `dir` word nobody uses."""
        if self.other_words is None or not any(key in record for key in _TRAFFIC_KEYS):
            return False
        word = record.get("dir")
        return (
            isinstance(word, str) and word not in self.directions and word not in self.other_words
        )

    def decode(self, record: Any, line: int) -> Iterator[Record]:
        """Traffic becomes an envelope; stderr and meta lines become recorder events."""
        ts_raw = _first(record, TIME_KEYS)
        ts_ns = wall_ns(ts_raw)
        if ts_raw is not None and ts_ns is None:
            yield Issue(line, IssueKind.BAD_TIMESTAMP, f"unusable time {excerpt(ts_raw)}")
        mono_ns = self._monotonic_ns(record)
        word = _direction_word(record)
        meaning = self.directions.get(str(word), Direction.UNKNOWN.value)
        if word not in self.directions:
            yield Issue(line, IssueKind.UNKNOWN_DIRECTION, f"unknown dir {excerpt(word)}: inferred")
        if meaning in (STDERR, META):
            kind = STDERR if meaning == STDERR else str(record.get("event", META))
            yield RecorderEvent(line, kind, ts_ns, mono_ns, dict(record))
            if kind == "gap":
                yield _gap_issue(record, line)
            return
        direction = Direction(meaning)
        if "part" in record:
            yield RecorderEvent(line, "part", ts_ns, mono_ns, {"part": record.get("part")})
            if record.get("part") == 1:
                yield Issue(
                    line, IssueKind.LINE_TOO_LONG, "a line too long to record whole, in parts"
                )
            return
        payload_key = next((key for key in PAYLOAD_KEYS if key in record), None)
        if payload_key is None:
            yield Issue(line, IssueKind.UNKNOWN_ENVELOPE, "record has no message payload")
            return
        if record.get("encoding") == "base64":
            side = SIDES.get(direction, "peer")
            yield Issue(
                line, IssueKind.NOT_UTF8, f"the {side} wrote a line that is not UTF-8 (base64)"
            )
            return
        for decoded in decode_payload(record[payload_key], line, direction, ts_ns, mono_ns):
            if record.get("eol") is False and isinstance(decoded, Issue):
                decoded = Issue(
                    line, IssueKind.TRUNCATED_LINE, "the last line was cut off: not JSON"
                )
            yield decoded

    def _monotonic_ns(self, record: dict[str, Any]) -> int | None:
        if self.monotonic_key is None:
            return None
        value = record.get(self.monotonic_key)
        return seconds_ns(value) if self.monotonic_in_seconds else integer_ns(value)


def decode_payload(
    payload: Any,
    line: int,
    direction: Direction,
    ts_ns: int | None,
    mono_ns: int | None,
    connection: str | None = None,
) -> Iterator[Record]:
    """An envelope for a payload; a string payload is parsed as JSON first."""
    if isinstance(payload, str):
        try:
            value = parsed(line, payload)
        except JSONDecodeError:
            side = SIDES.get(direction, "peer")
            yield Issue(
                line,
                IssueKind.NOT_JSON,
                f"the {side} wrote a line that is not JSON: {excerpt(payload)}",
            )
            return
        if isinstance(value, Mended):
            yield value.issue
        payload = value[1]
    yield Envelope(line, direction, payload, ts_ns, mono_ns, connection)


SIDES = {Direction.C2A: "Client", Direction.A2C: "Agent"}


def _gap_issue(record: dict[str, Any], line: int) -> Issue:
    """The recorder left lines out (its queue was full): messages are missing."""
    lines, size, stream = record.get("lines"), record.get("bytes"), record.get("stream")
    return Issue(
        line,
        IssueKind.RECORDING_GAP,
        f"the recorder left out {lines} lines ({size} bytes) of {excerpt(stream)}: "
        "messages are missing and rule results are less certain",
    )


def _direction_word(record: dict[str, Any]) -> Any:
    """The value of the first direction field present."""
    value = _first(record, DIRECTION_KEYS)
    return value if isinstance(value, str) else None


def _first(record: dict[str, Any], keys: tuple[str, ...]) -> Any:
    """The value of the first of these keys that the record has."""
    for key in keys:
        if key in record:
            return record[key]
    return None
