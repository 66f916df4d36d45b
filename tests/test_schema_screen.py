"""The schema check's first screen (acptrace/judge/schema/screen.py) is never looser than the
schema: whatever it lets through, the compiled check finds nothing in. Held on the examples
made from every definition of both schemas, on every message of the real recordings, and on
thousands of their mutations; and it lets real, valid traffic through (else `--schema full`
pays the long way for every update)."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import msgspec
import orjson
import pytest

from acptrace.judge.schema.catalogue import schema
from acptrace.judge.schema.compiler import Break
from acptrace.model.domain import Direction, MessageKind
from tests.schema_examples import example, message_types, valid
from tests.shared import REAL_WORLD

TYPES = [(version, kind[0]) for version in (1, 2) for kind in message_types(version)]
ODD_VALUES: tuple[Any, ...] = (None, 0, -1, 1.5, "", "x", True, [], {}, [None], {"x": 1})
"""What a mutation puts in a value's place."""


def screened(version: int, name: str, value: Any, canonical: bool = False) -> bool:
    """Whether the screen lets a message's params through, read from its line as the analysis
    reads it (a bare message, or a canonical record)."""
    message = {"jsonrpc": "2.0", "method": "m", "params": value}
    line = orjson.dumps({"ts": "t", "dir": "a2c", "msg": message} if canonical else message)
    try:
        schema(version).screen.decoder(name, "params", canonical)(line)
    except msgspec.ValidationError:
        return False
    return True


def breaks(version: int, name: str, value: Any) -> list[Break]:
    found: list[Break] = []
    schema(version).check(name)(value, "params", found)
    return found


def mutations(value: Any, rng: random.Random, most: int) -> Iterator[Any]:
    """Copies of a value each changed in one place: a member left out, a value replaced by an
    odd one, a member added (at most `most`, chosen by `rng`)."""
    places = list(_places(value, ()))
    changes = [(path, odd) for path in places for odd in ODD_VALUES]
    changes += [(path, _LEAVE_OUT) for path in places if path]
    changes += [((*path, "unexpectedMember"), 1) for path in places if _at(value, path) is dict]
    for path, odd in rng.sample(changes, min(most, len(changes))):
        yield _changed(value, path, odd)


_LEAVE_OUT = object()


def _places(value: Any, path: tuple[Any, ...]) -> Iterator[tuple[Any, ...]]:
    yield path
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _places(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _places(item, (*path, index))


def _at(value: Any, path: tuple[Any, ...]) -> type:
    for step in path:
        value = value[step] if not isinstance(value, dict) or step in value else None
    return type(value)


def _changed(value: Any, path: tuple[Any, ...], odd: Any) -> Any:
    if not path:
        return odd
    copy: Any = orjson.loads(orjson.dumps(value))
    holder = copy
    for step in path[:-1]:
        holder = holder[step]
    if odd is _LEAVE_OUT:
        del holder[path[-1]]
    else:
        holder[path[-1]] = odd
    return copy


def held(version: int, name: str, value: Any) -> bool:
    """The screen's promise for one value: let through, nothing broken."""
    return not screened(version, name, value) or breaks(version, name, value) == []


@pytest.mark.parametrize(("version", "name"), TYPES, ids=[f"v{v}-{n}" for v, n in TYPES])
def test_the_screen_is_never_looser_than_the_schema_on_every_type_and_its_mutations(
    version: int, name: str
) -> None:
    value = valid(version, name)
    rng = random.Random(f"{version}-{name}")
    loose = [changed for changed in mutations(value, rng, 300) if not held(version, name, changed)]
    assert held(version, name, value)
    assert loose == []


UPDATE = {version: schema(version).calls["session/update", MessageKind.NOTIFICATION,
                                          Direction.A2C] for version in (1, 2)}  # fmt: skip


def every_update(version: int) -> list[Any]:
    union = schema(version).defs["SessionUpdate"]
    branches = union.get("anyOf") or union["oneOf"]
    return [
        {"sessionId": "s", "update": example(version, branch)}
        for branch in branches
        if "not" not in branch
    ]


@pytest.mark.parametrize("version", [1, 2])
def test_the_screen_lets_every_valid_update_tag_through_and_no_broken_one(version: int) -> None:
    name = UPDATE[version]
    rng = random.Random(version)
    for params in every_update(version):
        assert breaks(version, name, params) == []
        loose = [m for m in mutations(params, rng, 200) if not held(version, name, m)]
        assert loose == [], params["update"]["sessionUpdate"]
    # and lets each valid one through, `state_update` (a union of states, one of them a
    # union over its `stopReason`) among them
    refused = [p["update"]["sessionUpdate"] for p in every_update(version)
               if not screened(version, name, p, canonical=True)]  # fmt: skip
    assert refused == []


def test_an_update_of_a_tag_the_schema_does_not_know_is_left_to_the_long_way() -> None:
    params = {"sessionId": "s", "update": {"sessionUpdate": "_vendor_thing", "x": 1}}
    assert not screened(2, UPDATE[2], params)
    assert breaks(2, UPDATE[2], params) == []


def real_messages() -> Iterator[tuple[int, str, Any]]:
    """(version, definition, params) of every request and notification the real recordings
    hold in canonical lines, checked against both versions."""
    for path in sorted(REAL_WORLD.rglob("*.jsonl")):
        for line in path.read_bytes().splitlines():
            try:
                record = orjson.loads(line)
            except orjson.JSONDecodeError:
                continue
            message = record.get("msg") if isinstance(record, dict) else None
            if not isinstance(message, dict) or not isinstance(message.get("method"), str):
                continue
            kind = MessageKind.REQUEST if "id" in message else MessageKind.NOTIFICATION
            way = Direction.A2C if record.get("dir") == "a2c" else Direction.C2A
            for version in (1, 2):
                name = schema(version).calls.get((message["method"], kind, way))
                if name is not None and isinstance(message.get("params"), dict):
                    yield version, name, message["params"]


@pytest.mark.shared
def test_the_screen_holds_on_every_real_message_and_lets_most_valid_ones_through() -> None:
    rng = random.Random(0)
    valid_ones = let_through = 0
    loose = []
    for version, name, params in real_messages():
        if not held(version, name, params):
            loose.append((version, name, params))
        if breaks(version, name, params) == []:
            valid_ones += 1
            let_through += screened(version, name, params, canonical=True)
        loose += [(version, name, m) for m in mutations(params, rng, 8)
                  if not held(version, name, m)]  # fmt: skip
    assert loose == []
    assert valid_ones > 300
    assert let_through >= 0.95 * valid_ones
