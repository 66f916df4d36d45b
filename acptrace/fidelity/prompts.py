"""Replayed user messages cut around the live prompts they hold.

An Agent may add text of its own to a user message it replays: claude-agent-acp replays its
`/model` command and that command's output in the run of user chunks before the first prompt.
Where a live prompt's text is found whole in a replayed user message (white space runs aside,
at word boundaries or where its chunks meet), the prompt is cut out as its own item, matched
like any other, and the rest of the message is one more user message, which the live session
never had. A message with a `messageId` the live history knows is cut around that message's
text only; one without is cut around every live prompt it holds.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence
from dataclasses import replace

from acptrace.fidelity.items import USER, HistoryItem, ItemKind, numbered
from acptrace.fidelity.texts import normalised

Span = tuple[int, int]
"""A stretch of a message's text: its start and end offsets."""


def cut_user_runs(
    replayed: Sequence[HistoryItem], live: Sequence[HistoryItem]
) -> tuple[HistoryItem, ...]:
    """The replayed items, each user message that holds a live prompt's text and more cut in
    two or more: the prompts, then the rest as one item; other items as they are."""
    prompts = [item for item in live if _is_user(item) and normalised(item.text)]
    if not prompts:
        return tuple(replayed)
    by_key = {item.key: normalised(item.text) for item in prompts if item.keyed}
    texts = {normalised(item.text) for item in prompts}
    cut: list[HistoryItem] = []
    for item in replayed:
        own = by_key.get(item.key) if item.keyed else None
        if not _is_user(item) or normalised(item.text) in ({own} if own else texts):
            cut.append(item)
        else:
            longest_first = sorted(texts, key=lambda text: (-len(text), text))
            cut += _pieces(item, _found(item, [own] if own else longest_first))
    return numbered(cut)


def _is_user(item: HistoryItem) -> bool:
    return item.kind is ItemKind.MESSAGE and item.role == USER


def _found(item: HistoryItem, prompts: Sequence[str]) -> list[Span]:
    """Where the prompts' texts lie whole in the item's, left to right, the longest first at
    each place (white space runs match any white space)."""
    pattern = re.compile("|".join(r"\s+".join(map(re.escape, p.split())) for p in prompts))
    text = item.text
    seams = set(_starts(item))
    spans: list[Span] = []
    at = 0
    while (match := pattern.search(text, at)) is not None:
        start, end = match.span()
        if _bounded(text, start, seams) and _bounded(text, end, seams):
            spans.append((start, end))
            at = end
        else:
            at = start + 1
    return spans


def _starts(item: HistoryItem) -> list[int]:
    """The offset in the item's text where each of its parts starts."""
    starts, at = [], 0
    for part in item.parts:
        starts.append(at)
        at += len(part)
    return starts


def _bounded(text: str, at: int, seams: set[int]) -> bool:
    """Whether a found prompt may start or end at `at`: not inside a word (where two chunks
    meet counts as a boundary: the Agent sent them apart)."""
    inside = 0 < at < len(text) and _word(text[at - 1]) and _word(text[at])
    return not inside or at in seams


def _word(char: str) -> bool:
    return char.isalnum() or char == "_"


def _pieces(item: HistoryItem, spans: Sequence[Span]) -> list[HistoryItem]:
    """The item cut at the spans: each span its own item (the first keeps the item's id),
    and what lies outside them one more, in the place of its first stretch; the item whole
    when it is one span and nothing else."""
    text = item.text
    edges = [0, *(at for span in spans for at in span), len(text)]
    rest = [(edges[k], edges[k + 1]) for k in range(0, len(edges), 2)]
    rest = [(start, end) for start, end in rest if text[start:end].strip()]
    if len(spans) + len(rest) < 2:
        return [item]
    pieces = [(start, _piece(item, [(start, end)], keep_id=k == 0))
              for k, (start, end) in enumerate(spans)]  # fmt: skip
    if rest:
        pieces.append((rest[0][0], _piece(item, rest, keep_id=False)))
    return [piece for _, piece in sorted(pieces, key=lambda p: p[0])]


def _piece(item: HistoryItem, spans: Sequence[Span], *, keep_id: bool) -> HistoryItem:
    """A part of the item: the text of these spans, the line where the first begins."""
    text = "".join(item.text[start:end] for start, end in spans).strip()
    first = spans[0][0]
    first += len(item.text[first:]) - len(item.text[first:].lstrip())
    starts = _starts(item)
    index = bisect.bisect_right(starts, first) - 1
    line = item.part_lines[index] if 0 <= index < len(item.part_lines) else item.line
    keyed = keep_id and item.keyed
    return replace(item, id=item.id if keyed else "", keyed=keyed, text=text, line=line,
                   parts=(text,), part_lines=(line,))  # fmt: skip
