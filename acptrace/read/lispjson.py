"""The JSON value an Emacs Lisp datum stands for, read the way Emacs' `json-serialize` (what
acp.el sends with) writes it: so a logged message becomes what went, or would go, on the wire.

- an alist (a list whose first element is a cons) is an object: keys are symbol names (`nil`
  and `t` too), the first of a repeated key wins, as `assq` finds it;
- a plist (a list whose first element is a symbol, e.g. `(:a 1 :b 2)`) is an object too, a
  keyword key losing its colon;
- `nil` (`()`) is the empty object `{}`: json-serialize writes `{}` for it. acp.el parses
  incoming `null` into `nil` too since September 2025, and `false` since November 2025
  (acp.el 0.7.1; older files hold `:null` and `:false`), so an incoming `(result)` may have
  been `null`, `false` or `{}` on the wire: it reads as `{}`;
- a vector is an array, `t` true, `:false` false, `:null` null, strings, integers and floats
  as themselves (an infinite float too, as `acptrace.read.jsontext` reads `1e400`).

Anything else (another symbol, a NaN, a dotted list, a list of numbers, an alist entry whose
key is not a symbol) is `NotJson`, with the line of the nearest list or vector; nesting deeper
than `MAX_DEPTH` is `NotJson` with `too_deep`. No recursion, whatever the depth.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

from acptrace.read.jsontext import MAX_DEPTH
from acptrace.read.sexp import NIL, Datum, SList, Symbol, T, Vector, cdr, show

_SYMBOL_VALUES: dict[str, Any] = {":false": False, ":null": None}


class NotJson(Exception):
    """A datum that stands for no JSON value."""

    def __init__(self, line: int, message: str, *, too_deep: bool = False) -> None:
        super().__init__(f"line {line}: {message}")
        self.line = line
        """The line of the list or vector the problem is in."""
        self.message = message
        """A short sentence, without the line."""
        self.too_deep = too_deep
        """The value nests deeper than `MAX_DEPTH`."""


def to_json(datum: Datum, line: int) -> Any:
    """The JSON value of a datum read at `line`; raises `NotJson`."""
    root, children = _open(datum, line, 1)
    stack: list[tuple[Any, Iterator[tuple[str | None, Datum, int]], int]] = []
    if children is not None:
        stack.append((root, children, 1))
    while stack:
        container, pending, depth = stack[-1]
        step = next(pending, None)
        if step is None:
            stack.pop()
            continue
        key, child, child_line = step
        value, grandchildren = _open(child, child_line, depth + 1)
        if key is None:
            container.append(value)
        else:
            container[key] = value
        if grandchildren is not None:
            stack.append((value, grandchildren, depth + 1))
    return root


def _open(
    datum: Datum, line: int, depth: int
) -> tuple[Any, Iterator[tuple[str | None, Datum, int]] | None]:
    """A scalar's value; or a container's empty value with what will fill it."""
    if isinstance(datum, str):
        return datum, None
    if isinstance(datum, int | float):
        if isinstance(datum, float) and math.isnan(datum):
            raise NotJson(line, "NaN is not JSON")
        return datum, None
    if datum is NIL:
        return {}, None
    if isinstance(datum, Symbol):
        if datum is T:
            return True, None
        if datum.name in _SYMBOL_VALUES:
            return _SYMBOL_VALUES[datum.name], None
        if datum.name == "...":
            raise NotJson(line, "... is not JSON: print-length or print-level cut the data")
        raise NotJson(line, f"the symbol {show(datum)} is not JSON")
    if depth > MAX_DEPTH:
        raise NotJson(line, f"nested deeper than {MAX_DEPTH:,} levels of JSON", too_deep=True)
    if isinstance(datum, Vector):
        return [], ((None, item, datum.line) for item in datum.items)
    if datum.tail is not NIL:
        raise NotJson(datum.line, f"a dotted list is not JSON: {show(datum)}")
    first = datum.items[0]
    result: dict[str, Any] = {}
    if isinstance(first, SList):
        return result, _alist(datum, result)
    if isinstance(first, Symbol):
        return result, _plist(datum, result)
    raise NotJson(datum.line, f"a list that is no alist or plist is not JSON: {show(datum)}")


def _alist(alist: SList, result: dict[str, Any]) -> Iterator[tuple[str, Datum, int]]:
    """The keys and values of an alist, each key once (the first)."""
    for entry in alist.items:
        if not isinstance(entry, SList) or not isinstance(entry.items[0], Symbol):
            raise NotJson(alist.line, f"an alist entry is not (symbol . value): {show(entry)}")
        key = entry.items[0].name
        if key not in result:
            yield key, cdr(entry), entry.line


def _plist(plist: SList, result: dict[str, Any]) -> Iterator[tuple[str, Datum, int]]:
    """The keys and values of a plist, each key once (the first)."""
    items = plist.items
    if len(items) % 2:
        raise NotJson(plist.line, f"a plist with a key and no value: {show(plist)}")
    for index in range(0, len(items), 2):
        key = items[index]
        if not isinstance(key, Symbol):
            raise NotJson(plist.line, f"a plist key is not a symbol: {show(key)}")
        name = key.name[1:] if key.name.startswith(":") else key.name
        if name not in result:
            yield name, items[index + 1], plist.line
