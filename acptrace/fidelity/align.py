"""Items without an identity, matched by content: never by position.

First a longest common subsequence of the two sequences on kind, role and normalised text (the
items replayed word for word, in order); then, for what is left, the pairs of one kind and role
with the most similar text, best first: between the same two items replayed word for word
first (where an item changed in place lies), then anywhere (an item moved and changed). One
dropped item so never shifts the blame onto the items after it.
"""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Sequence
from difflib import SequenceMatcher

from acptrace.fidelity.items import HistoryItem, ItemKind, normalised

MIN_SIMILARITY = 0.5
"""Left-over items pair as one changed item only when their texts are at least this similar
(difflib's ratio); less alike, one is missing and the other extra."""

MAX_PAIRS = 250_000
"""Left-over pairs whose similarity is measured, at most, per kind and role (beyond it, the
rest stay missing and extra: a bound on the work for huge, very different histories)."""

Token = tuple[ItemKind, str | None, str]


def align(live: Sequence[HistoryItem], replayed: Sequence[HistoryItem]) -> list[tuple[int, int]]:
    """Pairs (live index, replayed index) of the items that are one item on both sides."""
    exact = common_subsequence([_token(i) for i in live], [_token(i) for i in replayed])
    pairs = list(exact)
    bounds = [(-1, -1), *exact, (len(live), len(replayed))]
    for (a0, b0), (a1, b1) in itertools.pairwise(bounds):  # what lies between two exact pairs
        pairs += _similar(live, replayed, range(a0 + 1, a1), range(b0 + 1, b1))
    paired_live = {a for a, _ in pairs}
    paired_replayed = {b for _, b in pairs}
    rest_live = [a for a in range(len(live)) if a not in paired_live]
    rest_replayed = [b for b in range(len(replayed)) if b not in paired_replayed]
    return sorted(pairs + _similar(live, replayed, rest_live, rest_replayed))


def common_subsequence(left: Sequence[Token], right: Sequence[Token]) -> list[tuple[int, int]]:
    """A longest common subsequence, as index pairs in rising order (Hunt-Szymanski: fast
    when few tokens repeat, as in a history, where most texts are unique)."""
    where: dict[Token, list[int]] = {}
    for index, token in enumerate(left):
        where.setdefault(token, []).append(index)
    tails: list[int] = []  # tails[k]: the smallest left index ending a common run of k+1
    links: list[tuple[int, int, int]] = []  # (left, right, link of the previous pair or -1)
    ends: list[int] = []  # ends[k]: the link ending that run
    for b, token in enumerate(right):
        for a in reversed(where.get(token, ())):
            k = bisect.bisect_left(tails, a)
            if k == len(tails):
                tails.append(a)
                ends.append(len(links))
            else:
                tails[k] = a
                ends[k] = len(links)
            links.append((a, b, ends[k - 1] if k else -1))
    pairs: list[tuple[int, int]] = []
    link = ends[-1] if ends else -1
    while link != -1:
        a, b, link = links[link]
        pairs.append((a, b))
    return pairs[::-1]


def similarity(live: str, replayed: str) -> float:
    """How alike two texts are, 0 to 1 (difflib's ratio on the normalised texts)."""
    return SequenceMatcher(None, normalised(live), normalised(replayed), autojunk=False).ratio()


def _similar(
    live: Sequence[HistoryItem],
    replayed: Sequence[HistoryItem],
    rest_live: Sequence[int],
    rest_replayed: Sequence[int],
) -> list[tuple[int, int]]:
    """Left-over pairs of one kind and role, the most similar first."""
    scored: list[tuple[float, int, int]] = []
    measured = 0
    for a in rest_live:
        for b in rest_replayed:
            if (live[a].kind, live[a].role) != (replayed[b].kind, replayed[b].role):
                continue
            measured += 1
            if measured > MAX_PAIRS:
                break
            score = similarity(live[a].text, replayed[b].text)
            if score >= MIN_SIMILARITY:
                scored.append((score, a, b))
    scored.sort(key=lambda s: (-s[0], s[1], s[2]))
    taken_live: set[int] = set()
    taken_replayed: set[int] = set()
    pairs: list[tuple[int, int]] = []
    for _, a, b in scored:
        if a not in taken_live and b not in taken_replayed:
            taken_live.add(a)
            taken_replayed.add(b)
            pairs.append((a, b))
    return pairs


def _token(item: HistoryItem) -> Token:
    return (item.kind, item.role, normalised(item.text))
