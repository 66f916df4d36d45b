"""Transcript text made safe for a terminal: never markup, never control sequences."""

from __future__ import annotations

from typing import Any

from rich.text import Text


def inert(value: Any, style: str = "") -> Text:
    """A rich Text of the value with control characters shown as escapes, never as markup."""
    text = "" if value is None else str(value)
    cleaned = "".join(ch if ch.isprintable() else f"\\x{ord(ch):02x}" for ch in text)
    return Text(cleaned, style=style)
