"""The run loop reads its lines in a narrowed shape (`shapes.PlainLine`): each line that shape
takes or leaves to the general path must be analysed as the general path analyses it."""

from __future__ import annotations

import io
import random
import re
import sys
from datetime import UTC, datetime

import msgspec
import pytest

from acptrace.decode import shapes
from acptrace.decode.skipped import all_utf8, readable
from acptrace.decode.stream import ReadStats, read_records
from acptrace.model.domain import UpdateRun
from acptrace.model.tags import TagPolicy
from acptrace.read.formats import ReadSettings
from acptrace.read.source import LineBlock, iter_blocks
from acptrace.read.timestamps import usual_text, utc_microseconds_ns
from tests.test_fastpath import (
    UTF8_EDGES,
    both,
    each_message,
    padded,
    records_with_runs,
    taken_by_the_run_loop,
)
from tests.test_timeline_rows import GENERAL, KEEPING, walked

DEEP = b"[" * 200 + b"]" * 200
EDGES: dict[str, tuple[bytes, bytes, bool]] = {
    # name: (pattern, replacement, whether the run loop takes the line)
    "unchanged": (rb"^", b"", True),
    "an id": (rb'"jsonrpc":"2.0"', b'"jsonrpc":"2.0","id":9', False),
    "a null id": (rb'"jsonrpc":"2.0"', b'"id":null,"jsonrpc":"2.0"', False),
    "a result": (rb'"jsonrpc":"2.0"', b'"jsonrpc":"2.0","result":{}', False),
    "an error": (rb'"jsonrpc":"2.0"', b'"jsonrpc":"2.0","error":{"code":1}', False),
    "mono_ns true": (rb'"mono_ns":\d+', b'"mono_ns":true', False),
    "mono_ns false": (rb'"mono_ns":\d+', b'"mono_ns":false', False),
    "mono_ns a float": (rb'"mono_ns":(\d+)', rb'"mono_ns":\1.0', False),
    "mono_ns an exponent": (rb'"mono_ns":\d+', b'"mono_ns":6e9', False),
    "mono_ns a string": (rb'"mono_ns":(\d+)', rb'"mono_ns":"\1"', False),
    "mono_ns null": (rb'"mono_ns":\d+', b'"mono_ns":null', True),
    "mono_ns absent": (rb'"mono_ns":\d+,', b"", True),
    "mono_ns beyond 64 bits": (rb'"mono_ns":\d+', b'"mono_ns":%d' % 2**70, False),
    # a count beyond int64 is no time on either path (orjson alone would read up to 2**64 - 1
    # as an integer, msgspec any): the run loop leaves it to the general path
    "mono_ns just beyond int64": (rb'"mono_ns":\d+', b'"mono_ns":%d' % 2**63, False),
    "mono_ns at uint64's end": (rb'"mono_ns":\d+', b'"mono_ns":%d' % (2**64 - 1), False),
    "mono_ns below int64": (rb'"mono_ns":\d+', b'"mono_ns":%d' % (-(2**63) - 1), False),
    # a member twice: the last counts on both paths; the run loop leaves the line to the general
    # path (which takes it into the run when the last is plain: see the last test)
    "mono_ns twice, the last plain": (rb'"mono_ns":', b'"mono_ns":true,"mono_ns":', False),
    "mono_ns twice, the last true": (rb'("mono_ns":\d+)', rb'\1,"mono_ns":true', False),
    "jsonrpc with a space": (rb'"jsonrpc":"2.0"', b'"jsonrpc":"2.0 "', False),
    "jsonrpc a number": (rb'"jsonrpc":"2.0"', b'"jsonrpc":2.0', False),
    "jsonrpc absent": (rb'"jsonrpc":"2.0",', b"", False),
    "jsonrpc twice, the last plain": (rb'"jsonrpc":', b'"jsonrpc":"1.0","jsonrpc":', False),
    "method twice, the last plain": (rb'"method":', b'"method":"x","method":', False),
    "method twice, the last not": (rb'("method":"session/update")', rb'\1,"method":"x"', False),
    "another method": (rb'"session/update"', b'"session/updates"', False),
    "a timestamp member": (rb'"dir":', b'"timestamp":null,"dir":', False),
    "a time member": (rb'"dir":', b'"time":1,"dir":', False),
    "ts a number": (rb'"ts":"[^"]*"', b'"ts":1764669600.5', False),
    "ts null": (rb'"ts":"[^"]*"', b'"ts":null', False),
    "ts a digit short": (rb'("ts":"[^"]*\.\d{5})\dZ"', rb'\1Z"', False),
    "ts a digit more": (rb'("ts":"[^"]*\.\d{6})Z"', rb'\g<1>0Z"', False),
    "ts with an offset": (rb'("ts":"[^"]*\.\d{6})Z"', rb'\1+00:00"', False),
    "ts a lower-case z": (rb'("ts":"[^"]*\.\d{6})Z"', rb'\1z"', False),
    "ts an Arabic-Indic digit": (rb'("ts":"[^"]*\.\d{5})\dZ"', '\\1\u0663Z"'.encode(), False),
    "another direction": (rb'"dir":"a2c"', b'"dir":"c2a"', False),
    "a direction not a string": (rb'"dir":"a2c"', b'"dir":1', False),
    "params a list": (rb'"params":\{.*\}\}\}$', b'"params":[1]}}', False),
    "sessionId a number": (rb'"sessionId":"sess_1"', b'"sessionId":1', False),
    # a messageId that is no string is left to the general path (LC-NO-MESSAGE-ID counts it)
    "messageId null": (rb'"messageId":"[^"]*"', b'"messageId":null', False),
    "messageId a number": (rb'"messageId":"[^"]*"', b'"messageId":7', False),
    "messageId absent": (rb',"messageId":"[^"]*"', b"", True),
    "another session": (rb'"sessionId":"sess_1"', b'"sessionId":"sess_2"', False),
    "update a string": (rb'"update":\{.*\}\}\}\}$', b'"update":"x"}}}', False),
    "sessionUpdate a number": (rb'"sessionUpdate":"[a-z_]*"', b'"sessionUpdate":1', False),
    "sessionUpdate absent": (rb'"sessionUpdate":"[a-z_]*",', b"", False),
    "a marker": (rb'"sessionUpdate":"[a-z_]*"', b'"sessionUpdate":"replay_complete"', False),
    "a deep member the shapes read": (rb'"params":\{', b'"params":{"info":' + DEEP + b",", True),
    "a deep member skipped": (rb'"params":\{', b'"params":{"other":' + DEEP + b",", True),
    "an id inside the update": (rb'"update":\{', b'"update":{"id":9,', True),
    "an id inside the params": (rb'"params":\{', b'"params":{"id":9,', True),
    "an odd member of the update": (rb'"update":\{', b'"update":{"capabilities":[1,{}],', True),
    "a non-UTF-8 byte in a skipped payload": (rb'"text":"a', b'"text":"\xff', False),
    "UTF-8 in a skipped payload": (rb'"text":"a', b'"text":"\xc3\xa9', True),
    "not JSON": (rb"\}$", b"", False),
    "a batch": (rb'"msg":(\{.*\})\}$', rb'"msg":[\1]}', False),
}


def _line(edge: str) -> tuple[bytes, list[bytes]]:
    """A transcript with a run of updates that has the edge on its fifth line, and the lines of
    the edge and the line before it."""
    t = padded()
    t.initialize()
    t.new_session()
    t.resume(id=7)
    t.history(count=4)
    line = t.update("agent_message_chunk", text="a")
    pattern, replacement, _ = EDGES[edge]
    edited = re.sub(pattern, replacement, t.lines[line - 1], count=1)
    assert edited != t.lines[line - 1] or edge == "unchanged"
    t.lines[line - 1] = edited
    t.history(count=3)
    t.marker()
    t.result(7)
    data = t.text()
    return data, io.BytesIO(data).readlines()[line - 2 : line]


@pytest.mark.parametrize(
    "edge",
    sorted(EDGES),
)
def test_a_line_of_a_run_is_analysed_as_the_general_path_analyses_it(edge: str) -> None:
    data, _ = _line(edge)
    fast, general = both(data)
    assert fast == general
    assert each_message(data) == general


@pytest.mark.parametrize("edge", sorted(EDGES))
def test_the_run_loop_takes_only_a_plain_update(edge: str) -> None:
    _, lines = _line(edge)
    index = taken_by_the_run_loop(lines, 1, frozenset({"replay_complete"}))
    assert index == (2 if EDGES[edge][2] else 1)


def test_a_clock_going_back_in_a_run_ends_the_loop_and_is_reported() -> None:
    t = padded()
    t.initialize()
    t.new_session()
    first = t.history(count=4)[0]
    back = t.update("agent_message_chunk", at_ms=t.now_ms - 50)
    t.history(count=3)
    wall_back = t.update("agent_message_chunk")
    t.lines[-1] = re.sub(rb'"ts":"[^"]*"', b'"ts":"2000-01-01T00:00:00.000000Z"', t.lines[-1])
    t.history(count=2)
    records = records_with_runs(t.text())
    taken = [(r.first.line, r.count) for r in records if isinstance(r, UpdateRun)]
    assert taken == [(first, 4), (back + 1, 3), (wall_back + 1, 2)]
    fast, general = both(t.text())
    assert fast == general
    assert [(i.line, i.kind) for i in general.issues] == [
        (back, "time_went_back"), (wall_back, "time_went_back")
    ]  # fmt: skip


def test_a_line_left_to_the_general_path_goes_on_with_the_run_when_it_is_plain() -> None:
    data, _ = _line("method twice, the last plain")  # (the narrowed shape refuses it)
    runs_of = [(r.first.line, r.count) for r in records_with_runs(data) if isinstance(r, UpdateRun)]
    assert [count for _, count in runs_of] == [8]  # history 4 + the line + history 3


@pytest.mark.parametrize(
    ("narrowed", "general"),
    [
        (shapes.PlainLine, shapes.CanonicalLine),
        (shapes.PlainMessage, shapes.WireMessage),
        (shapes.PlainParams, shapes.WireParams),
        (shapes.DetailedUpdate, shapes.WireUpdate),
    ],
)
def test_the_narrowed_shape_has_the_members_of_the_general_one(
    narrowed: type[msgspec.Struct], general: type[msgspec.Struct]
) -> None:
    # (a member only the general shape has is skipped unread here: only those a plain update's
    # reading never reads, which take any value on the general path, may be)
    unread = shapes.UNREAD_IN_A_RUN.get(general.__name__, frozenset())
    own = set(narrowed.__struct_fields__)
    # (a shape that forbids unknown members refuses the general shape's others: a line that
    # has one leaves the run for the general path, which reads it)
    refused = set(general.__struct_fields__) - own
    if not narrowed.__struct_config__.forbid_unknown_fields:
        refused = set()
    assert sorted(own) == sorted(set(general.__struct_fields__) - unread - refused)
    optional = general.__struct_fields__[
        len(general.__struct_fields__) - len(general.__struct_defaults__) :
    ]
    assert unread <= set(optional)  # (optional there, of any value: nothing to validate)


@pytest.mark.parametrize(
    "member",
    ['"id":7,', '"result":{},', '"error":null,', '"_meta":{},', '"x":1,'],
)
@pytest.mark.parametrize("where", ["message", "line"])
def test_a_member_a_plain_line_may_not_have_refuses_it(member: str, where: str) -> None:
    message = b'{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1",' + (
        b'"update":{"sessionUpdate":"agent_message_chunk"}}}'
    )
    line = b'{"ts":"2026-12-02T10:00:00.000001Z","dir":"a2c","msg":%s}' % message
    decode = shapes.DECODE_PLAIN["a2c"]
    decode(line)  # (as it is: plain)
    if where == "message":
        changed = line.replace(b'"msg":{', b'"msg":{' + member.encode())
    else:
        changed = line.replace(
            b'{"ts"', b"{" + member.replace('"id"', '"timestamp"').encode() + b'"ts"'
        )
    with pytest.raises(shapes.NOT_DECODED):
        decode(changed)


def test_a_run_no_turn_watches_reads_no_activity() -> None:
    # (each member costs every line of a run: the lean shape reads all but a turn's activity)
    lean = set(shapes.PlainUpdate.__struct_fields__)
    assert lean == set(shapes.DetailedUpdate.__struct_fields__) - shapes.ACTIVITY_MEMBERS
    assert {"toolCallId", "status", "kind", "title", "state"} | {
        "stopReason"
    } == shapes.ACTIVITY_MEMBERS


FAR = 253402300800 * 10**9  # 10000-01-01T00:00:00Z, the first time past four-digit years


@pytest.mark.parametrize(
    "ts_ns",
    [0, -1000, 1_764_669_600_123_456_000, 1_764_669_600_123_456_001, FAR - 1000, FAR,
     -62135596800 * 10**9, -62135596800 * 10**9 - 1000, -30610224000 * 10**9,
     -30610224000 * 10**9 - 1000, 2**63, -(2**63), 10**40],
)  # fmt: skip
def test_a_time_as_usual_text_is_the_same_from_the_cache(ts_ns: int) -> None:
    seconds, rest = divmod(ts_ns, 10**9)
    try:
        moment = datetime.fromtimestamp(seconds, UTC)
    except (OverflowError, OSError, ValueError):
        moment = None
    expected = None
    if moment is not None and 1000 <= moment.year <= 9999 and rest % 1000 == 0:
        expected = f"{moment:%Y-%m-%dT%H:%M:%S}.{rest // 1000:06d}Z"
    assert usual_text(ts_ns) == expected
    assert usual_text(ts_ns) == expected  # (again: from the cache)
    if expected is not None:
        assert utc_microseconds_ns(expected) == ts_ns


@pytest.mark.parametrize("payload", UTF8_EDGES, ids=lambda payload: payload.hex())
def test_the_lines_of_a_block_are_utf8_together_when_each_is(payload: bytes) -> None:
    lines = [b'{"a":"caf\xc3\xa9"}\n', b'{"a":"x' + payload + b'"}\n', b'{"a":1}\n']
    each = True
    for line in lines:
        try:
            line.decode()
        except UnicodeDecodeError:
            each = False
    assert all_utf8(lines) is each


def test_a_sequence_cut_between_two_lines_is_not_utf8() -> None:
    assert not all_utf8([b"caf\xc3", b"\xa9\n"])  # (the first without its line end)
    assert not all_utf8([b"\xe2\x82", b"\xac"])
    assert all_utf8([b"caf\xc3\xa9", b"\xe2\x82\xac"])


@pytest.mark.parametrize("edge", sorted(EDGES))
def test_a_line_of_a_run_gives_the_timeline_the_step_the_general_path_gives(edge: str) -> None:
    data, _ = _line(edge)  # (the timeline reads a run's lines back in the narrowed shape)
    assert walked(data, KEEPING, runs=True) == walked(data, GENERAL)


@pytest.mark.parametrize("edge", ["unchanged", "method twice, the last plain", "an id"])
def test_a_run_keeps_each_line_as_the_run_loop_decoded_it(edge: str) -> None:
    data, _ = _line(edge)  # (the timeline reads them back without decoding them again)
    settings = ReadSettings(runs_for=TagPolicy.build(), payloads=True)
    records = read_records(iter_blocks(io.BytesIO(data)), ReadStats(), None, settings)
    taken = [r for r in records if isinstance(r, UpdateRun)]
    assert taken
    decode = shapes.DECODE_DETAILED["a2c"]  # (a view makes messages of them: with activity)
    for run in taken:
        assert len(run.plain) == len(run.lines) == run.count
        assert run.plain[0] is None  # (the run's own message)
        for line, plain in zip(run.lines[1:], run.plain[1:], strict=True):
            if plain is not None:
                assert plain == decode(line)
    kept = [p is not None for run in taken for p in run.plain[1:]]
    assert any(kept)
    assert all(kept) == (edge != "method twice, the last plain")


def test_a_line_with_an_integer_too_long_to_convert_is_left_to_the_general_path() -> None:
    # msgspec skips such a number unread; the general path (and the schema check's parser)
    # cannot read it: the hot path leaves the line to the general path, which says not_json
    most = sys.get_int_max_str_digits()
    line = b'{"a":%s,"b":"x"}\n'
    assert readable(line % (b"9" * most))
    assert not LineBlock.cut(1, b"{}\n" + line % (b"9" * most)).digits
    assert not readable(line % (b"9" * (most + 1)))
    assert LineBlock.cut(1, b"{}\n" + line % (b"9" * (most + 1))).digits
    assert not readable(b'{"a":"%s"}\n' % (b"1" * (most + 1)))  # (in a string: read there too)
    assert readable(b'{"a":%s.5}\n' % (b"9" * most))


def test_a_too_long_run_of_digits_is_found_wherever_it_lies() -> None:
    # (the check looks at every 2,150th byte first: a run of 4,301 digits cannot slip between)
    most = sys.get_int_max_str_digits()
    too_long = re.compile(rb"[0-9]{%d}" % (most + 1))
    rng = random.Random(4301)
    for _ in range(400):
        size = rng.randrange(most + 1, 3 * most)
        line = bytearray(rng.choices(b'ab ,:"{}[]', k=size))
        for _ in range(rng.randrange(0, 4)):  # (digits here and there, runs near the limit)
            length = rng.choice([1, 9, most - 1, most, most + 1, most + 2, rng.randrange(size)])
            at = rng.randrange(size)
            line[at : at + length] = bytes(rng.choices(b"0123456789", k=length))
        data = bytes(line)
        assert readable(data) is (too_long.search(data) is None), len(data)
