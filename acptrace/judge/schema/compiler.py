"""A JSON Schema compiled once into Python checks: the subset the ACP schemas use.

Each schema node becomes one function `check(value, path, breaks)` that appends a `Break` for
each place the value breaks it (`path` is the JSON path so far, `result.capabilities`). The
keywords read are `$ref` (to `#/$defs/…`, compiled when first reached), `allOf`, `anyOf`,
`oneOf` (as `anyOf`: the ACP schemas' branches never overlap), `not`, `type`, `const`, `enum`,
`properties`, `required`, `additionalProperties` and `unevaluatedProperties` (false: a member
not defined is an unknown member, a `note`), `items`, `minItems`, `minimum`, `maximum`,
`minLength`. Annotations (`description`, `format`, `default`, the `x-` keys) are not checks.
`_meta` holds what the schema leaves free and is never looked into; members whose names begin
with `_` are extensions, never unknown.

A union whose branches each fix one member to a constant (`sessionUpdate`, `type`, …) is read
by that member: the value's branch alone is checked, so a break is named inside it
(`params.update.content.type`), not as "no branch matched". Other unions are tried branch by
branch, those whose type cannot fit the value skipped.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import msgspec

from acptrace.model.excerpt import excerpt, json_text, plural

INVALID, UNKNOWN = "invalid", "unknown"
"""A `Break`'s kind: the value breaks the schema; a member the schema does not define where
it closes the object."""


REQUIRED = "a required member"
"""What a `Break` wants where a member the schema requires is missing."""


class Break(msgspec.Struct, frozen=True, gc=False):
    """One place a value breaks its schema."""

    kind: str
    """`INVALID` or `UNKNOWN`."""
    path: str
    """The JSON path (`result.capabilities`, `params.prompt[].type`: arrays without index)."""
    want: str
    """What the schema wants there."""
    value: Any
    """What came."""
    text: str | None = None
    """What came, in words, where not the value's (`came`): `nothing`, a count."""

    @property
    def came(self) -> str:
        """What came, in words (worked out only for the breaks a finding shows)."""
        return came(self.value) if self.text is None else self.text


Check = Callable[[Any, str, list[Break]], None]

_JSON_TYPES: dict[type, str] = {
    dict: "object",
    list: "array",
    str: "string",
    bool: "boolean",
    int: "integer",
    float: "number",
    type(None): "null",
}


def json_type(value: Any) -> str:
    """The JSON type of a parsed value (`integer` for whole numbers)."""
    return _JSON_TYPES.get(type(value), "unknown")


_PYTHON_TYPES: dict[str, tuple[type, ...]] = {
    "object": (dict,), "array": (list,), "string": (str,), "boolean": (bool,),
    "integer": (int,), "number": (int, float), "null": (type(None),),
}  # fmt: skip
"""The parsed values of each JSON type (`type(value) in`, no call: a whole number is a
`number` too)."""


def python_types(wanted: frozenset[str]) -> frozenset[type]:
    """The types of the parsed values a `type` keyword accepts."""
    return frozenset(kind for name in wanted for kind in _PYTHON_TYPES.get(name, ()))


def _words(wanted: frozenset[str]) -> str:
    return "type " + " or ".join(sorted(wanted))


def came(value: Any) -> str:
    """What came, for a message: a short value, the members of an object, or an array."""
    kind = json_type(value)
    if kind == "object":
        names = ", ".join(excerpt(key, 20) for key in list(value)[:6])
        return f"an object with {names}{', …' if len(value) > 6 else ''}" if value else "{}"
    if kind == "array":
        return "an array"
    return f"{excerpt(value, 40)} ({kind})" if kind == "string" else json_text(value)


def _ok(value: Any, path: str, breaks: list[Break]) -> None:
    """A schema that accepts anything (`true`, `{}`, an annotation)."""


class Compiler:
    """Compiles the nodes of one schema document, each `$defs` entry once, when first reached."""

    def __init__(self, defs: Mapping[str, Any]) -> None:
        self.defs = defs
        self._compiled: dict[str, Check] = {}

    def definition(self, name: str) -> Check:
        """The check of `#/$defs/<name>` (compiled on first use; recursion goes through a cell)."""
        check = self._compiled.get(name)
        if check is None:
            cell: list[Check] = []
            self._compiled[name] = lambda value, path, breaks: cell[0](value, path, breaks)
            cell.append(self.compile(self.defs[name]))
            check = self._compiled[name] = cell[0]
        return check

    def compile(self, node: Any) -> Check:
        """The check of one schema node."""
        if node is False:
            return lambda value, path, breaks: breaks.append(
                Break(INVALID, path, "nothing (no value is allowed)", value)
            )
        if not isinstance(node, dict):
            return _ok
        checks = [check for check in self._parts(node) if check is not _ok]
        if not checks:
            return _ok
        if len(checks) == 1:
            return checks[0]
        return _all(checks)

    def _parts(self, node: dict[str, Any]) -> list[Check]:
        objects = OBJECT_KEYS & node.keys()
        if objects and node.get("type") == "object" and not _OTHER_KEYS & node.keys():
            return [self._object(node, typed=True)]  # (an object alone: one check says all)
        if node.get("type") == "array" and not (_OTHER_KEYS - _ARRAY_KEYS) & node.keys():
            return [self._array(node, typed=True)]
        parts = [_type(node["type"])] if "type" in node else []
        if "const" in node:
            parts.append(_const(node["const"]))
        if "enum" in node:
            parts.append(_enum(node["enum"]))
        if "$ref" in node:
            parts.append(self._ref(node["$ref"]))
        for sub in node.get("allOf", ()):
            parts.append(self.compile(sub))
        for key in ("anyOf", "oneOf"):
            if key in node:
                parts.append(self._union(node[key]))
        if "not" in node:
            parts.append(self._not(node["not"]))
        if objects:
            parts.append(self._object(node))
        if "items" in node or "minItems" in node:
            parts.append(self._array(node))
        if {"minimum", "maximum", "minLength"} & node.keys():
            parts.append(_bounds(node))
        return parts

    def _ref(self, ref: str) -> Check:
        """The check of the definition a `$ref` names, made now: a node is compiled when a
        value is about to be checked by it (members, branches and items wait for theirs), so
        what it refers to is needed too (a definition reached again while it is being made
        goes through its cell: `definition`)."""
        return self.definition(ref.rsplit("/", 1)[-1])

    def _resolve(self, member: list[Any]) -> None:
        """Make a member's check, when a value first has it (its node's `$ref`s parsed only
        then): by the types a plain `type` accepts, checked without a call, or compiled."""
        node = member[_NODE]
        wanted = _plain_type(node, self.defs)
        if wanted is not None:
            member[_TYPES], member[_WANTS] = python_types(wanted), _words(wanted)
        member[_CHECK] = _ok if wanted is not None else self.compile(node)

    def _object(self, node: dict[str, Any], typed: bool = False) -> Check:
        """An object's members (`typed`: and that it is an object, `type: object`)."""
        properties = node.get("properties", {})
        members = [[key, "." + key, None, "", None, sub] for key, sub in properties.items()
                   if key != "_meta" and _checks(sub)]  # fmt: skip
        required = tuple(node.get("required", ()))
        closed = node.get("additionalProperties", node.get("unevaluatedProperties")) is False
        others = node.get("additionalProperties")
        extra = self.compile(others) if isinstance(others, dict) else _ok
        known = frozenset(properties)
        resolve = self._resolve
        if not (members or required or closed or typed) and extra is _ok:
            return _ok  # (members named, none checked: what a tagged branch often is)

        def check(value: Any, path: str, breaks: list[Break]) -> None:
            if type(value) is not dict:
                if typed:
                    breaks.append(Break(INVALID, path, "type object", value))
                return  # (else `type` says so, where the schema wants an object)
            for key in required:
                if key not in value:
                    breaks.append(Break(INVALID, _member(path, key), REQUIRED,
                                        None, "nothing"))  # fmt: skip
            for member in members:
                key = member[0]
                if key in value:
                    item = value[key]
                    types = member[_TYPES]
                    if types is None and member[_CHECK] is None:
                        resolve(member)
                        types = member[_TYPES]
                    if types is None:
                        member[_CHECK](item, path + member[_DOTTED] if path else key, breaks)
                    elif type(item) not in types:
                        where = path + member[_DOTTED] if path else key
                        breaks.append(Break(INVALID, where, member[_WANTS], item))
            if closed or extra is not _ok:
                _others(value, path, known, closed, extra, breaks)

        return check

    def _array(self, node: dict[str, Any], typed: bool = False) -> Check:
        """An array's items (`typed`: and that it is an array, `type: array`), their check
        made when a first item comes."""
        items_node = node.get("items", True)
        items: list[Check] = [] if _checks(items_node) else [_ok]
        least = node.get("minItems", 0)

        def check(value: Any, path: str, breaks: list[Break]) -> None:
            if type(value) is not list:
                if typed:
                    breaks.append(Break(INVALID, path, "type array", value))
                return
            if len(value) < least:
                wanted = f"at least {plural(least, 'item')}"
                breaks.append(Break(INVALID, path, wanted, value, f"{len(value)}"))
            if value and not items:
                items.append(self.compile(items_node))
            if value and items[0] is not _ok:
                each, inner = items[0], path + "[]"
                for item in value:
                    each(item, inner, breaks)

        return check

    def _not(self, node: Any) -> Check:
        inner = self.compile(node)

        def check(value: Any, path: str, breaks: list[Break]) -> None:
            found: list[Break] = []
            inner(value, path, found)
            if not any(b.kind == INVALID for b in found):
                breaks.append(Break(INVALID, path, "a value this place excludes", value))

        return check

    def _union(self, branches: list[Any]) -> Check:
        tagged = tag_reading(branches)
        if tagged is not None:
            return self._tagged_union(*tagged)
        return self._tried_union(branches)

    def _tagged_union(
        self, member: str, by_value: dict[Any, Any], open_branch: Any | None
    ) -> Check:
        """A union read by the value of one member (`tag_reading`), each branch compiled when a
        value first takes it, without what the reading already checked (an object, whose
        `member` is the branch's own value)."""
        compiled: dict[Any, Check] = {}
        fallback = self.compile(open_branch) if open_branch is not None else None
        listed = _once(lambda: _listed(list(by_value)))

        def branch_of(tag: Any) -> Check | None:
            found = compiled.get(tag)
            if found is None and tag in by_value:
                found = compiled[tag] = self.compile(_read_branch(by_value[tag], member))
            return found

        def check(value: Any, path: str, breaks: list[Break]) -> None:
            if type(value) is not dict:
                breaks.append(Break(INVALID, path, "an object", value))
                return
            tag = value.get(member)
            branch = compiled.get(tag) if type(tag) is str else None
            if branch is None and type(tag) is str:
                branch = branch_of(tag)  # (its first value)
            if branch is not None:
                branch(value, path, breaks)
            elif fallback is not None:
                fallback(value, path, breaks)
            elif member not in value:
                breaks.append(Break(INVALID, _member(path, member), REQUIRED,
                                    None, "nothing"))  # fmt: skip
            else:
                breaks.append(Break(INVALID, _member(path, member), listed(), tag))

        return check

    def _tried_union(self, branches: list[Any]) -> Check:
        """A union tried branch by branch: the first the value meets (no `INVALID` break);
        only those whose types (`_types_of`) and constant can fit the value, each compiled
        when a value first fits it."""
        typed = [(b, _types_of(b, self.defs), _const_of(b)) for b in branches]
        wants = _once(lambda: _tried_wants(typed))
        tried = [[None, None if t is None else python_types(t), c, b] for b, t, c in typed]

        def fitting(value: Any) -> list[Check]:
            kind, found = type(value), []
            for entry in tried:
                types, const = entry[1], entry[2]
                if (types is None or kind in types) and (
                    const is _NO_CONST or (const == value and type(const) is kind)
                ):
                    if entry[0] is None:
                        entry[0] = self.compile(entry[3])
                    found.append(entry[0])
            return found

        def check(value: Any, path: str, breaks: list[Break]) -> None:
            branches = fitting(value)
            if len(branches) == 1:
                branches[0](value, path, breaks)
                return
            for branch in branches:
                found: list[Break] = []
                branch(value, path, found)
                if not any(b.kind == INVALID for b in found):
                    breaks.extend(found)
                    return
            breaks.append(Break(INVALID, path, wants(), value))

        return check


_DOTTED, _TYPES, _WANTS, _CHECK, _NODE = 1, 2, 3, 4, 5
"""The fields of a member of an object's check (`Compiler._object`): its name, `.name`, the
types a plain `type` accepts and its words, else its check, and its schema node."""

CHECKING = frozenset({
    "type", "const", "enum", "$ref", "allOf", "anyOf", "oneOf", "not", "properties",
    "required", "additionalProperties", "unevaluatedProperties", "items", "minItems",
    "minimum", "maximum", "minLength",
})  # fmt: skip
"""The keywords a check reads (`Compiler._parts`); the others annotate."""


def _checks(node: Any) -> bool:
    """Whether a schema node checks anything (`false`, or a keyword that checks)."""
    return node is False or (isinstance(node, dict) and bool(CHECKING & node.keys()))


def _read_branch(branch: Any, member: str) -> Any:
    """A tagged union's branch without what reading the union checked: that the value is an
    object, and its `member`."""
    if not isinstance(branch, dict):
        return branch
    trimmed = {key: value for key, value in branch.items() if key != "type"
               or value != "object"}  # fmt: skip
    properties = {k: ({} if k == member else v) for k, v in branch.get("properties", {}).items()}
    required = [key for key in branch.get("required", ()) if key != member]
    trimmed.pop("properties", None)
    trimmed.pop("required", None)
    return (
        trimmed
        | ({"properties": properties} if properties else {})
        | ({"required": required} if required else {})
    )


def _all(checks: list[Check]) -> Check:
    def check(value: Any, path: str, breaks: list[Break]) -> None:
        for part in checks:
            part(value, path, breaks)

    return check


def _others(
    value: dict[str, Any],
    path: str,
    known: frozenset[str],
    closed: bool,
    extra: Check,
    breaks: list[Break],
) -> None:
    """The members an object's `properties` do not name: unknown where it is closed, else
    checked against `additionalProperties`."""
    for key, item in value.items():
        if key in known or key.startswith("_"):
            continue
        if closed:
            breaks.append(Break(UNKNOWN, _member(path, key), "no such member", item))
        else:
            extra(item, _member(path, key), breaks)


def _member(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _type(wanted: str | list[str]) -> Check:
    types = frozenset([wanted] if isinstance(wanted, str) else wanted)
    accepted, words = python_types(types), _words(types)

    def check(value: Any, path: str, breaks: list[Break]) -> None:
        if type(value) not in accepted:
            breaks.append(Break(INVALID, path, words, value))

    return check


def _const(wanted: Any) -> Check:
    def check(value: Any, path: str, breaks: list[Break]) -> None:
        if value != wanted or type(value) is not type(wanted):
            breaks.append(Break(INVALID, path, excerpt(wanted, 40), value))

    return check


def _enum(values: list[Any]) -> Check:
    hashed = {(type(v), v) for v in values if type(v) in _HASHED}
    listed = _once(lambda: _listed(values))

    def check(value: Any, path: str, breaks: list[Break]) -> None:
        if type(value) in _HASHED and (type(value), value) in hashed:
            return
        if not any(value == v and type(value) is type(v) for v in values):
            breaks.append(Break(INVALID, path, listed(), value))

    return check


_HASHED = frozenset({str, int, float, bool, type(None)})
"""The parsed values an enum finds by hash."""


def _bounds(node: dict[str, Any]) -> Check:
    low, high, shortest = node.get("minimum"), node.get("maximum"), node.get("minLength")

    def check(value: Any, path: str, breaks: list[Break]) -> None:
        kind = type(value)
        if kind in (int, float):
            if low is not None and value < low:
                breaks.append(Break(INVALID, path, f"at least {low}", value))
            if high is not None and value > high:
                breaks.append(Break(INVALID, path, f"at most {high}", value))
        elif kind is str and shortest is not None and len(value) < shortest:
            breaks.append(Break(INVALID, path, f"at least {plural(shortest, 'character')}", value))

    return check


def _once(words: Callable[[], str]) -> Callable[[], str]:
    """What a check wants, in words, worked out when a value first breaks it, then kept: the
    words do not depend on the value, and most breaks are thrown away unread (those of a
    union's branches tried and left, those inside a `not`)."""
    kept: list[str] = []

    def once() -> str:
        if not kept:
            kept.append(words())
        return kept[0]

    return once


def _listed(values: list[Any]) -> str:
    shown = ", ".join(excerpt(v, 30) for v in values[:8])
    more = ", …" if len(values) > 8 else ""
    return f"one of {shown}{more}"


_NO_CONST: Any = object()


def _const_of(node: Any) -> Any:
    """The constant a branch fixes its value to, or `_NO_CONST`."""
    return node["const"] if isinstance(node, dict) and "const" in node else _NO_CONST


def _tried_wants(typed: list[tuple[Any, frozenset[str] | None, Any]]) -> str:
    """What a tried union wants, in words (`_union_wants`), from its (branch, types, const)."""
    consts = [c for _, _, c in typed if c is not _NO_CONST]
    return _union_wants(consts, [(t, _title(b)) for b, t, c in typed if c is _NO_CONST])


def _union_wants(consts: list[Any], free: list[tuple[frozenset[str] | None, str | None]]) -> str:
    """What a tried union wants, in words: its constants, its objects by their titles (the
    variants: `http`, `stdio`), and the types of its other branches."""
    words = [_listed(consts)] if consts else []
    titled = [title for types, title in free if title is not None and types != _NULL]
    if titled:
        words.append("an object of one of the kinds " + ", ".join(titled))
    kinds = {kind for types, title in free if title is None and types for kind in types}
    if any(types == _NULL for types, _ in free):
        kinds.add("null")
    if kinds:
        words.append("type " + " or ".join(sorted(kinds)))
    if any(types is None and title is None for types, title in free):
        words.append("a value of another branch")
    return " or ".join(words) if words else "a value of one branch"


_NULL = frozenset({"null"})

OBJECT_KEYS = frozenset({"properties", "required", "additionalProperties",
                         "unevaluatedProperties"})  # fmt: skip
"""The keywords that say what an object's members are."""
_OTHER_KEYS = CHECKING - OBJECT_KEYS - {"type"}
"""The keywords that check besides `type` and an object's."""
_ARRAY_KEYS = frozenset({"items", "minItems"})


def _plain_type(node: Any, defs: Mapping[str, Any], depth: int = 0) -> frozenset[str] | None:
    """The JSON types of a node that checks nothing but its `type`, or refers to one (a `$ref`,
    or an `allOf` of one `$ref`), else None."""
    if not isinstance(node, dict) or depth > 8:
        return None
    checks = CHECKING & node.keys()
    if checks == {"type"}:
        wanted = node["type"]
        return frozenset([wanted] if isinstance(wanted, str) else wanted)
    parts = node.get("allOf", ())
    if checks == {"allOf"} and len(parts) == 1:
        return _plain_type(parts[0], defs, depth + 1)
    if checks == {"$ref"}:
        return _plain_type(defs.get(node["$ref"].rsplit("/", 1)[-1]), defs, depth + 1)
    return None


def _title(branch: Any) -> str | None:
    """A branch's title, or the constant its object fixes a member to (`tag_reading`)."""
    if not isinstance(branch, dict):
        return None
    if isinstance(branch.get("title"), str):
        return str(branch["title"])
    for sub in branch.get("properties", {}).values():
        if isinstance(sub, dict) and isinstance(sub.get("const"), str):
            return str(sub["const"])
    return None


def _types_of(node: Any, defs: Mapping[str, Any], depth: int = 0) -> frozenset[str] | None:
    """The JSON types a branch can accept (None: any, or not known without checking)."""
    if not isinstance(node, dict) or depth > 20:
        return None
    if "type" in node:
        wanted = node["type"]
        return frozenset([wanted] if isinstance(wanted, str) else wanted)
    if "const" in node:
        return frozenset([json_type(node["const"])])
    if "$ref" in node:
        return _types_of(defs.get(node["$ref"].rsplit("/", 1)[-1]), defs, depth + 1)
    for key in ("allOf", "anyOf", "oneOf"):
        parts = [_types_of(sub, defs, depth + 1) for sub in node.get(key, ())]
        if parts and key == "allOf":
            known = [p for p in parts if p is not None]
            return frozenset.intersection(*known) if known else None
        if parts:
            return None if None in parts else frozenset().union(*parts)  # type: ignore[arg-type]
    return None


def tag_reading(branches: list[Any]) -> tuple[str, dict[Any, Any], Any | None] | None:
    """A union whose branches are objects each fixing one member to a constant (a required
    member with a `const`), but one open branch at most (one with a `not`, the "custom or
    future" variant): that member, the branches by its value, and the open branch."""
    member: str | None = None
    by_value: dict[Any, Any] = {}
    open_branch = None
    for branch in branches:
        if not isinstance(branch, dict):
            return None
        if "not" in branch and open_branch is None:
            open_branch = branch
            continue
        fixed = [
            (key, sub["const"]) for key, sub in branch.get("properties", {}).items()
            if isinstance(sub, dict) and "const" in sub and key in branch.get("required", ())
        ]  # fmt: skip
        if len(fixed) != 1 or (member is not None and fixed[0][0] != member):
            return None
        member = fixed[0][0]
        by_value[fixed[0][1]] = branch
    if member is None or len(by_value) < 1:
        return None
    return member, by_value, open_branch
