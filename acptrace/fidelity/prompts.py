"""Replayed user runs cut around the live prompts they hold.

Without `messageId`s a replay's consecutive `user_message_chunk`s are one user run, yet an Agent
may replay messages of its own beside a prompt (claude-agent-acp replays its `/model` command
and that command's output before the first prompt). Where a run holds a live prompt's blocks
and more, the prompt is cut out as its own item and the pieces around it are user messages the
live session never had.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from acptrace.fidelity.items import USER, HistoryItem, ItemKind, numbered
from acptrace.fidelity.texts import normalised


def cut_user_runs(
    replayed: Sequence[HistoryItem], live: Sequence[HistoryItem]
) -> tuple[HistoryItem, ...]:
    """The replayed items, each unkeyed user run that holds a live prompt and more cut in
    pieces (the prompts' and what lies between them); other items as they are."""
    prompts = {
        blocks for item in live if _user_run(item) and (blocks := _blocks(item)) and any(blocks)
    }
    if not prompts:
        return tuple(replayed)
    longest = max(len(blocks) for blocks in prompts)
    cut: list[HistoryItem] = []
    for item in replayed:
        cut += _cut(item, prompts, longest) if _user_run(item) else [item]
    return numbered(cut)


def _user_run(item: HistoryItem) -> bool:
    return item.kind is ItemKind.MESSAGE and item.role == USER and not item.keyed


def _blocks(item: HistoryItem) -> tuple[str, ...]:
    return tuple(normalised(part) for part in item.parts)


def _cut(item: HistoryItem, prompts: set[tuple[str, ...]], longest: int) -> list[HistoryItem]:
    """The run's pieces: each live prompt it holds, and each stretch between them."""
    blocks = _blocks(item)
    spans: list[tuple[int, int]] = []  # (start, end) of each piece
    loose = 0  # where the stretch not yet a piece starts
    at = 0
    while at < len(blocks):
        size = next(
            (n for n in range(min(longest, len(blocks) - at), 0, -1)
             if blocks[at : at + n] in prompts),
            0,
        )  # fmt: skip
        if not size:
            at += 1
            continue
        if loose < at:
            spans.append((loose, at))
        spans.append((at, at + size))
        at = loose = at + size
    if loose < len(blocks) and spans:
        spans.append((loose, len(blocks)))
    if len(spans) < 2:
        return [item]
    return [_piece(item, start, end) for start, end in spans]


def _piece(item: HistoryItem, start: int, end: int) -> HistoryItem:
    parts = item.parts[start:end]
    lines = item.part_lines[start:end]
    line = lines[0] if lines else item.line
    return replace(item, text="".join(parts), line=line, parts=parts, part_lines=lines)
