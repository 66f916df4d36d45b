"""msgspec types for JSON values where msgspec checks exactly what a schema says, or more
(`screen`): literals, bounds, and unions whose members msgspec tells apart by their JSON
alone; `Never` where it cannot."""

from __future__ import annotations

from types import UnionType
from typing import Annotated, Any, Literal, Union, get_args, get_origin

import msgspec


class Never(msgspec.Struct, rename={"never": "~never~"}):
    """A type no finite JSON value decodes into: an object whose one required member (a name
    no ACP message uses) is again such an object."""

    never: Never


def bounds(node: dict[str, Any]) -> msgspec.Meta | None:
    """The bounds msgspec checks (`minimum`, `maximum`, `minLength`, `minItems`)."""
    found = {
        "ge": node.get("minimum"),
        "le": node.get("maximum"),
        "min_length": node.get("minLength", node.get("minItems")),
    }
    given = {key: value for key, value in found.items() if value is not None}
    return msgspec.Meta(**given) if given else None


PLAIN: dict[str, Any] = {"string": str, "integer": int, "number": float, "boolean": bool,
                          "null": None, "object": dict[str, Any]}  # fmt: skip

JSON_KINDS = {
    "string": ("str", "literal str"), "null": ("null",), "integer": ("int", "literal int"),
    "number": ("int", "float", "literal int"), "boolean": ("bool",), "array": ("array",),
    "object": ("object",),
}  # fmt: skip
"""The kinds of type (`kind_of`) whose every value is of a JSON type."""

_ALLOWED = {"string": (str,), "integer": (int,), "number": (int,), None: (str, int)}
"""The values of a `const` or `enum` a `Literal` can hold, by the node's `type`."""


def literal(values: list[Any], kind: Any) -> Any:
    """A `const` or `enum` as a `Literal` (of strings or integers only: a boolean or a float is
    not told apart from its neighbours exactly), with `None` for a null among them."""
    rest = [v for v in values if v is not None]
    allowed = _ALLOWED.get(kind, ())
    if kind == "null":
        return None if None in values else Never
    if not all(type(v) in allowed for v in rest) or (None in values and kind is not None):
        return Never
    if not rest:
        return None
    literal = Literal[tuple(rest)]  # type: ignore[valid-type]
    return literal | None if None in values else literal


def members_of(kind: Any) -> list[Any]:
    """The members of a union type (a type not a union: itself)."""
    if get_origin(kind) in (Union, UnionType):
        return [m for arg in get_args(kind) for m in members_of(arg)]
    return [kind]


def kind_of(kind: Any) -> str:
    """What JSON a type decodes from, the way msgspec tells a union's members apart."""
    base = get_args(kind)[0] if get_origin(kind) is Annotated else kind
    origin = get_origin(base)
    if base is None or base is type(None):
        return "null"
    if origin is Literal:
        return "literal " + "/".join(sorted({type(v).__name__ for v in get_args(base)}))
    if origin is list:
        return "array"
    if origin is dict or (isinstance(base, type) and issubclass(base, msgspec.Struct)):
        return "object"
    return {str: "str", int: "int", float: "float", bool: "bool"}.get(base, "other")


def one_of(types: list[Any]) -> Any:
    """A union of branch types, where msgspec tells its members apart by their JSON alone
    (else `Never`: a union of two objects not tagged alike, two arrays, …). A string (an
    integer) takes in literals of its type; a number takes in integers."""
    members = list(dict.fromkeys(m for kind in types for m in members_of(kind)))
    if Any in members:
        return Any
    members = [m for m in members if m is not Never]
    kinds = {m: kind_of(m) for m in members}
    for wide, narrow in (("str", "literal str"), ("int", "literal int"), ("float", "int")):
        if wide in kinds.values():
            members = [m for m in members if kinds[m] != narrow]
    literals = [m for m in members if kinds[m].startswith("literal")]
    if len(literals) > 1:
        merged = Literal[tuple(v for m in literals for v in get_args(m))]  # type: ignore[valid-type]
        members = [m for m in members if m not in literals] + [merged]
        kinds[merged] = kind_of(merged)
    if not members or not _apart(members, kinds):
        return Never
    return Union[tuple(members)] if len(members) > 1 else members[0]  # noqa: UP007


def _apart(members: list[Any], kinds: dict[Any, str]) -> bool:
    """Whether msgspec can tell a union's members apart: one of each kind, but objects that
    are all Structs tagged by the same member."""
    counted = [kinds[m] for m in members]
    objects = [m for m in members if kinds[m] == "object"]
    if len(objects) > 1:
        fields = {getattr(getattr(m, "__struct_config__", None), "tag_field", None)
                  for m in objects}  # fmt: skip
        if len(fields) != 1 or None in fields:
            return False
        counted = [k for k in counted if k != "object"]
    literal_kinds = {part for k in counted if k.startswith("literal ")
                     for part in k.removeprefix("literal ").split("/")}  # fmt: skip
    plain = [k for k in counted if not k.startswith("literal ")]
    overlaps = literal_kinds & {"str", "int"} & set(plain)
    return len(plain) == len(set(plain)) and "other" not in plain and not overlaps
