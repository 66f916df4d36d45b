"""Short, printable excerpts of untrusted transcript text for issue and finding messages."""

from __future__ import annotations

from typing import Any

EXCERPT_CHARS = 60


def excerpt(value: Any, limit: int = EXCERPT_CHARS) -> str:
    """A one-line, control-free excerpt of a value (strings in quotes), at most `limit` chars."""
    text = value if isinstance(value, str) else repr(value)
    cleaned = "".join(ch if ch.isprintable() else f"\\x{ord(ch):02x}" for ch in text[: limit * 2])
    if len(cleaned) > limit or len(text) > limit * 2:
        cleaned = cleaned[: limit - 1] + "…"
    return f'"{cleaned}"' if isinstance(value, str) else cleaned
