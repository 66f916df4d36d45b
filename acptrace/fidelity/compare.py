"""One session's live history against its replay: missing, extra, changed, reordered, a ratio."""

from __future__ import annotations

import bisect
import difflib
from collections.abc import Sequence
from dataclasses import dataclass

from acptrace.fidelity.items import HistoryItem, Key

DIFF_LINES = 6
"""At most this many lines of a changed item's diff are kept."""
DIFF_LINE_CHARS = 100
"""Each kept diff line is cut to this many characters."""


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
    """Its position among the live items (0-based)."""
    replayed_index: int
    """Its position among the replayed items (0-based)."""


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
    fidelity: float
    """Items replayed unchanged over live items (1.0 without live items)."""


def compare(live: Sequence[HistoryItem], replayed: Sequence[HistoryItem]) -> Comparison:
    """Match items by kind, role and id (`#N` ids: by order within kind and role)."""
    live_at = {item.key: index for index, item in enumerate(live)}
    replayed_by = {item.key: item for item in replayed}
    missing = tuple(item for item in live if item.key not in replayed_by)
    extra = tuple(item for item in replayed if item.key not in live_at)
    changed = tuple(
        Change(item, replayed_by[item.key], short_diff(item.text, replayed_by[item.key].text))
        for item in live
        if item.key in replayed_by and item.text != replayed_by[item.key].text
    )
    both = [
        (live_at[item.key], index, item)
        for index, item in enumerate(replayed)
        if item.key in live_at
    ]
    kept = _in_order(both)
    reordered = tuple(Move(item, at, index) for at, index, item in both if item.key not in kept)
    unchanged = len(live) - len(missing) - len(changed)
    return Comparison(
        live_items=len(live),
        replayed_items=len(replayed),
        missing=missing,
        extra=extra,
        changed=changed,
        reordered=reordered,
        fidelity=unchanged / len(live) if live else 1.0,
    )


def _in_order(both: Sequence[tuple[int, int, HistoryItem]]) -> set[Key]:
    """The keys of a longest run of shared items whose live positions rise in replay order
    (a longest increasing subsequence, O(n log n)); the others are the reordered ones."""
    tails: list[int] = []  # tails[k]: the smallest live position ending a run of length k+1
    ends: list[int] = []  # ends[k]: the index into `both` of that run's last item
    before: list[int] = [-1] * len(both)
    for index, (at, _, _) in enumerate(both):
        k = bisect.bisect_left(tails, at)
        if k == len(tails):
            tails.append(at)
            ends.append(index)
        else:
            tails[k] = at
            ends[k] = index
        before[index] = ends[k - 1] if k else -1
    kept: set[Key] = set()
    index = ends[-1] if ends else -1
    while index != -1:
        kept.add(both[index][2].key)
        index = before[index]
    return kept


def short_diff(live: str, replayed: str) -> tuple[str, ...]:
    """The changed lines, live (`-`) then replayed (`+`), cut to a few short lines."""
    lines = [
        line
        for line in difflib.unified_diff(
            live.splitlines() or [""], replayed.splitlines() or [""], lineterm="", n=0
        )
        if not line.startswith(("---", "+++", "@@"))
    ]
    cut = [_cut(line) for line in lines[:DIFF_LINES]]
    if len(lines) > DIFF_LINES:
        cut.append(f"… {len(lines) - DIFF_LINES} more lines")
    return tuple(cut)


def _cut(line: str) -> str:
    return line if len(line) <= DIFF_LINE_CHARS else line[: DIFF_LINE_CHARS - 1] + "…"
