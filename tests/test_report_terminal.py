"""`acptrace report` out of the box: charts without an extra (matplotlib loaded by nothing but the
HTML report), the terminal's bars and tables at 80, 100 and 120 columns, percentiles of few
replays marked, v1 loads apart from marker completeness, and the report's own files skipped."""

from __future__ import annotations

import io
import itertools
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from rich.console import Console
from rich.text import Text
from typer.testing import CliRunner

from acptrace.cli import app
from acptrace.model.domain import Outcome
from acptrace.report import build_report
from acptrace.report.baseline import Comparison, compare, load_baseline, parse_thresholds
from acptrace.report.document import document, dumps
from acptrace.report.html import render_html
from acptrace.report.markdown_page import render_markdown
from acptrace.report.numbers import FEW_LEGEND, FEW_MARK, ms_text, stat_text
from acptrace.report.own_files import split_own_files, written_by_report
from acptrace.report.relative import end_names, short_places
from acptrace.report.summaries import FEW_REPLAYS, Metric, Report
from acptrace.report.terminal import terminal_report
from acptrace.report.terminal_parts import (
    BAR_BINS,
    BAR_WIDTH,
    PATH_CHARS,
    bar,
    edge_texts,
)
from tests.golden import ROOT
from tests.test_report import (
    ALPHA_1,
    ALPHA_2,
    BETA_1,
    BETA_2,
    FAILED,
    TRUNCATED,
    complete,
    transcript,
    write_corpus,
)
from tests.transcript import Transcript

SAMPLE = ROOT / "sample_traces" / "outcome-complete.jsonl"

LOADED_MODULES = """
import sys
from typer.testing import CliRunner
from acptrace.cli import app
result = CliRunner().invoke(app, sys.argv[1:])
assert result.exit_code in (0, 1), result.output
print("matplotlib" in sys.modules)
"""
"""Runs the CLI in a fresh interpreter and says whether matplotlib got imported."""


def imports_matplotlib(*arguments: str) -> bool:
    done = subprocess.run(
        [sys.executable, "-c", LOADED_MODULES, *arguments],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    return done.stdout.strip().splitlines()[-1] == "True"


def test_only_the_html_report_imports_matplotlib(tmp_path: Path) -> None:
    assert not imports_matplotlib("analyze", str(SAMPLE))
    assert not imports_matplotlib("report", str(SAMPLE), "-o", str(tmp_path / "r.json"))
    assert imports_matplotlib("report", str(SAMPLE), "-q", "-o", str(tmp_path / "r.html"))
    assert "<img" in (tmp_path / "r.html").read_text()  # the charts, on a plain install


runner = CliRunner()
V1_LOAD = ROOT / "sample_traces" / "outcome-loaded-v1.jsonl"
"""A v1 `session/load` answered with success: outcome `loaded`, no marker expected."""
LONG_NAME = "an-agent-with-a-name-far-too-long-for-a-narrow-terminal-acp"


def terminal_text(report: Report, width: int, comparison: Comparison | None = None) -> str:
    """The terminal report as printed at this width, without colour."""
    console = Console(width=width, record=True, color_system=None, file=io.StringIO())
    for renderable in terminal_report(report, comparison):
        console.print(renderable)
    return console.export_text()


def section(text: str, title: str, until: str | None = None) -> list[str]:
    """The lines of the section whose title line starts with `title`, up to the next blank
    line after its body (or up to the line starting with `until`)."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(title))
    if until is not None:
        end = next(i for i in range(start, len(lines)) if lines[i].startswith(until))
    else:
        end = next((i for i in range(start + 2, len(lines)) if not lines[i].strip()), len(lines))
    return lines[start:end]


@pytest.fixture(scope="module")
def release_1(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_corpus(tmp_path_factory.mktemp("r1") / "runs", ALPHA_1, BETA_1)


# -- the bars ---------------------------------------------------------------------------------


def test_each_group_gets_bars_that_fit_80_columns(release_1: Path) -> None:
    report = build_report([str(release_1)], jobs=1)
    text = terminal_text(report, 80)
    title = f"{Metric.MARKER_TO_RESPONSE.label}: replays per log-spaced bin"
    bars = section(text, title, until="Latency and throughput")
    assert "alpha-acp · 10 replays" in bars
    assert "beta-acp · 6 replays" in bars
    rows = [line for line in bars if " to " in line]
    assert len(rows) == 2 * BAR_BINS  # one line per bin and group: a small chart
    assert len(bars) <= 2 * (BAR_BINS + 2) + 1
    counts = [int(row.split()[-1]) for row in rows]
    assert sum(counts[:BAR_BINS]) == 10
    assert sum(counts[BAR_BINS:]) == 6
    fullest = max(rows, key=lambda row: int(row.split()[-1]))
    assert fullest.count("█") == BAR_WIDTH
    for row, count in zip(rows, counts, strict=True):
        assert ("█" in row or "▏" in row) == (count > 0)
    assert all(Text(line).cell_len <= 80 for line in text.splitlines())
    narrow = section(terminal_text(report, 60), title, until="Latency and throughput")
    assert all(Text(line).cell_len <= 60 for line in narrow)
    assert any("█" in line for line in narrow)


def test_bins_of_a_narrow_spread_tell_their_edges_apart(tmp_path: Path) -> None:
    """Replays 0.4 ms apart: one decimal would label bins `807.0 ms to 807.0 ms`."""
    t = transcript("alpha-acp", "1.0", complete(807.0, 807.4))
    (tmp_path / "a.jsonl").write_bytes(t.text())
    text = terminal_text(build_report([str(tmp_path)], jobs=1), 80)
    title = f"{Metric.MARKER_TO_RESPONSE.label}: replays per log-spaced bin"
    rows = [line for line in section(text, title) if " to " in line]
    assert len(rows) == BAR_BINS
    edges = [row.split(" to ")[0].split()[-2] for row in rows]
    edges.append(rows[-1].split(" to ")[1].split()[0])
    assert len(set(edges)) == len(edges), rows
    assert all(float(low) < float(high) for low, high in itertools.pairwise(edges))


def test_bin_edges_get_no_more_decimals_than_they_need() -> None:
    assert edge_texts([700.0, 800.0, 1200.0]) == ["700.0 ms", "800.0 ms", "1.20 s"]
    assert edge_texts([807.0, 807.05, 807.1]) == ["807.00 ms", "807.05 ms", "807.10 ms"]


def test_a_bar_is_drawn_to_an_eighth_of_a_cell() -> None:
    assert bar(0, 10, 40) == ""
    assert bar(10, 10, 40) == "█" * 40
    assert bar(1, 1000, 40) == "▏"  # never invisible
    assert bar(5, 8, 8) == "█████"
    assert bar(3, 16, 8) == "█▌"


# -- few samples ------------------------------------------------------------------------------


@pytest.mark.parametrize(("replays", "few"), [(FEW_REPLAYS - 1, True), (FEW_REPLAYS, False)])
def test_percentiles_of_fewer_than_20_replays_are_marked(
    tmp_path: Path, replays: int, few: bool
) -> None:
    latencies = [700.0 + 10 * i for i in range(replays)]
    t = transcript("alpha-acp", "1.0", complete(*latencies))
    (tmp_path / "a.jsonl").write_bytes(t.text())
    report = build_report([str(tmp_path)], jobs=1)
    metrics = document(report)["groups"][0]["metrics"]
    assert metrics["marker_to_response_ms"]["few_samples"] is few
    assert metrics["marker_to_response_ms"]["count"] == replays
    p50 = ms_text(report.groups[0].metrics[Metric.MARKER_TO_RESPONSE].p50)
    text = terminal_text(report, 120)
    assert (f"{p50}{FEW_MARK}" in text) is few
    assert (FEW_LEGEND in text) is few
    assert (f"{p50}{FEW_MARK}" in section(text, "Resumes by group")[4]) is few
    markdown = render_markdown(report).decode()
    assert (f"{p50}\\{FEW_MARK}" in markdown) is few
    assert (FEW_MARK in markdown.replace(f"\\{FEW_MARK}", "")) is False  # never emphasis
    page = render_html(report).decode()
    assert (f'<td class="num" data-label="p50">{p50}{FEW_MARK}</td>' in page) is few
    assert (FEW_LEGEND in page) is few


# -- v1 loads ---------------------------------------------------------------------------------


def test_v1_loads_are_counted_apart_from_marker_completeness(tmp_path: Path) -> None:
    loads = tmp_path / "v1"
    loads.mkdir()
    for index in range(3):
        shutil.copy(V1_LOAD, loads / f"load-{index}.jsonl")
    only_loads = build_report([str(loads)], jobs=1)
    (group,) = only_loads.groups
    assert (group.replaying, group.loaded, group.expecting_marker) == (3, 3, 0)
    assert group.rate(Outcome.COMPLETE) is None  # not 0 % complete: no marker was expected
    assert group.rate(Outcome.LOADED) == 1.0
    data = document(only_loads)["groups"][0]
    assert data["rates"]["complete"] is None
    assert data["expecting_marker"] == 0
    zero = re.compile(r"(?<![\d.])0\.0%")  # 0.0 %, not 100.0 %
    for width in (80, 120):
        text = terminal_text(only_loads, width)
        assert not zero.search(text)
        overview = section(text, "Resumes by group")
        header, row = overview[2], overview[4]
        for title, lines in (("Loads", section(text, "Loads")), ("Resumes by group", overview)):
            if "loaded" in lines[2]:  # (at 80 columns in the table of loads alone)
                end = lines[2].index("loaded") + len("loaded")  # a right-aligned column
                assert lines[4][:end].split()[-1] == "3", title
        assert width == 80 or "loaded" in header
        # (no marker anywhere: the percentiles are of request → response, and say so)
        assert "p50, p90, p99: request → response" in overview[0]
        assert row.rstrip().endswith("ms*"), row
        assert row.count(" ms*") == 3, row
    markdown = render_markdown(only_loads).decode()
    assert not zero.search(markdown)
    assert "| request→response p50 |" in markdown
    html = render_html(only_loads).decode()
    assert not zero.search(html)
    assert "p50, p90, p99: request → response" in html

    t = transcript("claude-agent-acp", "1.2.0", complete(700, 800))
    (loads / "v2.jsonl").write_bytes(t.text())
    mixed = build_report([str(loads)], jobs=1)
    (group,) = mixed.groups
    assert (group.replaying, group.loaded, group.expecting_marker) == (5, 3, 2)
    assert group.rate(Outcome.COMPLETE) == 1.0
    assert "2 (100.0%)" in terminal_text(mixed, 80)
    assert "p50, p90, p99: marker → response" in terminal_text(mixed, 80)  # (two had markers)
    assert "| marker→response p50 |" in render_markdown(mixed).decode()


# -- the report's own files -------------------------------------------------------------------


def test_reports_written_into_an_input_folder_are_skipped(release_1: Path, tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    shutil.copytree(release_1, runs)
    outputs = [runs / name for name in ("report.json", "report.md", "report.html")]
    first = runner.invoke(app, ["report", str(runs), "-q", *(f"-o{o}" for o in outputs)])
    assert first.exit_code == 0, first.output
    # recognised by content, not by name: renamed to suffixes a folder's transcripts have
    (runs / "report.md").rename(runs / "comment.txt")
    (runs / "report.html").rename(runs / "page.log")
    shutil.copy(runs / "report.json", runs / "old.jsonl")
    garbage = runs / "next.json"  # an -o target is skipped whatever it holds
    garbage.write_text("not a transcript\n")
    again = runner.invoke(app, ["report", f"{runs}/*", "-q", "-o", str(garbage)])
    assert again.exit_code == 0, again.stderr
    skipped = [line for line in again.stderr.splitlines() if "skipped" in line]
    assert len(skipped) == 1
    assert "skipped 5 reports written by acptrace report" in skipped[0]
    for name in ("comment.txt", "page.log", "old.jsonl", "report.json", "next.json"):
        assert name in skipped[0]
    data = json.loads(garbage.read_text())
    assert data["files"] == {"analysed": 3, "failed": 0}
    assert [g["name"] for g in data["groups"]] == ["alpha-acp", "beta-acp"]
    assert build_report([str(runs)], jobs=1).files == 3  # the library skips them too


def test_only_a_report_is_taken_for_one(tmp_path: Path) -> None:
    (tmp_path / "t.jsonl").write_bytes(transcript("alpha-acp", "1.0", complete(700)).text())
    (tmp_path / "other.json").write_text('{"kind": "something-else"}\n')
    (tmp_path / "page.html").write_text("<!DOCTYPE html><html><head></head></html>\n")
    (tmp_path / "notes.md").write_text("## acptrace latency report\n")  # no marker line
    paths = [str(p) for p in sorted(tmp_path.iterdir())]
    assert [written_by_report(p) for p in paths] == [False] * 4
    assert split_own_files(paths) == (paths, [])


# -- widths -----------------------------------------------------------------------------------

UNIT_ALONE = re.compile(r"(^\s*|\s\s)(ms|s|/s|%\)?|pp)(\s|$)")
"""A unit standing alone: its number was wrapped onto another line."""
DECIMAL_WITHOUT_UNIT = re.compile(r"\d+\.\d+(?!\d)(?! ?(ms|s\b|%|pp))")
"""A decimal whose unit is missing: every decimal the report shows has one."""
CUT_NUMBER = re.compile(r"\d…|…\d")
"""A number cut with an ellipsis."""


@pytest.fixture(scope="module")
def crowded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Report, Comparison]:
    """Two releases of three adapters, one with a long name in deep folders, faults and a few
    replays each: every table of the terminal report, the comparison too."""
    root = tmp_path_factory.mktemp("crowded")
    reports = []
    for release, (alpha, beta) in enumerate(((ALPHA_1, BETA_1), (ALPHA_2, BETA_2))):
        runs = write_corpus(root / f"release-{release}" / "runs", alpha, beta)
        deep = runs / "nightly" / "linux-x86_64" / "with-a-long-folder-name"
        deep.mkdir(parents=True)
        resumes = [*complete(810.8, 2412.5, 9123.4, 12345.6), TRUNCATED, FAILED, TRUNCATED]
        long_path = deep / "a-transcript-with-a-long-file-name.jsonl"
        long_path.write_bytes(transcript(LONG_NAME, "3.0", resumes).text())
        (deep / "duplicate-marker-in-a-long-file-name.jsonl").write_bytes(duplicate_marker())
        reports.append(build_report([str(runs)], jobs=1))
    old, new = reports
    baseline_path = root / "old.json"
    baseline_path.write_bytes(dumps(old))
    thresholds = parse_thresholds(["p90=20%", "complete=1pp"])
    return new, compare(new, load_baseline(str(baseline_path)), thresholds)


def duplicate_marker() -> bytes:
    """A transcript whose resume has two markers: a finding (RC-DUPLICATE)."""
    t = Transcript()
    t.open()
    t.initialize()
    t.resume(id=3)
    t.history()
    t.marker()
    t.marker()
    t.result(3)
    t.close()
    return t.text()


def assert_fits_whole(text: str, width: int) -> None:
    """Every line fits the width, and no number is wrapped, cut or without its unit."""
    for line in text.splitlines():
        assert Text(line).cell_len <= width, line
        assert not UNIT_ALONE.search(line), line
        assert not DECIMAL_WITHOUT_UNIT.search(line), line
        assert not CUT_NUMBER.search(line), line


def left_out(lines: list[str]) -> list[str]:
    """The headings the note under a table names as left out (none: all shown)."""
    text = " ".join(" ".join(lines).split())
    note = text.split("Left out at ", 1)[1].split(" (COLUMNS=")[0] if "Left out" in text else ""
    return note.split(" columns: ", 1)[1].split(", ") if note else []


@pytest.mark.parametrize("width", [60, 70, 80, 100, 120, 200])
def test_terminal_tables_never_wrap_or_cut_a_number(
    crowded: tuple[Report, Comparison], width: int
) -> None:
    report, comparison = crowded
    text = terminal_text(report, width, comparison)
    assert_fits_whole(text, width)
    lines = text.splitlines()
    for title in (
        "Resumes by group",
        "Latency and throughput",
        "Findings by rule",
        "Slowest replays",
        "Cut replays",
        "Compared with",
    ):
        assert any(line.startswith(title) for line in lines), title
    assert comparison.regressions
    assert "REGRESSED" in text  # words of a closed set are never cut either
    # every percentile of the headline metric is shown whole, with its mark
    lines = section(text, "Resumes by group", until="*")
    overview = "\n".join(lines)
    hidden = left_out(lines)
    assert "p50" not in hidden
    for group in report.groups:
        for stat in ("p50", "p90", "p99"):
            shown = stat_text(group.headline, group.metrics[group.headline], stat)
            assert stat in hidden or shown in overview, (stat, width)
    for title in ("Slowest replays", "Cut replays"):
        assert "file:line" in section(text, title)[2].split(), (title, width)  # (names the row)
    rows = itertools.takewhile(str.strip, lines[4:])  # (past the title, a blank, the heading)
    names = [line.split()[0] for line in rows]
    assert len(names) == len(set(names)) == len(report.groups)  # (told apart, even cut)
    if width >= 200:  # (below, the counts of every outcome come before whole names)
        assert LONG_NAME in names
    else:
        (cut,) = [n for n in names if n.endswith(LONG_NAME[-10:])]  # (its end, as a path)
        assert "…" in cut
        assert len(cut) < len(LONG_NAME)


def test_a_long_path_keeps_its_line_number_whole() -> None:
    assert short_places(["runs/alpha-0.jsonl:34"], 30) == ["runs/alpha-0.jsonl:34"]
    long = "/tmp/nightly/linux-x86_64/with-a-long-folder-name/codex-acp-22.jsonl:16109"
    assert short_places([long], 30) == ["…/codex-acp-22.jsonl:16109"]
    name = "a-transcript-with-a-very-long-file-name-1234567.jsonl:8300"
    (shown,) = short_places([name], PATH_CHARS)
    assert shown.endswith(".jsonl:8300")
    assert not CUT_NUMBER.search(shown)
    assert len(shown) <= PATH_CHARS


def test_a_path_in_a_file_line_is_cut_as_a_group_name_is() -> None:
    """One name, one way: the path of a `file:line` keeps its end as `end_names` keeps a group
    name's (whole folders, else the end of the name), at the room its longest line number
    leaves; two that would read alike keep more of their folders."""
    places = ["runs/claude-drive/01-replay.jsonl:4", "runs/codex-drive/01-replay.jsonl:12"]
    shown = short_places(places, 30)
    assert shown == [
        f"{cut}:{line}"
        for cut, line in zip(
            end_names([p.rsplit(":")[0] for p in places], 27), ("4", "12"), strict=True
        )
    ]
    assert len(set(shown)) == 2
    assert all(
        cut.endswith("-drive/01-replay.jsonl:" + line)
        for cut, line in zip(shown, ("4", "12"), strict=True)
    )


@pytest.mark.parametrize("width", [60, 70, 80, 120, 200])
def test_report_by_file_tells_long_names_apart_and_keeps_numbers_whole(
    tmp_path: Path, width: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    deep = Path("nightly-runs") / "linux-x86_64" / "with-a-long-folder-name"
    deep.mkdir(parents=True)
    names = []
    for index, agent in enumerate(("claude-agent-acp", "codex-acp", "gemini-cli-acp")):
        for run in (1, 2):
            path = deep / f"{agent}-replay-session-number-{run}.jsonl"
            resumes = [*complete(700.0 + 100 * index + run, 1234.5), TRUNCATED]
            path.write_bytes(transcript(agent, "1.0", resumes).text())
            names.append(str(path))
    args = ["report", ".", "--by", "file", "--jobs", "1"]
    text = CliRunner().invoke(app, args, env={"COLUMNS": str(width)}).stdout
    lines = section(text, "Resumes by group", until="*")
    rows = list(itertools.takewhile(str.strip, lines[4:]))
    shown = [line.split()[0] for line in rows]
    assert len(set(shown)) == len(names)
    assert f"paths relative to {deep}/" in " ".join(text.split())  # (once, not on every row)
    if width == 200:
        assert sorted(shown) == sorted(Path(name).name for name in names)  # (whole: room)
    assert all(len(line) <= width for line in text.splitlines())
    for line in text.splitlines():
        assert not CUT_NUMBER.search(line), line
        assert not UNIT_ALONE.search(line), line
    hidden = left_out(lines)
    assert hidden or width == 200
    assert "p50" not in hidden


def test_the_complete_share_says_what_it_is_a_share_of(crowded: tuple[Report, Comparison]) -> None:
    report, _ = crowded
    lines = section(terminal_text(report, 200), "Resumes by group", until="*")
    legend = " ".join(" ".join(lines).split())
    assert "complete: share of the replays that owe a marker (v2 resumes with replayFrom" in legend
    for group in report.groups:
        (row,) = [line for line in lines if line.startswith(f" {group.name} ")]
        complete = group.replay_outcomes[Outcome.COMPLETE]
        assert f" {complete}/{group.expecting_marker} (" in row


@pytest.mark.parametrize("width", [60, 70, 80, 120, 200])
@pytest.mark.parametrize("by", ["agent", "file"])
def test_report_over_the_samples_keeps_every_number_whole(width: int, by: str) -> None:
    args = ["report", str(ROOT / "sample_traces"), "--by", by, "--jobs", "1"]
    text = CliRunner().invoke(app, args, env={"COLUMNS": str(width)}).stdout
    lines = text.splitlines()
    assert all(len(line) <= width for line in lines)
    for line in lines:
        assert not CUT_NUMBER.search(line), line
        assert not UNIT_ALONE.search(line), line
        assert not DECIMAL_WITHOUT_UNIT.search(line), line
    overview = section(text, "Resumes by group", until="*")
    names = [line.split()[0] for line in itertools.takewhile(str.strip, overview[4:])]
    assert len(names) == len(set(names))
    if width == 200:
        assert not any("…" in name for name in names)


def test_at_80_columns_the_overview_keeps_what_a_reader_looks_for_first(
    crowded: tuple[Report, Comparison],
) -> None:
    """Resumes, the complete share, the cut replays, the errors and the p50 and p90 stay at 80
    columns; the counts the legend and the Loads table say more of go first."""
    report, _ = crowded
    lines = section(terminal_text(report, 80), "Resumes by group", until="*")
    heading = lines[2].split()
    for kept in ("group", "resumes", "complete", "cut", "errors", "p50", "p90"):
        assert kept in heading, (kept, heading)
    assert "conn" in left_out(lines)
