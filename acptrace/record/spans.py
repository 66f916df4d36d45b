"""Where the secrets are in one string: the spans that redaction replaces.

Three kinds of finder, in this order (a span that overlaps one found before it is left out, so
`Authorization: Bearer …` keeps its scheme word when `bearer` found the credential first):

- token shapes (`secret_shapes.SHAPES`), tried only where one of their keywords is: one search
  of the lower-cased string (a trie of every keyword) finds them all;
- the caller's patterns, wherever they match;
- the name rules: `name=value` (and a URL's signing parameters), `--flag value`, and in free
  text or at the start of a line of a string of several lines, `name: value`, `name = value`,
  `"name": "value"`, `'name': 'value'`.

Every finder is linear in the length of the string: keywords are found in one pass, each
shape is matched where its keyword is with repeats that are bounded or cannot run past the
next keyword's match, and each separator is looked at once, with the name before it searched
for only back to the separator before.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from enum import Enum

from acptrace.record.policy import RedactionPolicy
from acptrace.record.secret_shapes import (
    URL_SIGNING_NAMES,
    USER_FLAGS,
    Shape,
    kept_by_name_rules,
    looks_like_credential,
)

Span = tuple[int, int]
"""Where a secret is: start and end (exclusive) in the string."""


class Reading(Enum):
    """How the name rules read a string."""

    VALUE = "value"
    """A value on one line (a member's string): `name=value` and `--flag value` only."""
    LINES = "lines"
    """A string of several lines (a file, terminal output): also `name: value` and
    `name = value` where the name starts a line."""
    FREE = "free"
    """Free text (a raw line, stderr, the command line): `name: value` anywhere too."""


def secret_spans(
    text: str, policy: RedactionPolicy, reading: Reading, marker: str, *, rules: bool = True
) -> list[Span]:
    """The spans to replace, in order, none overlapping and none holding `marker` (what an
    earlier redaction left). gitleaks' rules are applied to a string of several lines
    (`Reading.LINES`: a file, terminal output) unless not `rules`."""
    keywords = policy.file_keywords if rules and reading is Reading.LINES else policy.keywords
    if keywords is None:
        finders = []
    elif keywords is policy.keywords:
        finders = _shape_spans(text, policy, keywords)
    else:
        finders = _file_spans(text, policy, keywords)
    finders += ([*_pattern_spans(text, pattern)] for pattern in policy.patterns)
    if "=" in text or ":" in text:
        finders.append([*_assignment_spans(text, policy, reading)])
    if "-" in text:
        finders.append([*_flag_spans(text, policy)])
    chosen: list[Span] = []
    for found in finders:
        if found:
            chosen = _merged(chosen, [s for s in found if marker not in text[s[0] : s[1]]])
    return chosen


def _pattern_spans(text: str, pattern: re.Pattern[str]) -> Iterator[Span]:
    for match in pattern.finditer(text):
        grouped = pattern.groups and match.group(1) is not None
        yield match.span(1) if grouped else match.span()


def _merged(chosen: list[Span], found: list[Span]) -> list[Span]:
    """The spans chosen so far and those found (both in order) that overlap none of them."""
    out: list[Span] = []
    at = 0
    for start, end in found:
        while at < len(chosen) and chosen[at][1] <= start:
            out.append(chosen[at])
            at += 1
        free = at == len(chosen) or chosen[at][0] >= end
        if start < end and free and (not out or out[-1][1] <= start):
            out.append((start, end))
    out.extend(chosen[at:])
    return out


_SEARCH_WINDOW = 1 << 18
"""Characters searched for keywords in one call of `re` (about 5 ms of the GIL)."""
_DENSE = 64
"""A shape whose keywords are found more often than this is searched for by `re` itself."""


def _lowered(text: str) -> str:
    """The text in lower case, each character where it was (`İ` would become two)."""
    lowered = text.lower()
    if len(lowered) == len(text):
        return lowered
    return "".join(c if len(low := c.lower()) != 1 else low for c in text)


_RECENT_CHARS = 1 << 22
"""Characters of the strings of several lines whose shape and rule spans are remembered."""


def _file_spans(text: str, policy: RedactionPolicy, keywords: re.Pattern[str]) -> list[list[Span]]:
    """`_shape_spans` with gitleaks' rules, remembered for the last strings searched (4 M
    characters at most): the same file or output comes again and again (a tool call's
    content in each of its updates, a Zed dump pasted twice), and is searched once."""
    recent = policy.recent_files
    found = recent.get(text)
    if found is not None:
        recent.move_to_end(text)
        return list(found)
    found = _shape_spans(text, policy, keywords)
    if len(text) <= _RECENT_CHARS:
        recent[text] = found
        policy.recent_chars[0] += len(text)
        while policy.recent_chars[0] > _RECENT_CHARS:
            policy.recent_chars[0] -= len(recent.popitem(last=False)[0])
    return list(found)


def _shape_spans(text: str, policy: RedactionPolicy, keywords: re.Pattern[str]) -> list[list[Span]]:
    """Each shape's (and rule's) matches (in order), in their order, where `keywords` finds
    theirs."""
    lowered = _lowered(text)
    first = 0
    if len(lowered) <= _SEARCH_WINDOW:
        if (found_first := keywords.search(lowered)) is None:
            return []
        first = found_first.start()  # (not searched again before it)
    found: dict[str, list[int]] = {}
    finditer = keywords.finditer
    longest = policy.longest_keyword
    for start in range(first, len(lowered), _SEARCH_WINDOW):  # (no call holds the GIL long)
        end = start + _SEARCH_WINDOW
        for keyword in finditer(lowered, start, min(len(lowered), end + longest)):
            if keyword.start() >= end:
                break
            found.setdefault(keyword.group(), []).append(keyword.start())
    hits: dict[int, list[int]] = {}
    for word, positions in found.items():
        for index, offset in policy.shapes_at[word]:
            hits.setdefault(index, []).extend(at + offset for at in positions)
    spans: list[list[Span]] = []
    shapes = len(policy.shapes)
    if keywords is policy.keywords:  # (the rules' own keywords were not looked for)
        hits = {index: found for index, found in hits.items() if index < shapes}
    for index in sorted(hits):
        if index >= shapes:  # (a gitleaks rule)
            spans.append([*policy.rules[index - shapes].spans(text, sorted(set(hits[index])))])
        elif len(hits[index]) > _DENSE:
            spans.append([*_scanned(text, policy.shapes[index])])
        else:
            spans.append([*_matches(text, policy.shapes[index], sorted(hits[index]))])
    return spans


def _matches(text: str, shape: Shape, hits: list[int]) -> Iterator[Span]:
    """The shape's matches where its keywords are: each where it does not start inside a word
    and passes its check; a hit inside a match before is not tried again."""
    done = 0
    for hit in hits:
        if hit < done:
            continue
        for offset in shape.offsets:
            start = hit - offset
            if start < done or _inside_word(text, start):
                continue
            match = shape.pattern.match(text, start)
            if match is not None and (span := _accepted(text, shape, match)) is not None:
                done = match.end()
                yield span
                break


def _scanned(text: str, shape: Shape) -> Iterator[Span]:
    """The shape's matches, when its keywords are found so often that `re`'s own scan for it
    is cheaper than trying each: the same matches, without a Python step per keyword."""
    for match in shape.pattern.finditer(text):
        if not _inside_word(text, match.start()):
            span = _accepted(text, shape, match)
            if span is not None:
                yield span


def _accepted(text: str, shape: Shape, match: re.Match[str]) -> Span | None:
    span = match.span(1) if shape.pattern.groups else match.span()
    if shape.check is not None and not shape.check(text[span[0] : span[1]]):
        return None
    return span


def _inside_word(text: str, start: int) -> bool:
    return start > 0 and _is_word(text[start - 1]) and _is_word(text[start])


def _is_word(char: str) -> bool:
    return char.isalnum() or char == "_"


_NAME_BEFORE = re.compile(r"(?<![\w.$-])-{0,2}([A-Za-z_][\w.-]{0,100})([\"']?)[ \t]{0,16}\Z")
_NAME_WINDOW = 120
_LINE_START = re.compile(r"(?:\A|\n)[ \t>*<#-]{0,12}(?:(?:export|set)[ \t]{1,4})?[\"']?\Z")
_LINE_WINDOW = 24
_PLAIN_VALUE = re.compile(r"[^\s\"',;&#=][^\s\"',;&#]{0,8192}+")
_TEXT_VALUE = re.compile(
    r"[ \t]{0,16}+((?:Bearer|Basic|Token)[ \t]{1,8}+[^\s\"',;&]{1,8192}+|[^\s\"',;&]{1,8192}+)"
)
_QUOTED = re.compile(r"[ \t]{0,16}+(?:\"((?:[^\"\\\n]|\\.){0,8192}+)\"|'([^'\n]{0,8192}+)')")
_FLAG = re.compile(  # (starts with its literal `-`, which `re` searches for fast)
    r"-(?<![\w-]-)(-?[A-Za-z][\w.-]{0,60})[ \t]{1,8}+"
    r"(?:\"([^\"\n]{1,4096}+)\"|'([^'\n]{1,4096}+)'|([^\s\"'-][^\s\"']{0,4096}+))"
)


def _assignment_spans(text: str, policy: RedactionPolicy, reading: Reading) -> Iterator[Span]:
    """`name=value` with a secret-like name (or a URL's signing parameter), and the loose forms
    the reading allows. Looks only where such a name may end (`policy.name_ends`: the last
    letters of one, then a separator), for the whole name back to the separator before."""
    if reading is Reading.VALUE and "=" not in text:
        return
    last = len(text) - 1
    separators = [last - found.start() for found in policy.name_ends.finditer(text[::-1])]
    done = 0
    for at in reversed(separators):
        if at < done or (reading is Reading.VALUE and text[at] == ":"):
            continue
        window = max(done, at - _NAME_WINDOW)
        window = max(window, text.rfind("=", window, at) + 1, text.rfind(":", window, at) + 1)
        name = _NAME_BEFORE.search(text, window, at)
        if name is None:
            continue
        if not policy.is_secret_name(name.group(1)) and not _signs_a_url(text, name, at):
            continue
        span = _value_after(text, name, at, reading)
        if span is not None:
            done = span[1]
            yield span


def _value_after(text: str, name: re.Match[str], at: int, reading: Reading) -> Span | None:
    """The value after the separator at `at`, as the reading allows; None if there is none, or
    it is a placeholder (`${TOKEN}`, `<your-key>`) or a version (`^8.5.1`)."""
    tight = name.end(1) == at and text[at] == "="
    loose = reading is Reading.FREE or (reading is Reading.LINES and _starts_a_line(text, name))
    if not tight and not loose:
        return None
    quoted = _QUOTED.match(text, at + 1)
    if quoted is not None:
        group = 1 if quoted.group(1) is not None else 2
        span = quoted.span(group)
    elif tight:
        plain = _PLAIN_VALUE.match(text, at + 1)
        if plain is None:
            return None
        span = plain.span()
    else:
        value = _TEXT_VALUE.match(text, at + 1)
        if value is None:
            return None
        span = value.span(1)
        if reading is Reading.LINES and not _plausible(text[span[0] : span[1]]):
            return None
    if span[0] == span[1] or kept_by_name_rules(text, span[0], span[1]):
        return None
    return span


def _starts_a_line(text: str, name: re.Match[str]) -> bool:
    """The name starts a line, after indentation, `> ` (curl's headers), a list's `- `,
    `export ` or a quote."""
    start = name.start()
    return _LINE_START.search(text, max(0, start - _LINE_WINDOW), start) is not None


def _plausible(value: str) -> bool:
    """An unquoted value at the start of a line that could be a secret, not a word of prose
    (`Token: the limit…`)."""
    return len(value) >= 12 or looks_like_credential(value)


def _signs_a_url(text: str, name: re.Match[str], at: int) -> bool:
    """`?sig=`, `&X-Amz-Signature=`, …: a URL parameter in `URL_SIGNING_NAMES`."""
    start = name.start(1)
    return (
        text[at] == "="
        and name.end(1) == at
        and start > 0
        and text[start - 1] in "?&#;"
        and name.group(1).lower() in URL_SIGNING_NAMES
    )


def _flag_spans(text: str, policy: RedactionPolicy) -> Iterator[Span]:
    """`--secret-name value` (a command in a string) and curl's `-u name:password`."""
    for flag in _FLAG.finditer(text):
        option = "-" + flag.group(1)
        group = next(g for g in (2, 3, 4) if flag.group(g) is not None)
        start, end = flag.span(group)
        if option.startswith("--") and policy.is_secret_name(option):
            if not kept_by_name_rules(text, start, end):
                yield start, end
        elif option in USER_FLAGS:
            span = password_of(text, start, end)
            if span is not None:
                yield span


def password_of(text: str, start: int, end: int) -> Span | None:
    """The password of `name:password` (curl's `--user`), unless it is a number (`1000:1000`,
    a user and a group)."""
    colon = text.find(":", start, end)
    if colon < 0 or text[colon + 1 : end].isdigit() or colon + 1 == end:
        return None
    return colon + 1, end
