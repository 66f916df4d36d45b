"""The agent-shell / acp.el `.traffic` reader (acptrace/read/traffic.py): files shaped like real
ones, every sample trace written as `pp` writes it and read back, malformed entries, hostile
files, and properties (any bytes in: entries or issues; any messages out and back)."""

from __future__ import annotations

import json
import re
import sys
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from acptrace.model.domain import Direction, Issue, IssueKind
from acptrace.read.jsontext import MAX_DEPTH
from acptrace.read.sexp import MAX_NESTING
from acptrace.read.traffic import TrafficEntry, read_traffic, read_traffic_text
from tests.traffic import acp_kind, write_traffic

ROOT = Path(__file__).resolve().parents[1]
FILES = Path(__file__).parent / "traffic_files"
SAMPLES = sorted((ROOT / "sample_traces").glob("*.jsonl"))
C2A, A2C = Direction.C2A, Direction.A2C
SESSION = "5f0c2a7e-0b1d-4c8e-a1f3-6e2d9b7c4a58"

Item = TrafficEntry | Issue


def read(data: str | bytes) -> list[Item]:
    return list(read_traffic(data.encode() if isinstance(data, str) else data))


def entries(items: Iterable[Item]) -> list[TrafficEntry]:
    return [item for item in items if isinstance(item, TrafficEntry)]


def issues(items: Iterable[Item]) -> list[tuple[int, IssueKind, str]]:
    return [(i.line, i.kind, i.message) for i in items if isinstance(i, Issue)]


@contextmanager
def deeper_recursion() -> Iterator[None]:
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(20_000)
    try:
        yield
    finally:
        sys.setrecursionlimit(limit)


def canonical(path: Path) -> list[tuple[Direction, Any]]:
    """The messages of a canonical transcript (`meta` and `stderr` records left out)."""
    records = (json.loads(line) for line in path.read_text().splitlines() if line.strip())
    return [(Direction(r["dir"]), r["msg"]) for r in records if r["dir"] in ("c2a", "a2c")]


# -- files shaped like real ones -------------------------------------------------------------


def test_a_file_shaped_like_agent_shells_claude_ask_user_question() -> None:
    """tests/traffic_files/ask-user-question.traffic follows agent-shell's
    tests/claude-ask-user-question.traffic (see the comment it starts with)."""
    items = read((FILES / "ask-user-question.traffic").read_bytes())
    assert issues(items) == []
    session = "0d1c6f0e-5a7b-4f1e-9c51-2b8e7f4a9d10"
    initialize_params = {
        "clientInfo": {"name": "agent-shell", "title": "Emacs Agent Shell", "version": "0.80.1"},
        "protocolVersion": 1,
        "clientCapabilities": {
            "fs": {"readTextFile": True, "writeTextFile": True},
            "elicitation": {"form": {}},
        },
    }
    initialize_result = {
        "protocolVersion": 1,
        "agentCapabilities": {
            "_meta": {"claudeCode": {"promptQueueing": True}},
            "promptCapabilities": {"image": True, "embeddedContext": True},
            "auth": {"logout": {}},
            "loadSession": True,
            "sessionCapabilities": {"close": {}, "list": {}},
        },
        "agentInfo": {"name": "example-agent", "version": "1.2.3"},
        "authMethods": [],
        "_meta": {"goal": {"version": 1, "actions": ["set", "clear"]}},
    }
    tool_call = {
        "toolCallId": "toolu_01",
        "sessionUpdate": "tool_call",
        "rawInput": {},
        "status": "pending",
        "title": "Asking where to deploy",
        "kind": "other",
        "content": [],
    }
    question = {
        "type": "string",
        "multiSelect": {},  # (false on the wire: acp.el parses it into nil since 2025-11)
        "oneOf": [
            {"const": "Staging", "title": "Staging"},
            {"const": "Production", "title": "Production"},
        ],
    }
    elicitation = {
        "mode": "form",
        "sessionId": session,
        "message": "Deploy to staging, or production?",
        "requestedSchema": {"type": "object", "properties": {"question_0": question}},
    }
    answered = {
        "_meta": {
            "claudeCode": {
                "toolResponse": {"answers": {"Deploy to staging, or production?": "Staging"}}
            }
        },
        "toolCallId": "toolu_01",
        "sessionUpdate": "tool_call_update",
        "status": "completed",
        "rawOutput": 'Answered: "Deploy to staging, or production?"="Staging".',
        "content": [
            {
                "type": "content",
                "content": {
                    "type": "text",
                    "text": "Line one\nLine two with a tab\tand a \\ backslash",
                },
            }
        ],
    }
    rpc = {"jsonrpc": "2.0"}
    update = {**rpc, "method": "session/update"}
    assert entries(items) == [
        TrafficEntry(
            6,
            C2A,
            "request",
            {**rpc, "method": "initialize", "id": 1, "params": initialize_params},
        ),
        TrafficEntry(16, A2C, "response", {**rpc, "id": 1, "result": initialize_result}),
        TrafficEntry(
            31,
            A2C,
            "notification",
            {**update, "params": {"sessionId": session, "update": tool_call}},
        ),
        TrafficEntry(
            40,
            A2C,
            "request",
            {**rpc, "id": 0, "method": "elicitation/create", "params": elicitation},
        ),
        TrafficEntry(
            56,
            C2A,
            "response",
            {**rpc, "id": 0, "result": {"action": "accept", "content": {"question_0": "Staging"}}},
        ),
        TrafficEntry(
            59,
            A2C,
            "notification",
            {**update, "params": {"sessionId": session, "update": answered}},
        ),
    ]


def test_a_file_shaped_like_agent_shells_gemini_multiple_permissions() -> None:
    """tests/traffic_files/permission.traffic follows agent-shell's
    tests/gemini-multiple-permissions.traffic: acp.el before November 2025 (`:false`,
    `:null`), space indentation, a session id labelled in a response and referred to in the
    next prompt, the empty vector `#3=[]`, and a labelled cons `#5=(outcome . "selected")`
    that a later response refers to."""
    items = read((FILES / "permission.traffic").read_bytes())
    assert issues(items) == []
    got = entries(items)
    assert [(e.line, e.direction, e.kind) for e in got] == [
        (1, C2A, "request"),
        (7, A2C, "response"),
        (18, C2A, "request"),
        (21, A2C, "response"),
        (23, C2A, "request"),
        (28, A2C, "response"),
        (32, C2A, "request"),
        (38, A2C, "request"),
        (54, C2A, "response"),
        (58, A2C, "notification"),
        (66, A2C, "request"),
        (78, C2A, "response"),
        (80, A2C, "response"),
    ]
    assert got[0].message["params"]["clientCapabilities"] == {
        "fs": {"readTextFile": False, "writeTextFile": False}
    }
    assert got[1].message["result"]["authMethods"] == [
        {"id": "api-key", "name": "Use an API key", "description": None}
    ]
    assert got[3].message == {"jsonrpc": "2.0", "id": 2, "result": None}
    assert got[4].message["params"] == {"cwd": "/home/dev/project/", "mcpServers": []}
    assert got[6].message["params"] == {
        "sessionId": SESSION,
        "prompt": [{"type": "text", "text": "list the files"}],
    }
    tool_call = got[7].message["params"]["toolCall"]
    assert (tool_call["content"], tool_call["locations"]) == ([], [])
    selected = {"outcome": {"outcome": "selected", "optionId": "proceed_once"}}
    assert got[8].message == {"jsonrpc": "2.0", "id": 0, "result": selected}
    assert got[11].message == {"jsonrpc": "2.0", "id": 1, "result": selected}
    assert (
        got[9].message["params"]["update"]["content"]["text"] == "Two files:\n\n- a.txt\n- b.txt\n"
    )
    assert all(e.message["jsonrpc"] == "2.0" for e in got)


# -- the round trip --------------------------------------------------------------------------

LAYOUTS: dict[str, dict[str, Any]] = {
    "pp-fill, tabs": {},
    "pp-fill, spaces": {"tabs": False},
    "one line": {"width": None},
    "raw newlines": {"escape_newlines": False},
    "no shared structure": {"share": False},
    "narrow": {"width": 20},
}


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("sample", SAMPLES, ids=lambda p: p.name)
def test_every_sample_trace_reads_back_from_traffic(sample: Path, layout: str) -> None:
    messages = canonical(sample)
    text = write_traffic(messages, **LAYOUTS[layout])
    items = read(text)
    assert issues(items) == []
    got = entries(items)
    assert [(e.direction, e.message) for e in got] == messages
    assert [e.kind for e in got] == [acp_kind(m) for _, m in messages]
    lines = text.split("\n")
    assert all(lines[e.line - 1].lstrip(" (").startswith(":direction") for e in got)
    assert [e.line for e in got] == sorted(e.line for e in got)


def test_the_samples_exercise_labels_and_batches() -> None:
    text = write_traffic(canonical(ROOT / "sample_traces" / "rules-jsonrpc.jsonl"))
    assert re.search(r'\(jsonrpc \. #([0-9]+)="2\.0"\).*\(jsonrpc \. #\1#\)', text, re.DOTALL)
    assert re.search(r"#([0-9]+)=\[\].*#\1#", text, re.DOTALL)
    assert re.search(r"\(:object\s+\. \[", text)  # (a batch: acp.el never logs one)


def test_false_and_null_as_acp_el_parses_them_now_read_as_empty_objects() -> None:
    message = {"jsonrpc": "2.0", "id": 7, "result": {"a": False, "b": None, "c": {}, "d": [None]}}
    text = write_traffic([(A2C, message)], nil_for_false_and_null=True)
    assert "(a) (b) (c) (d . [nil])" in text
    (entry,) = read(text)
    assert isinstance(entry, TrafficEntry)
    assert entry.message["result"] == {"a": {}, "b": {}, "c": {}, "d": [{}]}


def test_quote_pairs_print_and_read_back() -> None:
    message = {"quote": {"a": 1}, "function": {"b": 2}, "`": {",": {"c": 3}}, ",": {"d": 4}}
    text = write_traffic([(C2A, message)], width=None)
    assert "'(a . 1) #'(b . 2) `,(c . 3) (\\, (d . 4))" in text
    assert [e.message for e in entries(read(text))] == [message]


def test_keys_that_are_not_plain_symbols_read_back() -> None:
    keys = ["", "nil", "t", "1", "-2.5", "1e5", ".", "?q", "a b", "(x)", "#1#", ":kw", "é\n\x00"]
    keys.append(".0")
    message = {key: index for index, key in enumerate(keys)}
    line = write_traffic([(C2A, message)], width=None)
    assert "(## . 0) (nil . 1) (t . 2) (\\1 . 3) (\\-2.5 . 4) (\\1e5 . 5) (\\. . 6)" in line
    assert (
        "(\\?q . 7) (a\\ b . 8) (\\(x\\) . 9) (\\#1\\# . 10) (:kw . 11) (é\\\n\\\x00 . 12)" in line
    )
    for text in (line, write_traffic([(C2A, message)])):
        assert [e.message for e in entries(read(text))] == [message]


def test_an_empty_traffic_buffer_saves_as_nil() -> None:
    assert write_traffic([]) == "nil\n"
    assert read("nil\n") == []


# -- malformed entries -----------------------------------------------------------------------


def wrap(*entries: str) -> str:
    return "(" + "\n ".join(entries) + ")\n"


OBJECT = '(:object (jsonrpc . "2.0") (method . "x"))'


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            wrap("((:direction . incoming) (:kind . notification) " + OBJECT + ")", "42"),
            ["entry", (2, IssueKind.UNKNOWN_ENVELOPE, "entry is not an alist: 42")],
        ),
        (
            wrap('((:direction . incoming) "stray" ' + OBJECT + ")"),
            [
                (
                    1,
                    IssueKind.UNKNOWN_ENVELOPE,
                    "entry is not an alist: "
                    '((:direction . incoming) "stray" (:object (jsonrpc . "2.0")…',
                )
            ],
        ),
        (
            wrap("((:direction . incoming) (:kind . response))"),
            [
                (
                    1,
                    IssueKind.UNKNOWN_ENVELOPE,
                    "entry has no :object: ((:direction . incoming) (:kind . response))",
                )
            ],
        ),
        (
            wrap("nil"),
            [(1, IssueKind.UNKNOWN_ENVELOPE, "entry is not an alist: nil")],
        ),
        (
            wrap('((:direction . incoming) (:object . "text"))'),
            [(1, IssueKind.NOT_JSONRPC, ':object is not a message: "text"')],
        ),
        (
            wrap("((:direction . incoming) (:object . 5))"),
            [(1, IssueKind.NOT_JSONRPC, ":object is not a message: 5")],
        ),
        (
            wrap("((:direction . incoming)\n  (:object (id . 1)\n   (result (ok . yes))))"),
            [(3, IssueKind.NOT_JSON, ":object is not JSON data: the symbol yes is not JSON")],
        ),
        (
            wrap('((:direction . incoming) (:object ("id" . 1)))'),
            [
                (
                    1,
                    IssueKind.NOT_JSON,
                    ':object is not JSON data: an alist entry is not (symbol . value): ("id" . 1)',
                )
            ],
        ),
        (
            wrap("((:direction . sideways) " + OBJECT + ")"),
            [(1, IssueKind.UNKNOWN_DIRECTION, "unknown :direction sideways: inferred"), "entry"],
        ),
        (
            wrap("(" + OBJECT + ")"),
            [(1, IssueKind.UNKNOWN_DIRECTION, "unknown :direction none: inferred"), "entry"],
        ),
        (
            wrap('((:direction . "outgoing") ' + OBJECT + ")"),
            [(1, IssueKind.UNKNOWN_DIRECTION, 'unknown :direction "outgoing": inferred'), "entry"],
        ),
    ],
)
def test_a_malformed_entry_is_an_issue_and_the_others_still_read(
    text: str, expected: list[Any]
) -> None:
    good = "((:direction . outgoing) (:kind . notification) " + OBJECT + ")"
    items = read(text.removesuffix(")\n") + "\n " + good + ")\n")
    shown = [(i.line, i.kind, i.message) if isinstance(i, Issue) else "entry" for i in items]
    assert shown == [*expected, "entry"]
    assert entries(items)[-1] == TrafficEntry(
        text.count("\n") + 1, C2A, "notification", {"jsonrpc": "2.0", "method": "x"}
    )


def test_an_entry_reads_its_first_fields_and_ignores_others() -> None:
    text = wrap(
        '((:timestamp . "12:00:01.123") (:direction . outgoing) (:direction . incoming)'
        ' (:kind . "request") (:object (id . 1)) (:object (id . 2)))'
    )
    assert read(text) == [TrafficEntry(1, C2A, None, {"id": 1})]


def test_a_message_at_the_json_depth_limit_reads_and_one_past_it_is_too_deep() -> None:
    def nested(depth: int) -> Any:
        value: Any = 1
        for level in range(depth):
            value = [value] if level % 2 else {"k": value}
        return value

    within = {"params": nested(MAX_DEPTH - 1)}
    with deeper_recursion():  # (the test's writer recurses; the reader does not)
        text = write_traffic([(C2A, within), (C2A, {"params": nested(MAX_DEPTH)})], width=None)
    first, second = read(text)
    with deeper_recursion():  # (so does comparing the values)
        assert first == TrafficEntry(1, C2A, "response", within)
    assert isinstance(second, Issue)
    assert (second.kind, second.message) == (
        IssueKind.TOO_DEEP,
        f":object is not JSON data: nested deeper than {MAX_DEPTH:,} levels of JSON",
    )


# -- hostile files ---------------------------------------------------------------------------

ENTRY = '((:direction . incoming) (:kind . response) (:object (id . 1) (result . "ok")))'
GOOD = TrafficEntry(1, A2C, "response", {"id": 1, "result": "ok"})
NOT_READ = "; not read past here"


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (
            b"",
            [(1, IssueKind.NOT_JSON, "not Emacs Lisp data: no data: the text is empty" + NOT_READ)],
        ),
        (
            b" \n\t\n",
            [(3, IssueKind.NOT_JSON, "not Emacs Lisp data: no data: the text is empty" + NOT_READ)],
        ),
        (
            b";; only a comment\n; and another\n",
            [(3, IssueKind.NOT_JSON, "not Emacs Lisp data: no data: the text is empty" + NOT_READ)],
        ),
        (
            b'"a string"',
            [(1, IssueKind.NOT_JSON, 'not Emacs Lisp data: not a list: "a string"' + NOT_READ)],
        ),
        (b"[1 2]", [(1, IssueKind.NOT_JSON, "not Emacs Lisp data: not a list: [1 2]" + NOT_READ)]),
        (
            b'{"jsonrpc": "2.0"}',
            [(1, IssueKind.NOT_JSON, "not Emacs Lisp data: not a list: {" + NOT_READ)],
        ),
        (
            ("(" + ENTRY + "\n (").encode(),
            [
                GOOD,
                (
                    2,
                    IssueKind.NOT_JSON,
                    "not Emacs Lisp data: the text ends inside the list opened at line 2"
                    + NOT_READ,
                ),
            ],
        ),
        (
            ("(" + ENTRY + "))\n").encode(),
            [
                GOOD,
                (1, IssueKind.NOT_JSON, "not Emacs Lisp data: more data after the end" + NOT_READ),
            ],
        ),
        (
            ("(" + ENTRY + ")\n(" + ENTRY + ")\n").encode(),
            [
                GOOD,
                (2, IssueKind.NOT_JSON, "not Emacs Lisp data: more data after the end" + NOT_READ),
            ],
        ),
        (
            ("(" + ENTRY + '\n ((:object (text . "bad \\q escape"))))').encode(),
            [
                GOOD,
                (
                    2,
                    IssueKind.NOT_JSON,
                    "not Emacs Lisp data: bad escape \\q in a string" + NOT_READ,
                ),
            ],
        ),
        (
            ("(" + ENTRY + '\n ((:object (text . "never closed))))').encode(),
            [
                GOOD,
                (
                    2,
                    IssueKind.NOT_JSON,
                    "not Emacs Lisp data: a string that starts here never ends" + NOT_READ,
                ),
            ],
        ),
        (
            ("(" + ENTRY + "\n ((:object (id . #1#))))").encode(),
            [
                GOOD,
                (
                    2,
                    IssueKind.NOT_JSON,
                    "not Emacs Lisp data: #1# refers to no label defined before it" + NOT_READ,
                ),
            ],
        ),
        (
            b"(((:object #1=((a . #1#)))))",
            [
                (
                    1,
                    IssueKind.NOT_JSON,
                    "not Emacs Lisp data: #1# refers to its own structure (a cycle)" + NOT_READ,
                )
            ],
        ),
        (
            b"(((:object (a . #s(hash-table)))))",
            [(1, IssueKind.NOT_JSON, "not Emacs Lisp data: unknown syntax #s" + NOT_READ)],
        ),
        (
            ("(" + ENTRY + "\x00)").encode(),
            [
                GOOD,
                (
                    1,
                    IssueKind.NOT_JSON,
                    "not Emacs Lisp data: a control character \\x00 outside a string" + NOT_READ,
                ),
            ],
        ),
        (
            b"\xef\xbb\xbf(" + ENTRY.encode() + b")",
            [GOOD],
        ),
        (
            ("(" + ENTRY + "\r\n " + ENTRY + ")\r\n").encode(),
            [GOOD, TrafficEntry(2, A2C, "response", {"id": 1, "result": "ok"})],
        ),
    ],
)
def test_hostile_files_give_issues(data: bytes, expected: list[Any]) -> None:
    items = read(data)
    shown = [(i.line, i.kind, i.message) if isinstance(i, Issue) else i for i in items]
    assert shown == expected


def test_nul_bytes_inside_strings_are_data() -> None:
    text = '(((:direction . incoming) (:object (text . "a\x00b\r\x1bc"))))'
    assert read(text) == [TrafficEntry(1, A2C, None, {"text": "a\x00b\r\x1bc"})]


def test_invalid_utf8_is_an_issue_per_line_and_the_file_still_reads() -> None:
    data = b'(((:direction . incoming)\n  (:object (text . "caf\xe9 \xff"))))\n; \xc3(\n'
    items = read(data)
    assert issues(items) == [
        (2, IssueKind.NOT_UTF8, "invalid UTF-8 at byte 23 of the line: read as U+FFFD"),
        (3, IssueKind.NOT_UTF8, "invalid UTF-8 at byte 2 of the line: read as U+FFFD"),
    ]
    assert entries(items) == [TrafficEntry(1, A2C, None, {"text": "caf\ufffd \ufffd"})]
    assert [item.line for item in items] == [1, 2, 3]


def test_a_huge_string_in_a_message_reads() -> None:
    text = "x" * 10_000_000
    data = write_traffic([(A2C, {"jsonrpc": "2.0", "method": "m", "params": {"text": text}})])
    started = time.perf_counter()
    (entry,) = read(data)
    assert isinstance(entry, TrafficEntry)
    assert entry.message["params"]["text"] == text
    assert time.perf_counter() - started < 20


@pytest.mark.parametrize(
    "nesting",
    ["(" * 100_000, "[" * 100_000, "'" * 100_000, "(a . " * 100_000, "#1=(" + "#2=(" * 100_000],
    ids=["lists", "vectors", "quotes", "dotted", "labels"],
)
def test_deep_nesting_is_one_issue_in_bounded_time(nesting: str) -> None:
    started = time.perf_counter()
    (issue,) = read("(((:direction . incoming) (:object (a . " + nesting)
    assert time.perf_counter() - started < 5
    assert isinstance(issue, Issue)
    if nesting.startswith("#"):
        assert issue.message == f"not Emacs Lisp data: label #2= defined twice{NOT_READ}"
    else:
        assert (issue.line, issue.kind) == (1, IssueKind.TOO_DEEP)
        assert issue.message == f"nested deeper than {MAX_NESTING:,} levels: not read past here"


def test_deep_nesting_within_the_reader_but_past_json_is_too_deep() -> None:
    depth = MAX_NESTING - 10
    text = "(((:direction . incoming) (:object (a . " + "[" * depth + "]" * depth + "))))"
    (issue,) = read(text)
    assert isinstance(issue, Issue)
    assert issue.kind is IssueKind.TOO_DEEP


def test_exponential_shared_structure_is_refused_in_bounded_time() -> None:
    labels = " ".join(f"#{n}=[#{n - 1}# #{n - 1}#]" for n in range(2, 60))
    text = f"(((:object (a . [#1=[] {labels}]))))"
    started = time.perf_counter()
    (issue,) = read(text)
    assert time.perf_counter() - started < 5
    assert isinstance(issue, Issue)
    assert issue.kind is IssueKind.NOT_JSON
    assert "stands for more than" in issue.message


def test_a_file_cut_anywhere_keeps_the_entries_before_the_cut() -> None:
    data = (FILES / "permission.traffic").read_bytes()
    whole = entries(read(data))
    for cut in range(0, len(data), 7):
        items = read(data[:cut])
        got = entries(items)
        assert got == whole[: len(got)]
        assert len(issues(items)) == (0 if data[:cut].strip() == data.strip() else 1)


# -- properties ------------------------------------------------------------------------------

_LISPY = st.text(alphabet=st.sampled_from(list("()[]\"\\ #=1.';:?abdiknotj\n\x00é")), max_size=120)
_SHAPED = st.builds(
    lambda entry, junk: "(((:direction . incoming) " + entry + junk,
    st.sampled_from(["(:object ", "(:kind . x) (:object (a . ", "(:object . "]),
    _LISPY,
)


@given(st.one_of(st.binary(max_size=300), _LISPY.map(str.encode), _SHAPED.map(str.encode)))
def test_any_bytes_give_entries_or_issues(data: bytes) -> None:
    items = read(data)
    last = data.count(b"\n") + 1
    for item in items:
        assert isinstance(item, TrafficEntry | Issue)
        assert 1 <= item.line <= last
    assert [item.line for item in items] == sorted(item.line for item in items)


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)
_MESSAGES = st.lists(
    st.tuples(
        st.sampled_from([C2A, A2C]),
        st.dictionaries(st.text(), _JSON, max_size=5) | st.lists(_JSON, max_size=3),
    ),
    max_size=4,
)


@given(_MESSAGES, st.sampled_from(list(LAYOUTS.values())))
def test_any_messages_written_as_traffic_read_back(
    messages: list[tuple[Direction, Any]], layout: dict[str, Any]
) -> None:
    text = write_traffic(messages, **layout)
    items = list(read_traffic_text(text))
    assert [(e.direction, e.message) for e in entries(items)] == messages
    assert issues(items) == []
