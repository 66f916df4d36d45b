"""Reading Emacs Lisp printed data: the text `prin1`/`pp` write for JSON that Emacs parsed
(acp.el's `.traffic` files), with the line of every list and vector, in bounded work.

A strict reader of that subset, not of all Emacs Lisp: lists (dotted ones too), vectors,
strings with Emacs escapes, symbols (with backslash escapes, `##` the empty one), integers and
floats (`1.0e+INF` too), the quote prefixes (`'x` is `(quote x)`, `#'x`, `` `x ``, `,x`, `,@x`),
`print-circle` labels (`#1=` defines, `#1#` refers), propertized strings `#("text" 0 4 (face
bold))` (read as their text) and `;` comments. Anything else is a `SexpError` with its line:
an unbalanced bracket, a bad escape, an unterminated string, other `#` syntax, a character
literal (`?a`), a control character outside a string, a reference to a label not yet defined
or to the structure it is part of (a cycle), nesting deeper than `MAX_NESTING` (`SexpTooDeep`),
references that stand for more than the budget, data after the end.

The work is linear in the text: no recursion (deep nesting is an error, never a RecursionError),
and every `#N#` counts what it stands for against a budget proportional to the text, so that
shared structure cannot stand for exponentially more than was written.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from typing import Final, TypeAlias

import msgspec

from acptrace.model.excerpt import EXCERPT_CHARS, printable
from acptrace.read.jsontext import MAX_DEPTH

MAX_NESTING = 2 * MAX_DEPTH + 8
"""How deeply lists, vectors and quote prefixes may nest: JSON costs at most 1.5 levels of Lisp
per level (an object in an array: the vector, the alist and its entry for two levels), and the
file's list, the entry and its `:object` pair a few more, so that every message within
acptrace's JSON limit reads."""
EXPANSION_FLOOR = 1_000_000
"""What `#N#` references may stand for in any text, counted in data (atoms and containers)."""
EXPANSION_PER_CHAR = 4
"""What references may stand for beyond the floor, per character of text."""


class Symbol(msgspec.Struct, frozen=True, gc=False):
    """A Lisp symbol; a keyword is a symbol whose name starts with `:` (a Struct: made in C,
    where a dataclass compiles its methods at import)."""

    name: str
    """The name, escapes removed (`a\\ b` is `a b`)."""


NIL: Final = Symbol("nil")
"""The empty list and false: `nil` and `()` both read as this object."""
T: Final = Symbol("t")
"""The symbol `t` (true)."""


class SList(msgspec.Struct, frozen=True, gc=False):
    """A non-empty list (the empty list is `NIL`); a dotted tail that is a list is spliced in,
    so `(a . (b c))` and `(a b c)` are the same."""

    line: int
    """The line of its opening parenthesis (or quote prefix)."""
    items: tuple[Datum, ...]
    """Its elements, at least one."""
    tail: Datum
    """What the last cons's cdr holds: `NIL` for a proper list, else the atom after the dot."""
    size: int
    """How many data it stands for, counting shared structure once per place it is referenced."""


class Vector(msgspec.Struct, frozen=True, gc=False):
    """A vector `[a b]` (what Emacs makes of a JSON array)."""

    line: int
    """The line of its opening bracket."""
    items: tuple[Datum, ...]
    """Its elements."""
    size: int
    """How many data it stands for, counting shared structure once per place it is referenced."""


Datum: TypeAlias = "Symbol | str | int | float | SList | Vector"
"""One datum as read; a string is a `str`, an integer an `int`, a float a `float`."""


class SexpError(Exception):
    """The text is not Emacs Lisp data of the subset read here."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(f"line {line}: {message}")
        self.line = line
        """The 1-based line the problem is at (the last line when the text ends too soon)."""
        self.message = message
        """A short sentence, without the line."""


class SexpTooDeep(SexpError):
    """The data nests deeper than the reader's limit."""


def read_datum(text: str) -> Datum:
    """The one datum the text holds (comments and whitespace around it are fine)."""
    return Reader(text).datum()


def read_elements(text: str) -> Iterator[tuple[Datum, int]]:
    """The elements of the one list the text holds, each with its line, each as soon as it is
    read (`nil` holds none); raises `SexpError` where the text stops being readable."""
    return Reader(text).elements()


def cdr(pair: SList) -> Datum:
    """What follows a list's first element: `(k . v)` gives `v`, `(k a b)` gives `(a b)`."""
    if len(pair.items) == 1:
        return pair.tail
    rest = pair.items[1:]
    return SList(pair.line, rest, pair.tail, max(1, pair.size - 1))


# -- the reader ------------------------------------------------------------------------------

_NOT_ATOM = "\\x00-\\x20\\xa0\"';()\\[\\]#`,\\\\"
_SPACE = re.compile(r"(?:[ \t\n\r\f]+|;[^\n]*)*")
_TOKEN = re.compile(  # (after any space, never given back: one match per token)
    rf"(?>{_SPACE.pattern})(?:(?P<open>\()|(?P<close>\))|(?P<vopen>\[)|(?P<vclose>\])"
    r'|(?P<string>")'
    r"|(?P<quote>'|`|,@|,)"
    r"|(?P<hash>\#)"
    r"|(?P<char>\?)"
    rf"|(?P<atom>(?:[^{_NOT_ATOM}]|\\[\s\S])+)"
    r"|(?P<other>[\s\S]))"
)
_UNESCAPE = re.compile(r"\\([\s\S])")
_INTEGER = re.compile(r"[+-]?[0-9]+\.?")
_EXPONENT = r"[eE](?:[+-]?[0-9]+|\+INF|\+NaN)"
_FLOAT = re.compile(rf"[+-]?(?:[0-9]*\.[0-9]+(?:{_EXPONENT})?|[0-9]+\.?{_EXPONENT})")
_HASH = re.compile(r"#(?:([0-9]+)([=#])|(#)|(')|(\())")
_STRING_RUN = re.compile(r'[^"\\]*')
_HEX = re.compile(r"[0-9a-fA-F]+")
_OCTAL = re.compile(r"[0-7]{1,3}")
_NAMED = re.compile(r"\{([^}\n]{1,100})\}")
_SIMPLE_ESCAPES = {
    "a": "\a",
    "b": "\b",
    "t": "\t",
    "n": "\n",
    "v": "\v",
    "f": "\f",
    "r": "\r",
    "e": "\x1b",
    "s": " ",
    "d": "\x7f",
}
_QUOTES = {"'": "quote", "`": "`", ",": ",", ",@": ",@", "#'": "function"}
_CLOSERS = {"(": ")", "[": "]", "#(": ")"}

# frame kinds
_LIST, _VECTOR, _PROPS, _PREFIX, _LABEL = range(5)


class _Frame:
    """A container being read, or a prefix (`'`, `#1=`) waiting for its datum."""

    __slots__ = ("dot", "items", "kind", "label", "line", "opener", "size", "symbol", "tail")

    def __init__(self, kind: int, line: int, opener: str) -> None:
        self.kind = kind
        self.line = line
        self.opener = opener
        self.items: list[Datum] = []
        self.size = 1
        self.dot = 0  # 0: no dot yet, 1: after the dot, 2: the tail read
        self.tail: Datum = NIL
        self.label = 0
        self.symbol = NIL


class _InProgress:
    """A label whose datum is still being read (a reference to it is a cycle)."""


_IN_PROGRESS = _InProgress()


class Reader:
    """Reads one text; `datum()` or `elements()`, once."""

    def __init__(self, text: str, *, max_nesting: int = MAX_NESTING) -> None:
        self._text = text
        self._pos = 0
        self._line = 1
        self._counted = 0
        self._stack: list[_Frame] = []
        self._labels: dict[int, tuple[Datum, int] | _InProgress] = {}
        self._symbols: dict[str, Symbol] = {"nil": NIL, "t": T}
        self._max_nesting = max_nesting
        self._budget = EXPANSION_FLOOR + EXPANSION_PER_CHAR * len(text)
        self._expanded = 0

    def datum(self) -> Datum:
        """The one datum the text holds."""
        self._skip_space()
        if self._pos >= len(self._text):
            raise SexpError(self._line_at(self._pos), "no data: the text is empty")
        datum = self._read(0)
        self._expect_end()
        return datum

    def elements(self) -> Iterator[tuple[Datum, int]]:
        """The elements of the one list the text holds, each with the line it starts on."""
        text = self._text
        start = self._skip_space()
        if start >= len(text):
            raise SexpError(self._line_at(start), "no data: the text is empty")
        if text[start] != "(":
            datum = self._read(0)
            if datum is not NIL:
                raise SexpError(self._line_at(start), f"not a list: {show(datum)}")
            self._expect_end()
            return
        top = _Frame(_LIST, self._line_at(start), "(")
        self._stack.append(top)
        self._pos = start + 1
        while True:
            at = self._skip_space()
            if at >= len(text):
                raise self._end_error(1)
            if text[at] == ")":
                self._pos = at + 1
                self._stack.pop()
                break
            line = self._line_at(at)
            yield self._read(1), line
        self._expect_end()

    # -- positions ---------------------------------------------------------------------------

    def _line_at(self, pos: int) -> int:
        if pos < self._counted:
            return self._text.count("\n", 0, pos) + 1
        self._line += self._text.count("\n", self._counted, pos)
        self._counted = pos
        return self._line

    def _skip_space(self) -> int:
        match = _SPACE.match(self._text, self._pos)
        self._pos = match.end() if match else self._pos
        return self._pos

    def _expect_end(self) -> None:
        at = self._skip_space()
        if at < len(self._text):
            token = _TOKEN.match(self._text, at)
            other = token is not None and token.lastgroup == "other"
            message = _unexpected(self._text[at]) if other else "more data after the end"
            raise SexpError(self._line_at(at), message)

    # -- the token loop ----------------------------------------------------------------------

    def _read(self, floor: int) -> Datum:
        """Read tokens until a datum completes at stack depth `floor`, and return it."""
        text = self._text
        stack = self._stack
        match = _TOKEN.match
        while True:
            token = match(text, self._pos)
            if token is None:
                raise self._end_error(floor)
            kind = token.lastgroup
            assert kind is not None
            pos, end = token.span(kind)
            self._pos = end
            top = stack[-1] if len(stack) > floor else None
            if top is not None and top.dot == 2 and kind not in ("close", "vclose"):
                raise SexpError(self._line_at(pos), "more than one datum after a dot")
            found = self._token(kind, pos, end, top)
            if found is not None:
                done = self._deliver(*found, floor)
                if done is not None:
                    return done

    def _token(self, kind: str, pos: int, end: int, top: _Frame | None) -> tuple[Datum, int] | None:
        """The datum (and its size) a token completes, or None when it opened something."""
        raw = self._text[pos:end]
        if kind == "atom":
            if raw != ".":
                return self._atom(raw, pos), 1
            if top is None or top.kind != _LIST or not top.items or top.dot:
                raise SexpError(self._line_at(pos), "a dot out of place")
            top.dot = 1
            return None
        if kind == "string":
            text, self._pos = self._string(pos)
            return text, 1
        if kind == "open" or kind == "vopen":
            self._push(_LIST if kind == "open" else _VECTOR, pos, raw)
            return None
        if kind == "close" or kind == "vclose":
            closed = self._close(self._stack[-1] if self._stack else None, raw, pos)
            self._stack.pop()
            return closed
        if kind == "quote":
            self._push(_PREFIX, pos, raw).symbol = self._intern(_QUOTES[raw])
            return None
        if kind == "hash":
            return self._hash(pos)
        if kind == "char":
            raise SexpError(self._line_at(pos), "a character literal (?x) is not data here")
        raise SexpError(self._line_at(pos), _unexpected(raw))

    def _deliver(self, datum: Datum, size: int, floor: int) -> Datum | None:
        """Hand a datum to the frame waiting for it (through prefixes and labels); the datum
        itself when it completes depth `floor`, else None."""
        stack = self._stack
        while len(stack) > floor:
            frame = stack[-1]
            if frame.kind == _PREFIX:
                stack.pop()
                size += 2
                datum = SList(frame.line, (frame.symbol, datum), NIL, size)
            elif frame.kind == _LABEL:
                stack.pop()
                self._labels[frame.label] = (datum, size)
            else:
                if frame.dot == 1:
                    frame.tail = datum
                    frame.dot = 2
                else:
                    frame.items.append(datum)
                frame.size += size
                return None
        return datum

    def _push(self, kind: int, pos: int, opener: str) -> _Frame:
        if len(self._stack) >= self._max_nesting:
            raise SexpTooDeep(
                self._line_at(pos), f"nested deeper than {self._max_nesting:,} levels"
            )
        frame = _Frame(kind, self._line_at(pos), opener)
        self._stack.append(frame)
        return frame

    def _close(self, top: _Frame | None, closer: str, pos: int) -> tuple[Datum, int]:
        if top is None:
            raise SexpError(self._line_at(pos), f"unbalanced {closer}: nothing is open")
        if top.kind in (_PREFIX, _LABEL):
            raise SexpError(self._line_at(pos), f"nothing after {top.opener} before {closer}")
        if _CLOSERS[top.opener] != closer:
            raise SexpError(
                self._line_at(pos),
                f"{closer} closes the {top.opener} of line {top.line}, which needs "
                f"{_CLOSERS[top.opener]}",
            )
        if top.kind == _VECTOR:
            return Vector(top.line, tuple(top.items), top.size), top.size
        if top.dot == 1:
            raise SexpError(self._line_at(pos), "nothing after a dot")
        if top.kind == _PROPS:
            if not top.items or not isinstance(top.items[0], str) or top.dot:
                raise SexpError(top.line, "#( holds no string with text properties")
            return top.items[0], 1
        if not top.items:
            return NIL, 1
        items, tail = top.items, top.tail
        if isinstance(tail, SList):
            items.extend(tail.items)
            tail = tail.tail
        return SList(top.line, tuple(items), tail, top.size), top.size

    def _end_error(self, floor: int) -> SexpError:
        """The text ends inside something: said at its last line (later than anything read),
        naming the line where the innermost thing left open opened."""
        end = self._line_at(max(0, len(self._text) - 1))  # (a final newline starts no line)
        open_frames = [f for f in self._stack if f.kind in (_LIST, _VECTOR, _PROPS)]
        if open_frames:
            frame = open_frames[-1]
            what = "vector" if frame.kind == _VECTOR else "list"
            return SexpError(end, f"the text ends inside the {what} opened at line {frame.line}")
        if len(self._stack) > floor:
            frame = self._stack[-1]
            return SexpError(end, f"nothing after the {frame.opener} of line {frame.line}")
        return SexpError(end, "no data: the text ends")

    # -- atoms -------------------------------------------------------------------------------

    def _intern(self, name: str) -> Symbol:
        symbol = self._symbols.get(name)
        if symbol is None:
            symbol = self._symbols[name] = Symbol(name)
        return symbol

    def _atom(self, raw: str, pos: int) -> Datum:
        if "\\" in raw:
            return self._intern(_UNESCAPE.sub(r"\1", raw))
        if raw[0] in "+-.0123456789":
            number = _number(raw)
            if number is not None:
                if isinstance(number, str):
                    raise SexpError(self._line_at(pos), number)
                return number
        return self._intern(raw)

    def _hash(self, pos: int) -> tuple[Datum, int] | None:
        """A `#` syntax: the datum it stands for (with its size), or None when it opened a
        prefix or a container."""
        found = _HASH.match(self._text, pos)
        if found is None:
            shown = printable(self._text[pos : pos + 2])
            raise SexpError(self._line_at(pos), f"unknown syntax {shown}")
        number, sign, empty, function, props = found.groups()
        self._pos = found.end()
        if number is not None:
            if len(number) > 9:
                raise SexpError(self._line_at(pos), f"label #{number[:12]}… is too long")
            label = int(number)
            if sign == "=":
                if label in self._labels:
                    raise SexpError(self._line_at(pos), f"label #{label}= defined twice")
                self._labels[label] = _IN_PROGRESS
                self._push(_LABEL, pos, f"#{label}=").label = label
                return None
            return self._reference(label, pos)
        if empty is not None:
            return self._intern(""), 1
        if function is not None:
            self._push(_PREFIX, pos, "#'").symbol = self._intern("function")
            return None
        assert props is not None
        self._push(_PROPS, pos, "#(")
        return None

    def _reference(self, label: int, pos: int) -> tuple[Datum, int]:
        target = self._labels.get(label)
        if target is None:
            raise SexpError(self._line_at(pos), f"#{label}# refers to no label defined before it")
        if isinstance(target, _InProgress):
            raise SexpError(self._line_at(pos), f"#{label}# refers to its own structure (a cycle)")
        datum, size = target
        self._expanded += size
        if self._expanded > self._budget:
            raise SexpError(
                self._line_at(pos),
                f"shared structure (#{label}#) stands for more than {self._budget:,} data",
            )
        return datum, size

    def _string(self, start: int) -> tuple[str, int]:
        """The string that opens at `start`, and where it ends."""
        text = self._text
        parts: list[str] = []
        pos = start + 1
        while True:
            run = _STRING_RUN.match(text, pos)
            assert run is not None  # (it matches the empty string)
            parts.append(run.group())
            pos = run.end()
            if pos >= len(text):
                raise SexpError(self._line_at(start), "a string that starts here never ends")
            if text[pos] == '"':
                return "".join(parts), pos + 1
            piece, pos = self._escape(pos + 1, start)
            parts.append(piece)

    def _escape(self, pos: int, start: int) -> tuple[str, int]:
        """The text a backslash escape at `pos` (just after the backslash) stands for."""
        text = self._text
        if pos >= len(text):
            raise SexpError(self._line_at(start), "a string that starts here never ends")
        char = text[pos]
        if char in "\n ":
            return "", pos + 1
        simple = _SIMPLE_ESCAPES.get(char)
        if simple is not None and not (char == "s" and text[pos + 1 : pos + 2] == "-"):
            return simple, pos + 1
        code: int | None = None
        end = pos + 1
        if char == "x":
            digits = _HEX.match(text, pos + 1)
            if digits is not None and len(digits.group()) <= 8:
                code, end = int(digits.group(), 16), digits.end()
        elif char in "uU":
            width = 4 if char == "u" else 8
            digits = _HEX.match(text, pos + 1, pos + 1 + width)
            if digits is not None and len(digits.group()) == width:
                code, end = int(digits.group(), 16), digits.end()
        elif char == "N":
            code, end = self._named(pos + 1)
        elif "0" <= char <= "7":
            digits = _OCTAL.match(text, pos)
            assert digits is not None
            code, end = int(digits.group(), 8), digits.end()
        elif char != "^" and (not char.isalnum() or not char.isascii()):
            return char, pos + 1
        if code is None or code > 0x10FFFF or 0xD800 <= code <= 0xDFFF:
            shown = printable(text[pos - 1 : min(end, pos + 20)])
            raise SexpError(self._line_at(pos), f"bad escape {shown} in a string")
        return chr(code), end

    def _named(self, pos: int) -> tuple[int | None, int]:
        """`\\N{U+E9}` or `\\N{LATIN SMALL LETTER E WITH ACUTE}`: the code, and the end."""
        found = _NAMED.match(self._text, pos)
        if found is None:
            return None, pos
        name = found.group(1)
        if name.startswith("U+") and _HEX.fullmatch(name, 2) and len(name) <= 10:
            return int(name[2:], 16), found.end()
        try:
            return ord(unicodedata.lookup(name)), found.end()
        except KeyError:
            return None, found.end()


def _number(raw: str) -> int | float | str | None:
    """The number a token is in Emacs syntax, None when it is a symbol, or why it is neither."""
    try:
        if _INTEGER.fullmatch(raw):
            return int(raw.rstrip("."))
        if _FLOAT.fullmatch(raw):
            if raw.endswith("INF"):
                return float("-inf") if raw.startswith("-") else float("inf")
            if raw.endswith("NaN"):
                return float("nan")
            return float(raw)
    except ValueError:
        return f"a number too long to read ({len(raw):,} characters)"
    return None


def _unexpected(char: str) -> str:
    if char == "\\":
        return "a backslash at the end of the text"
    return f"a control character {printable(char)} outside a string"


# -- showing data in messages ----------------------------------------------------------------


def show(datum: Datum, limit: int = EXCERPT_CHARS) -> str:
    """A short, one-line, control-free text of a datum for messages (`(a . 1)`, `[1 2]`)."""
    pieces: list[str] = []
    length = 0
    stack: list[Datum | str] = [datum]
    while stack and length <= limit:
        item = stack.pop()
        if isinstance(item, _Piece):
            piece = str(item)
        elif isinstance(item, SList):
            stack.append(_Piece(")"))
            if item.tail is not NIL:
                stack.extend((item.tail, _Piece(" . ")))
            for index in range(len(item.items) - 1, -1, -1):
                stack.append(item.items[index])
                if index:
                    stack.append(_Piece(" "))
            piece = "("
        elif isinstance(item, Vector):
            stack.append(_Piece("]"))
            for index in range(len(item.items) - 1, -1, -1):
                stack.append(item.items[index])
                if index:
                    stack.append(_Piece(" "))
            piece = "["
        elif isinstance(item, Symbol):
            piece = item.name or "##"
        elif isinstance(item, str):
            piece = '"' + item[: limit + 1].replace("\\", "\\\\").replace('"', '\\"') + '"'
        else:
            piece = repr(item)
        pieces.append(piece)
        length += len(piece)
    text = printable("".join(pieces))
    return text if len(text) <= limit and not stack else text[: limit - 1] + "…"


class _Piece(str):
    """Punctuation already written (a marker on `show`'s stack, not a string datum)."""
