"""The text each kind of content is compared as: a content block, a plan; white space aside."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson


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
    """A plan's content: one line per entry (v1's `plan` update, v2's `items` content), or a
    v2 content of another type as its JSON (it replaces the plan's all the same); None: the
    update has none."""
    plan = update.get("plan")
    if not isinstance(plan, dict):  # (v1: the update is the plan)
        plan = {"type": "items", "entries": update.get("entries")}
    entries = plan.get("entries")
    if plan.get("type", "items") != "items":
        custom = {k: v for k, v in plan.items() if k not in ("planId", "_meta")}
        return [orjson.dumps(custom, option=orjson.OPT_SORT_KEYS).decode()]
    return [_entry_text(entry) for entry in entries] if isinstance(entries, list) else None
