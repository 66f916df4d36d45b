"""The report's views: HTML (self-contained, escaped, tables without matplotlib), Markdown
(escaped for a pull-request comment), the terminal (inert), and the histogram's axis and
legend."""

from __future__ import annotations

import base64
import io
import re
from dataclasses import replace
from pathlib import Path

import pytest
from rich.console import Console

from acptrace.model.domain import Outcome
from acptrace.render.text import printable
from acptrace.report import GroupBy, build_report
from acptrace.report import charts as charts_module
from acptrace.report import html as html_module
from acptrace.report.html import NO_CHARTS, POLICY, chart_count, render_html
from acptrace.report.markdown_page import NO_RESUMES, render_markdown
from acptrace.report.markdown_parts import escape
from acptrace.report.summaries import FileError, Report
from acptrace.report.terminal import terminal_report
from tests.golden import ROOT
from tests.test_report import ALPHA_1, TRUNCATED, complete, transcript, write_corpus

HOSTILE = "<script>alert(1)</script>\x1b[31m $x$ | [a](http://e.vil) @octocat `tick`"
"""An agent name that tries every kind of injection."""


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> Report:
    root = tmp_path_factory.mktemp("hostile")
    write_corpus(root, ALPHA_1, [])
    t = transcript(HOSTILE, "6.6.6", [*complete(900, 1000, 1100), TRUNCATED])
    (root / "evil<b>.jsonl").write_bytes(t.text())
    return build_report([str(root)], jobs=1)


def test_html_is_self_contained_and_escaped(hostile: Report) -> None:
    page = render_html(hostile).decode()
    assert f'content="{POLICY}"' in page
    assert "<script" not in page.lower()
    assert "&lt;script&gt;alert(1)&lt;/script&gt;\\x1b[31m $x$ | [a](http://e.vil)" in page
    assert "evil&lt;b&gt;.jsonl:" in page
    targets = re.findall(r'(?:src|href)="([^"]*)"', page)
    assert targets
    assert all(
        t.startswith(("#group-", "#overview", "data:image/svg+xml;base64,")) for t in targets
    )
    svgs = [base64.b64decode(t.split(",", 1)[1]).decode() for t in targets if t.startswith("data:")]
    assert len(svgs) == 4  # ECDF, outcome bars, one histogram per group
    for svg in svgs:
        assert "<script" not in svg
        assert "<image" not in svg
        assert "@font-face" not in svg
        assert not re.search(r'href="(?!#)', svg)  # only references inside the SVG itself


def test_html_lists_the_skipped_files_and_how_the_numbers_are_made(hostile: Report) -> None:
    """The navigation links `#errors`: the section it names is on the page, and so is the
    footer on how the numbers are made (both were lost when the page learnt to hold 35+
    groups)."""
    skipped = replace(hostile, errors=(FileError("runs/broken<b>.jsonl.gz", "not gzip"),))
    page = render_html(skipped).decode()
    assert '<a href="#errors">Skipped files</a>' in page
    assert '<section id="errors"><h2>Skipped files</h2>' in page
    assert "runs/broken&lt;b&gt;.jsonl.gz" in page
    assert "<h2>How the numbers are made</h2>" in page
    assert 'id="errors"' not in render_html(hostile).decode()


def test_html_without_matplotlib_shows_tables_and_says_why(
    hostile: Report, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(charts_module, "available", lambda: False)
    page = render_html(hostile).decode()
    assert NO_CHARTS in page
    assert "<img" not in page
    assert page.count('<section class="group"') == 2
    assert "Latency and throughput" in page


def test_charts_are_deterministic(hostile: Report) -> None:
    assert render_html(hostile) == render_html(hostile)


def test_markdown_escapes_transcript_text(hostile: Report) -> None:
    text = render_markdown(hostile).decode()
    assert set(re.findall(r"(?<!\\)</?(\w+)", text)) == {"details", "summary"}
    assert not re.search(r"(?<!\\)\]\(http", text)  # (an escaped `\]` is no link)
    assert "@octocat" not in text
    assert escape(HOSTILE) in text
    header = next(line for line in text.splitlines() if line.startswith("| group |"))
    row = next(line for line in text.splitlines() if line.startswith(f"| {escape(HOSTILE)} |"))
    cells = re.compile(r"(?<!\\)\|")
    assert len(cells.findall(row)) == len(cells.findall(header))


def test_escape_leaves_no_markdown_active() -> None:
    assert escape("a|b") == "a\\|b"
    assert escape("@team") == "@\u200bteam"
    assert escape("x" * 500).endswith("…")
    assert escape("line\nbreak") == "line\\\\x0abreak"  # shows as line\x0abreak


def test_terminal_shows_transcript_text_inertly(hostile: Report) -> None:
    short = "[red]x[/]\x1b $y$"  # fits the terminal's group column whole
    named = replace(hostile, groups=(replace(hostile.groups[0], name=short), *hostile.groups[1:]))
    for report, shown in (
        (named, "[red]x[/]\\x1b $y$"),
        (hostile, printable(HOSTILE)),  # (whole: there is room)
    ):
        console = Console(width=200, record=True, color_system=None, file=io.StringIO())
        for renderable in terminal_report(report):
            console.print(renderable)
        text = console.export_text()
        assert "\x1b" not in text
        assert shown in text


def test_group_by_is_in_the_header(hostile: Report) -> None:
    assert hostile.group_by is GroupBy.AGENT
    assert "3 transcripts, 2 groups by `agent` in " in render_markdown(hostile).decode()


@pytest.mark.parametrize(
    ("value", "below", "above"),
    [(0.3, 0.2, 0.5), (1.0, 1.0, 1.0), (300.0, 200.0, 500.0), (1800.0, 1000.0, 2000.0),
     (2000.0, 2000.0, 2000.0), (7000.0, 5000.0, 10000.0), (999.99, 500.0, 1000.0)],
)  # fmt: skip
def test_the_histogram_axis_ends_on_round_steps(value: float, below: float, above: float) -> None:
    assert charts_module.step_below(value) == pytest.approx(below)
    assert charts_module.step_above(value) == pytest.approx(above)


def test_the_histogram_labels_both_ends_and_its_legend_covers_no_line(hostile: Report) -> None:
    """Bins up to 1.9 s once ended past the last label (`1 s`), and the legend sat in the upper
    right corner, over the p99 line of a group whose slowest resumes are its slowest bins."""
    from acptrace.report.groups import shared_edges
    from acptrace.report.html import BINS

    group = next(g for g in hostile.groups if g.name == "alpha-acp")
    HEADLINE = group.headline
    edges = shared_edges(hostile.groups, HEADLINE, BINS)
    assert edges is not None
    assert edges[-1] > 1000 * 1.5
    with charts_module._drawing():
        figure = charts_module.histogram_figure(group, HEADLINE, edges, "#1f77b4")
        figure.draw_without_rendering()
        (axes,) = figure.axes
        low, high = axes.get_xlim()
        ticks = [t for t in axes.get_xticks() if low * 0.999 <= t <= high * 1.001]
        assert low <= edges[0]
        assert high >= edges[-1]
        assert ticks[0] == pytest.approx(low)
        assert ticks[-1] == pytest.approx(high)
        assert charts_module.tick_text(ticks[-1]) == "2 s"
        assert all(float(count).is_integer() for count in axes.get_yticks())
        legend = axes.get_legend()
        assert legend is not None
        legend_box = legend.get_window_extent()
        plot_box = axes.get_window_extent()
        assert legend_box.x0 >= plot_box.x1  # beside the plot, not on it


def test_every_page_says_what_the_complete_share_is_of(hostile: Report) -> None:
    """The evil group has 4 resumes, 4 replaying, 3 complete: `3 (75.0%)` read as a share of
    a column beside it; every page now says `3/4 (75.0%)`, as the terminal does."""
    group = next(g for g in hostile.groups if g.name != "alpha-acp")
    shown = (
        f"{group.replay_outcomes[Outcome.COMPLETE]}/{group.expecting_marker} "
        f"({100 * group.replay_outcomes[Outcome.COMPLETE] / group.expecting_marker:.1f}%)"
    )
    assert shown == "3/4 (75.0%)"
    assert shown in render_markdown(hostile).decode()
    assert shown in render_html(hostile).decode()
    console = Console(width=200, record=True, color_system=None, file=io.StringIO())
    for renderable in terminal_report(hostile):
        console.print(renderable)
    assert shown in console.export_text()


@pytest.mark.parametrize("by", [GroupBy.AGENT, GroupBy.FILE])
def test_the_chart_count_is_the_charts_drawn(by: GroupBy, monkeypatch: pytest.MonkeyPatch) -> None:
    """A progress display's total (`chart_count`) is what `charts.DRAWN` is told of, one per
    figure on the page: replay and turn ECDFs, the outcome bars, the histograms of the groups
    charted (fewer groups than there are, here: the others get no histogram)."""
    monkeypatch.setattr(html_module, "CHARTED_GROUPS", 5)
    report = build_report([str(ROOT / "sample_traces")], by=by, jobs=1)
    drawn: list[None] = []
    token = charts_module.DRAWN.set(lambda: drawn.append(None))
    try:
        page = render_html(report).decode()
    finally:
        charts_module.DRAWN.reset(token)
    assert chart_count(report) == len(drawn) == page.count("<figure")
    assert "Turns, tool calls and permission requests" in page  # (turn charts counted too)
    assert len(report.groups) > 5 or by is GroupBy.AGENT


def test_markdown_says_a_group_has_no_resumes_rather_than_a_row_of_dashes(
    tmp_path: Path,
) -> None:
    (tmp_path / "none.jsonl").write_bytes(transcript("quiet-agent", "1.0", []).text())
    write_corpus(tmp_path, ALPHA_1, [])
    page = render_markdown(build_report([str(tmp_path)], jobs=1)).decode()
    quiet = page[page.index("#### quiet-agent") :]
    quiet = quiet[: quiet.index("</details>")]
    assert NO_RESUMES in quiet
    assert "request → response" not in quiet
    assert "| metric |" in page  # (the groups with resumes keep their table)
