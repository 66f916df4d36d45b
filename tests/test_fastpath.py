"""The hot path and the general path agree: same analysis for every input."""

from __future__ import annotations

import io
import re
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

import acptrace
from acptrace.decode import runs
from acptrace.decode.fastpath import canonical_read, plain_read
from acptrace.decode.shapes import NOT_DECODED, CanonicalLine, decode_line
from acptrace.decode.stream import ReadStats, read_records
from acptrace.model.domain import Issue, Tally, UpdateRun, ns_ms
from acptrace.model.options import Execution
from acptrace.model.tags import TagPolicy
from acptrace.model.turns import Watch
from acptrace.read.clocks import Clock
from acptrace.read.formats import ReadSettings
from acptrace.read.records import DETECTION_SAMPLE
from acptrace.read.source import iter_blocks
from tests.golden import ROOT
from tests.shared import REAL_WORLD
from tests.test_properties import CORPORA, mutate, mutation
from tests.transcript import Transcript

FILES = [
    *sorted((ROOT / "sample_traces").glob("*.jsonl")),
    *(pytest.param(path, marks=pytest.mark.shared) for path in sorted(REAL_WORLD.glob("*.jsonl"))),
]


def both(data: bytes) -> tuple[acptrace.Analysis, acptrace.Analysis]:
    fast = acptrace.analyze(io.BytesIO(data), execution=Execution(fast=True))
    general = acptrace.analyze(io.BytesIO(data), execution=Execution(fast=False))
    return fast, general


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_both_paths_agree_on_every_corpus_file(path: Path) -> None:
    fast, general = both(path.read_bytes())
    assert fast == general


def test_both_paths_agree_on_a_generated_transcript() -> None:
    from benchmarks.generate import generate

    out = io.BytesIO()
    generate(out, mb=None, sessions=6, seed=3, faults=0.3)
    fast, general = both(out.getvalue())
    assert fast == general
    assert fast.resumes


values = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**63), 2**63 - 1),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from(["2.0", "1.0", "session/update", "session/resume", "session/new",
                     "initialize", "$/cancel_request", "replay_complete", "s1", "start",
                     "2026-12-02T10:00:00.123456Z", "2026-12-02T10:00:61.123456Z", "c2a",
                     "a2c", "meta"]),
)  # fmt: skip
keys = st.sampled_from(["jsonrpc", "id", "method", "params", "result", "error", "sessionId",
                        "update", "sessionUpdate", "replayFrom", "requestId", "code",
                        "sessions", "protocolVersion", "dir", "msg", "ts", "mono_ns",
                        "timestamp"])  # fmt: skip
json_values = st.recursive(
    values, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(keys, inner, max_size=5),
    max_leaves=12,
)  # fmt: skip
canonical_lines = st.fixed_dictionaries(
    {"dir": st.sampled_from(["c2a", "a2c"]), "msg": json_values},
    optional={"ts": values, "mono_ns": values, "timestamp": values},
)
first_line = b'{"dir": "meta", "event": "open", "argv": []}'


@given(st.lists(canonical_lines, max_size=25))
def test_both_paths_agree_on_canonical_noise(records: list[dict[str, object]]) -> None:
    data = b"\n".join([first_line] * 17 + [orjson.dumps(record) for record in records])
    fast, general = both(data)
    assert fast == general


@given(st.lists(json_values, max_size=25))
def test_both_paths_agree_on_bare_noise(records: list[object]) -> None:
    head = [b'{"jsonrpc": "2.0", "method": "session/cancel", "params": {}}'] * 17
    data = b"\n".join(head + [orjson.dumps(record) for record in records])
    fast, general = both(data)
    assert fast == general


@pytest.mark.parametrize("corpus", CORPORA)
@given(mutation)
def test_both_paths_agree_on_mutated_transcripts(
    corpus: list[bytes], case: tuple[int, list[tuple[str, int, bytes]]]
) -> None:
    index, edits = case
    fast, general = both(mutate(corpus[index % len(corpus)], edits))
    assert fast == general


def test_invalid_utf8_inside_a_skipped_payload_is_not_utf8_on_both_paths() -> None:
    head = [b'{"dir": "meta", "event": "open"}'] * 17
    line = b'{"dir": "a2c", "msg": {"jsonrpc": "2.0", "method": "session/update", "params": '
    line += (
        b'{"sessionId": "s", "update": {"sessionUpdate": "agent_message_chunk", "text": "\xff"}}}}'
    )
    fast, general = both(b"\n".join([*head, line, b""]))
    assert fast == general
    assert [i.kind for i in fast.issues] == ["not_utf8"]


def test_numbers_beyond_a_double_are_json_on_both_paths() -> None:
    head = [b'{"dir": "meta", "event": "open"}'] * 17
    line = b'{"dir": "a2c", "msg": {"jsonrpc": "2.0", "method": "session/update", "params": '
    line += b'{"sessionId": "s", "update": {"sessionUpdate": "usage_update", "tokens": 1e400}}}}'
    fast, general = both(b"\n".join([*head, line]))
    assert fast == general
    assert fast.source.messages == 1
    assert fast.issues == ()


# -- runs of updates ------------------------------------------------------------------------

SESSIONS = ("sess_1", "sess_2", "child_1")
TAGS = ("agent_message_chunk", "user_message", "tool_call_update", "state_update",
        "usage_update", "notice", "_custom", "replay_complete", "subagent_update")  # fmt: skip
TEXTS = (b'"plain"', b'"caf\xc3\xa9 \\" \\u00e9"', b'"\xff"', b"1e400", b"[1, {}]")
ODD_TIMES = {  # edits of a time's text: none leaves a usual time (`YYYY-MM-DDTHH:MM:SS.ffffffZ`)
    "a letter in the fraction": (rb'\d(Z")', rb"x\1"),
    "a non-ASCII digit in the fraction": (rb'\d(Z")', "\u0663".encode() + rb"\1"),
    "three digits": (rb'\d\d\d(Z")', rb"\1"),
    "seven digits": (rb'(Z")', rb"1\1"),
    "a comma": (rb'\.(\d{6}Z")', rb",\1"),
    "a colon": (rb'\.(\d{6}Z")', rb":\1"),
    "a letter for the dot": (rb'\.(\d{6}Z")', rb"x\1"),
    "a lowercase z": (rb'Z"', rb'z"'),
    "second 60": (rb':\d\d\.(\d{6}Z")', rb":60.\1"),
    "a letter in the second": (rb':\d(\d\.\d{6}Z")', rb":x\1"),
    "a space for the T": (rb"T(\d\d:)", rb" \1"),
    "an ISO week date": (rb"-\d\d-\d\dT", rb"-W01-1T"),  # (a time, but one that sorts wrong)
}
steps = st.lists(
    st.one_of(
        st.tuples(st.just("updates"), st.sampled_from(SESSIONS),
                  st.lists(st.sampled_from(TAGS), min_size=1, max_size=8),
                  st.sampled_from(TEXTS)),
        st.tuples(st.just("resume"), st.sampled_from(SESSIONS), st.booleans()),
        st.tuples(st.just("answer"), st.booleans()),
        st.tuples(st.just("new"), st.sampled_from(SESSIONS)),
        st.tuples(st.just("clock"), st.sampled_from(["back", "untimed", "mono only", "offset"])),
        st.tuples(st.just("odd"), st.sampled_from([b"", b"  ", b"not json", b"{}"])),
        st.tuples(st.just("odd time"), st.sampled_from(sorted(ODD_TIMES))),
        st.tuples(st.just("pause"), st.sampled_from([0.0, 0.001, 3.0, 40.0, 1500.0, 70_000.0])),
    ),
    max_size=60,
)  # fmt: skip


def with_runs(steps: list[tuple[Any, ...]]) -> bytes:
    """A transcript of long runs of updates, broken by whatever may break one."""
    t = padded()
    t.initialize()
    pending: list[int] = []
    for step in steps:
        match step:
            case ("updates", session, tags, text):
                for tag in tags:
                    update = {"sessionUpdate": tag, "x": 0}
                    if tag == "subagent_update":
                        update["sessionId"] = "child_1"
                    line = t.notify("session/update", {"sessionId": session, "update": update})
                    t.lines[line - 1] = t.lines[line - 1].replace(b'"x":0', b'"x":' + text)
            case ("resume", session, replay):
                t.resume(session, replay=replay, id=t.next_id)
                pending.append(t.next_id)
                t.next_id += 1
            case ("answer", success) if pending:
                request_id = pending.pop(0)
                t.result(request_id) if success else t.error(request_id, -32002)
            case ("new", session):
                t.new_session(session)
            case ("clock", "back"):
                t.update("agent_message_chunk", at_ms=t.now_ms - 100)
            case ("clock", "untimed"):
                t.timed = False
                t.update("agent_message_chunk")
                t.timed = True
            case ("clock", "mono only"):
                line = t.update("agent_message_chunk")
                t.lines[line - 1] = t.lines[line - 1].replace(b'"ts":', b'"when":')
            case ("clock", "offset"):
                line = t.update("agent_message_chunk")
                t.lines[line - 1] = t.lines[line - 1].replace(b'Z"', b'+00:00"', 1)
            case ("odd", data):
                t.raw(data)
            case ("odd time", variant):
                _odd_time(t, t.update("agent_message_chunk"), variant)
            case ("pause", ms):  # the next line comes that much later (idle-timer gaps)
                t.now_ms += ms
    return t.text()


def _odd_time(t: Transcript, line: int, variant: str) -> None:
    pattern, replacement = ODD_TIMES[variant]
    edited = re.sub(pattern, replacement, t.lines[line - 1], count=1)
    assert edited != t.lines[line - 1]
    t.lines[line - 1] = edited


def each_message(data: bytes) -> acptrace.Analysis:
    """The analysis of a walk that yields every message (so takes no run together)."""
    with acptrace.open_walk(io.BytesIO(data)) as walk:
        for _ in walk:
            pass
        return walk.analysis


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_a_plain_update_read_in_its_narrowed_shape_is_the_message_the_general_shapes_read(
    path: Path,
) -> None:
    """`plain_read` (tried first on every canonical line) gives what `canonical_read` gives,
    or leaves the line to it."""
    for number, data in enumerate(path.read_bytes().splitlines(keepends=True), start=1):
        plain = plain_read(data, number)
        if plain is not None:
            assert plain == canonical_read(decode_line(data), number)


def test_a_line_plain_read_leaves_is_read_by_the_general_shapes() -> None:
    line = (
        b'{"ts":"2026-12-02T10:00:00.000001Z","dir":"a2c","msg":{"jsonrpc":"2.0",'
        b'"method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":%s}}}}\n'
    )
    tagged = line % b'"agent_message_chunk","messageId":"m"'
    assert plain_read(tagged, 7) == canonical_read(decode_line(tagged), 7)
    escaped = tagged.replace(b"session/update", b"session\\/update")
    announced = line % b'"subagent_update","childSessionId":"c"'
    odd_time = tagged.replace(b".000001Z", b".000001+00:00")
    for left in (escaped, announced, odd_time):
        assert plain_read(left, 7) is None
        assert canonical_read(decode_line(left), 7)[0] is not None


@given(steps)
def test_runs_of_updates_are_analysed_as_their_messages_one_by_one(
    steps: list[tuple[Any, ...]],
) -> None:
    data = with_runs(steps)
    fast, general = both(data)
    assert fast == general
    assert each_message(data) == general
    gaps = [row.max_replay_gap_ms for row in general.resumes]  # (compared above; shown here)
    assert gaps == [row.max_replay_gap_ms for row in fast.resumes]


def test_a_run_counts_the_users_messages_and_keeps_the_first_line_of_each_evidence_tag() -> None:
    t = padded()
    t.initialize()
    t.new_session()
    first = t.update("agent_message_chunk")
    user = t.update("user_message_chunk")
    t.update("user_message_chunk")
    call = t.update("tool_call", toolCallId="c1")
    t.update("tool_call", toolCallId="c2")
    message = t.update("user_message")
    t.update("user_message")
    (run,) = [r for r in records_with_runs(t.text()) if isinstance(r, UpdateRun)]
    assert (run.first.line, run.count) == (first, 7)  # (the run loop read all but the first)
    assert run.users == Tally(user, 4)
    assert run.evidence == ((call, "tool_call"), (message, "user_message"))
    assert run.unidentified is None


def test_a_run_carries_its_widest_gaps_as_the_messages_show_them() -> None:
    t = padded()
    t.initialize()
    t.new_session()
    t.resume(id=7)
    first = t.update("agent_message_chunk")
    t.update("agent_message_chunk", at_ms=t.now_ms + 5)
    wide = t.update("agent_message_chunk", at_ms=t.now_ms + 700)
    t.update("agent_message_chunk", at_ms=t.now_ms + 300)
    t.lines[-1] = t.lines[-1].replace(b'"mono_ns":', b'"other":')  # wall clock only
    wider = t.update("agent_message_chunk", at_ms=t.now_ms + 900)  # (wall: no mono before)
    last = t.update("agent_message_chunk", at_ms=t.now_ms + 1)
    t.marker(at_ms=t.now_ms + 2)
    t.result(7)
    taken = [r for r in records_with_runs(t.text(), Watch.PAUSES) if isinstance(r, UpdateRun)]
    assert [(r.first.line, r.count) for r in taken] == [(first, 6)]
    assert taken[0].pauses == ((first + 1, 5_000_000), (wide, 700_000_000), (wider, 900_000_000))
    assert taken[0].end.line == last
    counted = [r for r in records_with_runs(t.text()) if isinstance(r, UpdateRun)]
    assert [(r.count, r.pauses) for r in counted] == [(6, ())]  # (where no replay measures them)
    fast, general = both(t.text())
    row = general.resumes[0]
    assert fast.resumes[0] == row == each_message(t.text()).resumes[0]
    assert row.max_replay_gap_ms == 900.0
    assert [(p.gap_ms, p.updates_after) for p in row.replay_pauses] == [
        (10.0, 6), (700.0, 4), (900.0, 2)
    ]  # fmt: skip


UTF8_EDGES = [b"\xc3\xa9", b"\xe2\x82\xac", b"\xf0\x9f\x98\x80", b"\xf4\x8f\xbf\xbf",  # UTF-8
              b"\xed\x9f\xbf", b"\xee\x80\x80", b"\xc2\x80", b"\xdf\xbf",
              b"\xc0\x80", b"\xc1\xbf", b"\xe0\x80\x80", b"\xf0\x80\x80\x80",  # overlong
              b"\xed\xa0\x80", b"\xed\xbf\xbf",  # surrogates
              b"\xf4\x90\x80\x80", b"\xf5\x80\x80\x80", b"\xff",  # beyond U+10FFFF
              b"\xe2\x82", b"\xe2\x82x", b"\x80", b"\xc3\xa9\xa9", b"12345678\xc3"]  # fmt: skip


@pytest.mark.parametrize("payload", UTF8_EDGES, ids=lambda payload: payload.hex())
def test_a_run_takes_a_line_only_when_it_is_utf8(payload: bytes) -> None:
    t = Transcript()
    first = t.update("agent_message_chunk", text="a")
    t.update("agent_message_chunk", text="ab" * 10)  # (the payload ends in a word or not)
    t.lines[-1] = t.lines[-1].replace(b"abab", b"ab" + payload, 1)
    lines = io.BytesIO(t.text()).readlines()
    index = taken_by_the_run_loop(lines, first)
    try:
        lines[1].decode()
    except UnicodeDecodeError:
        assert index == 1
    else:
        assert index == 2


def taken_by_the_run_loop(
    lines: list[bytes], first: int, breaks: frozenset[str] = frozenset()
) -> int:
    """How far the run loop goes in `lines` (line `first` is `lines[0]`) from the second, in a
    run that the first started: the index of the first line it does not take."""
    head = _as_plain(lines[0])
    assert head is not None
    message, usual = canonical_read(head, first)
    assert message is not None
    clock = Clock()
    clock.check(message)
    run = runs.Run(message, breaks, runs.notes(frozenset()), clock, usual)
    return run.grow(lines, 1, first)


def _as_plain(line: bytes) -> CanonicalLine | None:
    try:
        return decode_line(line)
    except NOT_DECODED:
        return None


def records_with_runs(data: bytes, watch: int = Watch.COUNTS) -> list[Any]:
    """What the reader gives an analysis: runs of plain updates taken together (read for
    what `watch` says the analysis needs of every session: by default, as where no turn is
    open, only counts)."""
    settings = ReadSettings(runs_for=TagPolicy.build())
    lines = iter_blocks(io.BytesIO(data))
    return list(read_records(lines, ReadStats(), None, settings, lambda _: watch))


def padded() -> Transcript:
    """A transcript whose format is settled before its messages (the hot path starts after
    the first records, which settle it)."""
    t = Transcript()
    t.open()
    for _ in range(DETECTION_SAMPLE):
        t.add({"dir": "stderr", "text": "starting"})
    return t


def test_runs_are_taken_together_and_broken_where_they_must_be() -> None:
    t = padded()
    t.initialize()
    t.new_session()
    t.resume(id=7)
    first = t.history(count=5)[0]
    live = t.update("usage_update")  # never history: listed in the run
    t.marker()  # never in a run
    back = t.update("agent_message_chunk", at_ms=t.now_ms - 50)  # the clock went back
    t.history(count=3)  # a new run
    t.result(7)
    records = records_with_runs(t.text())
    taken = [(r.first.line, r.count, r.live) for r in records if isinstance(r, UpdateRun)]
    assert taken == [(first, 6, ((live, "usage_update"),)), (back + 1, 3, ())]
    assert [(r.line, r.kind) for r in records if isinstance(r, Issue)] == [(back, "time_went_back")]


@pytest.mark.parametrize("variant", sorted(ODD_TIMES))
def test_a_time_in_an_odd_form_in_a_run_is_read_as_the_general_path_reads_it(variant: str) -> None:
    t = padded()
    t.initialize()
    t.new_session()
    first = t.history(count=4)[0]
    odd = t.update("agent_message_chunk")  # in the same second as the run's last update
    _odd_time(t, odd, variant)
    t.history(count=2)
    records = records_with_runs(t.text())
    fast, general = both(t.text())
    assert next(r for r in records if isinstance(r, UpdateRun)).first.line == first
    assert fast == general
    assert each_message(t.text()) == general


@given(
    st.one_of(
        st.integers(min_value=0, max_value=2**60),
        st.integers(min_value=0, max_value=10**12).map(lambda us: us * 1000 + 500),
        st.integers(min_value=2**53 - 10**6, max_value=2**53 + 10**6),
    )
)
def test_a_latency_in_milliseconds_is_the_rounded_float(ns: int) -> None:
    """`ns_ms` takes in integers what `round(ns / 1e6, 3)` gives (every latency of the
    analysis), at a half microsecond and past 2**53 too."""
    assert ns_ms(ns) == round(ns / 1e6, 3)


def test_a_latency_in_milliseconds_agrees_near_each_microsecond() -> None:
    for us in (0, 1, 999, 10**6, 123_456_789, 9 * 10**12):
        for ns in range(us * 1000 - 3, us * 1000 + 1004):
            if ns >= 0:
                assert ns_ms(ns) == round(ns / 1e6, 3), ns
