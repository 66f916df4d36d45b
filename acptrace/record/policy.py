"""What to redact: the shapes, the caller's keys and patterns, and how names are compared."""

from __future__ import annotations

import functools
import re
from collections import OrderedDict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from acptrace.model.errors import UsageError
from acptrace.record.gitleaks.rules import GitleaksRule, rule_set
from acptrace.record.secret_shapes import (
    ENV_KEY_NAME,
    NOT_SECRET_NAMES,
    PUBLIC_NAMES,
    SECRET_SUFFIXES,
    SHAPES,
    URL_SIGNING_NAMES,
    Shape,
)


@dataclass(frozen=True, slots=True)
class RedactionPolicy:
    """What to redact: secret-like names and the patterns to search strings for."""

    keys: frozenset[str] = frozenset()
    """Extra member names (normalised) whose values are secret, besides `SECRET_SUFFIXES`."""
    shapes: tuple[Shape, ...] = ()
    """Token shapes, replaced where they do not start inside a word."""
    patterns: tuple[re.Pattern[str], ...] = ()
    """The caller's patterns, replaced in every string wherever they match."""
    rules: tuple[GitleaksRule, ...] = ()
    """gitleaks' rules, applied after the shapes (their finds that overlap a shape's are left
    to it) in strings of several lines (files, terminal output: what gitleaks' rules are
    written for), each searched for near its keywords only."""
    keywords: re.Pattern[str] | None = field(init=False, repr=False, compare=False)
    """Every shape's keywords as one pattern (a trie, searched in the lower-cased string):
    one search tells most strings have none, and finds where the others are."""
    file_keywords: re.Pattern[str] | None = field(init=False, repr=False, compare=False)
    """The shapes' and the rules' keywords, as `keywords`: searched in strings of several
    lines, where the rules apply."""
    shapes_at: dict[str, tuple[tuple[int, int], ...]] = field(init=False, repr=False, compare=False)
    """For each keyword, the shapes and rules (their index: the shapes, then the rules) that
    one found there is a keyword of, and where in it their keyword starts: its own, and
    those of the keywords it holds (the trie reports the longest keyword at a place)."""
    recent_files: OrderedDict[str, list[list[tuple[int, int]]]] = field(
        init=False, repr=False, compare=False
    )
    """The spans of the last strings of several lines searched (`spans._file_spans`)."""
    recent_chars: list[int] = field(init=False, repr=False, compare=False)
    """How many characters those strings hold (one number, changed in place)."""
    longest_keyword: int = field(init=False, repr=False, compare=False)
    """The length of the longest keyword."""
    name_ends: re.Pattern[str] = field(init=False, repr=False, compare=False)
    """Where a secret-like name may end before a separator (`…token=`, `…Key":`), searched
    in the reversed string: `=` or `:` (which `re` scans for fast), then backwards the last
    three letters of every name that can be one. The name rules look only there, not at
    every `=` and `:`."""

    def __post_init__(self) -> None:
        owners: dict[str, set[int]] = {}
        finders: tuple[Shape | GitleaksRule, ...] = (*self.shapes, *self.rules)
        for index, finder in enumerate(finders):
            for keyword in finder.keywords:
                owners.setdefault(keyword, set()).add(index)
        shapes_at = {word: _owners_of(word, owners) for word in owners}
        object.__setattr__(self, "shapes_at", shapes_at)
        object.__setattr__(self, "longest_keyword", max(map(len, owners), default=0))
        object.__setattr__(self, "name_ends", _name_ends(self.keys))
        shaped = [word for word in owners if min(owners[word]) < len(self.shapes)]
        object.__setattr__(self, "keywords", re.compile(trie(shaped)) if shaped else None)
        file_trie = re.compile(trie(owners)) if self.rules else self.keywords
        object.__setattr__(self, "file_keywords", file_trie)
        object.__setattr__(self, "recent_files", OrderedDict())
        object.__setattr__(self, "recent_chars", [0])

    @classmethod
    def build(
        cls, keys: Iterable[str] = (), patterns: Iterable[str] = (), *, defaults: bool = True
    ) -> RedactionPolicy:
        """`SHAPES` and gitleaks' rules (unless not `defaults`) and these; UsageError for a
        bad regex, or one that matches the empty string (a typo, as `a*` for `a+`: it matches
        nothing worth replacing at every position of every string)."""
        shapes = SHAPES if defaults else ()
        rules = rule_set().kept if defaults else ()
        compiled: list[re.Pattern[str]] = []
        for source in patterns:
            try:
                pattern = re.compile(source)
            except re.error as error:
                message = f"--redact-pattern {source!r} is not a valid regex: {error}"
                raise UsageError(message) from None
            if pattern.fullmatch("") is not None:
                raise UsageError(
                    f"--redact-pattern {source!r} matches the empty string: it would match"
                    " between every two characters (a `*` meant as `+`, a stray `|`?)"
                )
            compiled.append(pattern)
        return cls(frozenset(normalize_name(k) for k in keys), shapes, tuple(compiled), rules)

    def is_secret_name(self, name: str) -> bool:
        """Whether a member, header or variable with this name holds a secret."""
        return _is_secret_name(name, self.keys)


@functools.lru_cache(maxsize=8192)
def _is_secret_name(name: str, keys: frozenset[str]) -> bool:
    normal = normalize_name(name)
    if normal in keys:
        return True
    if normal.endswith(SECRET_SUFFIXES):
        return normal not in NOT_SECRET_NAMES
    return ENV_KEY_NAME.fullmatch(name) is not None and not normal.endswith(PUBLIC_NAMES)


def _name_ends(keys: Iterable[str]) -> re.Pattern[str]:
    """See `RedactionPolicy.name_ends`."""
    names = {*SECRET_SUFFIXES, "key", *map(normalize_name, URL_SIGNING_NAMES), *keys}
    tails = sorted({name[-3:][::-1] for name in names if name})
    noisy = ("[-_.]?".join(re.escape(char) for char in tail) for tail in tails)
    return re.compile(f"[=:][ \t]{{0,16}}[\"']?(?i:{'|'.join(noisy)})")


def _owners_of(word: str, owners: dict[str, set[int]]) -> tuple[tuple[int, int], ...]:
    """The shapes and rules a keyword found is a keyword of, each with where in the word its
    keyword starts: its own (at 0) and those of every keyword it holds (`sk` in `task_`)."""
    found = {
        (index, at) for other, ids in owners.items() for at in _places(word, other) for index in ids
    }
    return tuple(sorted(found))


def _places(word: str, other: str) -> Iterator[int]:
    """Where `other` is in `word`."""
    at = word.find(other)
    while at >= 0:
        yield at
        at = word.find(other, at + 1)


def normalize_name(name: str) -> str:
    """Names compare case-insensitively and ignore `-`, `_`, `.`, spaces and zero-width
    characters."""
    return name.lower().translate(_NAME_NOISE)


_NAME_NOISE = str.maketrans("", "", "-_. \u200b\u200c\u200d\u2060\ufeff\u00ad")


_Node = dict[str, "_Node"]
"""A trie: each next character's node; "" marks the end of a word."""


def trie(words: Iterable[str]) -> str:
    """A regex matching any of these literals, as a trie (`sk(?:-|_live_)`): Python's `re`
    then rejects most positions at their first character, where an alternation of the words
    tries each one (3x faster on a megabyte of text). The longest word wins at a position."""
    root: _Node = {}
    for word in words:
        node = root
        for char in word:
            node = node.setdefault(char, {})
        node[""] = {}
    return _branch(root)


def _branch(node: _Node) -> str:
    ends = "" in node
    arms = [re.escape(char) + _branch(child) for char, child in sorted(node.items()) if char]
    if not arms:
        return ""
    body = arms[0] if len(arms) == 1 else "(?:" + "|".join(arms) + ")"
    return f"(?:{body})?" if ends else body
