"""The JSON value of Emacs Lisp data (acptrace/read/lispjson.py): json-serialize's reading of
alists, plists, vectors and the symbols acp.el uses, and what is not JSON."""

from __future__ import annotations

import math
from typing import Any

import pytest

from acptrace.read.jsontext import MAX_DEPTH
from acptrace.read.lispjson import NotJson, to_json
from acptrace.read.sexp import read_datum


def json_of(text: str) -> Any:
    return to_json(read_datum(text), 1)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            '((jsonrpc . "2.0") (id . 1) (method . "initialize"))',
            {"jsonrpc": "2.0", "id": 1, "method": "initialize"},
        ),
        ('((params (sessionId . "s") (cwd . "/")))', {"params": {"sessionId": "s", "cwd": "/"}}),
        ("((rawInput) (auth (logout)))", {"rawInput": {}, "auth": {"logout": {}}}),
        ("nil", {}),
        ("()", {}),
        ("((a . nil) (b . ()))", {"a": {}, "b": {}}),
        ("((a . t) (b . :false) (c . :null))", {"a": True, "b": False, "c": None}),
        ('((a . [1 "x" nil t :null [] [[]]]))', {"a": [1, "x", {}, True, None, [], [[]]]}),
        ("((a . [((b . 1)) ((c . 2))]))", {"a": [{"b": 1}, {"c": 2}]}),
        (
            "((x . 1.5) (y . -0.0) (z . 123456789012345678901234567890))",
            {"x": 1.5, "y": -0.0, "z": 123456789012345678901234567890},
        ),
        ("((big . 1.0e+INF))", {"big": math.inf}),
        ('((Which\\ colour\\,\\ red?\\  . "Red"))', {"Which colour, red? ": "Red"}),
        (
            "((## . 1) (nil . 2) (t . 3) (:kw . 4) (\\1 . 5))",
            {"": 1, "nil": 2, "t": 3, ":kw": 4, "1": 5},
        ),
        # the first of a repeated key wins (assq), even when a later one would not be JSON
        ("((a . 1) (a . 2) (a . bogus))", {"a": 1}),
        # plists, as json-serialize reads them (a keyword loses its colon)
        ('(:type "text" :text "hi")', {"type": "text", "text": "hi"}),
        ("((params :a 1 b 2 :a 3))", {"params": {"a": 1, "b": 2}}),
        # print-quoted pairs: `(quote (k . v))` is the pair of key quote, printed 'X
        ('(\'(k . "v"))', {"quote": {"k": "v"}}),
        ("(#'(k . 1) `(k . 2))", {"function": {"k": 1}, "`": {"k": 2}}),
        # a propertized string is its text; a batch is an array
        ('((text . #("hello" 0 5 (face bold))))', {"text": "hello"}),
        ("[((id . 1)) ((id . 2))]", [{"id": 1}, {"id": 2}]),
        ("[]", []),
        ('"alone"', "alone"),
        ("7", 7),
    ],
)
def test_converts_what_json_serialize_would_send(text: str, expected: Any) -> None:
    assert json_of(text) == expected


def test_shared_structure_is_copied_not_aliased() -> None:
    value = json_of("((a . #1=((x . 1))) (b . #1#))")
    assert value == {"a": {"x": 1}, "b": {"x": 1}}
    assert value["a"] is not value["b"]


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ("((a . foo))", 1, "the symbol foo is not JSON"),
        ("((a . :json-false))", 1, "the symbol :json-false is not JSON"),
        ("((a\n . [1 ...]))", 2, "... is not JSON: print-length or print-level cut the data"),
        ("((a . 0.0e+NaN))", 1, "NaN is not JSON"),
        ("((a 1 2))", 1, "a list that is no alist or plist is not JSON: (1 2)"),
        ('((a "x" "y"))', 1, 'a list that is no alist or plist is not JSON: ("x" "y")'),
        ("((a . 1) . 2)", 1, "a dotted list is not JSON: ((a . 1) . 2)"),
        ("((a . 1)\n b)", 1, "an alist entry is not (symbol . value): b"),
        ('((a . 1)\n ("k" . 2))', 1, 'an alist entry is not (symbol . value): ("k" . 2)'),
        ("((a . 1) nil)", 1, "an alist entry is not (symbol . value): nil"),
        ("(:a 1 :b)", 1, "a plist with a key and no value: (:a 1 :b)"),
        ('(:a 1 "b" 2)', 1, 'a plist key is not a symbol: "b"'),
        ("foo", 1, "the symbol foo is not JSON"),
        ("((a\n  (b\n   (c . [x]))))", 3, "the symbol x is not JSON"),
    ],
)
def test_what_is_not_json_is_an_error_with_its_line(text: str, line: int, message: str) -> None:
    with pytest.raises(NotJson) as caught:
        json_of(text)
    assert (caught.value.line, caught.value.message, caught.value.too_deep) == (
        line,
        message,
        False,
    )


def test_depth_follows_the_json_limit() -> None:
    assert json_of("[" * MAX_DEPTH + "]" * MAX_DEPTH) is not None
    objects = "(" + "(a " * (MAX_DEPTH - 1) + "(b . 1)" + ")" * MAX_DEPTH  # {"a": {"a": …}}
    assert json_of(objects) is not None
    with pytest.raises(NotJson):
        json_of("(" + "(a " * MAX_DEPTH + "(b . 1)" + ")" * (MAX_DEPTH + 1))
    with pytest.raises(NotJson) as caught:
        json_of("[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1))
    assert caught.value.too_deep
    assert caught.value.message == f"nested deeper than {MAX_DEPTH:,} levels of JSON"


def test_shared_structure_cannot_nest_past_the_limit() -> None:
    # each text is shallow; the references put one 600-deep vector inside another
    deep = "[" * 600 + "]" * 600
    with pytest.raises(NotJson) as caught:
        json_of(f"[#1={deep} " + "[" * 600 + "#1#" + "]" * 600 + "]")
    assert caught.value.too_deep
