"""The interface every transcript format implements."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, ClassVar, Protocol, runtime_checkable

import msgspec

from acptrace.model.domain import Issue
from acptrace.model.options import SchemaDepth
from acptrace.model.tags import TagPolicy
from acptrace.read.envelopes import Record
from acptrace.read.jsontext import Mended
from acptrace.read.source import RawLine

Parsed = tuple[int, Any] | Mended | Issue
"""A line (or element) parsed: its line and JSON value (`Mended` when that took replacing lone
surrogates), or the issue that says why it is not."""


class ReadSettings(msgspec.Struct, frozen=True):
    """What the user told the reader about the input."""

    link: str | None = None
    """For multi-hop traces (sacp-conductor): which link to analyse (None: the agent-facing one)."""
    fast: bool = True
    """Decode plain lines of line-based formats on the hot path (`acptrace.decode.fastpath`)."""
    runs_for: TagPolicy | None = None
    """On the hot path, gather runs of plain updates into `UpdateRun`s, telling never-history
    tags by this policy (None: every message on its own, for views that show each)."""
    payloads: bool = False
    """On the hot path, keep each message's line for views that show payloads (`Execution`)."""
    sampled: SchemaDepth | None = None
    """On the hot path, keep each message's line for the schema check (rules.md §12), and of
    a run of plain updates the lines of its first update and of the first of each tag on the
    connection (`DEFAULT`), or of every update (`FULL`): `UpdateRun.sampled`."""


class Decoder(Protocol):
    """Turns one format's parsed records into envelopes, recorder events and issues."""

    def decode(self, record: Any, line: int) -> Iterator[Record]:
        """Decode one parsed record."""
        ...

    @property
    def note(self) -> str | None:
        """What the decoder chose that the user should know (e.g. the link), if anything."""
        ...


class TranscriptFormat(Protocol):
    """One way of recording ACP traffic."""

    @property
    def name(self) -> str:
        """Stable name for `--input-format` and `source.format`."""
        ...

    @property
    def summary(self) -> str:
        """One line: who writes it and what it looks like."""
        ...

    @property
    def producers(self) -> str:
        """Which tools write it (for `acptrace formats`)."""
        ...

    @property
    def example(self) -> str:
        """One example record, as it appears in a file."""
        ...

    def detect(self, record: Any) -> bool:
        """Whether one parsed record has this format's shape."""
        ...

    def decoder(self, sample: Sequence[Any], settings: ReadSettings) -> Decoder:
        """A decoder for one input, set up from its first records."""
        ...


@runtime_checkable
class OwnsBytes(TranscriptFormat, Protocol):
    """A format that reads its input itself, not one JSON record a line (a multi-line JSON
    array, S-expressions): it claims an input by its first line that is not blank, then gets
    every line from that one on."""

    def claims(self, first: RawLine) -> bool:
        """Whether an input whose first line (not blank) is this one is in this format."""
        ...

    def read(
        self,
        lines: Iterator[RawLine | Issue],
        decode: Callable[[Iterable[Parsed]], Iterator[Record]],
    ) -> Iterator[Record]:
        """The input's records: its own, or JSON values it parsed, handed to `decode` (which
        reads them as the line formats' records)."""
        ...


class Stateless(msgspec.Struct, frozen=True):
    """Base of the formats whose records decode on their own: the format is its own decoder."""

    note: ClassVar[str | None] = None

    def decoder(self, sample: Sequence[Any], settings: ReadSettings) -> Decoder:  # noqa: ARG002 (the TranscriptFormat protocol)
        """This format itself."""
        return self  # type: ignore[return-value]
