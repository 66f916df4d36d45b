"""gitleaks' rules, loaded from the vendored `gitleaks.toml` and applied as gitleaks applies
them, where redaction can do so exactly and in time linear in the string.

A rule is kept when its pattern translates exactly (`translate`), its match is at most
`MAX_WIDTH` characters long (so it can be looked for near its keywords only: gitleaks'
keyword prefilter, made local) and its allowlists can be honoured; and it is not one of
`SLOW`, the rules that a megabyte of their worst input took too long to search
(`benchmarks/gitleaks_rules.py` measures them, tests/test_redact_speed.py holds every kept
rule to the bound). What is left out, and why, is `dropped()`.

As gitleaks does: the secret is the rule's `secretGroup`, else its first group that matched
something, else the whole match; a secret whose Shannon entropy is not above the rule's
`entropy` is left, and so is one an allowlist (the rule's or the global one) allows: one of
its regexes matches the secret (or the match, or its line, as the allowlist says), or the
secret holds one of its stop words.
"""

from __future__ import annotations

import functools
import math
import re
import tomllib
from collections import Counter
from collections.abc import Generator, Iterator, Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Any

from acptrace.record.gitleaks.translate import (
    Untranslatable,
    compiled,
    compiled_python,
    translated,
)

GITLEAKS_VERSION = "v8.30.0-27-gb58d3f10 (b58d3f102cf3a2c84cb7f923d05c25c9b1aed84b, 2026-07-22)"
"""The gitleaks commit `gitleaks.toml` was copied from (`config/gitleaks.toml`)."""

MAX_WIDTH = 2048
"""The longest match (in characters) a kept rule may have: its search starts at most this
far before a keyword and stops this far after it."""

SLOW: dict[str, str] = {}
"""Rules left out because a megabyte of their worst input took too long, with what it took
(`benchmarks/gitleaks_rules.py`)."""

_SEGMENT = 1 << 16
"""Characters one call of `re` searches at most (it holds the GIL meanwhile)."""
_LINE_CHARS = 4096
"""How far from a match its line is looked for (an allowlist that reads the line)."""

Span = tuple[int, int]


@dataclass(frozen=True, slots=True)
class Allowlist:
    """What a rule (or every rule) lets be: regexes over a target, and stop words."""

    target: str
    """What the regexes read: `secret`, `match` or `line`."""
    regexes: tuple[re.Pattern[str], ...]
    stopwords: re.Pattern[str] | None
    """Any of the stop words (lower case), searched in the secret in lower case."""

    def allows(self, text: str, match: re.Match[str], secret: Span) -> bool:
        """Whether the finding `secret` of `match` in `text` is let be."""
        word = text[secret[0] : secret[1]]
        if self.stopwords is not None and self.stopwords.search(word.lower()):
            return True
        if not self.regexes:
            return False
        if self.target == "match":
            word = match.group()
        elif self.target == "line":
            word = _line(text, match)
        return any(regex.search(word) for regex in self.regexes)


@dataclass(frozen=True, slots=True)
class GitleaksRule:
    """One of gitleaks' rules, as redaction applies it."""

    id: str
    keywords: tuple[str, ...]
    """Lower case: the rule is searched for only near one of them."""
    pattern: re.Pattern[str]
    width: int
    """The longest its match can be."""
    entropy: float
    """A secret whose Shannon entropy is not above this is left (0: no test)."""
    group: int
    """The group that is the secret (0: the first that matched something, or the match)."""
    allowlists: tuple[Allowlist, ...]

    def spans(self, text: str, hits: Sequence[int]) -> Iterator[Span]:
        """The secrets in `text` of the matches that start at most `width` characters before
        a keyword (at `hits`, in order) and not after the last one: the matches gitleaks
        finds around them. Each window is searched once, a segment at a time."""
        for first, last in _windows(hits, self.width):
            at = max(0, first - self.width)
            while at <= last:
                end = min(at + _SEGMENT, last + 1)
                at = max(end, (yield from self._segment(text, at, end)))

    def _segment(self, text: str, at: int, end: int) -> Generator[Span, None, int]:
        """The secrets of the matches that start in `text[at:end]`; returns where the last
        one ended. The search stops `width` past `end` (every such match ends before), so
        `$`, `\\b` and `\\Z` are never asked where the search was cut."""
        done = at
        for match in self.pattern.finditer(text, at, min(len(text), end + self.width)):
            if match.start() >= end:
                break
            done = match.end()
            secret = self._secret(match)
            if secret is not None and not self._allowed(text, match, secret):
                yield secret
        return done

    def _secret(self, match: re.Match[str]) -> Span | None:
        if self.group:
            span = match.span(self.group)
        else:
            found = (match.span(g) for g in range(1, (match.re.groups or 0) + 1))
            span = next((s for s in found if s[1] > s[0]), match.span())
        return span if span[1] > span[0] else None

    def _allowed(self, text: str, match: re.Match[str], secret: Span) -> bool:
        if self.entropy and entropy(text[secret[0] : secret[1]]) <= self.entropy:
            return True
        return any(allowlist.allows(text, match, secret) for allowlist in self.allowlists)


def _windows(hits: Sequence[int], width: int) -> Iterator[tuple[int, int]]:
    """The hits (in order) grouped where their windows (`width` each side) meet: the first
    and last hit of each group."""
    first = last = -1
    for hit in hits:
        if first >= 0 and hit - width > last + width:
            yield first, last
            first = -1
        if first < 0:
            first = hit
        last = hit
    if first >= 0:
        yield first, last


def _line(text: str, match: re.Match[str]) -> str:
    """The line(s) of the match (at most `_LINE_CHARS` each side of it)."""
    start = text.rfind("\n", max(0, match.start() - _LINE_CHARS), match.start()) + 1
    end = text.find("\n", match.end(), match.end() + _LINE_CHARS)
    return text[start : end if end >= 0 else min(len(text), match.end() + _LINE_CHARS)]


def entropy(secret: str) -> float:
    """Shannon entropy of the characters of `secret`, in bits (gitleaks' `shannonEntropy`)."""
    if not secret:
        return 0.0
    size = len(secret)
    return -sum(n / size * math.log2(n / size) for n in Counter(secret).values())


@dataclass(frozen=True, slots=True)
class RuleSet:
    """The rules kept, in the file's order, and those left out (id: why)."""

    kept: tuple[GitleaksRule, ...]
    dropped: dict[str, str]


@functools.cache
def rule_set() -> RuleSet:
    """gitleaks' rules, loaded and compiled once (when redaction first needs them)."""
    data = tomllib.loads(resources.files(__package__).joinpath("gitleaks.toml").read_text())
    common = _allowlists([data.get("allowlist", {})])
    kept: list[GitleaksRule] = []
    dropped: dict[str, str] = {}
    for entry in data["rules"]:
        try:
            rule = _rule(entry, common)
        except Untranslatable as why:
            dropped[entry["id"]] = str(why)
            continue
        if rule.id in SLOW:
            dropped[rule.id] = SLOW[rule.id]
        else:
            kept.append(rule)
    return RuleSet(tuple(kept), dropped)


def _rule(entry: dict[str, Any], common: tuple[Allowlist, ...]) -> GitleaksRule:
    """The rule, or Untranslatable saying why it cannot be applied as gitleaks would."""
    if "regex" not in entry:
        raise Untranslatable("it names files (by their path), not text")
    if "path" in entry:
        raise Untranslatable("it applies only to files named as its `path` says")
    if not entry.get("keywords"):
        raise Untranslatable("it has no keywords to search near")
    allowlists = common + _allowlists(entry.get("allowlists", []))
    source = translated(entry["regex"])
    if all(allowlist.target != "match" for allowlist in allowlists):
        source = _without_name_prefix(source)
    pattern = compiled_python(source)
    low, high = re._parser.parse(source, pattern.flags).getwidth()  # type: ignore[attr-defined]
    if low == 0:
        raise Untranslatable("it matches the empty string")
    if high > MAX_WIDTH:
        raise Untranslatable(
            "its match has no bound (a repeat without end), or one over"
            f" {MAX_WIDTH} characters: it cannot be looked for near its keywords only"
        )
    return GitleaksRule(
        id=entry["id"],
        keywords=tuple(word.lower() for word in entry["keywords"]),
        pattern=pattern,
        width=high,
        entropy=float(entry.get("entropy", 0.0)),
        group=int(entry.get("secretGroup", 0)),
        allowlists=allowlists,
    )


_NAME_PREFIX = re.compile(r"(\(\?i:)?\[\\w\.-\]\{0,\d+\}\?")
"""`[\\w.-]{0,50}?` at the start of a pattern (within its `(?i:`): the name before a keyword,
which half of gitleaks' rules match (`[\\w.-]{0,50}?(?:adafruit)…`)."""


def _without_name_prefix(source: str) -> str:
    """The pattern without a leading `[\\w.-]{0,50}?`: it finds the same secrets (the repeat
    may match nothing, so a match without it is one with it, and the first match with it
    leaves it empty or starts where the first without it does), but `re` no longer tries
    fifty names at every place. Only the match is shorter: not kept where an allowlist
    reads the match."""
    while (prefix := _NAME_PREFIX.match(source)) is not None:  # (some have two: 50 x 50 tries)
        source = (prefix.group(1) or "") + source[prefix.end() :]
    return source


def _allowlists(entries: list[dict[str, Any]]) -> tuple[Allowlist, ...]:
    """The allowlists that read text: one that asks for a path or a commit too (`condition
    = "AND"`) never applies to text that has neither; their path and commit parts alone are
    about files and commits, not text."""
    out = []
    for entry in entries:
        if entry.get("condition", "OR") == "AND" and ("paths" in entry or "commits" in entry):
            continue
        regexes = tuple(compiled(source) for source in entry.get("regexes", ()))
        words = entry.get("stopwords", ())
        if not regexes and not words:
            continue
        stopwords = re.compile("|".join(re.escape(w.lower()) for w in words)) if words else None
        out.append(Allowlist(entry.get("regexTarget", "secret"), regexes, stopwords))
    return tuple(out)
