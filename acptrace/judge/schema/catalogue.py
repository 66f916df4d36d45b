"""The ACP JSON Schemas shipped with acptrace, and which definition each message is checked by.

`schema-v1.json` and `schema-v2.json` beside this module are `schema/v1/schema.json` and
`schema/v2/schema.json` of `@agentclientprotocol/sdk` 2.4.0 (npm, Apache-2.0: `LICENSE` beside
them), unchanged. The v2 schema predates the `replay_complete` update (2026-11-13): it is added
here as a known `sessionUpdate` variant with only an optional `_meta` (the spec's README).

A definition names its method (`x-method`) and the side that handles it (`x-side`: `agent`
for what the Client sends the Agent and the Agent's answers, `client` the other way,
`protocol` either way); its name ends in `Request`, `Response` or `Notification`. A request or
notification is checked by its method's definition for the way it travelled, a response by the
definition of the method of the request it answers (its `result`) or by `Error` (its `error`).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from functools import cache, cached_property
from typing import Any

import orjson

from acptrace.judge.schema.compiler import Check, Compiler
from acptrace.judge.schema.index import Located, definitions
from acptrace.judge.schema.screen import Decode, Screen
from acptrace.model.domain import Direction, MessageKind
from acptrace.model.tags import MARKER_TAG

VERSIONS = (1, 2)
"""The protocol versions a schema ships for."""

_SUFFIXES = {
    MessageKind.REQUEST: "Request",
    MessageKind.RESPONSE: "Response",
    MessageKind.NOTIFICATION: "Notification",
}
_HANDLERS = {"agent": (Direction.C2A,), "client": (Direction.A2C,),
             "protocol": (Direction.C2A, Direction.A2C)}  # fmt: skip
"""The way a request or notification travels to the side that handles it (`x-side`)."""

REPLAY_COMPLETE_BRANCH: dict[str, Any] = {
    "title": "replay_complete",
    "description": "The end of a replay (the RFD 'Replay Complete Signal', 2026-11-13).",
    "type": "object",
    "properties": {
        "sessionUpdate": {"type": "string", "const": MARKER_TAG},
        "_meta": {"type": ["object", "null"], "additionalProperties": True},
    },
    "required": ["sessionUpdate"],
}


class Definitions(Mapping[str, Any]):
    """A schema's `$defs`, each parsed when first asked for, sliced out of the schema's text
    where its index says it lies (`index`): a message needs a few of the two hundred, and
    parsing them all made objects enough for the garbage collector to walk them all again
    (some 10 ms of every run)."""

    def __init__(self, text: bytes, located: dict[str, Located], version: int) -> None:
        self._text = text
        self._located = located
        self._parsed: dict[str, Any] = {}
        self._version = version

    def __getitem__(self, name: str) -> Any:
        node = self._parsed.get(name)
        if node is None:
            start, end, _, _ = self._located[name]
            node = self._parsed[name] = orjson.loads(self._text[start:end])
            if name == "SessionUpdate" and self._version >= 2:
                _add_replay_complete(node)
        return node

    def __iter__(self) -> Iterator[str]:
        return iter(self._located)

    def __len__(self) -> int:
        return len(self._located)

    def heads(self) -> Iterator[tuple[str, str | None, str | None]]:
        """Each definition's name, method and side (`x-method`, `x-side`), from the index."""
        for name, (_, _, method, side) in self._located.items():
            yield name, method, side


class Schema:
    """One version's schema: its definitions, compiled one by one as messages need them."""

    def __init__(self, version: int, defs: Definitions) -> None:
        self.version = version
        self.defs = defs
        self.compiler = Compiler(self.defs)
        self.calls: dict[tuple[str, MessageKind, Direction], str] = {}
        """The definition of each (method, request or notification, direction)."""
        self.answers: dict[str, str] = {}
        """The definition of each method's result."""
        for name, method, side in defs.heads():
            if method is None:
                continue
            if name.endswith(_SUFFIXES[MessageKind.RESPONSE]):
                self.answers[method] = name
                continue
            kind = next(k for k, suffix in _SUFFIXES.items() if name.endswith(suffix))
            for direction in _HANDLERS.get(side or "", ()):
                self.calls[method, kind, direction] = name

    def check(self, name: str) -> Check:
        """The check of a definition (`calls`, `answers`, `Error`)."""
        return self.compiler.definition(name)

    def members(self, name: str) -> frozenset[str]:
        """The members a definition names at its top (its own `properties` and those of the
        definitions its `allOf` refers to)."""
        node = self.defs.get(name, {})
        found = set(node.get("properties", ()))
        for part in node.get("allOf", ()):
            ref = part.get("$ref", "") if isinstance(part, dict) else ""
            found.update(self.defs.get(ref.rsplit("/", 1)[-1], {}).get("properties", ()))
        return frozenset(found)

    def update(self) -> Check:
        """The check of a `session/update`'s `params.update` (`SessionUpdate`)."""
        return self.compiler.definition("SessionUpdate")

    @cached_property
    def screen(self) -> Screen:
        """The first screen of the messages checked by the thousand (`screen`)."""
        return Screen(self.defs)

    def screen_update(self, canonical: bool) -> Decode:
        """The screen's decode of a line holding a `session/update` notification (raising
        `msgspec.ValidationError` where it refuses)."""
        return self.screen.decoder(self._update_name, "params", canonical)

    @cached_property
    def _update_name(self) -> str:
        """The definition of a `session/update` notification."""
        return self.calls["session/update", MessageKind.NOTIFICATION, Direction.A2C]

    @cached_property
    def update_tags(self) -> frozenset[str]:
        """The `sessionUpdate` tags this version knows (the branches of `SessionUpdate`)."""
        union = self.defs["SessionUpdate"]
        branches = union.get("anyOf") or union.get("oneOf") or ()
        return frozenset(
            const
            for branch in branches
            if isinstance(const := branch.get("properties", {}).get("sessionUpdate", {}).get(
                "const"), str)
        )  # fmt: skip

    def methods(self) -> frozenset[str]:
        """Every method this version defines."""
        return frozenset(method for method, _, _ in self.calls) | frozenset(self.answers)


@cache
def schema(version: int) -> Schema:
    """The schema of a protocol version (v2 for anything above 1), loaded once."""
    version = 1 if version <= 1 else 2
    text, located = definitions(version)
    return Schema(version, Definitions(text, located, version))


_KNOWN_MARKER: dict[str, Any] = {
    "type": "object",
    "properties": {"sessionUpdate": {"const": MARKER_TAG}},
    "required": ["sessionUpdate"],
}
"""What the open branch's `not` lists for `replay_complete`, as for each known update."""


def _add_replay_complete(union: dict[str, Any]) -> None:
    """`replay_complete` as a known update (before the open "custom or future" branch, whose
    `not` lists the known ones)."""
    branches: list[Any] = union["anyOf"]
    for branch in branches:
        if "not" in branch:
            branch["not"]["anyOf"].append(_KNOWN_MARKER)
    branches.insert(len(branches) - 1, REPLAY_COMPLETE_BRANCH)
