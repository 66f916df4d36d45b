"""Each message against the schema of the connection's version (rules.md §12), its breaks
counted once per (rule, method or tag, JSON path).

A request or notification is checked by its method and direction, a response by the method of
the request it answers, a `session/update` as its `sessionUpdate` tag (the label its breaks go
by: `session/update agent_message_chunk`). Unknown methods, `_`-prefixed ones and responses
to no known request are not judged. A message that breaks its version's schema but meets the
other version's is shaped for the other version: one `SCHEMA-VERSION-SHAPE` per method, and
none of its breaks counted again as `SCHEMA-INVALID` (one finding per cause).
"""

from __future__ import annotations

from typing import Any, Protocol

import msgspec

from acptrace.judge.schema.catalogue import Schema, schema
from acptrace.judge.schema.compiler import INVALID, REQUIRED, UNKNOWN, Break, Check
from acptrace.judge.schema.screen import Decode
from acptrace.model.domain import JsonId, Message, MessageKind

SCHEMA_INVALID, SCHEMA_UNKNOWN_MEMBER, SCHEMA_VERSION_SHAPE = (
    "SCHEMA-INVALID", "SCHEMA-UNKNOWN-MEMBER", "SCHEMA-VERSION-SHAPE",
)  # fmt: skip

_RULE_OF = {INVALID: SCHEMA_INVALID, UNKNOWN: SCHEMA_UNKNOWN_MEMBER}

COVERED: frozenset[tuple[str, str]] = frozenset({("params.update.messageId", REQUIRED)})
"""Breaks another rule already reports with more to say (one finding per cause, rules.md §11):
a v2 message update without its `messageId` is LC-NO-MESSAGE-ID's."""


_NO_PARAMS: dict[str, Any] = {}
"""What a request or notification without `params` is checked as (JSON-RPC lets it leave
them out; its method's required members are then missing)."""


class Kept(Protocol):
    """A message left in the line it came in (decode's `KeptPayload`)."""

    @property
    def data(self) -> bytes:
        """The line (a canonical record, or the bare message)."""

    @property
    def canonical(self) -> bool:
        """The line is a canonical record: the message is its `msg`."""

    def value(self) -> Any:
        """The message, parsed now."""


class SchemaBreak(msgspec.Struct, frozen=True):
    """What the schema check found at one (rule, method or tag, JSON path): the first break
    and how many messages broke it so."""

    rule: str
    """`SCHEMA-INVALID`, `SCHEMA-UNKNOWN-MEMBER` or `SCHEMA-VERSION-SHAPE`."""
    label: str
    """The method, or `session/update <tag>`, and for a response `(result)` or `(error)`."""
    line: int
    """The first message that broke it."""
    path: str
    """Where in the message (for `SCHEMA-VERSION-SHAPE`, the first break in its version's
    terms)."""
    want: str
    """What the schema wants there."""
    came: str
    """What came."""
    version: int
    """The version the message was checked against."""
    count: int = 1
    """How many messages broke it so."""
    session_id: str | None = None
    request_id: JsonId = None
    """The request concerned (the message's own id, or a response's)."""
    shaped_by: tuple[str, ...] = ()
    """For `SCHEMA-VERSION-SHAPE`: the members (or the update tag) only the other version
    defines, which it carries."""


class Conformance:
    """The schema check of one connection: every message it is given, its breaks tallied.

    Before the version is negotiated (no `initialize` seen, or none at all), a message is
    checked against both versions' schemas and each tally kept apart: the one of the version
    the connection is judged by in the end counts (`breaks`)."""

    __slots__ = (
        "_checks", "_counts", "_decided", "_screens", "_shapes", "_tags", "_tallies", "every",
    )  # fmt: skip

    def __init__(self, every: bool = False) -> None:
        self.every = every
        """Every update is checked (`--schema full`); else only the first of each tag on the
        connection (`wants`)."""
        self._tags: set[str] = set()
        """The tags of the updates checked so far."""
        self._tallies: dict[int | None, dict[tuple[str, str, str], SchemaBreak]] = {}
        """The breaks of messages checked once the version was negotiated (None), and of the
        others against each version (1, 2), by (rule, label, path)."""
        self._counts: dict[tuple[int | None, str, str, str], int] = {}
        """How many messages broke each tallied (tally, rule, label, path) so."""
        self._decided: dict[tuple[Any, ...], tuple[str, ...]] = {}
        """`_shaped`'s decisions, by the way a message broke its schema."""
        self._shapes: set[tuple[int | None, str]] = set()
        """(tally, label) already found shaped for the other version."""
        self._screens: dict[tuple[int, bool], Decode] = {}
        """The screen's decode of an update's line, by (version, canonical line)."""
        self._checks: dict[tuple[Any, ...], tuple[str, Check] | None] = {}
        """What checks a message of a negotiated version, by what picks it (`_pick`): the
        member checked and its check; None where the schema does not judge it."""

    def message(
        self,
        message: Message,
        payload: Any,
        version: int | None,
        request: Message | None = None,
    ) -> None:
        """Check one message (`payload`: its JSON object; `request`: for a response, the
        request it answers) against the schema of `version` (None: not negotiated yet)."""
        if not isinstance(payload, dict):
            return
        if version is not None:
            found = self._breaks(message, payload, version, request)
            if not found:
                return  # (most messages: checked without a word of what they are)
            own = _checked(version, message, payload, request, found)
            if own is not None and own.breaks:
                self._tally(None, message, own, version, request, payload)
            return
        one = _checked(1, message, payload, request)
        two = _checked(2, message, payload, request)
        if one is not None and one.breaks:
            self._tally(1, message, one, 1, request, payload, two)
        if two is not None and two.breaks:
            self._tally(2, message, two, 2, request, payload, one)

    def _breaks(
        self, message: Message, payload: dict[str, Any], version: int, request: Message | None
    ) -> list[Break]:
        """What a message breaks in its negotiated version (nothing where it is not judged),
        its check found by one look-up (`_checks`); `_checked` then says what it is only for
        a message that breaks something."""
        failed = "error" in payload and payload["error"] is not None
        key = (  # (all `_target` reads to pick the check, of the message and its payload)
            version,
            message.kind,
            message.direction,
            message.method,
            message.update_tag,
            request.method if request is not None else None,
            failed,
            "result" in payload,
        )
        picked = self._checks.get(key, _UNPICKED)
        if picked is _UNPICKED:
            picked = self._checks[key] = _pick(version, message, payload, request)
        found: list[Break] = []
        if picked is not None:
            part, check = picked
            check(payload.get(part, _NO_PARAMS), part, found)
        return found

    def _shaped(
        self,
        message: Message,
        own: Checked,
        request: Message | None,
        payload: dict[str, Any],
        other: Checked | None,
    ) -> tuple[str, ...]:
        """The members (or tag) only the other version defines that a message shaped for it
        carries (empty: not shaped for it). Decided once for each way a method or tag breaks
        its schema: the same breaks, the same shape."""
        pattern = (own.label, own.version, *((b.path, b.want) for b in own.breaks))
        decided = self._decided.get(pattern)
        if decided is None:
            if other is None:
                other = _checked(_other(own.version), message, payload, request)
            decided = () if other is None else _shaped_for(own, other, message.update_tag)
            self._decided[pattern] = decided
        return decided

    def wants(self, message: Message) -> bool:
        """Whether to check this message: any but an update whose tag was checked before
        (`every`: any). The same on every path, so the hot path's runs need only keep the
        first update of each tag (`UpdateRun.sampled`)."""
        tag = message.update_tag
        if tag is None or self.every or message.method != "session/update":
            return True
        if tag in self._tags:
            return False
        self._tags.add(tag)
        return True

    def update(
        self, first: Message, line: int, tag: str | None, kept: Kept, version: int | None
    ) -> None:
        """Check one update of a run whose first update is `first` (`UpdateRun.sampled`),
        left in its line, of the tag the run loop read (None: unread): under `every`, screened
        first (`passes`); by default, one of a tag checked before on the connection is left
        unparsed (a split file's pieces each keep the first of each tag they hold: `wants`
        keeps the connection's)."""
        if self.screened(kept, version):
            return
        if not self.every and tag in self._tags:
            return
        payload = kept.value()
        params = payload.get("params") if isinstance(payload, dict) else None
        update = params.get("update") if isinstance(params, dict) else None
        tag = update.get("sessionUpdate") if isinstance(update, dict) else None
        if type(tag) is not str:
            return
        message = msgspec.structs.replace(first, line=line, update_tag=tag)
        if self.wants(message):
            self.message(message, payload, version)

    def screened(self, kept: Kept, version: int | None) -> bool:
        """Under `every`, whether an update passes its version's screen (`screen`): it breaks
        nothing there (False before the version is negotiated, or refused: checked the long
        way). The default checks too few updates for the screen's making to pay."""
        if not self.every or version is None:
            return False
        screen = self._screens.get((version, kept.canonical))
        if screen is None:
            screen = schema(version).screen_update(kept.canonical)
            self._screens[version, kept.canonical] = screen
        try:
            screen(kept.data)
        except msgspec.ValidationError:
            return False
        return True

    def _tally(
        self,
        tally: int | None,
        message: Message,
        own: Checked,
        version: int,
        request: Message | None,
        payload: dict[str, Any],
        other: Checked | None = None,
    ) -> None:
        """Tally a message's breaks, or its shape for the other version (`_shaped`)."""
        label = own.label
        asked = request or message  # (a response's session and id are its request's)
        found = [b for b in own.breaks if (b.path, b.want) not in COVERED]
        invalid = [b for b in found if b.kind == INVALID]
        if invalid:
            shaped_by = self._shaped(message, own, request, payload, other)
            if shaped_by:
                if (tally, label) not in self._shapes:
                    self._shapes.add((tally, label))
                    first = invalid[0]
                    self._add(tally, SchemaBreak(SCHEMA_VERSION_SHAPE, label, message.line,
                                                 first.path, first.want, first.came, version, 1,
                                                 asked.session_id, asked.id,
                                                 shaped_by))  # fmt: skip
                return
        counts = self._counts
        firsts: dict[tuple[int | None, str, str, str], Break] = {}
        for each in found:  # (one place broken two ways counts once for the message)
            firsts.setdefault((tally, _RULE_OF[each.kind], label, each.path), each)
        for key, each in firsts.items():
            if key in counts:
                counts[key] += 1
                continue
            counts[key] = 1
            self._add(tally, SchemaBreak(key[1], label, message.line, each.path, each.want,
                                         each.came, version, 1, asked.session_id,
                                         asked.id))  # fmt: skip

    def _add(self, tally: int | None, found: SchemaBreak) -> None:
        breaks = self._tallies.setdefault(tally, {})
        breaks[found.rule, found.label, found.path] = found

    def breaks(self, version: int) -> list[SchemaBreak]:
        """Every break tallied for a connection judged by this version, in line order, with
        how many messages broke it so."""
        found = []
        for tally in (None, 1 if version <= 1 else 2):
            for first in self._tallies.get(tally, {}).values():
                count = self._counts.get((tally, first.rule, first.label, first.path), 1)
                found.append(msgspec.structs.replace(first, count=count))
        return sorted(found, key=lambda b: b.line)


def _shaped_for(own: Checked, other: Checked, tag: str | None) -> tuple[str, ...]:
    """What shapes a message for the other version: it meets that one's schema, and carries
    members that one names and its own does not, or is an update of a tag only that one has
    (empty: not shaped for it)."""
    if any(b.kind == INVALID for b in other.breaks):
        return ()
    members = tuple(sorted(own.extra - other.extra))
    return members or ((f"{tag}",) if own.tag_elsewhere else ())


def _other(version: int) -> int:
    return 1 if version >= 2 else 2


class Checked(msgspec.Struct, frozen=True):
    """A message checked against one version's schema."""

    label: str
    breaks: list[Break]
    value: Any
    """What was checked (`params`, `result`, `error`)."""
    name: str
    """The definition that checked it."""
    version: int
    tag: str | None = None
    """The update's tag, for a `session/update`."""

    @property
    def extra(self) -> frozenset[str]:
        """The members at the top of what was checked that this version's definition does
        not name (asked only of a message that broke its schema)."""
        if type(self.value) is not dict:
            return _NONE
        return frozenset(self.value) - schema(self.version).members(self.name)

    @property
    def tag_elsewhere(self) -> bool:
        """An update whose tag this version does not know and the other does."""
        tag = self.tag
        return (
            tag is not None
            and tag not in schema(self.version).update_tags
            and tag in schema(_other(self.version)).update_tags
        )


_UNPICKED: Any = object()


def _pick(
    version: int, message: Message, payload: dict[str, Any], request: Message | None
) -> tuple[str, Check] | None:
    """The member of a message checked, and its check (None: not judged; `_target`)."""
    version_schema = schema(version)
    found = _target(version_schema, message, payload, request)
    if found is None:
        return None
    _, part, name = found
    return part, version_schema.check(name)


def _checked(
    version: int,
    message: Message,
    payload: dict[str, Any],
    request: Message | None,
    breaks: list[Break] | None = None,
) -> Checked | None:
    """A message checked against one version's schema (None: not judged there; `breaks`:
    what checking it found already)."""
    version_schema = schema(version)
    found = _target(version_schema, message, payload, request)
    if found is None:
        return None
    label, part, name = found
    value = payload.get(part, _NO_PARAMS)
    if breaks is None:
        breaks = []
        version_schema.check(name)(value, part, breaks)
    return Checked(label, breaks, value, name, version, message.update_tag)


_NONE: frozenset[str] = frozenset()


def _target(
    version_schema: Schema, message: Message, payload: dict[str, Any], request: Message | None
) -> tuple[str, str, str] | None:
    """What to check of a message: its label, the member checked (`params`, `result`,
    `error`) and the definition that checks it; None when the schema does not judge it."""
    if message.kind is MessageKind.RESPONSE:
        method = request.method if request is not None else None
        if method is None or method.startswith("_"):
            return None
        if "error" in payload and payload["error"] is not None:
            return f"{method} (error)", "error", "Error"
        name = version_schema.answers.get(method)
        if name is None or "result" not in payload:
            return None
        return f"{method} (result)", "result", name
    method = message.method
    if method is None or method.startswith("_"):
        return None
    name = version_schema.calls.get((method, message.kind, message.direction))
    if name is None:
        return None
    label = method
    if method == "session/update" and message.update_tag is not None:
        label = f"{method} {message.update_tag}"
    return label, "params", name


__all__ = ["Conformance", "SchemaBreak"]
