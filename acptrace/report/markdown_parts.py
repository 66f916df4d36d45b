"""The parts of report.md that every section uses: untrusted text escaped as literal Markdown,
statistics as cells with their few-samples mark shown as itself. The replay sections
(`markdown_page`) and the turn sections (`turn_markdown`) are built of them.

Transcript text (group names, paths, rule IDs, tool titles) is untrusted: it is made literal
(`render.markdown_text.literal`: what Markdown would read as markup escaped, `@` mentions
broken, line breaks flattened), so it cannot add links, images, HTML, mentions or table cells
to the comment.
"""

from __future__ import annotations

from acptrace.render.markdown_text import literal
from acptrace.render.text import printable
from acptrace.report.numbers import FEW_MARK, stat_text
from acptrace.report.stats import Distribution
from acptrace.report.summaries import Metric

TEXT_CHARS = 120
"""Longer untrusted text is shortened (`…`)."""


def escape(value: object) -> str:
    """Untrusted text as literal Markdown, safe inside a table cell."""
    text = printable(value)
    if len(text) > TEXT_CHARS:
        text = text[: TEXT_CHARS - 1] + "…"
    return literal(text)


def marked(text: str) -> str:
    """A line or cell whose first few-samples mark shows as itself, not as emphasis."""
    return text.replace(FEW_MARK, "\\" + FEW_MARK, 1)


def stat_cell(metric: Metric, distribution: Distribution, stat: str) -> str:
    """A statistic as a cell: the few-samples mark escaped so it shows as itself."""
    return marked(stat_text(metric, distribution, stat))


def row(cells: list[str]) -> str:
    """A table row of these cells."""
    return "| " + " | ".join(cells) + " |"
