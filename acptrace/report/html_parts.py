"""The pieces of report.html: escaped text, tables of plain, numeric and name cells, and
figures of SVG images in `data:` URLs. The replay sections (`html`) and the turn sections
(`turn_html`) are built of them."""

from __future__ import annotations

import base64
import html
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from acptrace.render.text import printable
from acptrace.report.charts import group_colour


def escape(value: Any) -> str:
    """Text from anywhere, escaped for HTML (control characters shown as escapes)."""
    return html.escape(printable(value), quote=True)


def breakable(path: str) -> str:
    """A name as HTML that may break after each `/` before it breaks anywhere else."""
    return escape(path).replace("/", "/<wbr>")


@dataclass(frozen=True, slots=True)
class Num:
    """A right-aligned cell of plain text (escaped when written)."""

    text: str


@dataclass(frozen=True, slots=True)
class Name:
    """A cell naming its row (HTML already escaped): wrapped anywhere rather than widening the
    table past the page."""

    html: str


Cell = str | Num | Name
"""A table cell: HTML already escaped by the caller, a number as plain text, or a row's name."""


def group_cell(index: int, name: str) -> Name:
    """The cell naming a group in an overview table: its colour in the charts, and a link to
    its section."""
    swatch = f'<span class="swatch" style="background:{group_colour(index)}"></span>'
    return Name(f'{swatch}<a href="#group-{index}">{breakable(name)}</a>')


def num(value: Any) -> Num:
    """A number (or any value) as a right-aligned cell."""
    return Num(str(value))


def table_html(
    head: Sequence[Cell], rows: Sequence[Sequence[Cell]], bad: Sequence[bool] = ()
) -> str:
    """A table with this heading and these rows (those marked in `bad` stand out)."""
    header = "".join(_cell("th", cell) for cell in head)
    lines = [f'<div class="scroll"><table><thead><tr>{header}</tr></thead><tbody>']
    for index, row in enumerate(rows):
        cells = "".join(_cell("td", cell) for cell in row)
        flagged = index < len(bad) and bad[index]
        lines.append(f'<tr class="bad">{cells}</tr>' if flagged else f"<tr>{cells}</tr>")
    lines.append("</tbody></table></div>")
    return "".join(lines)


def _cell(tag: str, cell: Cell) -> str:
    if isinstance(cell, Num):
        return f'<{tag} class="num">{escape(cell.text)}</{tag}>'
    if isinstance(cell, Name):
        return f'<{tag} class="name">{cell.html}</{tag}>'
    return f"<{tag}>{cell}</{tag}>"


def figure_html(svg: str, alt: str, caption: str) -> str:
    """An SVG chart as an image in a `data:` URL, with its caption."""
    data = base64.b64encode(svg.encode()).decode("ascii")
    return (
        f'<figure><img alt="{escape(alt)}" src="data:image/svg+xml;base64,{data}">'
        f"<figcaption>{escape(caption)}</figcaption></figure>"
    )
