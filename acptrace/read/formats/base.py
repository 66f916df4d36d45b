"""The interface every transcript format implements."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, ClassVar, Protocol

import msgspec

from acptrace.model.tags import TagPolicy
from acptrace.read.envelopes import Record


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


class Stateless(msgspec.Struct, frozen=True):
    """Base of the formats whose records decode on their own: the format is its own decoder."""

    note: ClassVar[str | None] = None

    def decoder(self, sample: Sequence[Any], settings: ReadSettings) -> Decoder:  # noqa: ARG002 (the TranscriptFormat protocol)
        """This format itself."""
        return self  # type: ignore[return-value]
