"""The interface every transcript format implements."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Protocol

from acptrace.records import Record


class TranscriptFormat(Protocol):
    """One way of recording ACP traffic, one JSON record per line."""

    @property
    def name(self) -> str:
        """Stable name for `--input-format` and `source.format`."""
        ...

    @property
    def summary(self) -> str:
        """One line: who writes it and what it looks like."""
        ...

    @property
    def example(self) -> str:
        """One example record, as it appears in a file."""
        ...

    def detect(self, record: Any) -> bool:
        """Whether one parsed record has this format's shape."""
        ...

    def decode(self, record: Any, line: int) -> Iterator[Record]:
        """Turn one parsed record into envelopes, recorder events and issues."""
        ...
