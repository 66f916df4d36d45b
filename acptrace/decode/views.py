"""What views that show every message get from the decode stage: the payload of a message as
its JSON value, and the updates of a run of plain updates one by one, each a `Found` or, where
the run loop read the line, a typed `PlainRow` without a `Message` (the timeline's rows).

The analysis follows a run as one (`UpdateRun`); a view reads its lines only when it shows them.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import islice, repeat
from typing import Any

import msgspec

from acptrace.decode.classify import Found
from acptrace.decode.fastpath import CANONICAL, FastDecoder, KeptPayload, kept_value
from acptrace.decode.message import plain_update_of
from acptrace.decode.shapes import DECODE_DETAILED, NOT_DECODED, PlainDecode, PlainLine
from acptrace.model.domain import Direction, Message, UpdateRun
from acptrace.read.timestamps import checked_usual_ns, second_start_ns, utc_microseconds_ns


class PlainRow(msgspec.Struct, frozen=True, gc=False):
    """A plain update of a run as the run loop read it, without a `Message` (one is made per
    line a view shows: a Struct)."""

    line: int
    """Its line."""
    ts_ns: int
    """Its wall clock time (the loop checked it is a usual time)."""
    mono_ns: int | None
    """Its monotonic time, if it has one."""
    tag: str
    """`params.update.sessionUpdate`."""
    update_session_id: str | None
    """The session its update names (`Message.update_session_id`)."""
    data: bytes
    """The bytes of its line (a canonical record)."""

    def update(self) -> Any:
        """Its `params.update`, parsed now."""
        return kept_value(self.data, True)["params"]["update"]


def shown_payload(payload: Any) -> Any:
    """A step's payload as a parsed JSON value (a payload kept in its line parsed now)."""
    return payload.value() if type(payload) is KeptPayload else payload


def may_hold(payload: Any, text: bytes) -> bool:
    """Whether a step's payload may hold this text: a payload kept in its line is searched (no
    parsing: a view that looks for one rare member parses only the lines that mention it); one
    already parsed may (True)."""
    return text in payload.data if type(payload) is KeptPayload else payload is not None


def sampled_updates(run: UpdateRun) -> Iterator[tuple[int, str | None, KeptPayload]]:
    """(line, its tag where the run loop read it, its line as a payload, `shown_payload` parses
    it) of each update of a run sampled for the schema check (`UpdateRun.sampled`)."""
    for line, tag, data in run.sampled:
        yield line, tag, KeptPayload(data, run.canonical)


def run_found(run: UpdateRun) -> Iterator[Found]:
    """Each update of a run read with its lines (`UpdateRun.lines`), Found with its line as the
    hot path finds a message one by one (each line of a run is one it takes): the first is the
    run's own; the others, plain updates the run loop checked (UTF-8 among them), read in the
    narrowed shape it read them in (`shapes.DECODE_DETAILED`: a run kept for a view is read
    with its activity), and a line that does not fit it
    (one the run took on the general path) as the hot path reads any line."""
    canonical = run.canonical
    first, lines = run.first, run.lines
    direction = first.direction
    yield Found(first, KeptPayload(lines[0], canonical))
    number = first.line
    decoded = islice(run.plain, 1, None) if run.plain else repeat(None)
    for data, plain in zip(islice(lines, 1, None), decoded, strict=False):
        number += 1
        if plain is not None:  # (decoded by the run loop: not a second time)
            message = _kept_message(plain, number, direction)
            if message is not None:
                yield Found(message, KeptPayload(data, canonical))
                continue
        yield _line_found(data, number, direction, canonical)


def run_updates(run: UpdateRun) -> Iterator[Found | PlainRow]:
    """Each update of a run with its lines, as `run_found` reads them, but each line the run
    loop decoded (`UpdateRun.plain`) as a `PlainRow`, not made a `Message`: a view that shows
    such an update needs only that (the timeline's rows). The first update, and a line the run
    took on the general path (kept as None), come `Found` as `run_found` reads them."""
    first, lines, plain = run.first, run.lines, run.plain
    if not plain or not run.canonical:  # (nothing decoded by the run loop: a run of the
        yield from run_found(run)  # general path's lines, or of bare JSON-RPC lines)
        return
    yield Found(first, KeptPayload(lines[0], True))
    direction = first.direction
    number = first.line
    second, base = "", 0
    for data, line in zip(islice(lines, 1, None), islice(plain, 1, None), strict=True):
        number += 1
        if line is None:  # (taken by `Run.takes`: read as the hot path reads any line)
            yield _line_found(data, number, direction, True)
            continue
        ts = line.ts
        if ts[:19] != second:  # (the loop checked its text: a usual time, its second cached)
            second = ts[:19]
            start = second_start_ns(second)
            assert start is not None, "a run's line has a usual time"
            base = start
        update = line.msg.params.update
        named = update.sessionId
        yield PlainRow(
            number,
            base + int(ts[20:26]) * 1000,
            line.mono_ns,
            update.sessionUpdate,
            named if type(named) is str else None,
            data,
        )


def _line_found(data: bytes, number: int, direction: Direction, canonical: bool) -> Found:
    """A line of a run the run loop did not decode, `Found` as the hot path finds it: in the
    narrowed shape when it fits, else as any line."""
    narrow = DECODE_DETAILED.get(direction) if canonical else None
    message = _plain_read(narrow, data, number, direction) if narrow is not None else None
    if message is not None:
        return Found(message, KeptPayload(data, canonical))
    found = FastDecoder(CANONICAL if canonical else "", payloads=True).message(data, number)
    assert isinstance(found, Found), "a line of a run is a plain update"
    return found


def _plain_read(
    decode: PlainDecode, data: bytes, number: int, direction: Direction
) -> Message | None:
    """The message of a line of a run that fits the narrowed shape with a usual time; None for
    a line that does not (the general shapes then read it)."""
    try:
        line = decode(data)
    except NOT_DECODED:
        return None
    return _plain_message(line, number, direction)


def _kept_message(line: PlainLine[Any, Any], number: int, direction: Direction) -> Message | None:
    """`_plain_message` of a line the run loop took: its time is a usual one (the loop checked
    its text), read without checking it again."""
    return plain_update_of(line, number, direction, checked_usual_ns(line.ts))


def _plain_message(line: PlainLine[Any, Any], number: int, direction: Direction) -> Message | None:
    """The message of a line read in the narrowed shape; None unless its time is a usual one."""
    ts_ns = utc_microseconds_ns(line.ts)
    return None if ts_ns is None else plain_update_of(line, number, direction, ts_ns)


__all__ = ["PlainRow", "kept_value", "run_found", "run_updates", "shown_payload"]
