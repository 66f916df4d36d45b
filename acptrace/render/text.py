"""Transcript text made safe for a terminal: never markup, never control sequences."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from acptrace.model.domain import Source, connection_name
from acptrace.model.excerpt import plural, printable

if TYPE_CHECKING:  # (rich is imported by `inert`: the CI formats use `printable` alone)
    from rich.text import Text

__all__ = ["inert", "plural", "printable", "short_id", "transcript_name"]


def inert(value: Any, style: str = "") -> Text:
    """A rich Text of the value with control characters shown as escapes, never as markup."""
    from rich.text import Text

    return Text(printable(value), style=style)


def short_id(value: str, limit: int = 20) -> str:
    """A long identifier shortened in the middle (`742b1dac…2f96`); short ones unchanged."""
    if len(value) <= limit:
        return value
    return f"{value[:8]}…{value[-4:]}"


def transcript_name(source: Source) -> str:
    """What an analysis is called in reports: its path, and its connection in a file that
    holds several (`report.json [test_x.py::test_y]`)."""
    return connection_name(source.path, source.connection)
