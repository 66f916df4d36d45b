"""The pieces of report.html: escaped text, tables of plain, numeric and name cells, and
figures of SVG images in `data:` URLs. The replay sections (`html`) and the turn sections
(`turn_html`) are built of them."""

from __future__ import annotations

import base64
import html
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from acptrace.render.text import printable
from acptrace.report.charts import group_colour, group_dash


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
    swatch = f'<span class="{_swatch_class(index)}" style="color:{group_colour(index)}"></span>'
    return Name(f'{swatch}<a href="#group-{index}">{breakable(name)}</a>')


def _swatch_class(index: int) -> str:
    """A solid square in the group's colour, or a dashed or dotted line like its chart's."""
    dash = group_dash(index)
    return "swatch" if dash == "solid" else f"swatch {dash}"


def num(value: Any) -> Num:
    """A number (or any value) as a right-aligned cell."""
    return Num(str(value))


def table_html(
    head: Sequence[Cell], rows: Sequence[Sequence[Cell]], bad: Sequence[bool] = ()
) -> str:
    """A table with this heading and these rows (those marked in `bad` stand out)."""
    header = "".join(_cell("th", cell) for cell in head)
    labels = [_label(cell) for cell in head]
    lines = [f'<div class="scroll"><table><thead><tr>{header}</tr></thead><tbody>']
    for index, row in enumerate(rows):
        cells = "".join(_cell("td", cell, a) for cell, a in zip(row, labels, strict=True))
        flagged = index < len(bad) and bad[index]
        lines.append(f'<tr class="bad">{cells}</tr>' if flagged else f"<tr>{cells}</tr>")
    lines.append("</tbody></table></div>")
    return "".join(lines)


_TAG = re.compile(r"<[^>]*>")


def _label(cell: Cell) -> str:
    """A heading as the `data-label` of its column's cells: where a phone shows the rows one
    under the other, each cell says what it is (CSS `attr()`, no script)."""
    text = cell.text if isinstance(cell, Num) else cell.html if isinstance(cell, Name) else cell
    return f' data-label="{escape(html.unescape(_TAG.sub("", text)))}"'


def _cell(tag: str, cell: Cell, label: str = "") -> str:
    if isinstance(cell, Num):
        return f'<{tag} class="num"{label}>{escape(cell.text)}</{tag}>'
    if isinstance(cell, Name):
        return f'<{tag} class="name"{label}>{cell.html}</{tag}>'
    return f"<{tag}{label}>{cell}</{tag}>"


NARROW_SCREEN = 640
"""Up to this width (CSS pixels) a page is read on a phone: tables show their rows one under
the other, and a chart drawn for it replaces the wide one."""


def figure_html(svg: str | tuple[str, str], alt: str, caption: str) -> str:
    """An SVG chart as an image in a `data:` URL, with its caption; a pair is the chart for a
    page and the one for a phone (a `<picture>` picks by the screen's width, no script)."""
    wide, narrow = svg if isinstance(svg, tuple) else (svg, None)
    image = f'<img alt="{escape(alt)}" src="{_data_url(wide)}">'
    if narrow is not None:
        source = f'<source media="(max-width: {NARROW_SCREEN}px)" srcset="{_data_url(narrow)}">'
        image = f"<picture>{source}{image}</picture>"
    return f"<figure>{image}<figcaption>{escape(caption)}</figcaption></figure>"


def _data_url(svg: str) -> str:
    return "data:image/svg+xml;base64," + base64.b64encode(svg.encode()).decode("ascii")
