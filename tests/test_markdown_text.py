"""Untrusted text in Markdown (#37 item 12): what Markdown would read as markup is escaped, and
nothing else, so that a path or a rule's message reads in the raw comment as it is. Checked by
rendering with a CommonMark parser (tables and strikethrough on, as on GitHub): the text shows
exactly as it was."""

from __future__ import annotations

import html

import pytest
from markdown_it import MarkdownIt

from acptrace.render.markdown_text import literal

MARKDOWN = MarkdownIt("commonmark").enable("table").enable("strikethrough")
HOSTILE = [
    "__init__ *bold* _em_ **strong**",
    "[a](http://e.vil) ![img](x.png) <img src=x> <http://a.b>",
    "a | b | c",
    "`code` ``more``",
    "~~gone~~ \\* &amp; &#65;",
    "# heading",
    "- item",
    "+ item",
    "> quote",
    "1. first",
    "2) second",
    "*",
    "---",
    "-- two",
]
PLAIN = [
    "agents-2026-12b/claude-agent-acp-0.101.0_v2_overlap.jsonl:4",
    "session/request_permission (id 0) for sess_hist before its replay_complete",
    "b7014fd8-8cd1-4268-814e-3037b67cb430 sent while the replaying session/resume",
    "resume of sess_789xyz succeeded (demoted to warning: RC-INFLIGHT)",
    "1.2.0 = 100% ? yes; no, {x}",
    "-1 #2 +3",
]


@pytest.mark.parametrize("text", HOSTILE + PLAIN)
def test_the_text_shows_as_it_is(text: str) -> None:
    rendered = MARKDOWN.render(literal(text)).strip()
    assert rendered == f"<p>{html.escape(text, quote=False)}</p>"


@pytest.mark.parametrize("text", PLAIN)
def test_nothing_markdown_reads_as_text_is_escaped(text: str) -> None:
    assert literal(text) == text


def test_a_cell_holds_its_pipes() -> None:
    table = MARKDOWN.render(f"| a | b |\n|---|---|\n| {literal('x | y')} | z |\n")
    assert "<td>x | y</td>" in table


def test_links_mentions_and_emoji_codes_stay_inert() -> None:
    text = literal("see https://e.vil and www.e.vil, @octocat :rocket:")
    assert "@octocat" not in text  # (a zero-width space after `@`: no one is notified)
    assert "https\\://" in text
    assert "www\\." in text
    assert "\\:rocket:" in text
