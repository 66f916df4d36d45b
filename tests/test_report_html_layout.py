"""report.html at a phone's width and with many groups (#37 item 11): every table cell says
its column (a phone shows rows one under the other, no sideways scrolling), the overview
charts have a rendition drawn for a phone, the ECDF's legend is under the plot, tick labels
never run into each other, groups beyond ten get colours (and then dashes) of their own, and
names break after a `/` rather than in the middle of a word."""

from __future__ import annotations

import base64
import itertools
import re
from collections.abc import Iterator
from dataclasses import replace
from html.parser import HTMLParser
from pathlib import Path

import pytest

from acptrace.report import build_report
from acptrace.report import charts as charts_module
from acptrace.report.html import render_html
from acptrace.report.html_parts import NARROW_SCREEN
from acptrace.report.stats import describe
from acptrace.report.summaries import Group, Metric, Report
from tests.test_report import complete, transcript

MANY = 25
"""Groups of the crowded page: beyond the ten colours of tab10, and beyond the twelve lines
an ECDF draws."""


@pytest.fixture(scope="module")
def crowded(tmp_path_factory: pytest.TempPathFactory) -> Report:
    """25 Agents, each with resumes of its own speed (names long enough to wrap)."""
    root = tmp_path_factory.mktemp("many")
    for index in range(MANY):
        resumes = complete(*(10.0 * (index + 1) * k for k in range(1, 6)))
        name = f"@example-organisation/agent-number-{index:02d}-acp"
        (root / f"a{index}.jsonl").write_bytes(transcript(name, "1.0", resumes).text())
    report = build_report([str(root)], jobs=1)
    assert len(report.groups) == MANY
    return report


class _Tables(HTMLParser):
    """Each table's headings and, for each of its cells, its `data-label`."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: list[tuple[list[str], list[str | None]]] = []
        self._in_th = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "table":
            self.tables.append(([], []))
        elif tag == "th":
            self._in_th = True
            self.tables[-1][0].append("")
        elif tag == "td":
            self.tables[-1][1].append(dict(attrs).get("data-label"))

    def handle_endtag(self, tag: str) -> None:
        if tag == "th":
            self._in_th = False

    def handle_data(self, data: str) -> None:
        if self._in_th:
            self.tables[-1][0][-1] += data


def test_every_cell_says_its_column_for_a_phone(crowded: Report) -> None:
    page = render_html(crowded).decode()
    parser = _Tables()
    parser.feed(page)
    assert len(parser.tables) > MANY
    for headings, labels in parser.tables:
        assert labels, headings
        for index, label in enumerate(labels):
            assert label == headings[index % len(headings)]
    narrow = page.split(f"@media (max-width: {NARROW_SCREEN}px) {{", 1)[1].split("\n}\n", 1)[0]
    assert ".scroll thead { display: none; }" in narrow  # (rows one under the other)
    assert "content: attr(data-label)" in narrow


def _svg(data_url: str) -> str:
    return base64.b64decode(data_url.removeprefix("data:image/svg+xml;base64,")).decode()


def _width_pt(svg: str) -> float:
    found = re.search(r'<svg[^>]* width="([\d.]+)pt"', svg)
    assert found is not None
    return float(found.group(1))


def test_the_overview_charts_have_a_rendition_for_a_phone(crowded: Report) -> None:
    page = render_html(crowded).decode()
    pictures = re.findall(r"<picture>(.*?)</picture>", page)
    assert len(pictures) == 2  # the ECDF and the outcome bars
    for picture in pictures:
        source = re.search(r'<source media="\(max-width: (\d+)px\)" srcset="([^"]+)">', picture)
        image = re.search(r'<img alt="[^"]*" src="([^"]+)">', picture)
        assert source is not None
        assert image is not None
        assert int(source.group(1)) == NARROW_SCREEN
        assert _width_pt(_svg(source.group(2))) == pytest.approx(charts_module.NARROW * 72)
        assert _width_pt(_svg(image.group(1))) == pytest.approx(charts_module.WIDE * 72)


def test_groups_beyond_ten_are_told_apart(crowded: Report) -> None:
    page = render_html(crowded).decode()
    overview = page.split('id="overview"', 1)[1].split("</table>", 1)[0]
    swatches = re.findall(r'<span class="(swatch[^"]*)" style="color:(#[0-9a-f]{6})">', overview)
    assert len(swatches) == MANY
    assert len(set(swatches)) == MANY
    styles = [(charts_module.group_colour(i), charts_module.group_dash(i)) for i in range(60)]
    assert len(set(styles)) == 60
    assert len(set(charts_module.PALETTE)) == len(charts_module.PALETTE) == 20


def _drawn(report: Report) -> list[tuple[int, Group]]:
    drawn = list(enumerate(report.groups))[: charts_module.OVERLAY_GROUPS]
    return [(i, g) for i, g in drawn if g.samples[Metric.MARKER_TO_RESPONSE]]


@pytest.mark.parametrize("narrow", [False, True])
def test_the_ecdf_legend_is_under_the_plot(crowded: Report, narrow: bool) -> None:
    names = [g.name for g in crowded.groups]
    with charts_module._drawing():
        figure = charts_module.ecdf_figure(
            _drawn(crowded), Metric.MARKER_TO_RESPONSE, names, narrow=narrow
        )
        figure.draw_without_rendering()
        (axes,) = figure.axes
        (legend,) = figure.legends
        assert len(legend.get_texts()) == charts_module.OVERLAY_GROUPS
        legend_box, plot_box = legend.get_window_extent(), axes.get_window_extent()
        assert legend_box.y1 <= plot_box.y0  # under the plot: it covers no line
        assert legend_box.x0 >= 0
        assert legend_box.x1 <= figure.bbox.x1


def _labels(axes: object) -> Iterator[tuple[float, float, str]]:
    """The x tick labels shown, left to right: their extents and text."""
    shown = [t for t in axes.get_xticklabels() if t.get_visible() and t.get_text()]  # type: ignore[attr-defined]
    low, high = axes.get_xlim()  # type: ignore[attr-defined]
    for text in shown:
        if low * 0.999 <= text.get_position()[0] <= high * 1.001:
            box = text.get_window_extent()
            yield box.x0, box.x1, text.get_text()


def assert_apart(axes: object) -> None:
    labels = sorted(_labels(axes))
    assert len(labels) >= 2
    for (_, right, a), (left, _, b) in itertools.pairwise(labels):
        assert right + 2 <= left, (a, b)  # (a gap between any two labels)


@pytest.mark.parametrize(
    ("low", "high"), [(0.1, 10_000.0), (0.2, 5_000.0), (1.0, 2_000.0), (300.0, 900.0)]
)
def test_tick_labels_never_run_into_each_other(crowded: Report, low: float, high: float) -> None:
    """0.1 ms to 10 s labelled every 1-2-5 step read `10 ms20 ms` and `100 ms200 ms`."""
    metric = Metric.FIRST_OUTPUT
    values = tuple(low * (high / low) ** (k / 30) for k in range(31))
    template = crowded.groups[0]
    group = replace(
        template,
        metrics={**template.metrics, metric: describe(values)},
        samples={**template.samples, metric: values},
    )
    with charts_module._drawing():
        for narrow in (False, True):
            figure = charts_module.ecdf_figure([(0, group)], metric, ["g"], narrow=narrow)
            figure.draw_without_rendering()
            assert_apart(figure.axes[0])
        edges = tuple(low * (high / low) ** (k / 24) for k in range(25))
        figure = charts_module.histogram_figure(group, metric, edges, "#1f77b4")
        figure.draw_without_rendering()
        assert_apart(figure.axes[0])
        xmin, xmax = figure.axes[0].get_xlim()
        shown = [label for *_, label in sorted(_labels(figure.axes[0]))]
        assert shown[0] == charts_module.tick_text(xmin)  # (both ends labelled)
        assert shown[-1] == charts_module.tick_text(xmax)


def test_names_break_after_a_slash_not_in_a_word(crowded: Report) -> None:
    """`overflow-wrap: anywhere` let a table squeeze a name's column to a few letters and break
    `@agentclientproto|col/…`; a name now breaks after its `/` (and a hyphen), and a word only
    when it alone is wider than the page."""
    page = render_html(crowded).decode()
    rule = re.search(r"td\.name \{([^}]*)\}", page)
    assert rule is not None
    assert "overflow-wrap: break-word" in rule.group(1)
    assert "anywhere" not in rule.group(1)
    name = "@example-organisation/<wbr>agent-number-00-acp"
    assert f'<a href="#group-0">{name}</a>' in page


def test_a_small_page_still_reads(tmp_path: Path) -> None:
    """Two groups: the same structure, nothing of the crowded case missing."""
    (tmp_path / "a.jsonl").write_bytes(transcript("a-acp", "1.0", complete(10, 20)).text())
    page = render_html(build_report([str(tmp_path)], jobs=1)).decode()
    assert page.count("<picture>") == 2
    assert 'data-label="group"' in page
