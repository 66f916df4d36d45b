"""Items without an identity, matched by content: never by position.

First a longest common subsequence of the two sequences on kind, role and normalised text (the
items replayed word for word, in order); then, for what is left, the pairs of one kind and role
with the most similar text, best first: between the same two items replayed word for word
first, near the place the item would have (where an item changed in place lies), then anywhere
(an item moved and changed). One dropped item so never shifts the blame onto the items after
it.
"""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Iterable, Iterator, Sequence
from difflib import SequenceMatcher

from acptrace.fidelity.items import HistoryItem, ItemKind
from acptrace.fidelity.texts import normalised

MIN_SIMILARITY = 0.5
"""Left-over items pair as one changed item only when their texts are at least this similar
(difflib's ratio: `similarity`); less alike, one is missing and the other extra."""

CHARACTERS = 200
"""Two texts longer than this together are compared word by word, not character by character."""

BAND = 8
"""Between two items replayed word for word, a live item is measured against the replayed
items this many places either side of its own place (the work stays linear)."""

MAX_PAIRS = 20_000
"""Pairs measured, at most, in the last pass (an item moved and changed, anywhere): beyond it,
the rest stay missing and extra (a bound on the work for huge, very different histories)."""

Token = tuple[ItemKind, str | None, str, str | None]


def align(live: Sequence[HistoryItem], replayed: Sequence[HistoryItem]) -> list[tuple[int, int]]:
    """Pairs (live index, replayed index) of the items that are one item on both sides."""
    exact = common_subsequence([_token(i) for i in live], [_token(i) for i in replayed])
    pairs = list(exact)
    bounds = [(-1, -1), *exact, (len(live), len(replayed))]
    for (a0, b0), (a1, b1) in itertools.pairwise(bounds):  # what lies between two exact pairs
        pairs += _similar(live, replayed, _band(range(a0 + 1, a1), range(b0 + 1, b1)))
    paired_live = {a for a, _ in pairs}
    paired_replayed = {b for _, b in pairs}
    rest_live = [a for a in range(len(live)) if a not in paired_live]
    rest_replayed = [b for b in range(len(replayed)) if b not in paired_replayed]
    anywhere = itertools.islice(itertools.product(rest_live, rest_replayed), MAX_PAIRS)
    return sorted(pairs + _similar(live, replayed, anywhere))


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
    """How alike two texts are, 0 to 1: difflib's ratio on their characters (white space runs
    as one space), on their words when they are long (the work stays small)."""
    return _ratio(_pieces(live, len(replayed)), _pieces(replayed, len(live)))


def _pieces(text: str, other: int) -> Sequence[str]:
    """What the ratio compares: characters, or words when the two texts are long."""
    return text.split() if len(text) + other > CHARACTERS else normalised(text)


def _ratio(live: Sequence[str], replayed: Sequence[str]) -> float:
    """difflib's ratio (0 at once when its upper bounds are too low)."""
    if not live and not replayed:
        return 1.0
    matcher = SequenceMatcher(None, live, replayed, autojunk=False)
    if matcher.real_quick_ratio() < MIN_SIMILARITY or matcher.quick_ratio() < MIN_SIMILARITY:
        return 0.0
    return matcher.ratio()


def _band(live: range, replayed: range) -> Iterator[tuple[int, int]]:
    """The pairs of a stretch between two exact pairs that lie near its diagonal (within
    `BAND` places of where the live item's place would fall in the replay)."""
    if not live or not replayed:
        return
    scale = len(replayed) / len(live)
    for offset, a in enumerate(live):
        middle = int(offset * scale)
        low, high = max(middle - BAND, 0), min(middle + BAND + 1, len(replayed))
        for b in replayed[low:high]:
            yield a, b


def _similar(
    live: Sequence[HistoryItem],
    replayed: Sequence[HistoryItem],
    candidates: Iterable[tuple[int, int]],
) -> list[tuple[int, int]]:
    """Of these candidate pairs, those of one kind and role and alike enough, the most similar
    first, each item in one pair at most."""
    scored: list[tuple[float, int, int]] = []
    for a, b in candidates:
        one, other = live[a], replayed[b]
        if (one.kind, one.role) != (other.kind, other.role) or (one.keyed and other.keyed):
            continue  # (two ids that differ name two items)
        score = similarity(one.text, other.text)
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
    """Kind, role, text and, for an item with an id, the id: it pairs with an item without one
    by similarity alone, never with an item of another id."""
    return (item.kind, item.role, normalised(item.text), item.id if item.keyed else None)
