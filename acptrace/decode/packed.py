"""Decoded records packed for another process: messages, runs and the hot path's `Found`s as
msgpack, which makes and reads Structs several times faster than pickle (a worker of a split
file sends each piece so: `acptrace.pipeline.pieces`).

Only these kinds are packed: they are most of a piece's records. The caller sends the others
as it likes, with their places, and `unpacked` puts the packed ones back among them.
"""

from __future__ import annotations

from typing import TypeVar

import msgspec

from acptrace.decode.classify import Found
from acptrace.decode.fastpath import KeptPayload
from acptrace.model.domain import Message, UpdateRun

Other = TypeVar("Other")
"""The records a caller keeps apart from the messages, with their places (`others`)."""


class _FoundFrame(msgspec.Struct, array_like=True, gc=False):
    """A `Found` of the hot path: its place, its message and its line (`KeptPayload`)."""

    place: int
    message: Message
    data: bytes
    canonical: bool
    cut: bool


class _RunFrame(msgspec.Struct, array_like=True, gc=False):
    """An `UpdateRun`, with its place."""

    place: int
    run: UpdateRun


class _Packed(msgspec.Struct, array_like=True, gc=False):
    messages: list[Message]
    found: list[_FoundFrame]
    runs: list[_RunFrame]


_ENCODER = msgspec.msgpack.Encoder()
_DECODER = msgspec.msgpack.Decoder(_Packed)


def packed(
    messages: list[Message], others: list[tuple[int, Other]]
) -> tuple[bytes, list[tuple[int, Other]]] | None:
    """The messages, and the runs and hot-path `Found`s among `others` ((place, record)), as
    msgpack; and the others left, with their places. None when a value is beyond msgpack (an
    integer beyond 64 bits, a lone surrogate): the caller sends everything its own way."""
    found: list[_FoundFrame] = []
    runs: list[_RunFrame] = []
    rest: list[tuple[int, Other]] = []
    for place, other in others:
        if isinstance(other, UpdateRun):
            runs.append(_RunFrame(place, other))
        elif isinstance(other, Found) and isinstance(kept := other.payload, KeptPayload):
            found.append(_FoundFrame(place, other.message, kept.data, kept.canonical, other.cut))
        else:
            rest.append((place, other))
    try:
        return _ENCODER.encode(_Packed(messages, found, runs)), rest
    except (OverflowError, UnicodeEncodeError):
        return None


def unpacked(
    body: bytes, rest: list[tuple[int, Other]]
) -> tuple[list[Message], list[tuple[int, Other | Found | UpdateRun]]]:
    """The messages `packed` packed, and every other record back in place order."""
    sent = _DECODER.decode(body)
    others: list[tuple[int, Other | Found | UpdateRun]] = [*rest]
    others += (
        (f.place, Found(f.message, KeptPayload(f.data, f.canonical), f.cut)) for f in sent.found
    )
    others += ((r.place, r.run) for r in sent.runs)
    others.sort(key=_place)
    return sent.messages, others


def _place(other: tuple[int, object]) -> int:
    return other[0]
