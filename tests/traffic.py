"""Writing `.traffic` text the way acp.el saves it, for tests: `acp-traffic-save-to` binds
`print-circle` and calls `pp` on the list of entries (acp.el's `acp-traffic.el`).

What it copies from Emacs (checked against agent-shell's saved files, e.g. its
`tests/claude-ask-user-question.traffic`):

- `prin1`'s data syntax: an object is an alist of `(key . value)` pairs, so a value that is a
  non-empty object prints as `(key (a . 1) (b . 2))`, an empty one as `(key)` (and `nil`
  alone); an array is a vector `[...]`; true `t`, false `:false`, null `:null` (acp.el before
  November 2025; `nil_for_false_and_null` writes today's `nil`); keys are symbols with
  `prin1`'s escapes (`a\\ b`, `\\1`, `##`); strings escape `"` and `\\` only, newlines and
  form feeds as `\\n` and `\\f` (`pp-escape-newlines`), every other character raw (NUL too);
- `print-quoted`: a pair `(quote X)` prints as `'X` (a key `quote`, `function`, `` ` `` whose
  value is an object of one key), `,X` and `,@X` inside a backquote;
- `print-circle`: Emacs' empty vector is one object, and acp.el's outgoing `jsonrpc` string
  is one constant, so each prints `#N=` where it first appears and `#N#` after, numbered in
  the order of their second appearances (as Emacs numbers them);
- Emacs 30's `pp-fill` layout: a list fits on its line (fill column 70) or breaks before each
  element that does not, continuation lines aligned under a symbol head's first argument, or
  under the first element; a dotted tail that does not fit goes on its own line as `. X`;
  indentation with tabs (`indent-tabs-mode`) or spaces. `width=None` writes one line.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from acptrace.model.domain import Direction

FILL_COLUMN = 70
_WORDS = {Direction.C2A: "outgoing", Direction.A2C: "incoming", Direction.UNKNOWN: "unknown"}
_SYMBOL_ESCAPED = set("\"\\';#()[],`\xa0")
_NUMBER_LIKE = re.compile(
    r"[+-]?(?:[0-9]+\.?|[0-9]*\.[0-9]+(?:[eE](?:[+-]?[0-9]+|\+INF|\+NaN))?"
    r"|[0-9]+\.?[eE](?:[+-]?[0-9]+|\+INF|\+NaN))"
)


@dataclass(eq=False)
class _Atom:
    text: str
    symbol: bool = False


@dataclass(eq=False)
class _List:
    items: list[_Node]
    tail: _Node | None = None


@dataclass(eq=False)
class _Vector:
    items: list[_Node]


@dataclass(eq=False)
class _Prefix:
    prefix: str
    inner: _Node


_Node = _Atom | _List | _Vector | _Prefix


@dataclass
class _Style:
    width: int | None
    tabs: bool
    escape_newlines: bool
    nil_for_false_and_null: bool
    share: bool
    empty_vector: _Vector = field(default_factory=lambda: _Vector([]))
    jsonrpc: _Atom = field(default_factory=lambda: _Atom('"2.0"'))


def write_traffic(
    entries: Iterable[tuple[Direction | str, Any]],
    *,
    width: int | None = FILL_COLUMN,
    tabs: bool = True,
    escape_newlines: bool = True,
    nil_for_false_and_null: bool = False,
    share: bool = True,
) -> str:
    """The `.traffic` text of (direction, JSON message) pairs; a direction given as a string
    is written as that symbol."""
    style = _Style(width, tabs, escape_newlines, nil_for_false_and_null, share)
    top = _List([_entry_node(direction, message, style) for direction, message in entries])
    if not top.items:
        return "nil\n"
    labels = _labels(top)
    printer = _Printer(style, labels)
    if width is None:
        return printer.flat(top, printer.defined) + "\n"
    return printer.fill(top, 0) + "\n"


def acp_kind(message: Any) -> str:
    """The `:kind` acp.el logs a message with."""
    if not isinstance(message, dict):
        return "unknown"
    if "method" in message:
        return "request" if "id" in message else "notification"
    return "response"


def _entry_node(direction: Direction | str, message: Any, style: _Style) -> _Node:
    word = _WORDS[direction] if isinstance(direction, Direction) else direction
    fields: list[_Node] = [
        _List([_Atom(":direction", True)], _Atom(word, True)),
        _List([_Atom(":kind", True)], _Atom(acp_kind(message), True)),
    ]
    head = _Atom(":object", True)
    if isinstance(message, dict):
        pairs = []
        for key, value in message.items():
            shared = (
                style.share and direction is Direction.C2A and key == "jsonrpc" and value == "2.0"
            )
            pair = _List([_symbol(key)], style.jsonrpc) if shared else _pair(key, value, style, 0)
            pairs.append(pair)
        fields.append(_List([head, *pairs]))
    else:
        fields.append(_List([head], _value(message, style, 0)))
    return _List(fields)


def _value(value: Any, style: _Style, backquotes: int) -> _Node:
    if isinstance(value, dict):
        if not value:
            return _Atom("nil", True)
        return _List([_pair(k, v, style, backquotes) for k, v in value.items()])
    if isinstance(value, list):
        if not value:
            return style.empty_vector if style.share else _Vector([])
        return _Vector([_value(item, style, backquotes) for item in value])
    if isinstance(value, str):
        return _Atom(_string(value, style.escape_newlines))
    if value is True:
        return _Atom("t", True)
    if value is False or value is None:
        if style.nil_for_false_and_null:
            return _Atom("nil", True)
        return _Atom(":false" if value is False else ":null", True)
    if isinstance(value, int):
        return _Atom(str(value))
    if isinstance(value, float):
        return _Atom(_float(value))
    raise TypeError(f"not JSON: {value!r}")


def _pair(key: str, value: Any, style: _Style, backquotes: int) -> _Node:
    """`(key . value)`, as `prin1` prints that cons (with `print-quoted`)."""
    head = _symbol(key)
    if isinstance(value, dict) and value:
        if len(value) == 1:
            prefix = _quote_prefix(key, backquotes)
            if prefix is not None:
                inner_level = backquotes + (key == "`") - (key in (",", ",@"))
                (inner_key, inner_value), *_ = value.items()
                return _Prefix(prefix, _pair(inner_key, inner_value, style, inner_level))
        return _List([head, *(_pair(k, v, style, backquotes) for k, v in value.items())])
    nil = style.nil_for_false_and_null and (value is None or value is False)
    if isinstance(value, dict) or nil:
        return _List([head])
    return _List([head], _value(value, style, backquotes))


def _quote_prefix(key: str, backquotes: int) -> str | None:
    if key == "quote":
        return "'"
    if key == "function":
        return "#'"
    if key == "`":
        return "`"
    if key in (",", ",@") and backquotes > 0:
        return key
    return None


def _symbol(name: str) -> _Atom:
    """A key as `prin1` prints its symbol."""
    if name == "":
        return _Atom("##", True)
    chars = []
    for index, char in enumerate(name):
        if char in _SYMBOL_ESCAPED or ord(char) <= 0x20 or (index == 0 and char in "?."):
            chars.append("\\")
        chars.append(char)
    text = "".join(chars)
    if _NUMBER_LIKE.fullmatch(name) and not text.startswith("\\"):
        text = "\\" + text
    return _Atom(text, True)


def _string(value: str, escape_newlines: bool) -> str:
    text = value.replace("\\", "\\\\").replace('"', '\\"')
    if escape_newlines:
        text = text.replace("\n", "\\n").replace("\f", "\\f")
    return f'"{text}"'


def _float(value: float) -> str:
    if math.isinf(value):
        return "1.0e+INF" if value > 0 else "-1.0e+INF"
    return repr(value)


def _labels(top: _Node) -> dict[int, int]:
    """`print-circle`'s label of each node printed more than once, numbered in the order of
    their second appearances."""
    seen: set[int] = set()
    labels: dict[int, int] = {}
    stack: list[_Node] = [top]
    while stack:
        node = stack.pop()
        key = id(node)
        if key in seen:
            labels.setdefault(key, len(labels) + 1)
            continue
        seen.add(key)
        if isinstance(node, _List):
            stack.extend(reversed([*node.items, *([node.tail] if node.tail else [])]))
        elif isinstance(node, _Vector):
            stack.extend(reversed(node.items))
        elif isinstance(node, _Prefix):
            stack.append(node.inner)
    return labels


class _Printer:
    def __init__(self, style: _Style, labels: dict[int, int]) -> None:
        self.style = style
        self.labels = labels
        self.defined: set[int] = set()

    def _label(self, node: _Node, defined: set[int]) -> tuple[str, bool]:
        """The label text before a node, and whether the node is only a reference."""
        label = self.labels.get(id(node))
        if label is None:
            return "", False
        if id(node) in defined:
            return f"#{label}#", True
        defined.add(id(node))
        return f"#{label}=", False

    def flat(self, node: _Node, defined: set[int]) -> str:
        """The node on one line (`defined` gains the labels it defines)."""
        label, reference = self._label(node, defined)
        if reference:
            return label
        if isinstance(node, _Atom):
            return label + node.text
        if isinstance(node, _Prefix):
            return label + node.prefix + self.flat(node.inner, defined)
        items = " ".join(self.flat(item, defined) for item in node.items)
        if isinstance(node, _Vector):
            return f"{label}[{items}]"
        tail = f" . {self.flat(node.tail, defined)}" if node.tail is not None else ""
        return f"{label}({items}{tail})"

    def fill(self, node: _Node, column: int) -> str:
        """The node starting at `column`, broken where it does not fit."""
        width = self.style.width
        assert width is not None
        trial = set(self.defined)
        text = self.flat(node, trial)
        unbreakable = isinstance(node, _Atom) or (isinstance(node, _Vector) and not node.items)
        if column + len(text) <= width or unbreakable:
            self.defined = trial
            return text
        label, reference = self._label(node, self.defined)
        if reference:
            return label
        if isinstance(node, _Prefix):
            return label + node.prefix + self.fill(node.inner, column + len(label + node.prefix))
        assert isinstance(node, _List | _Vector)
        start = column + len(label) + 1
        head = self.fill(node.items[0], start)
        out = [label, "(" if isinstance(node, _List) else "[", head]
        current = _end_column(head, start)
        symbol_head = isinstance(node, _List) and isinstance(node.items[0], _Atom)
        align = None if symbol_head and node.items[0].symbol else start  # type: ignore[union-attr]
        rest: list[tuple[str, _Node]] = [("", item) for item in node.items[1:]]
        if isinstance(node, _List) and node.tail is not None:
            rest.append((". ", node.tail))
        broken = "\n" in head
        for dot, item in rest:
            trial = set(self.defined)
            text = dot + self.flat(item, trial)
            if not broken and current + 1 + len(text) <= width:
                self.defined = trial
                align = current + 1 if align is None else align
                out.append(" " + text)
                current += 1 + len(text)
                continue
            align = start if align is None else align
            body = dot + self.fill(item, align + len(dot))
            out.append("\n" + self._indent(align) + body)
            current = _end_column(body, align)
            broken = "\n" in body
        out.append(")" if isinstance(node, _List) else "]")
        return "".join(out)

    def _indent(self, column: int) -> str:
        if self.style.tabs:
            return "\t" * (column // 8) + " " * (column % 8)
        return " " * column


def _end_column(text: str, start: int) -> int:
    if "\n" not in text:
        return start + len(text)
    last = text[text.rindex("\n") + 1 :]
    stripped = last.lstrip("\t")
    return 8 * (len(last) - len(stripped)) + len(stripped)
