"""What the frozen dataclasses a library user meets share: their `repr`, `==` and hash.

A frozen dataclass gets six methods compiled from source when its class is made (`__init__`,
`__repr__`, `__eq__`, `__hash__`, `__setattr__`, `__delattr__`); Python 3.11 compiles each on
its own, ~0.1 ms apiece, in every process that imports the class (each spawned worker too). A
record declared `@dataclass(frozen=True, slots=True, repr=False, eq=False)` on `FrozenRecord`
compiles three; the other three are these, written once for all records, and give what the
dataclass's own would (`tests/test_library.py` compares them). Only start-up changes: none of
the three is on a hot path.
"""

from __future__ import annotations

import reprlib
from dataclasses import Field, fields
from typing import Any, ClassVar


class FrozenRecord:
    """The base of a frozen dataclass declared with `repr=False, eq=False`: the text, equality
    and hash of its fields, as `@dataclass(frozen=True)` would make them."""

    __slots__ = ()
    __dataclass_fields__: ClassVar[dict[str, Field[Any]]]

    @reprlib.recursive_repr()
    def __repr__(self) -> str:
        shown = (f"{f.name}={getattr(self, f.name)!r}" for f in fields(self) if f.repr)
        return f"{self.__class__.__qualname__}({', '.join(shown)})"

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        compared = [f.name for f in fields(self) if f.compare]
        mine = tuple(getattr(self, name) for name in compared)
        return mine == tuple(getattr(other, name) for name in compared)

    def __hash__(self) -> int:
        hashed = (f for f in fields(self) if (f.compare if f.hash is None else f.hash))
        return hash(tuple(getattr(self, f.name) for f in hashed))
