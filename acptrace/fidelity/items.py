"""History items: what a Client would store of a session, folded from its `session/update`s.

A message is its `messageId` and the text of its content (chunks appended, an upsert's
`content` replacing it), a tool call its `toolCallId`, title, last status and content, a plan
its entries, a child the `sessionId` a `subagent_update` announces and its title. Only the
items are kept, never the updates they came from.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from acptrace.model.tags import ANNOUNCE_TAG, TagClass, TagPolicy


class ItemKind(StrEnum):
    """What a history item is."""

    MESSAGE = "message"
    THOUGHT = "thought"
    TOOL_CALL = "tool_call"
    PLAN = "plan"
    CHILD = "child"


class Fold(StrEnum):
    """How an update changes its item."""

    APPEND = "append"
    """A chunk: its content is added to the item's."""
    REPLACE = "replace"
    """An upsert: its fields, where present, replace the item's."""
    REMOVE = "remove"
    """The item is gone (`plan_removed`)."""


TAG_ITEMS: Mapping[str, tuple[ItemKind, str | None, Fold]] = {
    "user_message": (ItemKind.MESSAGE, "user", Fold.REPLACE),
    "user_message_chunk": (ItemKind.MESSAGE, "user", Fold.APPEND),
    "agent_message": (ItemKind.MESSAGE, "agent", Fold.REPLACE),
    "agent_message_chunk": (ItemKind.MESSAGE, "agent", Fold.APPEND),
    "session_message": (ItemKind.MESSAGE, "session", Fold.REPLACE),
    "session_message_chunk": (ItemKind.MESSAGE, "session", Fold.APPEND),
    "agent_thought": (ItemKind.THOUGHT, None, Fold.REPLACE),
    "agent_thought_chunk": (ItemKind.THOUGHT, None, Fold.APPEND),
    "tool_call": (ItemKind.TOOL_CALL, None, Fold.REPLACE),
    "tool_call_update": (ItemKind.TOOL_CALL, None, Fold.REPLACE),
    "tool_call_content_chunk": (ItemKind.TOOL_CALL, None, Fold.APPEND),
    "plan": (ItemKind.PLAN, None, Fold.REPLACE),
    "plan_update": (ItemKind.PLAN, None, Fold.REPLACE),
    "plan_removed": (ItemKind.PLAN, None, Fold.REMOVE),
    ANNOUNCE_TAG: (ItemKind.CHILD, None, Fold.REPLACE),
}
"""The update tags that make history items: the item's kind, the message's role, the fold."""

ID_FIELDS = {
    ItemKind.MESSAGE: "messageId",
    ItemKind.THOUGHT: "messageId",
    ItemKind.TOOL_CALL: "toolCallId",
    ItemKind.PLAN: "planId",
    ItemKind.CHILD: "sessionId",
}
"""The field of the update that names the item."""

Key = tuple[ItemKind, str | None, str]
"""What identifies an item in a session: kind, role (messages only) and id."""


@dataclass(frozen=True, slots=True)
class HistoryItem:
    """One item of a session's history as the updates left it."""

    kind: ItemKind
    """Message, thought, tool call, plan or child."""
    role: str | None
    """For a message: `user`, `agent` or `session` (each has its own ids); else None."""
    id: str
    """The `messageId`, `toolCallId`, `planId` or child `sessionId`; `#N` (the Nth of its kind
    and role) for an item whose updates carry none."""
    keyed: bool
    """Whether the id came from the updates (False: `#N`, matched by order)."""
    text: str
    """What is compared: the content's text, and for a tool call its title and status."""
    line: int
    """The line of its first update."""

    @property
    def key(self) -> Key:
        """Kind, role and id."""
        return (self.kind, self.role, self.id)


@dataclass(slots=True)
class _Draft:
    """An item while its updates arrive."""

    line: int
    keyed: bool
    parts: list[str] = field(default_factory=list)
    """Message and thought text, tool-call content, a plan's entries."""
    fields: dict[str, str] = field(default_factory=dict)
    """A tool call's title and status, a child's title."""

    def text(self) -> str:
        heading = [f"{name}: {value}" for name, value in self.fields.items()]
        body = "".join(self.parts)
        return "\n".join([*heading, body] if body else heading) if heading else body


@dataclass(slots=True)
class Collector:
    """The history items of one session, folded update by update."""

    policy: TagPolicy
    """Never-history tags make no item (a replay may leave them out)."""
    _drafts: dict[Key, _Draft] = field(default_factory=dict)
    """The items so far, in the order of their first update."""
    _counts: dict[tuple[ItemKind, str | None], int] = field(default_factory=dict)
    """Unkeyed items so far, per kind and role (the next is `#N+1`)."""
    _last: Key | None = None
    """The item the previous update went to (unkeyed chunks continue it)."""

    def add(self, tag: str, update: Mapping[str, Any], line: int) -> None:
        """Fold one `session/update`'s `update` object (tags that make no item are skipped)."""
        known = TAG_ITEMS.get(tag)
        if known is None or self.policy.classify(tag) is TagClass.LIVE:
            return
        kind, role, fold = known
        id = _id_of(kind, update)
        key = self._key(kind, role, fold, id)
        if fold is Fold.REMOVE:
            self._drafts.pop(key, None)
            self._last = None
            return
        draft = self._drafts.get(key)
        if draft is None:
            draft = self._drafts[key] = _Draft(line, id is not None)
        self._last = key
        _fold(kind, fold, update, draft)

    def items(self) -> tuple[HistoryItem, ...]:
        """The items so far, in the order of their first update."""
        return tuple(
            HistoryItem(kind, role, id, draft.keyed, draft.text(), draft.line)
            for (kind, role, id), draft in self._drafts.items()
        )

    def _key(self, kind: ItemKind, role: str | None, fold: Fold, id: str | None) -> Key:
        if id is not None:
            return (kind, role, id)
        if kind is ItemKind.PLAN:
            return (kind, role, "#1")  # v1's one plan per session, replaced by each update
        last = self._last
        continues = fold is Fold.APPEND and last is not None and last[:2] == (kind, role)
        if continues and last is not None and not self._drafts[last].keyed:
            return last  # the unkeyed message this chunk continues
        count = self._counts.get((kind, role), 0) + 1
        self._counts[(kind, role)] = count
        return (kind, role, f"#{count}")


def _id_of(kind: ItemKind, update: Mapping[str, Any]) -> str | None:
    value = update.get(ID_FIELDS[kind])
    if kind is ItemKind.PLAN and value is None:
        plan = update.get("plan")
        value = plan.get("planId") if isinstance(plan, dict) else None
    return value if isinstance(value, str) else None


def _fold(kind: ItemKind, fold: Fold, update: Mapping[str, Any], draft: _Draft) -> None:
    match kind:
        case ItemKind.MESSAGE | ItemKind.THOUGHT:
            _fold_content(fold, update, draft)
        case ItemKind.TOOL_CALL:
            for name in ("title", "status"):
                if isinstance(update.get(name), str):
                    draft.fields[name] = update[name]
            _fold_content(fold, update, draft)
        case ItemKind.PLAN:
            plan = update.get("plan")
            entries = plan.get("entries") if isinstance(plan, dict) else update.get("entries")
            if isinstance(entries, list):
                draft.parts = [_entry_text(entry) for entry in entries]
        case ItemKind.CHILD:
            if isinstance(update.get("title"), str):
                draft.fields["title"] = update["title"]


def _fold_content(fold: Fold, update: Mapping[str, Any], draft: _Draft) -> None:
    """A chunk appends its content; an upsert's `content` (an array, or null) replaces it."""
    if "content" not in update:
        return
    content = update["content"]
    blocks = content if isinstance(content, list) else [] if content is None else [content]
    texts = [block_text(block) for block in blocks]
    if fold is Fold.APPEND:
        draft.parts.extend(texts)
    else:
        draft.parts = texts


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
