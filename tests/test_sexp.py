"""The Emacs Lisp data reader (acptrace/read/sexp.py): syntax, lines, labels, strict errors,
bounded work on hostile text, and a fuzz property (text in: data or `SexpError`, nothing else)."""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from acptrace.read.sexp import (
    EXPANSION_FLOOR,
    MAX_NESTING,
    NIL,
    SexpError,
    SexpTooDeep,
    SList,
    Symbol,
    T,
    Vector,
    cdr,
    read_datum,
    read_elements,
    show,
)


def plain(datum: Any) -> Any:
    """A datum as plain Python to compare with: a list is a tuple (`"."` before a dotted tail),
    a vector a list, symbols and atoms as they are."""
    if isinstance(datum, SList):
        dotted = () if datum.tail is NIL else (".", plain(datum.tail))
        return (*(plain(item) for item in datum.items), *dotted)
    if isinstance(datum, Vector):
        return [plain(item) for item in datum.items]
    return datum


def S(name: str) -> Symbol:
    return Symbol(name)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("(a . b)", (S("a"), ".", S("b"))),
        ("(a b c)", (S("a"), S("b"), S("c"))),
        ("(a . (b c))", (S("a"), S("b"), S("c"))),
        ("(a b . (c . d))", (S("a"), S("b"), S("c"), ".", S("d"))),
        ("(a . nil)", (S("a"),)),
        ("(a . ())", (S("a"),)),
        ("()", NIL),
        ("nil", NIL),
        ("t", T),
        ("(nil)", (NIL,)),
        ("[]", []),
        ("[1 [2] (x . 3)]", [1, [2], (S("x"), ".", 3)]),
        ('(jsonrpc . "2.0")', (S("jsonrpc"), ".", "2.0")),
        ("(:object (id . 1))", (S(":object"), (S("id"), ".", 1))),
        ("(k . :false)", (S("k"), ".", S(":false"))),
        # symbols as prin1 escapes them (agent-shell's claude-ask-user-question.traffic)
        ("Which\\ colour\\,\\ red\\ or\\ blue?", S("Which colour, red or blue?")),
        ("a?b.c", S("a?b.c")),
        ("\\?x", S("?x")),
        ("\\.", S(".")),
        ("\\1", S("1")),
        ("\\-1.5", S("-1.5")),
        ("##", S("")),
        ("a\\\nb", S("a\nb")),
        ("\\nil", NIL),
        ("é\x7fz", S("é\x7fz")),
        # quote prefixes (`print-quoted`)
        ("'(a . 1)", (S("quote"), (S("a"), ".", 1))),
        ("#'f", (S("function"), S("f"))),
        ("`(a ,b ,@c)", (S("`"), (S("a"), (S(","), S("b")), (S(",@"), S("c"))))),
        ("' x", (S("quote"), S("x"))),
        # comments and whitespace
        (";; saved traffic\n(a ; one\n . b) ; end", (S("a"), ".", S("b"))),
        ("\t\r\n\f(a)\r\n", (S("a"),)),
        # a propertized string reads as its text
        ('#("hello" 0 5 (face bold fontified t))', "hello"),
    ],
)
def test_reads_the_printed_data(text: str, expected: Any) -> None:
    assert plain(read_datum(text)) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("0", 0),
        ("-7", -7),
        ("+7", 7),
        ("1.", 1),
        ("123456789012345678901234567890", 123456789012345678901234567890),
        ("1.5", 1.5),
        (".5", 0.5),
        ("-.5e-3", -0.0005),
        ("1e5", 100000.0),
        ("1.e5", 100000.0),
        ("1E5", 100000.0),
        ("1e+16", 1e16),
        ("1.5e-07", 1.5e-07),
        ("-0.0", -0.0),
        ("1.0e+INF", math.inf),
        ("-1.0e+INF", -math.inf),
        ("1e400", math.inf),
    ],
)
def test_numbers_follow_emacs_syntax(text: str, expected: float) -> None:
    value = read_datum(text)
    assert value == expected
    assert type(value) is type(expected)


def test_nan_reads_as_a_float() -> None:
    value = read_datum("0.0e+NaN")
    assert isinstance(value, float)
    assert math.isnan(value)


@pytest.mark.parametrize(
    "text", ["1e5x", "1.2.3", "+", "-", ".e5", "1_000", "inf", "nan", "0x10", "1e", "e5", "1e-INF"]
)
def test_what_python_or_json_call_a_number_is_a_symbol_here(text: str) -> None:
    assert read_datum(text) == Symbol(text)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (r'"plain"', "plain"),
        (r'""', ""),
        (r'"say \"hi\" \\ bye"', 'say "hi" \\ bye'),
        (r'"a\nb\tc\rd\fe\af\bg\vh\ei\sj\dk"', "a\nb\tc\rd\fe\af\bg\vh\x1bi j\x7fk"),
        (r'"\101\0\12\177\400"', "A\x00\n\x7f\u0100"),
        (r'"\x41\x3b1\x0\ \xe9 \x7"', "A\u03b1\x00\xe9 \x07"),
        (r'"\x41\ 42"', "A42"),
        (r'"\u00e9\U0001F600"', "\u00e9\U0001f600"),
        (r'"\N{U+E9}\N{LATIN SMALL LETTER E WITH ACUTE}"', "éé"),
        ('"line one\\\nline two"', "line oneline two"),
        ('"raw\nnewline and \x00 NUL and \r CR"', "raw\nnewline and \x00 NUL and \r CR"),
        (r'"\(\[\;\é"', "([;é"),
        ('"ünïcødé 🙂"', "ünïcødé 🙂"),
    ],
)
def test_string_escapes(text: str, expected: str) -> None:
    assert read_datum(text) == expected


def test_lists_and_vectors_carry_their_line() -> None:
    text = '(a\n (b . 1)\n [x\n  (c)]\n "two\nlines" (d))'
    datum = read_datum(text)
    assert isinstance(datum, SList)
    assert datum.line == 1
    b, vector, _, d = datum.items[1:]
    assert isinstance(b, SList)
    assert b.line == 2
    assert isinstance(vector, Vector)
    assert vector.line == 3
    assert isinstance(vector.items[1], SList)
    assert vector.items[1].line == 4
    assert isinstance(d, SList)
    assert d.line == 6


def test_cdr_of_a_pair_and_of_a_longer_list() -> None:
    pair = read_datum("(k . v)")
    longer = read_datum("(k (a . 1) (b . 2))")
    assert isinstance(pair, SList)
    assert isinstance(longer, SList)
    assert cdr(pair) == Symbol("v")
    assert plain(cdr(longer)) == ((S("a"), ".", 1), (S("b"), ".", 2))


# -- print-circle labels ---------------------------------------------------------------------


def test_labels_share_strings_vectors_and_conses() -> None:
    # agent-shell's gemini-multiple-permissions.traffic: a labelled cons reused two entries on,
    # labels numbered out of textual order, and `#3=` broken from its string by pp-fill
    text = '((#2="2.0" #1=[] #5=(outcome . "selected")) (#2# #1# #5#) (#3=\n\t "Red" #3#))'
    first, second, third = read_datum(text).items  # type: ignore[union-attr]
    assert plain(first) == plain(second) == ("2.0", [], (S("outcome"), ".", "selected"))
    assert plain(third) == ("Red", "Red")


def test_a_labelled_tail_is_spliced_and_can_be_referred_to() -> None:
    datum = read_datum("((a . #1=(b c)) (x . #1#))")
    assert plain(datum) == ((S("a"), S("b"), S("c")), (S("x"), S("b"), S("c")))


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("(#1# #1=a)", "#1# refers to no label defined before it"),
        ("#1=(a . #1#)", "#1# refers to its own structure (a cycle)"),
        ("#1=(a #2=(b #1#))", "#1# refers to its own structure (a cycle)"),
        ("(#1=a #1=b)", "label #1= defined twice"),
        ("(#1=)", "nothing after #1= before )"),
        ("(#12345678901=a)", "label #12345678901… is too long"),
    ],
)
def test_bad_labels_are_errors(text: str, message: str) -> None:
    with pytest.raises(SexpError) as caught:
        read_datum(text)
    assert caught.value.message == message
    assert caught.value.line == 1


def test_references_cannot_stand_for_exponentially_more_than_was_written() -> None:
    # each label doubles the one before: 40 levels would stand for 2**40 data
    parts = ["#1=(a a)"] + [f"#{n}=(#{n - 1}# #{n - 1}#)" for n in range(2, 41)]
    text = "(" + " ".join(parts) + ")"
    started = time.perf_counter()
    with pytest.raises(SexpError, match="stands for more than"):
        read_datum(text)
    assert time.perf_counter() - started < 5


def test_many_references_within_the_budget_read() -> None:
    text = "(#1=[] " + "#1# " * (EXPANSION_FLOOR // 2) + ")"
    datum = read_datum(text)
    assert isinstance(datum, SList)
    assert len(datum.items) == EXPANSION_FLOOR // 2 + 1


# -- errors ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ("", 1, "no data: the text is empty"),
        ("  ;; only a comment\n\n", 3, "no data: the text is empty"),
        ("(a\n(b)", 2, "the text ends inside the list opened at line 1"),
        ("(a\n (b\n\n", 3, "the text ends inside the list opened at line 2"),
        ("(a\n [b (c)", 2, "the text ends inside the vector opened at line 2"),
        ("(a))", 1, "more data after the end"),
        ("(a)\n(b)", 2, "more data after the end"),
        (")", 1, "unbalanced ): nothing is open"),
        ("(a\n]", 2, "] closes the ( of line 1, which needs )"),
        ("[a)", 1, ") closes the [ of line 1, which needs ]"),
        ('(a\n "b', 2, "a string that starts here never ends"),
        ('"ends in a backslash\\', 1, "a string that starts here never ends"),
        ('\n"\\q"', 2, "bad escape \\q in a string"),
        ('"\\8"', 1, "bad escape \\8 in a string"),
        ('"\\C-a"', 1, "bad escape \\C in a string"),
        ('"\\^a"', 1, "bad escape \\^ in a string"),
        ('"\\M-a"', 1, "bad escape \\M in a string"),
        ('"\\s-a"', 1, "bad escape \\s in a string"),
        ('"\\x"', 1, "bad escape \\x in a string"),
        ('"\\x110000"', 1, "bad escape \\x110000 in a string"),
        ('"\\ud800"', 1, "bad escape \\ud800 in a string"),
        ('"\\u12"', 1, "bad escape \\u in a string"),
        ('"\\N{NO SUCH NAME}"', 1, "bad escape \\N{NO SUCH NAME} in a string"),
        ("?a", 1, "a character literal (?x) is not data here"),
        ("(a ?b)", 1, "a character literal (?x) is not data here"),
        ("#x10", 1, "unknown syntax #x"),
        ("#s(hash-table)", 1, "unknown syntax #s"),
        ("#<buffer foo>", 1, "unknown syntax #<"),
        ("#[0 1]", 1, "unknown syntax #["),
        ("#", 1, "unknown syntax #"),
        ("(a . b c)", 1, "more than one datum after a dot"),
        ("(a .)", 1, "nothing after a dot"),
        ("(. a)", 1, "a dot out of place"),
        ("[a . b]", 1, "a dot out of place"),
        ("(a . b . c)", 1, "more than one datum after a dot"),
        ("('a ')", 1, "nothing after ' before )"),
        ("\n'\n", 2, "nothing after the ' of line 2"),
        ("(a\x00)", 1, "a control character \\x00 outside a string"),
        ("(a)\x00", 1, "a control character \\x00 outside a string"),
        ("(a \x1b)", 1, "a control character \\x1b outside a string"),
        ("(a\xa0b)", 1, "a control character \\xa0 outside a string"),
        ("a\\", 1, "a backslash at the end of the text"),
        ('#("no" . props)', 1, "a dot out of place"),
        ("#(1 2)", 1, "#( holds no string with text properties"),
        ("1" * 5000, 1, "a number too long to read (5,000 characters)"),
    ],
)
def test_malformed_text_is_an_error_with_its_line(text: str, line: int, message: str) -> None:
    with pytest.raises(SexpError) as caught:
        read_datum(text)
    assert (caught.value.line, caught.value.message) == (line, message)


def test_nesting_is_bounded_without_recursion() -> None:
    labels = "".join(f"#{n}=" for n in range(1, 100_001))
    for text in ("(" * 100_000, "[" * 100_000, "'" * 100_000, labels, "`," * 50_000):
        with pytest.raises(SexpTooDeep) as caught:
            read_datum(text)
        assert caught.value.message == f"nested deeper than {MAX_NESTING:,} levels"


def test_nesting_just_within_the_limit_reads() -> None:
    depth = MAX_NESTING
    datum = read_datum("(" * depth + ")" * depth)
    for _ in range(depth - 1):
        assert isinstance(datum, SList)
        datum = datum.items[0]
    assert datum is NIL


def test_a_huge_string_reads_whole() -> None:
    body = "x" * 10_000_000
    started = time.perf_counter()
    datum = read_datum(f'(text . "{body}")')
    assert isinstance(datum, SList)
    assert datum.tail == body
    escaped = read_datum('"' + "\\n" * 1_000_000 + '"')
    assert escaped == "\n" * 1_000_000
    assert time.perf_counter() - started < 20


# -- elements --------------------------------------------------------------------------------


def test_elements_come_with_their_lines() -> None:
    text = ";; header\n((a . 1)\n (b . 2)) ; trailing comment\n"
    assert [(plain(d), line) for d, line in read_elements(text)] == [
        ((S("a"), ".", 1), 2),
        ((S("b"), ".", 2), 3),
    ]


def test_nil_holds_no_elements() -> None:
    assert list(read_elements("nil\n")) == []
    assert list(read_elements("()")) == []


def test_elements_before_an_error_are_read() -> None:
    elements = read_elements('((a . 1)\n (b . 2)\n (c . "oops)\n')
    assert plain(next(elements)[0]) == (S("a"), ".", 1)
    assert plain(next(elements)[0]) == (S("b"), ".", 2)
    with pytest.raises(SexpError) as caught:
        next(elements)
    assert caught.value.line == 3


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('"a string"', 'not a list: "a string"'),
        ("[1 2]", "not a list: [1 2]"),
        ("#1=(a)", "not a list: (a)"),
        ("(a) (b)", "more data after the end"),
        ("(a . b)", "a dot out of place"),
        ("(a", "the text ends inside the list opened at line 1"),
        ("(a]", "] closes the ( of line 1, which needs )"),
    ],
)
def test_elements_need_one_list(text: str, message: str) -> None:
    with pytest.raises(SexpError) as caught:
        list(read_elements(text))
    assert caught.value.message == message


def test_show_is_short_and_printable() -> None:
    assert show(read_datum('(a . "b\\nc")')) == '(a . "b\\x0ac")'
    assert show(read_datum("[x ## 1.5]")) == "[x ## 1.5]"
    long = show(read_datum("(" + "word " * 100 + ")"))
    assert len(long) == 60
    assert long.endswith("…")
    deep = show(read_datum("(" * 1000 + ")" * 1000))
    assert deep == "(" * 59 + "…"


# -- fuzz ------------------------------------------------------------------------------------

_LISPY = st.text(alphabet=st.sampled_from(list("()[]\"\\ #=12.';`,?:abtn\n\t\x00é")), max_size=80)


@given(st.one_of(st.text(max_size=200), _LISPY))
def test_any_text_reads_or_is_a_sexp_error(text: str) -> None:
    errors = (_error_of(lambda: read_datum(text)), _error_of(lambda: list(read_elements(text))))
    for error in errors:
        if error is not None:
            assert 1 <= error.line <= text.count("\n") + 1
            assert error.message


def _error_of(read: Callable[[], object]) -> SexpError | None:
    """The SexpError reading raises (any other exception fails the test), or None."""
    try:
        read()
    except SexpError as error:
        return error
    return None
