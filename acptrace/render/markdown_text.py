"""Untrusted text (a transcript's rule messages, paths, group names) as literal Markdown: a
backslash before each character Markdown would read as markup there, and before no other.

Escaping every punctuation character kept the text literal but made the source unreadable
(`agents\\-2026\\-12\\/codex\\_acp\\_resume\\.jsonl`, in a CI log, a diff, a comment's raw view) for
characters GitHub's Markdown never reads as markup there. What is escaped: code (`` ` ``),
emphasis (`*`; `_` unless between two letters or digits, where it is never emphasis), links and
images (`[`, `]`), HTML and autolinks (`<`, `>`), table cells (`|`), strikethrough (`~`), maths
(`$`), the escape itself (`\\`), an entity (`&amp;`), a URL that would become a link (the `:` of
`://`, the `.` of `www.`), an emoji code (`:name:`), and at the start of the text what would
start a heading, a quote or a list (`#`, `>`, `+`, `-`, `1.`). `@` is followed by a zero-width
space so that no mention notifies anyone.
"""

from __future__ import annotations

import re

_MISREAD = re.compile(
    r"[\\`*\[\]<>|~$]"  # code, emphasis, links, HTML, cells, strikethrough, maths, escapes
    r"|_(?![A-Za-z0-9])|(?<![A-Za-z0-9])_"  # emphasis (`_` inside a word is none)
    r"|&(?=#?\w+;)"  # an entity
    r"|:(?=//)|:(?=[\w+-]+:)"  # a URL's scheme, an emoji code
    r"|(?<=\bwww)\."  # a `www.` link
    r"|^[#+-](?=\s|$|[#+-])"  # a heading, a list or a rule at the start
)
_NUMBERED = re.compile(r"^(\d+)([.)])(?=\s|$)")
"""A numbered list at the start (`1.`, `2)`)."""


def literal(text: str) -> str:
    """The text as literal Markdown (see the module docstring), safe inside a table cell."""
    escaped = _MISREAD.sub(lambda match: "\\" + match.group(), text)
    return _NUMBERED.sub(r"\1\\\2", escaped).replace("@", "@\u200b")
