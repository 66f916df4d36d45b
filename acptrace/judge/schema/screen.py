"""The schema check's first screen: each definition as msgspec types no looser than the
schema, so that a message msgspec decodes from its line breaks nothing there, and only the
others are checked node by node (`compiler`), which names every break.

A valid message then costs one decode in C of the line it came in (no Python object made of
it, and no Python call per schema node): the check of real traffic, nearly all valid, costs a
small part of what walking every value did. The screen may be stricter than the schema (a
message it refuses is only checked the long way), never looser:

- what msgspec cannot say exactly becomes `Never`, a type no finite JSON value decodes into:
  `not`, a union msgspec cannot tell apart, an object whose members are both named and typed
  by `additionalProperties`, a merge (`allOf`) of objects one of which is closed;
- a tagged union (`compiler.tag_reading`) loses its open "custom or future" branch: an update of
  a tag the schema does not know is checked the long way;
- a closed object refuses every member it does not name, `_`-prefixed extensions too;
- an object's members are typed whether or not `type` says it is an object.

`tests/test_schema_screen.py` holds it to that: on every example and every real message, and
on thousands of broken ones, what the screen lets through the compiler finds nothing in.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Annotated, Any, Union

import msgspec

from acptrace.judge.schema.compiler import CHECKING, OBJECT_KEYS, tag_reading
from acptrace.judge.schema.msgspec_types import (
    JSON_KINDS,
    PLAIN,
    Never,
    bounds,
    kind_of,
    literal,
    members_of,
    one_of,
)


class _Spec(msgspec.Struct):
    """An object's members as the schema types them, before they become a Struct."""

    properties: dict[str, Any]
    required: set[str]
    closed: bool = False
    """`additionalProperties` or `unevaluatedProperties` is false."""


Decode = Callable[[bytes], Any]


class Screen:
    """The types of one schema's definitions, each made when first needed, and a decoder of
    each (definition, member, line shape)."""

    def __init__(self, defs: Mapping[str, Any]) -> None:
        self.defs = defs
        self._types: dict[str, Any] = {}
        self._decoders: dict[tuple[str, str, bool], Decode] = {}

    def decoder(self, name: str, part: str, canonical: bool) -> Decode:
        """A decode of a line holding a message whose `part` (`params`, `result`, `error`)
        `#/$defs/<name>` checks: a canonical record (`canonical`, the message is its `msg`)
        or the bare message. It raises `msgspec.ValidationError` where the screen refuses."""
        key = (name, part, canonical)
        found = self._decoders.get(key)
        if found is None:
            message = msgspec.defstruct("Message", [(part, self.definition(name))])
            line = msgspec.defstruct("Line", [("msg", message)]) if canonical else message
            found = self._decoders[key] = msgspec.json.Decoder(line).decode
        return found

    def definition(self, name: str) -> Any:
        """The type of `#/$defs/<name>` (a definition reached again while its type is being
        made is `Never`: recursion is left to the long way)."""
        found = self._types.get(name)
        if found is None:
            self._types[name] = Never
            found = self._types[name] = self.type_of(self.defs[name])
        return found

    def type_of(self, node: Any) -> Any:
        """The type of one schema node."""
        if node is False:
            return Never
        if not isinstance(node, dict) or not CHECKING & node.keys():
            return Any
        checking = CHECKING & node.keys()
        if "not" in checking:
            return Never
        if checking == {"$ref"}:
            return self.definition(_ref_name(node["$ref"]))
        parts = _checking_parts(node)
        if checking == {"allOf"} and len(parts) <= 1:
            return self.type_of(parts[0]) if parts else Any
        if checking == {"allOf"} and len(parts) == 2:
            narrowed = self._narrower(*parts)
            if narrowed is not None:
                return narrowed
        if checking & {"anyOf", "oneOf"}:
            return self._union(node)
        kind = node.get("type")
        if isinstance(kind, list):
            return one_of([self.type_of(_narrowed(node, each)) for each in kind])
        if kind in (None, "object") and checking & (OBJECT_KEYS | {"allOf", "$ref"}):
            return self._object(node)
        if checking & {"allOf", "$ref"}:
            return Never  # (a value of another type merged with parts: not said exactly)
        return self._plain(node)

    def _narrower(self, one: Any, other: Any) -> Any | None:
        """Of two parts of an `allOf`, one only a `type`: the other's type where every value
        it takes is of that type (so both hold), else None."""
        for typed, rest in ((one, other), (other, one)):
            if isinstance(typed, dict) and CHECKING & typed.keys() == {"type"}:
                wanted = typed["type"]
                kinds = {k for name in ([wanted] if isinstance(wanted, str) else wanted)
                         for k in JSON_KINDS.get(name, ())}  # fmt: skip
                found = self.type_of(rest)
                if found is not Any and all(kind_of(m) in kinds for m in members_of(found)):
                    return found
        return None

    def _union(self, node: dict[str, Any]) -> Any:
        """A union: tagged (`compiler.tag_reading`), the node's own members merged into each
        branch; else of types msgspec tells apart (`one_of`)."""
        if {"anyOf", "oneOf"} <= node.keys():
            return Never
        branches = node.get("anyOf") or node.get("oneOf") or []
        own = {k: v for k, v in node.items() if k not in ("anyOf", "oneOf")}
        tagged = tag_reading(branches)
        if tagged is not None:
            member, by_value, _ = tagged  # (the open branch left to the long way)
            return self._tagged_union(member, by_value, own)
        if CHECKING & own.keys():
            return Never  # (members beside an untagged union: not said exactly)
        return one_of([self.type_of(branch) for branch in branches])

    def _tagged_union(self, member: str, by_value: dict[Any, Any], own: dict[str, Any]) -> Any:
        """A Struct per branch, tagged by its value of `member`. A branch the screen cannot
        say exactly is left out: its values are checked the long way. One branch left is a
        plain Struct whose `member` is its constant (msgspec does not ask a lone tagged Struct
        for its tag)."""
        specs = []
        for value, branch in by_value.items():
            spec = self._spec({**own, "allOf": [*own.get("allOf", ()), branch]})
            if spec is not None and type(value) in (str, int) and not spec.closed:
                specs.append((value, spec))
        if len(specs) == 1:
            return self._struct(specs[0][1])
        structs = []
        for value, spec in specs:
            spec.properties.pop(member, None)
            spec.required.discard(member)
            structs.append(self._struct(spec, tag_field=member, tag=value))
        return Union[tuple(structs)] if structs else Never  # noqa: UP007

    def _object(self, node: dict[str, Any]) -> Any:
        others = node.get("additionalProperties")
        if _typed_others(node) and not ({"properties", "required", "allOf", "$ref"}
                                        & node.keys()):  # fmt: skip
            return dict[str, self.type_of(others)]  # type: ignore[misc]
        spec = self._spec(node)
        if spec is None:
            return Never
        if not spec.properties and not spec.required and not spec.closed:
            return dict[str, Any]
        return self._struct(spec)

    def _spec(self, node: Any) -> _Spec | None:
        """The members of an object node merged with those of its `allOf` parts and `$ref`
        (None: not said exactly)."""
        if isinstance(node, dict) and ({"anyOf", "oneOf"} & node.keys()):
            return self._with_member_union(node)
        if not _object_like(node):
            return None
        own = _Spec(
            dict(node.get("properties", {})),
            set(node.get("required", ())),
            node.get("additionalProperties", node.get("unevaluatedProperties")) is False,
        )
        specs = [own]
        for part in _checking_parts(node) + ([{"$ref": node["$ref"]}] if "$ref" in node else []):
            target = part
            if isinstance(part, dict) and (CHECKING & part.keys()) == {"$ref"}:
                target = self.defs.get(_ref_name(part["$ref"]))
            found = self._spec(target) or self._union_spec(target)
            if found is None:
                return None
            specs.append(found)
        named = [spec for spec in specs if spec.properties or spec.required]
        if any(spec.closed for spec in specs) and len(named) > 1:
            return None  # (a closed object merged: the members each refuses differ)
        for spec in specs[1:]:
            _merge(own, spec)
            own.closed = own.closed or spec.closed
        return own

    def _with_member_union(self, node: dict[str, Any]) -> _Spec | None:
        """An object whose union (`anyOf`) says what one member may be and nothing else (an
        idle state's `stopReason`: one of the known reasons, any other string, or none): the
        object's members, that member typed as any branch allows (None: another union)."""
        key = "anyOf" if "anyOf" in node else "oneOf"
        if {"anyOf", "oneOf"} <= node.keys():
            return None
        spec = self._spec({k: v for k, v in node.items() if k != key})
        union = _member_union(node[key], self._part_spec)
        if spec is None or union is None:
            return None
        member, values, required, parts = union
        for part in parts:
            part.properties.pop(member, None)
            _merge(spec, part)
        mine = spec.properties.get(member)
        spec.properties[member] = values if mine is None else {"allOf": [mine, values]}
        if required:
            spec.required.add(member)
        return spec

    def _part_spec(self, part: Any) -> _Spec | None:
        """The members an `allOf` part names (through its `$ref`)."""
        if isinstance(part, dict) and (CHECKING & part.keys()) == {"$ref"}:
            part = self.defs.get(_ref_name(part["$ref"]))
        return self._spec(part)

    def _union_spec(self, node: Any) -> _Spec | None:
        """A tagged union merged into one object, where that is no looser (a `state_update`
        is an update whose `allOf` is the union of states): the tag one of its values, and
        every other member of any branch typed as each branch that names it types it (both,
        where two do). No looser only while no branch requires more than its tag, nor is
        closed (None otherwise, and for any other node)."""
        branches = node.get("anyOf") or node.get("oneOf") if isinstance(node, dict) else None
        if not branches or (CHECKING - {"anyOf", "oneOf"}) & node.keys():
            return None
        tagged = tag_reading(branches)
        if tagged is None:
            return None
        member, by_value, _ = tagged
        merged = _Spec({}, {member})
        for branch in by_value.values():
            spec = self._spec(branch)
            if spec is None or spec.closed or spec.required - {member}:
                return None
            spec.properties.pop(member, None)
            _merge(merged, spec)
        merged.properties[member] = {"enum": list(by_value)}
        return merged

    def _struct(self, spec: _Spec, tag_field: str | None = None, tag: Any = None) -> Any:
        fields: list[tuple[str, Any] | tuple[str, Any, Any]] = []
        rename = {}
        for index, (key, sub) in enumerate(spec.properties.items()):
            if key == "bounds" and not spec.closed:
                continue  # (never looked into; an open object takes it as any member)
            kind = Any if key == "bounds" else self.type_of(sub)
            field = f"f{index}"
            rename[field] = key
            if key in spec.required:
                fields.append((field, kind))
            else:
                fields.append((field, kind | msgspec.UnsetType, msgspec.UNSET))
        for index, key in enumerate(sorted(spec.required - spec.properties.keys())):
            rename[f"r{index}"] = key
            fields.append((f"r{index}", Any))
        fields.sort(key=lambda field: len(field) == 3)  # (required ones first)
        return msgspec.defstruct(
            "Object", fields, rename=rename, forbid_unknown_fields=spec.closed,
            tag_field=tag_field, tag=tag,
        )  # fmt: skip

    def _plain(self, node: dict[str, Any]) -> Any:
        """A node of one type, or a `const` or `enum`, without members or branches."""
        meta = bounds(node)
        if "const" in node or "enum" in node:
            values = [node["const"]] if "const" in node else list(node["enum"])
            return literal(values, node.get("type")) if meta is None else Never
        kind = node.get("type")
        base = PLAIN.get(kind, Never) if kind is not None else Any
        if kind == "array":
            base = list[self.type_of(node.get("items", True))]  # type: ignore[misc]
        return Annotated[base, meta] if meta is not None and base is not Never else base


def _ref_name(ref: str) -> str:
    return ref.rsplit("/", 1)[-1]


def _member_union(
    branches: list[Any], spec_of: Callable[[Any], _Spec | None]
) -> tuple[str, dict[str, Any], bool, list[_Spec]] | None:
    """A union whose branches each say what one member may be: objects naming that member
    alone, the open one (`not`) excluding only values other branches fix exactly, a branch's
    `allOf` parts (`spec_of`) adding members none requires (an `error` stop reason's
    `error`: typed wherever it comes, which is no looser). The member, a node of every value
    any branch allows (the open branch's `not` left out: the values it excludes, another
    branch takes), whether every branch requires it, and the parts' members (None: not such
    a union)."""
    member: str | None = None
    values, fixed, excluded, required, parts = [], set(), set(), True, []
    for branch in branches:
        if not isinstance(branch, dict) or not _member_only(branch):
            return None
        for part in branch.get("allOf", ()):
            found = spec_of(part)
            if found is None or found.required or found.closed:
                return None
            parts.append(found)
        named = set(branch.get("properties", {})) | set(branch.get("required", ()))
        if len(named) != 1 or (member is not None and named != {member}):
            return None
        member = next(iter(named))
        sub = branch.get("properties", {}).get(member, {})
        values.append(sub)
        required = required and member in branch.get("required", ())
        if isinstance(sub, dict) and set(sub) & CHECKING <= {"type", "const"} and "const" in sub:
            fixed.add(sub["const"])
        if "not" in branch:
            found_consts = _consts_of(branch["not"], member)
            if found_consts is None:
                return None
            excluded |= found_consts
    if member is None or not excluded <= fixed:
        return None
    return member, {"anyOf": values}, required, parts


def _member_only(branch: dict[str, Any]) -> bool:
    """A branch of a union over one member says no more than `_member_union` reads."""
    said = CHECKING & branch.keys() - {"type", "properties", "required", "not", "allOf"}
    if _open(branch):
        said -= {"additionalProperties"}
    return not said and branch.get("type", "object") == "object"


def _open(node: dict[str, Any]) -> bool:
    """An object node that says it is open (`additionalProperties` true or `{}`)."""
    others = node.get("additionalProperties")
    return others is True or (isinstance(others, dict) and not CHECKING & others.keys())


def _consts_of(node: Any, member: str) -> set[Any] | None:
    """The constants a `not` excludes for a member (an `anyOf` of objects fixing it), else
    None."""
    branches = node.get("anyOf") if isinstance(node, dict) else None
    found = set()
    for branch in branches or [None]:
        sub = branch.get("properties", {}).get(member) if isinstance(branch, dict) else None
        if not isinstance(sub, dict) or "const" not in sub:
            return None
        found.add(sub["const"])
    return found


def _checking_parts(node: dict[str, Any]) -> list[Any]:
    """The parts of a node's `allOf` that check anything (not annotations alone)."""
    return [p for p in node.get("allOf", ()) if not isinstance(p, dict) or CHECKING & p.keys()]


_NOT_OBJECT = frozenset({"anyOf", "oneOf", "not", "const", "enum", "items", "minItems",
                         "minimum", "maximum", "minLength"})  # fmt: skip


def _typed_others(node: dict[str, Any]) -> bool:
    """`additionalProperties` (or `unevaluatedProperties`) is a schema that checks."""
    return any(
        isinstance(node.get(key), dict) and CHECKING & node[key].keys()
        for key in ("additionalProperties", "unevaluatedProperties")
    )


def _object_like(node: Any) -> bool:
    """A node that says only what an object's members are (`_Spec`)."""
    return (
        isinstance(node, dict)
        and node.get("type", "object") == "object"
        and not _NOT_OBJECT & node.keys()
        and not _typed_others(node)
    )


_APPLIES = {
    "object": OBJECT_KEYS | {"allOf", "$ref"},
    "array": frozenset({"items", "minItems"}),
    "string": frozenset({"minLength"}),
    "integer": frozenset({"minimum", "maximum"}),
    "number": frozenset({"minimum", "maximum"}),
}


_TYPED = frozenset().union(*_APPLIES.values()) - {"allOf", "$ref"}
"""The keywords that apply to values of one type only."""


def _narrowed(node: dict[str, Any], kind: str) -> dict[str, Any]:
    """A node of several types, for one of them: the keywords that apply to that type (a
    `$ref`, `allOf`, `const` or `enum` applies to all: kept, for `type_of` to judge)."""
    keep = _APPLIES.get(kind, frozenset())
    return {k: v for k, v in node.items() if k not in _TYPED or k in keep} | {"type": kind}


def _merge(spec: _Spec, other: _Spec) -> None:
    """Merge another part's members into an object's (a member both type is the one that
    checks, or both: `allOf` of the two)."""
    for key, sub in other.properties.items():
        mine = spec.properties.get(key)
        if mine is None or not (isinstance(mine, dict) and CHECKING & mine.keys()):
            spec.properties[key] = sub
        elif isinstance(sub, dict) and CHECKING & sub.keys() and sub != mine:
            spec.properties[key] = {"allOf": [mine, sub]}
    spec.required |= other.required
