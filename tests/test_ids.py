"""JSON-RPC ids (rules.md §5): which are valid, which pair, and how invalid ones are judged.

An id pairs a request with its response when it is a string or an integer in int64 range. A
message that is JR-INVALID for its id takes part in no pairing: such a request is never
pending, such a response answers nothing and is not an orphan. An error response with a null
id is allowed. Each case runs through the hot path and the general path alike (the fast path
hands every line with a problem to the general one).
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.transcript import Transcript, findings, rule_ids


def connected() -> Transcript:
    t = Transcript()
    t.open()
    t.initialize()
    t.new_session()
    return t


def call(id: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": id, "method": "session/list", "params": {}}


def answer(id: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": id, "result": {"sessions": []}}


@pytest.mark.parametrize("bad", [True, 1.0, 1.5, [1], {"n": 1}, 2**63])
def test_a_response_with_an_invalid_id_is_jr_invalid_only(bad: Any) -> None:
    t = connected()
    line = t.a2c(answer(bad))
    t.close()
    assert findings(t.analyze()) == [("JR-INVALID", "error", line)]


def test_a_response_without_an_id_is_jr_invalid_only() -> None:
    t = connected()
    line = t.a2c({"jsonrpc": "2.0", "result": {}})
    t.close()
    assert findings(t.analyze()) == [("JR-INVALID", "error", line)]


@pytest.mark.parametrize("bad", [None, 1.0, True, 2**63])
def test_a_request_with_an_invalid_id_is_jr_invalid_and_never_pending(bad: Any) -> None:
    t = connected()
    line = t.c2a(call(bad))
    t.c2a(call(bad))  # (the same id again: no JR-DUPLICATE-ID either)
    t.close()  # a recorded end: a pending request would be JR-UNANSWERED
    analysis = t.analyze()
    assert rule_ids(analysis) == {"JR-INVALID"}
    assert findings(analysis)[0] == ("JR-INVALID", "error", line)


def test_a_success_response_with_a_null_id_is_jr_invalid_and_no_orphan() -> None:
    t = connected()
    line = t.a2c(answer(None))
    t.close()
    assert findings(t.analyze()) == [("JR-INVALID", "error", line)]


def test_an_error_response_with_a_null_id_is_allowed() -> None:
    t = connected()
    t.error(None, -32700)
    t.close()
    assert findings(t.analyze()) == []


@pytest.mark.parametrize("good", [2**63 - 1, -(2**63), 0, "7", ""])
def test_strings_and_int64_integers_pair(good: Any) -> None:
    t = connected()
    t.c2a(call(good))
    t.a2c(answer(good))
    t.close()
    assert findings(t.analyze()) == []


@pytest.mark.parametrize(("sent", "answered"), [(2**60, 2**60 + 1), (7, "7"), ("7", 7)])
def test_ids_compare_exactly_as_written(sent: Any, answered: Any) -> None:
    t = connected()
    request = t.c2a(call(sent))
    response = t.a2c(answer(answered))
    t.close()
    assert sorted(findings(t.analyze()), key=lambda f: f[2]) == [
        ("JR-UNANSWERED", "warning", request),
        ("JR-ORPHAN-RESPONSE", "error", response),
    ]


@pytest.mark.parametrize("written", [b"18446744073709551617", b"-9223372036854775809", b"1e0"])
def test_ids_as_written_beyond_int64_or_with_an_exponent_are_jr_invalid(written: bytes) -> None:
    t = connected()
    line = t.raw(b'{"dir": "a2c", "msg": {"jsonrpc": "2.0", "id": ' + written + b', "result": {}}}')
    t.close()
    assert findings(t.analyze()) == [("JR-INVALID", "error", line)]


@pytest.mark.parametrize(("sent", "quoted"), [(7, "7"), ("7", '"7"'), ('a"b', '"a\\"b"')])
def test_messages_quote_an_id_as_written(sent: Any, quoted: str) -> None:
    t = connected()
    t.c2a(call(sent))
    t.close()
    (finding,) = t.analyze().findings
    assert finding.rule == "JR-UNANSWERED"
    assert f"(id {quoted})" in finding.message
