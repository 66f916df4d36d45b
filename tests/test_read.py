"""Reading: format detection, line accounting and every kind of input issue, with line numbers."""

from __future__ import annotations

import gzip
import io
from pathlib import Path

import pytest

import acptrace
from acptrace import UnreadableInput
from tests.transcript import Transcript, options_and_execution

REQUEST = b'{"jsonrpc":"2.0","id":1,"method":"session/list","params":{}}'
RESPONSE = b'{"jsonrpc":"2.0","id":1,"result":{"sessions":[]}}'


def run(data: bytes, **options: object) -> acptrace.Analysis:
    judged, run = options_and_execution(**options)
    return acptrace.analyze(io.BytesIO(data), judged, execution=run)


def issues(analysis: acptrace.Analysis) -> list[tuple[int, str]]:
    return [(i.line, i.kind) for i in analysis.issues]


def test_bare_jsonrpc_is_detected_and_every_line_counted() -> None:
    analysis = run(REQUEST + b"\n\n" + RESPONSE + b"\n   \n")
    assert analysis.source.format == "jsonrpc"
    assert (analysis.source.lines, analysis.source.messages) == (4, 2)
    assert analysis.issues == ()


def test_canonical_is_detected_with_events() -> None:
    t = Transcript()
    t.open()
    t.c2a({"jsonrpc": "2.0", "id": 1, "method": "session/list", "params": {}})
    t.add({"dir": "stderr", "text": "log"})
    t.close()
    analysis = t.analyze()
    assert analysis.source.format == "acptrace"
    assert (analysis.source.messages, analysis.source.events) == (1, 3)
    assert analysis.source.connection_end.value == "recorded"


def test_final_line_without_newline_is_a_line() -> None:
    analysis = run(REQUEST + b"\n" + RESPONSE)
    assert (analysis.source.lines, analysis.source.messages) == (2, 2)
    assert analysis.issues == ()


def test_cut_off_last_line_is_truncated_line() -> None:
    analysis = run(REQUEST + b"\n" + RESPONSE[:20])
    assert issues(analysis) == [(2, "truncated_line")]


def test_not_json_not_utf8_and_nul_bytes() -> None:
    data = b"hello\n" + b'{"jsonrpc": "2.0", "method": "x\xff"}\n' + b"\x00\x00\n" + REQUEST + b"\n"
    analysis = run(data)
    assert issues(analysis) == [(1, "not_json"), (2, "not_utf8"), (3, "not_json")]
    assert "NUL" in analysis.issues[2].message
    assert analysis.source.messages == 1


def test_json_that_is_not_jsonrpc_is_an_issue() -> None:
    analysis = run(b'{"hello": 1}\n42\n' + REQUEST + b"\n")
    assert issues(analysis) == [(1, "not_jsonrpc"), (2, "not_jsonrpc")]


def test_an_issue_quotes_the_json_as_json_not_as_python() -> None:
    """`null`, `true` and double quotes, as the file holds them: not `None`, `True`, `'x'`."""
    analysis = run(b'{"a": null, "b": [true, "x"]}\n' + REQUEST + b"\n")
    assert analysis.issues[0].message == 'JSON that is not JSON-RPC: {"a":null,"b":[true,"x"]}'


def test_a_line_of_no_envelope_in_a_recording_is_named_with_its_format() -> None:
    opened = b'{"ts":"2026-12-07T00:00:00Z","mono_ns":1,"dir":"meta","event":"open"}\n'
    sent = b'{"ts":"2026-12-07T00:00:00Z","mono_ns":2,"dir":"c2a","msg":' + REQUEST + b"}\n"
    analysis = run(opened + sent + b'{"weird": 1}\n')
    assert issues(analysis) == [(3, "unknown_envelope")]
    assert analysis.issues[0].message == 'not a record of the acptrace format: {"weird":1}'


def test_crlf_line_ends_are_read_and_reported_once() -> None:
    analysis = run(REQUEST + b"\r\n" + RESPONSE + b"\r\n")
    assert analysis.source.messages == 2
    assert issues(analysis) == [(1, "crlf")]


def test_over_long_line_is_skipped_and_reported_without_holding_it() -> None:
    big = b'{"jsonrpc":"2.0","method":"session/update","params":{"pad":"' + b"x" * 5000 + b'"}}'
    analysis = run(REQUEST + b"\n" + big + b"\n" + RESPONSE + b"\n", max_line_bytes=1000)
    assert issues(analysis) == [(2, "line_too_long")]
    assert "5" in analysis.issues[0].message
    assert (analysis.source.lines, analysis.source.messages) == (3, 2)


def test_an_over_long_last_line_without_a_newline_is_skipped_too() -> None:
    # (found by fuzzing: the end of the input yielded it whole, unchecked, as a cut-off line;
    # a split file's pieces, read in other blocks, said it was too long)
    big = b'{"jsonrpc":"2.0","method":"session/update","params":{"pad":"' + b"x" * 5000 + b'"}}'
    analysis = run(REQUEST + b"\n" + RESPONSE + b"\n" + big, max_line_bytes=1000)
    assert issues(analysis) == [(3, "line_too_long")]
    assert (analysis.source.lines, analysis.source.messages) == (3, 2)


def test_time_going_backwards_is_reported_and_the_message_kept() -> None:
    t = Transcript()
    t.c2a({"jsonrpc": "2.0", "id": 1, "method": "session/list", "params": {}}, at_ms=100)
    line = t.a2c({"jsonrpc": "2.0", "id": 1, "result": {}}, at_ms=50)
    analysis = t.analyze()
    assert issues(analysis) == [(line, "time_went_back")]
    assert analysis.findings == ()


def test_unusable_timestamp_is_reported_and_the_message_kept() -> None:
    message = b'{"jsonrpc":"2.0","id":1,"method":"session/list"}'
    data = b'{"ts": "yesterday", "dir": "c2a", "msg": ' + message + b"}\n"
    analysis = run(data)
    assert issues(analysis) == [(1, "bad_timestamp")]
    assert analysis.source.messages == 1


def test_canonical_record_without_msg_is_unknown_envelope_and_raw_is_not_json() -> None:
    data = (
        b'{"dir": "c2a", "msg": {"jsonrpc":"2.0","id":1,"method":"session/list"}}\n'
        b'{"dir": "a2c", "something": 1}\n'
        b'{"dir": "a2c", "raw": "Debug: hello"}\n'
        b'{"dir": "sideways", "msg": {}}\n'
    )
    analysis = run(data)
    assert analysis.source.format == "acptrace"
    # (an unknown `dir` is `unknown_direction` since input-formats.md said so; `{}` is then read)
    assert issues(analysis) == [
        (2, "unknown_envelope"),
        (3, "not_json"),
        (4, "unknown_direction"),
        (4, "not_jsonrpc"),
    ]


def test_mixed_formats_are_read_and_reported_once() -> None:
    canonical = b'{"dir": "c2a", "msg": {"jsonrpc":"2.0","id":%d,"method":"session/list"}}\n'
    data = canonical % 1 + RESPONSE + b"\n" + canonical % 2 + RESPONSE + b"\n"
    analysis = run(data)
    assert analysis.source.format == "acptrace"
    assert analysis.source.messages == 4
    assert issues(analysis) == [(2, "mixed_format")]


def test_unknown_direction_is_reported_once_per_method() -> None:
    data = b'{"jsonrpc":"2.0","method":"_x/ping"}\n{"jsonrpc":"2.0","method":"_x/ping"}\n'
    assert issues(run(data)) == [(1, "unknown_direction")]


def test_forced_format_overrides_detection() -> None:
    analysis = run(REQUEST + b"\n", input_format="acptrace")
    assert analysis.source.format == "acptrace"
    assert issues(analysis) == [(1, "unknown_envelope")]
    with pytest.raises(acptrace.UsageError):
        run(REQUEST, input_format="nope")


def test_empty_input() -> None:
    analysis = run(b"")
    assert (analysis.source.lines, analysis.source.messages, analysis.issues) == (0, 0, ())


def test_binary_garbage_is_issues_not_an_exception() -> None:
    data = bytes(range(256)) * 4 + b"\n" + bytes(range(255, -1, -1))
    analysis = run(data)
    assert analysis.source.lines == len(data.split(b"\n"))
    assert {i.kind for i in analysis.issues} <= {"not_json", "not_utf8", "truncated_line"}


def test_gzip_file_is_read_transparently(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl.gz"
    path.write_bytes(gzip.compress(REQUEST + b"\n" + RESPONSE + b"\n"))
    analysis = acptrace.analyze(path)
    assert (analysis.source.messages, analysis.issues) == (2, ())


@pytest.mark.parametrize("kind", ["missing", "directory"])
def test_unreadable_paths_raise_one_error(tmp_path: Path, kind: str) -> None:
    target = tmp_path / "nothing.jsonl" if kind == "missing" else tmp_path
    with pytest.raises(UnreadableInput):
        acptrace.analyze(target)


def test_huge_numeric_timestamp_is_unusable_not_a_crash() -> None:
    data = b'{"ts": 1.797693134862316e+299, "dir": "c2a", "msg": {"jsonrpc": "2.0", "method": "x"}}'
    analysis = run(data)
    assert (analysis.issues[0].line, analysis.issues[0].kind) == (1, "bad_timestamp")


def test_what_the_recorder_marks_becomes_issues() -> None:
    data = (
        b'{"dir": "meta", "event": "open"}\n'
        b'{"dir": "a2c", "raw": "/w==", "encoding": "base64"}\n'
        b'{"dir": "meta", "event": "gap", "stream": "a2c", "lines": 3, "bytes": 900}\n'
        b'{"dir": "a2c", "raw": "{\\"jsonrpc\\": \\"2.0\\", \\"me", "part": 1, "more": true}\n'
        b'{"dir": "a2c", "raw": "thod\\": \\"x\\"}", "part": 2, "more": false}\n'
        b'{"dir": "a2c", "raw": "{\\"jsonrpc\\": \\"2.", "eol": false}\n'
    )
    analysis = run(data)
    assert issues(analysis) == [
        (2, "not_utf8"),
        (3, "recording_gap"),
        (4, "line_too_long"),
        (6, "truncated_line"),
    ]
    assert analysis.source.events == 4  # open, gap and the two parts


def test_wall_clock_going_back_is_reported_even_when_the_record_has_a_monotonic_clock() -> None:
    t = Transcript()
    t.c2a({"jsonrpc": "2.0", "id": 1, "method": "session/list", "params": {}}, at_ms=100)
    back = t.a2c({"jsonrpc": "2.0", "id": 1, "result": {}}, at_ms=200)
    t.lines[-1] = t.lines[-1].replace(b'"ts":"2025-12-02T10:00:00.200000Z"',
                                      b'"ts":"2025-12-02T09:59:00.000000Z"')  # fmt: skip
    analysis = t.analyze()
    assert issues(analysis) == [(back, "time_went_back")]
    assert "ts" in analysis.issues[0].message


BOM = b"\xef\xbb\xbf"


@pytest.mark.parametrize("compressed", [False, True])
def test_a_byte_order_mark_at_the_start_of_a_file_is_skipped(
    tmp_path: Path, compressed: bool
) -> None:
    data = BOM + REQUEST + b"\n" + RESPONSE + b"\n"
    path = tmp_path / ("t.jsonl.gz" if compressed else "t.jsonl")
    path.write_bytes(gzip.compress(data) if compressed else data)
    analysis = acptrace.analyze(path)
    assert (analysis.source.format, analysis.source.lines, analysis.source.messages) == (
        "jsonrpc",
        2,
        2,
    )
    assert analysis.issues == ()


def test_a_byte_order_mark_opening_a_zed_array_is_skipped() -> None:
    entry = b'{"_direction": "outgoing", "_type": "request", "id": 1, "method": "session/list"}'
    analysis = run(BOM + b"[\n  " + entry + b"\n]\n")
    assert (analysis.source.format, analysis.source.messages, analysis.issues) == ("zed", 1, ())


def test_a_byte_order_mark_anywhere_else_is_data() -> None:
    analysis = run(REQUEST + b"\n" + BOM + RESPONSE + b"\n")
    assert issues(analysis) == [(2, "not_json")]
    assert analysis.source.messages == 1


def test_a_lone_byte_order_mark_is_one_blank_line() -> None:
    analysis = run(BOM)
    assert (analysis.source.lines, analysis.source.messages, analysis.issues) == (1, 0, ())


def test_an_unknown_canonical_dir_is_an_issue_and_the_message_is_still_read() -> None:
    t = Transcript()
    t.request("session/list", id=1)
    odd = t.add({"dir": "agent", "msg": {"jsonrpc": "2.0", "id": 1, "result": {"sessions": []}}})
    cancel = t.add({"dir": "up", "msg": {"jsonrpc": "2.0", "method": "session/cancel"}})
    with acptrace.open_walk(io.BytesIO(t.text())) as walk:
        steps = [item.message for item in walk if isinstance(item, acptrace.Step)]
    assert walk.analysis.source.format == "acptrace"
    assert [(i.line, i.kind) for i in walk.analysis.issues] == [
        (odd, "unknown_direction"),
        (cancel, "unknown_direction"),
    ]
    assert '"agent"' in walk.analysis.issues[0].message
    assert [(m.line, m.kind.value, m.direction.value) for m in steps] == [
        (1, "request", "c2a"),
        (odd, "response", "a2c"),  # the answer to a Client request
        (cancel, "notification", "c2a"),  # session/cancel goes to the Agent
    ]


def test_known_canonical_dirs_and_other_recorders_dir_words_are_no_unknown_direction() -> None:
    t = Transcript()
    t.request("session/list", id=1)
    t.result(1, {"sessions": []})
    t.add({"dir": "stderr", "text": "log"})
    assert t.analyze().issues == ()
    openhands = b'{"ts": "2026-12-02T10:00:00Z", "dir": ">>>", "msg": ' + REQUEST + b"}\n"
    analysis = run(openhands)
    assert (analysis.source.format, analysis.issues) == ("openhands", ())
