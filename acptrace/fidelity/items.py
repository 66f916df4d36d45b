"""History items: what a Client would store of a session, folded from its `session/update`s.

A message is its `messageId` and the text of its content (chunks appended, an upsert's
`content` replacing it), a tool call its `toolCallId`, title, last status and content, a plan
its entries, a child the `sessionId` a `subagent_update` announces and its title. Where chunks
carry no `messageId` (ACP v1), the chunks of one kind inside one turn, uninterrupted by another
item, are one item, and two turns never merge (docs/fidelity.md). Only the items are kept,
never the updates they came from.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any

from acptrace.fidelity.texts import block_text, plan_parts
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


USER = "user"
"""The role of the user's messages (the prompt, live; `user_message*`, replayed)."""

TAG_ITEMS: Mapping[str, tuple[ItemKind, str | None, Fold]] = {
    "user_message": (ItemKind.MESSAGE, USER, Fold.REPLACE),
    "user_message_chunk": (ItemKind.MESSAGE, USER, Fold.APPEND),
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
    and role on its side) for an item whose updates carry none."""
    keyed: bool
    """Whether the id came from the updates (False: `#N`, matched by content)."""
    text: str
    """What is compared: the content's text, and for a tool call its title and status."""
    line: int
    """The line of its first update."""
    parts: tuple[str, ...] = ()
    """A message's pieces as they came (a prompt's blocks, a run's chunks), for cutting a
    replayed user run around the live prompts it holds."""
    part_lines: tuple[int, ...] = ()
    """The line of each piece."""

    @property
    def key(self) -> Key:
        """Kind, role and id."""
        return (self.kind, self.role, self.id)


@dataclass(slots=True)
class _Draft:
    """An item while its updates arrive."""

    kind: ItemKind
    role: str | None
    id: str | None
    """The id the updates gave (None: matched by content)."""
    turn: int
    """The turn it was made in (unkeyed chunks continue an item of their own turn only)."""
    line: int
    parts: list[str] = field(default_factory=list)
    """Message and thought text, tool-call content, a plan's entries."""
    part_lines: list[int] = field(default_factory=list)
    fields: dict[str, str] = field(default_factory=dict)
    """A tool call's title and status, a child's title."""

    def text(self) -> str:
        heading = [f"{name}: {value}" for name, value in self.fields.items()]
        body = "".join(self.parts)
        return "\n".join([*heading, body] if body else heading) if heading else body

    def empty(self) -> bool:
        """A message or thought with no text: nothing a Client could show."""
        return self.kind in (ItemKind.MESSAGE, ItemKind.THOUGHT) and not self.text().strip()


@dataclass(slots=True)
class Collector:
    """The history items of one session, folded update by update, turn by turn."""

    policy: TagPolicy
    """Never-history tags make no item (a replay may leave them out)."""
    _drafts: list[_Draft] = field(default_factory=list)
    """The items so far, in the order of their first update."""
    _by_id: dict[Key, _Draft] = field(default_factory=dict)
    """The items whose updates named them."""
    _turn: int = 0
    """The current turn (a prompt, live; what follows a replayed user message, replayed)."""
    _last: _Draft | None = None
    """The item the previous update went to (unkeyed chunks continue it)."""
    _prompt: _Draft | None = None
    """The live prompt of the current turn (the Agent's echo of it names it)."""

    def prompt(self, blocks: Sequence[Any], line: int) -> None:
        """A `session/prompt` request: a new turn whose user message is its `prompt`."""
        self.end_turn()
        draft = self._new(ItemKind.MESSAGE, USER, None, line)
        for block in blocks:
            draft.parts.append(block_text(block))
            draft.part_lines.append(line)
        self._prompt = draft

    def end_turn(self, refused: bool = False) -> None:
        """A turn ends (a prompt's response): later chunks never continue its items. A prompt
        `refused` (an error response) before anything of its turn was sent never became
        history: its user message goes."""
        prompt = self._prompt
        if refused and prompt is not None and self._drafts and self._drafts[-1] is prompt:
            self._remove(prompt)
        self._turn += 1
        self._last = None
        self._prompt = None

    def add(self, tag: str, update: Mapping[str, Any], line: int) -> None:
        """Fold one `session/update`'s `update` object (tags that make no item are skipped)."""
        known = TAG_ITEMS.get(tag)
        if known is None or self.policy.classify(tag) is TagClass.LIVE:
            return
        kind, role, fold = known
        id = _id_of(kind, update)
        if role == USER and self._prompt is not None:
            self._echo(id, fold, update)
            return
        if fold is Fold.REMOVE:
            self._remove(self._find(kind, role, fold, id))
            return
        draft = self._find(kind, role, fold, id)
        if draft is None:
            if role == USER:
                self.end_turn()  # a user message starts a turn (a replay's turns)
            draft = self._new(kind, role, id, line)
        self._last = draft
        _fold(kind, fold, update, draft, line)

    def items(self) -> tuple[HistoryItem, ...]:
        """The items so far, in the order of their first update (empty messages left out)."""
        return numbered(
            HistoryItem(d.kind, d.role, d.id or "", d.id is not None, d.text(), d.line,
                        tuple(d.parts), tuple(d.part_lines))
            for d in self._drafts
            if not d.empty()
        )  # fmt: skip

    def _echo(self, id: str | None, fold: Fold, update: Mapping[str, Any]) -> None:
        """The Agent's live echo of the turn's prompt names it (v2 `user_message` with a
        `messageId`); the content of an upsert of that id replaces the prompt's, a chunk adds
        nothing."""
        prompt = self._prompt
        if prompt is None:
            return
        if id is not None and prompt.id is None:
            prompt.id = id
            self._by_id[(prompt.kind, prompt.role, id)] = prompt
        if fold is Fold.REPLACE and "content" in update and id == prompt.id:
            _fold_content(fold, update, prompt, prompt.line)

    def _find(self, kind: ItemKind, role: str | None, fold: Fold, id: str | None) -> _Draft | None:
        """The item an update goes to, or None for a new one."""
        if id is not None:
            return self._by_id.get((kind, role, id))
        if kind is ItemKind.PLAN:  # v1's plan: the last one of a turn, replaced by each update
            this_turn = itertools.takewhile(lambda d: d.turn == self._turn, reversed(self._drafts))
            return next((d for d in this_turn if d.kind is kind and d.id is None), None)
        last = self._last
        if fold is not Fold.APPEND or last is None or last.id is not None:
            return None
        same = (last.kind, last.role, last.turn) == (kind, role, self._turn)
        return last if same else None

    def _new(self, kind: ItemKind, role: str | None, id: str | None, line: int) -> _Draft:
        draft = _Draft(kind, role, id, self._turn, line)
        self._drafts.append(draft)
        if id is not None:
            self._by_id[(kind, role, id)] = draft
        return draft

    def _remove(self, draft: _Draft | None) -> None:
        if draft is not None:
            self._drafts.remove(draft)
            if draft.id is not None:
                self._by_id.pop((draft.kind, draft.role, draft.id), None)
        self._last = None


def numbered(items: Iterable[HistoryItem]) -> tuple[HistoryItem, ...]:
    """The items with `#N` ids for those the updates did not name: the Nth of its kind and
    role, counted on its side."""
    counts: dict[tuple[ItemKind, str | None], int] = {}
    done: list[HistoryItem] = []
    for item in items:
        if not item.keyed:
            count = counts[(item.kind, item.role)] = counts.get((item.kind, item.role), 0) + 1
            item = replace(item, id=f"#{count}")
        done.append(item)
    return tuple(done)


def _id_of(kind: ItemKind, update: Mapping[str, Any]) -> str | None:
    value = update.get(ID_FIELDS[kind])
    if kind is ItemKind.PLAN and value is None:
        plan = update.get("plan")
        value = plan.get("planId") if isinstance(plan, dict) else None
    return value if isinstance(value, str) else None


def _fold(kind: ItemKind, fold: Fold, update: Mapping[str, Any], draft: _Draft, line: int) -> None:
    match kind:
        case ItemKind.MESSAGE | ItemKind.THOUGHT:
            _fold_content(fold, update, draft, line)
        case ItemKind.TOOL_CALL:
            for name in ("title", "status"):
                if isinstance(update.get(name), str):
                    draft.fields[name] = update[name]
            _fold_content(fold, update, draft, line)
        case ItemKind.PLAN:
            parts = plan_parts(update)
            if parts is not None:
                draft.parts = parts
        case ItemKind.CHILD:
            if isinstance(update.get("title"), str):
                draft.fields["title"] = update["title"]


def _fold_content(fold: Fold, update: Mapping[str, Any], draft: _Draft, line: int) -> None:
    """A chunk appends its content; an upsert's `content` (an array, or null) replaces it."""
    if "content" not in update:
        return
    content = update["content"]
    blocks = content if isinstance(content, list) else [] if content is None else [content]
    texts = [block_text(block) for block in blocks]
    if fold is Fold.APPEND:
        draft.parts.extend(texts)
        draft.part_lines.extend(line for _ in texts)
    else:
        draft.parts = texts
        draft.part_lines = [line for _ in texts]
