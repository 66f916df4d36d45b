"""Examples made from the ACP JSON Schemas' own definitions: the smallest valid value of each
definition (its required members, each the smallest valid value of its schema), for the schema
tests (tests/test_schema.py)."""

from __future__ import annotations

from typing import Any

from acptrace.judge.schema.catalogue import Schema, schema
from acptrace.model.domain import Direction, MessageKind

MAX_DEPTH = 40


def example(version: int, node: Any, depth: int = 0) -> Any:
    """The smallest value a schema node accepts (`version`: whose `$defs` a `$ref` names)."""
    defs = schema(version).defs
    if not isinstance(node, dict) or depth > MAX_DEPTH:
        return None
    if "const" in node:
        return node["const"]
    if "enum" in node:
        return node["enum"][0]
    if "$ref" in node:
        return example(version, defs[node["$ref"].rsplit("/", 1)[-1]], depth + 1)
    for key in ("anyOf", "oneOf"):
        if key in node:
            return _merged(example(version, _first_branch(node[key]), depth + 1), node, version)
    if "allOf" in node and "type" not in node and "properties" not in node:
        value: Any = None
        for part in node["allOf"]:
            value = _merge(value, example(version, part, depth + 1))
        return value
    return _typed(version, node, depth)


def _first_branch(branches: list[Any]) -> Any:
    """The first branch that is not the open "custom or future" one nor `null`."""
    for branch in branches:
        if isinstance(branch, dict) and "not" not in branch and branch.get("type") != "null":
            return branch
    return branches[0]


def _merged(value: Any, node: dict[str, Any], version: int) -> Any:
    """A union's example with the node's own members (`properties` beside the union)."""
    own = _typed(version, {k: v for k, v in node.items() if k not in ("anyOf", "oneOf")}, 0)
    return _merge(own, value)


def _merge(one: Any, other: Any) -> Any:
    if isinstance(one, dict) and isinstance(other, dict):
        return {**one, **other}
    return other if one is None else one


def _typed(version: int, node: dict[str, Any], depth: int) -> Any:
    kind = node.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    value: Any
    if kind == "object" or "properties" in node or "required" in node:
        properties = node.get("properties", {})
        value = {
            key: example(version, properties.get(key, {"type": "string"}), depth + 1)
            for key in node.get("required", ())
        }
        for part in node.get("allOf", ()):
            value = _merge(value, example(version, part, depth + 1))
        return value
    if kind == "array":
        return [example(version, node.get("items", {}), depth + 1)] * node.get("minItems", 0)
    if kind == "string":
        return "x" * node.get("minLength", 1)
    if kind in ("integer", "number"):
        return node.get("minimum", 0)
    if kind == "boolean":
        return False
    return None


def message_types(version: int) -> list[tuple[str, str, MessageKind, Direction]]:
    """Every request, response and notification definition of a version: (definition, method,
    kind, the way it travels)."""
    found = []
    version_schema = schema(version)
    for (method, kind, direction), name in sorted(version_schema.calls.items()):
        found.append((name, method, kind, direction))
    for method, name in sorted(version_schema.answers.items()):
        side = version_schema.defs[name]["x-side"]
        found.append((name, method, MessageKind.RESPONSE, _answer_way(side)))
    return found


def _answer_way(side: str) -> Direction:
    """The way a response travels: from the side that handles the method (`x-side`)."""
    return Direction.A2C if side == "agent" else Direction.C2A


def valid(version: int, name: str) -> Any:
    """The smallest valid value of a definition."""
    return example(version, schema(version).defs[name])


def first_required(version_schema: Schema, name: str) -> str | None:
    """The first member a definition requires at its top, if any."""
    required = version_schema.defs[name].get("required", ())
    return required[0] if required else None
