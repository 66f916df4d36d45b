"""History items: what a Client would store of a session, folded from its `session/update`s.

A message is its `messageId` and the text of its content (chunks appended, an upsert's
`content` replacing it, in the order received), a tool call its `toolCallId`, title, last status
and content, a plan the last content of its `planId` (v1: the last plan of a turn), a child the
`sessionId` a `subagent_update` announces and its title. Where chunks carry no `messageId` (ACP
v1), the chunks of one kind inside one turn, uninterrupted by another item, are one item, and
two turns never merge (docs/fidelity.md). Live, a turn starts with a `session/prompt`; where it
ends (the prompt's response on v1, the next `state_update` `idle` on v2) the caller says. Only
the items are kept, never the updates they came from.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any

from acptrace.fidelity.places import Place
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
    path: str
    """The file that line is in."""
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
    path: str
    parts: list[str] = field(default_factory=list)
    """Message and thought text, tool-call content, a plan's entries."""
    part_lines: list[int] = field(default_factory=list)
    fields: dict[str, str] = field(default_factory=dict)
    """A tool call's title and status, a child's title."""
    stand_in: bool = False
    """A live prompt's text as the Client sent it, until the Agent's echo of the message (v2)
    gives its own: the echo's first content replaces it, a chunk included."""

    def text(self) -> str:
        heading = [f"{name}: {value}" for name, value in self.fields.items()]
        body = "".join(self.parts)
        return "\n".join([*heading, body] if body else heading) if heading else body

    def empty(self) -> bool:
        """A message or thought with no text: nothing a Client could show."""
        return self.kind in (ItemKind.MESSAGE, ItemKind.THOUGHT) and not self.text().strip()


@dataclass(slots=True)
class _Turn:
    """A live turn: its prompt, and whether the recording ended inside it."""

    place: Place
    """The `session/prompt` request."""
    unfinished: bool = False
    """The connection ended before the turn did."""
    refused: bool = False
    """The prompt was answered with an error: it inserted nothing, so there was no turn."""


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
    """The live prompt of the open turn (the Agent's echo of it names it)."""
    _turns: list[_Turn] = field(default_factory=list)
    """Every live turn so far, in order."""
    _open: _Turn | None = None
    """The live turn not yet ended."""
    _unanswered: dict[int, tuple[_Draft, _Turn]] = field(default_factory=dict)
    """The prompts waiting for their response, by the request's line."""

    def prompt(self, blocks: Sequence[Any], place: Place) -> None:
        """A `session/prompt` request: a new turn whose user message is its `prompt` (until
        the Agent's echo of the message says otherwise)."""
        self.end_turn()
        draft = self._new(ItemKind.MESSAGE, USER, None, place)
        draft.stand_in = True
        for block in blocks:
            draft.parts.append(block_text(block))
            draft.part_lines.append(place.line)
        self._prompt = draft
        self._open = _Turn(place)
        self._turns.append(self._open)
        self._unanswered[place.line] = (draft, self._open)

    def answered(self, request_line: int, *, refused: bool, message_id: str | None) -> None:
        """The response to the prompt at `request_line`: an error inserted nothing, so its
        user message goes and its turn never was; a v2 result's `messageId` names it."""
        found = self._unanswered.pop(request_line, None)
        if found is None:
            return
        draft, turn = found
        if refused:
            turn.refused = True
            if draft in self._drafts:
                self._remove(draft)
            if turn is self._open:
                self._open = self._prompt = None
                self._next_turn()
        elif message_id is not None:
            self._name(draft, message_id)

    def end_turn(self) -> None:
        """The open live turn ends (v1: the prompt's response; v2: `state_update` `idle`):
        later chunks never continue its items."""
        self._open = self._prompt = None
        self._next_turn()

    def end_connection(self) -> None:
        """The recording ends: a turn still open is unfinished (its items count all the same)."""
        if self._open is not None:
            self._open.unfinished = True
        self.end_turn()
        self._unanswered.clear()

    @property
    def turn_open(self) -> bool:
        """A live turn has started and not ended."""
        return self._open is not None

    @property
    def turns_so_far(self) -> int:
        """How many live turns have started (a mark for `unfinished_turns`)."""
        return len(self._turns)

    def unfinished_turns(self, first: int) -> tuple[Place, ...]:
        """The prompts of the first `first` turns that the recording ended inside."""
        return tuple(t.place for t in self._turns[:first] if t.unfinished and not t.refused)

    def add(self, tag: str, update: Mapping[str, Any], place: Place) -> None:
        """Fold one `session/update`'s `update` object (tags that make no item are skipped)."""
        known = TAG_ITEMS.get(tag)
        if known is None or self.policy.classify(tag) is TagClass.LIVE:
            return
        kind, role, fold = known
        id = _id_of(kind, update)
        if fold is Fold.REMOVE:
            self._remove(self._find(kind, role, fold, id))
            return
        draft = self._echoed(role, id) or self._find(kind, role, fold, id)
        if draft is None:
            if role == USER and self._prompt is None:
                self._next_turn()  # a user message starts a turn (a replay's turns)
            draft = self._new(kind, role, id, place)
        self._last = draft
        _fold(kind, fold, update, draft, place.line)

    def items(self) -> tuple[HistoryItem, ...]:
        """The items so far, in the order of their first update (empty messages left out)."""
        return numbered(
            HistoryItem(d.kind, d.role, d.id or "", d.id is not None, d.text(), d.line, d.path,
                        tuple(d.parts), tuple(d.part_lines))
            for d in self._drafts
            if not d.empty()
        )  # fmt: skip

    def _echoed(self, role: str | None, id: str | None) -> _Draft | None:
        """The open turn's prompt, when a user message update is the Agent's echo of it: one
        without a `messageId`, or with the prompt's (the first id seen names the prompt)."""
        prompt = self._prompt
        if role != USER or prompt is None or (id is not None and prompt.id not in (None, id)):
            return None
        if id is not None and prompt.id is None:
            self._name(prompt, id)
        return prompt

    def _name(self, draft: _Draft, id: str) -> None:
        """Give an item the id the protocol gives it (a v2 prompt's, from its echo or its
        response: the response's wins)."""
        if draft.id is not None:
            self._by_id.pop((draft.kind, draft.role, draft.id), None)
        draft.id = id
        self._by_id[(draft.kind, draft.role, id)] = draft

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

    def _new(self, kind: ItemKind, role: str | None, id: str | None, place: Place) -> _Draft:
        draft = _Draft(kind, role, id, self._turn, place.line, place.path)
        self._drafts.append(draft)
        if id is not None:
            self._by_id[(kind, role, id)] = draft
        return draft

    def _next_turn(self) -> None:
        """Later unkeyed chunks start new items."""
        self._turn += 1
        self._last = None

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
    """A chunk appends its content; an upsert's `content` (an array, or null) replaces it; an
    update without `content` leaves it. The Agent's first content for a live prompt replaces
    the prompt's text, a chunk included (its echo of the message, not more of it)."""
    if "content" not in update:
        return
    content = update["content"]
    blocks = content if isinstance(content, list) else [] if content is None else [content]
    texts = [block_text(block) for block in blocks]
    if fold is Fold.APPEND and not draft.stand_in:
        draft.parts.extend(texts)
        draft.part_lines.extend(line for _ in texts)
    else:
        draft.parts = texts
        draft.part_lines = [line for _ in texts]
    draft.stand_in = False
