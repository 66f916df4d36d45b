"""The hot path: one line of the common shapes straight to a `Message`, decoding only what counts.

Most lines of a big transcript are plain `session/update` notifications whose payload (chunks
of text, tool output) the analysis never reads. msgspec decodes a line into the few fields
declared below and skips the rest without building Python objects for it. A line that is not
in the plain shape (a batch, a recorder event, anything invalid or unusual, `initialize`,
`session/list` results) returns None and takes the general path (`read` + `classify`), which
is the reference: a test checks that both paths give the same analysis on every corpus.
For an analysis, runs of plain updates for one session come out as one `UpdateRun` each
(`acptrace.decode.runs`).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import msgspec

from acptrace.decode.directions import TRAFFIC, infer_direction
from acptrace.decode.runs import NOT_PLAIN, PLAIN_UPDATE, Run, is_utf8, plain_update, update_message
from acptrace.model.domain import Direction, Issue, Message, MessageKind, UpdateRun
from acptrace.model.tags import ANNOUNCE_TAG, TagPolicy
from acptrace.read.clocks import Clock
from acptrace.read.source import LineBlock, RawLine
from acptrace.read.timestamps import wall_ns

UNSET: Any = msgspec.UNSET


class _Update(msgspec.Struct, gc=False):
    sessionUpdate: Any = None
    sessionId: Any = None


class _Params(msgspec.Struct, gc=False):
    sessionId: Any = None
    update: _Update | None = None
    replayFrom: Any = None
    requestId: Any = UNSET


class _Result(msgspec.Struct, gc=False):
    sessionId: Any = None
    sessions: Any = UNSET
    protocolVersion: Any = UNSET


class _Error(msgspec.Struct, gc=False):
    code: Any = None


class _Message(msgspec.Struct, gc=False):
    jsonrpc: Any = None
    id: Any = UNSET
    method: Any = UNSET
    params: _Params | None = None
    result: _Result | None = UNSET
    error: _Error | None = UNSET


class _Canonical(msgspec.Struct, gc=False):
    dir: Any = None
    msg: _Message | None = None
    ts: Any = UNSET
    timestamp: Any = UNSET
    time: Any = UNSET
    mono_ns: Any = None


_NOTHING: tuple[str, ...] = ()


class FastDecoder:
    """Decodes plain lines of the canonical or bare JSON-RPC format; None for anything else.

    Given a tag policy (`runs_for`), a block of lines comes out with its runs of plain updates
    for one session gathered into `UpdateRun`s (an analysis that shows no single message).
    """

    def __init__(self, format_name: str, runs_for: TagPolicy | None = None) -> None:
        self.canonical = format_name == "acptrace"
        self._record = msgspec.json.Decoder(_Canonical).decode
        self._bare = msgspec.json.Decoder(_Message).decode
        self._policy = runs_for
        self._breaks = frozenset({ANNOUNCE_TAG} | ({runs_for.marker_tag} if runs_for else set()))
        """Tags that never join a run: they mean more than a count (markers, announcements)."""

    def message(self, data: bytes, line: int) -> Message | None:
        """The message on this line, or None when the line needs the general path."""
        if not is_utf8(data):  # msgspec does not check the UTF-8 of what it skips
            return None
        try:
            if self.canonical:
                return _canonical(self._record(data), line)
            return _message(self._bare(data), line, Direction.UNKNOWN, None, None)
        except (msgspec.ValidationError, msgspec.DecodeError):
            return None

    def block(
        self, block: LineBlock, clock: Clock
    ) -> Iterator[Message | UpdateRun | Issue | RawLine]:
        """The block's records in order, each checked against `clock`: messages, runs, issues,
        and each line the hot path does not take as a `RawLine` for the general path (which
        must be read, and its times checked, before the next item is asked for)."""
        quick = self.canonical and self._policy is not None
        lines, index, end = block.lines, 0, len(block.lines)
        run: Run | None = None
        while index < end:
            plain = None  # the line as a plain update, if it is one
            if run is not None and quick:
                index, plain = run.grow(lines, index, block.first)
                if index == end:
                    break
            data, number = lines[index], block.first + index
            index += 1
            if run is not None:
                run.sync(clock)
            elif quick and is_utf8(data):
                try:
                    plain = PLAIN_UPDATE(data)
                except NOT_PLAIN:
                    plain = None  # not a plain update: `message` decodes it below
            if plain is not None:
                message = update_message(plain, number)
            else:
                message = self.message(data, number)
            if message is None:
                if run is not None:
                    yield run.done()
                    run = None
                yield RawLine(number, data[:-1], ended=True)
                continue
            issue = clock.check(message)
            if issue is None and run is not None and run.takes(message, clock):
                continue
            if run is not None:
                yield run.done()
                run = None
            if issue is None and self._policy is not None and plain_update(message, self._breaks):
                ts_text = plain.ts if plain is not None else None
                run = Run(message, self._breaks, self._policy.live_tags, clock, ts_text)
                continue
            yield message
            if issue is not None:
                yield issue
        if run is not None:
            run.sync(clock)
            yield run.done()


def _canonical(record: _Canonical, line: int) -> Message | None:
    direction = TRAFFIC.get(record.dir) if isinstance(record.dir, str) else None
    if direction is None or record.msg is None:
        return None
    if record.ts is UNSET or record.timestamp is not UNSET or record.time is not UNSET:
        return None  # a missing or unusual time field: the general path reports it
    ts_ns = wall_ns(record.ts)
    if ts_ns is None:
        return None
    mono = record.mono_ns
    mono_ns = mono if type(mono) is int else None
    return _message(record.msg, line, direction, ts_ns, mono_ns)


def _message(
    msg: _Message, line: int, direction: Direction, ts_ns: int | None, mono_ns: int | None
) -> Message | None:
    """A plain, valid request, notification or response; None for anything else."""
    if msg.jsonrpc != "2.0":
        return None
    msg_id = msg.id
    if msg_id is not UNSET and not _plain_id(msg_id):
        return None
    method = msg.method
    if method is not UNSET:
        if type(method) is not str or method == "initialize" or msg.result is not UNSET:
            return None
        if msg.error is not UNSET:
            return None
        if direction is Direction.UNKNOWN:
            direction = infer_direction(method)
            if direction is Direction.UNKNOWN:
                return None  # the general path reports the unknown direction
        return _call(msg, line, direction, ts_ns, mono_ns)
    if msg_id is UNSET or msg_id is None:
        return None
    return _response(msg, line, direction, ts_ns, mono_ns)


def _call(
    msg: _Message, line: int, direction: Direction, ts_ns: int | None, mono_ns: int | None
) -> Message | None:
    method: str = msg.method
    kind = MessageKind.NOTIFICATION if msg.id is UNSET else MessageKind.REQUEST
    params = msg.params
    if params is None:
        return Message(line, direction, kind, None if msg.id is UNSET else msg.id, method,
                       ts_ns=ts_ns, mono_ns=mono_ns)  # fmt: skip
    session_id = params.sessionId if type(params.sessionId) is str else None
    update_tag = update_session_id = replay_from = cancel_target = None
    if method == "session/update":
        update = params.update
        if update is not None:
            tag, child = update.sessionUpdate, update.sessionId
            update_tag = tag if type(tag) is str else None
            update_session_id = child if type(child) is str else None
    elif method == "session/resume":
        replay_from = params.replayFrom
    elif method == "$/cancel_request":
        target = params.requestId
        if target is UNSET or not _plain_id(target):
            return None
        cancel_target = target
    return Message(
        line,
        direction,
        kind,
        None if msg.id is UNSET else msg.id,
        method,
        session_id,
        update_tag,
        update_session_id,
        replay_from,
        cancel_target,
        ts_ns=ts_ns,
        mono_ns=mono_ns,
    )


def _response(
    msg: _Message, line: int, direction: Direction, ts_ns: int | None, mono_ns: int | None
) -> Message | None:
    if msg.error is not UNSET:
        if msg.result is not UNSET or msg.error is None:
            return None
        code = msg.error.code
        if type(code) is not int:
            return None
        return Message(line, direction, MessageKind.RESPONSE, msg.id, is_error=True,
                       error_code=code, ts_ns=ts_ns, mono_ns=mono_ns)  # fmt: skip
    result = msg.result
    if result is UNSET:
        return None
    named = _NOTHING
    if result is not None:
        if result.sessions is not UNSET or result.protocolVersion is not UNSET:
            return None  # session/list and initialize results: the general path
        if type(result.sessionId) is str:
            named = (result.sessionId,)
    return Message(line, direction, MessageKind.RESPONSE, msg.id, result_session_ids=named,
                   ts_ns=ts_ns, mono_ns=mono_ns)  # fmt: skip


def _plain_id(value: Any) -> bool:
    """A string or integer id (floats and null take the general path)."""
    kind = type(value)
    return kind is str or kind is int
