"""One session's live history against its replay: missing, extra, changed, reordered, a ratio."""

from __future__ import annotations

import bisect
import difflib
from collections.abc import Sequence
from dataclasses import dataclass

from acptrace.fidelity.align import align
from acptrace.fidelity.items import HistoryItem
from acptrace.fidelity.prompts import cut_user_runs
from acptrace.fidelity.texts import normalised

DIFF_LINES = 6
"""At most this many lines of a changed item's diff are kept."""
DIFF_LINE_CHARS = 100
"""Each kept diff line is cut to this many characters."""
DIFF_CONTEXT = 20
"""Characters kept on either side of the change in a long line."""


@dataclass(frozen=True, slots=True)
class Change:
    """An item both sides hold, with different text."""

    live: HistoryItem
    """The item as first sent."""
    replayed: HistoryItem
    """The item as the replay carried it."""
    diff: tuple[str, ...]
    """A short diff, live (`-`) to replayed (`+`), cut to `DIFF_LINES` lines."""


@dataclass(frozen=True, slots=True)
class Move:
    """An item both sides hold, out of the live order in the replay."""

    item: HistoryItem
    """The item (as replayed)."""
    live_index: int
    """Its place among the items replayed in order, live (0-based: how many of them it
    follows)."""
    replayed_index: int
    """Its place among the same items in the replay (differs from `live_index`)."""


@dataclass(frozen=True, slots=True)
class Comparison:
    """How faithfully a replay carried the live history."""

    live_items: int
    """Items in the live history."""
    replayed_items: int
    """Items the replay carried."""
    missing: tuple[HistoryItem, ...]
    """Live items the replay did not carry, in live order."""
    extra: tuple[HistoryItem, ...]
    """Replayed items the live history did not hold, in replay order."""
    changed: tuple[Change, ...]
    """Items on both sides whose text differs, in live order."""
    reordered: tuple[Move, ...]
    """Items on both sides out of their live order (the fewest that explain the order)."""
    fidelity: float | None
    """Items replayed unchanged over live items; None without live items (nothing to
    measure)."""


def compare(live: Sequence[HistoryItem], replayed: Sequence[HistoryItem]) -> Comparison:
    """Match items by identity, then by content (never by position); see docs/fidelity.md."""
    replayed = cut_user_runs(replayed, live)
    by_identity = _by_identity(live, replayed)
    pairs = sorted(by_identity + _by_content(live, replayed, by_identity))
    paired_live = {a for a, _ in pairs}
    paired_replayed = {b for _, b in pairs}
    missing = tuple(item for a, item in enumerate(live) if a not in paired_live)
    extra = tuple(item for b, item in enumerate(replayed) if b not in paired_replayed)
    changed = tuple(
        Change(live[a], replayed[b], short_diff(live[a].text, replayed[b].text))
        for a, b in pairs
        if normalised(live[a].text) != normalised(replayed[b].text)
    )
    unchanged = len(pairs) - len(changed)
    return Comparison(
        live_items=len(live),
        replayed_items=len(replayed),
        missing=missing,
        extra=extra,
        changed=changed,
        reordered=_moves(pairs, replayed),
        fidelity=unchanged / len(live) if live else None,
    )


def not_judged(live: Sequence[HistoryItem]) -> Comparison:
    """The comparison of a replay that is not judged (refused, or ambiguous): the live items
    counted, nothing replayed, nothing missing, no ratio."""
    return Comparison(len(live), 0, (), (), (), (), None)


def _by_identity(
    live: Sequence[HistoryItem], replayed: Sequence[HistoryItem]
) -> list[tuple[int, int]]:
    """Pairs of items whose updates gave both the same kind, role and id."""
    live_at = {item.key: a for a, item in enumerate(live) if item.keyed}
    return [
        (live_at[item.key], b)
        for b, item in enumerate(replayed)
        if item.keyed and item.key in live_at
    ]


def _by_content(
    live: Sequence[HistoryItem],
    replayed: Sequence[HistoryItem],
    by_identity: Sequence[tuple[int, int]],
) -> list[tuple[int, int]]:
    """Pairs of the other items, aligned by their content (an item with an id the other side
    lacks may pair with one without an id: a v2 replay names the prompt that the Agent did not
    echo live)."""
    live_at = sorted(set(range(len(live))) - {a for a, _ in by_identity})
    replayed_at = sorted(set(range(len(replayed))) - {b for _, b in by_identity})
    found = align([live[a] for a in live_at], [replayed[b] for b in replayed_at])
    return [(live_at[a], replayed_at[b]) for a, b in found]


def _moves(pairs: Sequence[tuple[int, int]], replayed: Sequence[HistoryItem]) -> tuple[Move, ...]:
    """The matched items out of the live order: all but a longest run that keeps it, each with
    its place among that run's items on either side (the two differ, or it would be in the
    run)."""
    in_replay_order = sorted(pairs, key=lambda pair: pair[1])
    kept = _rising([a for a, _ in in_replay_order])
    kept_live = sorted(in_replay_order[k][0] for k in kept)
    kept_replayed = sorted(in_replay_order[k][1] for k in kept)
    return tuple(
        Move(
            replayed[b],
            bisect.bisect_left(kept_live, a),
            bisect.bisect_left(kept_replayed, b),
        )
        for k, (a, b) in enumerate(in_replay_order)
        if k not in kept
    )


def _rising(values: Sequence[int]) -> set[int]:
    """The indexes of a longest strictly rising run of `values` (O(n log n))."""
    tails: list[int] = []  # tails[k]: the smallest value ending a run of length k+1
    ends: list[int] = []  # ends[k]: the index of that run's last value
    before: list[int] = [-1] * len(values)
    for index, value in enumerate(values):
        k = bisect.bisect_left(tails, value)
        if k == len(tails):
            tails.append(value)
            ends.append(index)
        else:
            tails[k] = value
            ends[k] = index
        before[index] = ends[k - 1] if k else -1
    kept: set[int] = set()
    index = ends[-1] if ends else -1
    while index != -1:
        kept.add(index)
        index = before[index]
    return kept


def short_diff(live: str, replayed: str) -> tuple[str, ...]:
    """The changed lines, live (`-`) then replayed (`+`), cut to a few short lines; a long line
    changed into one other line keeps only what differs, with a little of what is alike."""
    lines = [
        line
        for line in difflib.unified_diff(
            live.splitlines() or [""], replayed.splitlines() or [""], lineterm="", n=0
        )
        if not line.startswith(("---", "+++", "@@"))
    ]
    one_for_one = [line[0] for line in lines] == ["-", "+"]
    if one_for_one and max(len(line) for line in lines) > DIFF_LINE_CHARS:
        gone, came = _around_change(lines[0][1:], lines[1][1:])
        lines = ["-" + gone, "+" + came]
    cut = [_cut(line) for line in lines[:DIFF_LINES]]
    if len(lines) > DIFF_LINES:
        cut.append(f"… {len(lines) - DIFF_LINES} more lines")
    return tuple(cut)


_CHANGE_CHARS = DIFF_LINE_CHARS - 2 * DIFF_CONTEXT - 3
"""The most of a long change a line keeps (its start and end, `…` between), so that the shared
text after it still fits (a dropped prefix shows on both sides what the lines go on with)."""


def _around_change(live: str, replayed: str) -> tuple[str, str]:
    """Both lines without the start and end they share, but for `DIFF_CONTEXT` characters; a
    change longer than `_CHANGE_CHARS` keeps its start and end."""
    start = _shared_start(live, replayed)
    end = _shared_start(live[start:][::-1], replayed[start:][::-1])
    head = max(start - DIFF_CONTEXT, 0)

    def trimmed(line: str) -> str:
        tail = len(line) - end + DIFF_CONTEXT
        change = line[start : len(line) - end]
        if len(change) > _CHANGE_CHARS:
            half = _CHANGE_CHARS // 2
            change = change[:half] + "…" + change[-half:]
        kept = line[head:start] + change + line[len(line) - end : tail]
        return ("…" if head else "") + kept + ("…" if tail < len(line) else "")

    return trimmed(live), trimmed(replayed)


def _shared_start(one: str, other: str) -> int:
    """How many characters both strings start with."""
    return next((i for i, (a, b) in enumerate(zip(one, other, strict=False)) if a != b),
                min(len(one), len(other)))  # fmt: skip


def _cut(line: str) -> str:
    return line if len(line) <= DIFF_LINE_CHARS else line[: DIFF_LINE_CHARS - 1] + "…"
