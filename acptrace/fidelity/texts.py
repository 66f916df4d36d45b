"""The text each kind of content is compared as: a content block, a plan; white space aside."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def block_text(block: Any) -> str:
    """The text of a content block (tool-call content unwrapped); other blocks as `[type …]`."""
    if not isinstance(block, dict):
        return ""
    kind = block.get("type")
    if kind == "content":
        return block_text(block.get("content"))
    if kind == "text" and isinstance(block.get("text"), str):
        return str(block["text"])
    named = next(
        (str(block[k]) for k in ("path", "uri", "name", "terminalId") if block.get(k)), None
    )
    return f"[{kind}]" if named is None else f"[{kind} {named}]"


def _entry_text(entry: Any) -> str:
    if not isinstance(entry, dict):
        return "- ?\n"
    return f"- [{entry.get('status', '?')}] {entry.get('content', '')}\n"


def normalised(text: str) -> str:
    """The text compared: runs of white space as one space, none at the ends."""
    return " ".join(text.split())


def plan_parts(update: Mapping[str, Any]) -> list[str] | None:
    """A plan's entries, one line each (v1's `plan` update, v2's `plan`); None: the update
    has none."""
    plan = update.get("plan")
    entries = plan.get("entries") if isinstance(plan, dict) else update.get("entries")
    return [_entry_text(entry) for entry in entries] if isinstance(entries, list) else None
