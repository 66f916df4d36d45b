"""The turn sections of every report view (#36): first output, turn duration, tool-call
duration and permission wait per group, what each did not count and why, and the slowest of
each, in the terminal (at 60, 80 and 120 columns), report.md and report.html; none for groups
without turns; the same over the real recordings, and a gate on `first_output.p90` that fails on
a slowed copy of one and passes on the original."""

from __future__ import annotations

import html
import io
import re
from datetime import datetime
from pathlib import Path

import orjson
import pytest
from rich.console import Console
from rich.text import Text
from typer.testing import CliRunner

from acptrace.cli import app
from acptrace.report import build_report
from acptrace.report.html import render_html
from acptrace.report.markdown_page import render_markdown
from acptrace.report.summaries import GroupBy, Metric, Report
from acptrace.report.terminal import terminal_report
from acptrace.report.turn_summaries import LeftOut
from tests.shared import REAL_WORLD
from tests.test_report_terminal import CUT_NUMBER, assert_fits_whole, section
from tests.transcript import Transcript, complete_connection

HOSTILE_TITLE = "<script>alert(1)</script> [x](https://evil.example) | @someone"
"""A tool call's title that would be HTML, a link, a table cell and a mention if not escaped."""


def turn_file(first_output_ms: float, duration_ms: float, *, unfinished: bool = False) -> bytes:
    """A v2 connection with one turn whose first output and duration are given, with a tool
    call of 200 ms (a permission answered after 50 ms inside it); `unfinished` adds a second
    turn that the recording ends before its `idle`."""
    t = Transcript()
    t.open()
    t.initialize()
    t.new_session()
    t.prompt(id=5, at_ms=1000.0)
    t.tool("t1", at_ms=1001.0, kind="execute", title=HOSTILE_TITLE, status="pending")
    t.permission("t1", id="p1", at_ms=1002.0)
    t.choose("p1", "allow", at_ms=1052.0)
    t.tool("t1", at_ms=1201.0, status="completed")
    text = {"type": "text", "text": "done"}
    t.update("agent_message_chunk", at_ms=1000.0 + first_output_ms, content=text)
    t.state("idle", stop_reason="end_turn", at_ms=1000.0 + duration_ms)
    if unfinished:
        t.prompt(id=6, at_ms=1000.0 + duration_ms + 10)
    return t.text()


@pytest.fixture(scope="module")
def turns(tmp_path_factory: pytest.TempPathFactory) -> Report:
    """Two groups by directory with turns (`slow` has one the recording did not finish) and one
    without any (`resumes-only`)."""
    root = tmp_path_factory.mktemp("turns")
    for folder, first, duration in (("fast", 100.0, 400.0), ("slow", 2000.0, 5000.0)):
        (root / folder).mkdir()
        for index in range(3):
            data = turn_file(first + index, duration + index, unfinished=folder == "slow")
            (root / folder / f"run-{index}.jsonl").write_bytes(data)
    (root / "resumes-only").mkdir()
    (root / "resumes-only" / "a.jsonl").write_bytes(complete_connection().text())
    return build_report([str(root)], by=GroupBy.DIRECTORY, jobs=1)


def terminal_text(report: Report, width: int) -> str:
    console = Console(width=width, record=True, color_system=None, file=io.StringIO())
    for renderable in terminal_report(report):
        console.print(renderable)
    return console.export_text()


def test_the_fixture_has_what_the_views_show(turns: Report) -> None:
    fast, resumes_only, slow = turns.groups
    assert [g.name.rsplit("/", 1)[-1] for g in turns.groups] == ["fast", "resumes-only", "slow"]
    assert fast.metrics[Metric.FIRST_OUTPUT].p50 == 101.0
    assert slow.metrics[Metric.TURN_DURATION].p50 == 5001.0
    assert slow.turns.turns == 6
    assert not resumes_only.turns.any


@pytest.mark.parametrize("width", [60, 80, 120])
def test_the_terminal_shows_every_group_s_turn_latencies_whole(turns: Report, width: int) -> None:
    text = terminal_text(turns, width)
    assert_fits_whole(text, width)
    table = section(text, "Turns, tool calls and permission requests", until="*")
    shown = "\n".join(table)
    assert "resumes-only" not in shown  # (a group without turns has no line)
    for measure in ("first output", "turn duration", "tool call duration", "execute"):
        assert measure in shown, (measure, width)
    assert "permission wait" in shown
    for latency in ("101.0 ms*", "401.0 ms*", "2.00 s*", "5.00 s*", "200.0 ms*", "50.0 ms*"):
        assert latency in shown, (latency, width)  # (p50, kept at every width)
    # what was not counted and why: slow's unfinished turns, each of its three
    not_counted = section(text, "Not counted in the turn latencies")
    rows = [line.split() for line in not_counted[4:]]
    assert [row[-4:] for row in rows] == [
        ["first", "output", "3", "unfinished"],
        ["turn", "duration", "3", "unfinished"],
    ]
    assert rows[0][0].endswith("slow")
    for title in ("Slowest turns", "Slowest tool calls", "Longest permission waits"):
        slowest = section(text, title)
        assert "file:line" in slowest[2].split(), (title, width)
        assert re.search(r"run-2\.jsonl:\d+", "\n".join(slowest)), (title, width)
    assert "first output: turns per log-spaced bin" in text
    assert "turn duration: turns per log-spaced bin" in text


def test_the_terminal_shows_no_turn_section_without_turns(turns: Report) -> None:
    alone = Report(turns.group_by, (turns.groups[1],), 1, ())
    text = terminal_text(alone, 120)
    assert "Turns, tool calls" not in text
    assert "Not counted in the turn latencies" not in text
    assert "per log-spaced bin" in text  # (the replay bars are still there)


def test_the_markdown_has_a_turn_overview_and_each_group_s_details(turns: Report) -> None:
    markdown = render_markdown(turns).decode()
    overview = markdown.split("### Turns, tool calls and permission requests\n", 1)[1]
    rows = [line for line in overview.split("\n\n", 1)[0].splitlines() if line.startswith("|")]
    assert rows[0].startswith("| group | turns | first output p50 | first output p90 |")
    assert [r.split(" | ")[0].removeprefix("| ") for r in rows[2:]] == ["fast", "slow"]
    fast, slow = rows[2:]
    assert "| 3 | 101.0 ms\\* |" in fast
    assert "| 6 | 2.00 s\\* |" in slow
    details = {d.split("\n", 1)[0].rsplit("/", 1)[-1]: d for d in markdown.split("#### ")[1:]}
    assert list(details) == ["fast", "resumes-only", "slow"]
    assert "turn latency" not in details["resumes-only"]
    slow_details = details["slow"]
    assert "| first output | 3 |" in slow_details
    assert "| 3 unfinished |" in slow_details  # (not counted, and why)
    assert "| tool call duration: execute | 3 |" in slow_details
    assert "| longest permission wait | outcome | option | wait |" in slow_details
    # the title is transcript text: no HTML, link, cell or mention gets through
    assert "<script>" not in markdown
    assert not re.search(r"(?<!\\)\]\(https", markdown)  # (an escaped `\]` makes no link)
    assert "@someone" not in markdown
    title_rows = [line for line in markdown.splitlines() if "alert" in line]
    assert len(title_rows) == 6  # (each group's 3 tool calls)
    for title_row in title_rows:  # (file:line, kind, title, status, duration)
        assert title_row.count(" | ") == 4, title_row


def test_the_markdown_has_no_turn_section_without_turns(turns: Report) -> None:
    alone = Report(turns.group_by, (turns.groups[1],), 1, ())
    assert "Turns, tool calls" not in render_markdown(alone).decode()


def test_the_html_page_has_a_turn_overview_and_a_turn_section_per_group(turns: Report) -> None:
    page = render_html(turns).decode()
    assert '<a href="#turns">Turns</a>' in page
    overview = page.split('<section id="turns">', 1)[1].split("</section>", 1)[0]
    assert (
        overview.count('<td class="name" data-label="group">') == 2
    )  # fast and slow, not resumes-only
    assert '<td class="num" data-label="first output p50">101.0 ms*</td>' in overview
    assert '<td class="num" data-label="turn p50">5.00 s*</td>' in overview
    assert "ECDF of first output per group" in overview
    sections = page.split('<section class="group"')[1:]
    with_turns = [s for s in sections if "<h3>Turns, tool calls and permission requests" in s]
    assert len(with_turns) == 2
    slow = with_turns[1]
    assert "histogram of first output" in slow
    assert "histogram of turn duration" in slow
    assert '<td data-label="not counted">3 unfinished</td>' in slow
    for title in ("Slowest first output", "Longest turns", "Slowest tool calls"):
        assert f"<h4>{title}</h4>" in slow
    assert "<h4>Longest permission waits</h4>" in slow
    assert "<script>" not in page
    assert html.escape(HOSTILE_TITLE, quote=True) in slow


def test_the_html_page_has_no_turn_section_without_turns(turns: Report) -> None:
    alone = Report(turns.group_by, (turns.groups[1],), 1, ())
    page = render_html(alone).decode()
    assert 'id="turns"' not in page
    assert "<h3>Turns" not in page


@pytest.mark.shared
@pytest.mark.parametrize("folder", ["agents-2026-12", "agents-2026-12b"])
def test_every_view_of_the_real_recordings_shows_their_turns(folder: str) -> None:
    report = build_report([str(REAL_WORLD / folder)], jobs=1)
    with_turns = [g for g in report.groups if g.turns.turns]
    assert len(with_turns) >= 4
    for width in (60, 80, 120):
        text = terminal_text(report, width)
        lines = text.splitlines()  # (file names hold versions: no check of decimals' units)
        assert all(Text(line).cell_len <= width for line in lines)
        assert not any(CUT_NUMBER.search(line) for line in lines)
        table = "\n".join(section(text, "Turns, tool calls and permission requests", until="*"))
        assert table.count("first output") == len(with_turns)
    markdown = render_markdown(report).decode()
    assert markdown.count("| turn latency |") == len([g for g in report.groups if g.turns.any])
    page = render_html(report).decode()
    assert page.count("<h3>Turns, tool calls and permission requests</h3>") == len(
        [g for g in report.groups if g.turns.any]
    )


def slowed(data: bytes, factor: float) -> bytes:
    """The recording with every interval `factor` times as long (its monotonic and its wall
    clock times both stretched from its first line)."""
    records = [orjson.loads(line) for line in data.splitlines() if line.strip()]
    mono0 = records[0]["mono_ns"]
    wall0 = datetime.fromisoformat(records[0]["ts"])
    for record in records:
        record["mono_ns"] = mono0 + round((record["mono_ns"] - mono0) * factor)
        wall = wall0 + (datetime.fromisoformat(record["ts"]) - wall0) * factor
        record["ts"] = wall.isoformat().replace("+00:00", "Z")
    return b"".join(orjson.dumps(record) + b"\n" for record in records)


@pytest.mark.shared
def test_a_first_output_gate_fails_on_a_slowed_recording_and_passes_on_the_original(
    tmp_path: Path,
) -> None:
    recording = REAL_WORLD / "agents-2026-12b" / "claude-agent-acp-0.101.0_v2_live.jsonl"
    original, slow = tmp_path / "original", tmp_path / "slow"
    original.mkdir()
    slow.mkdir()
    (original / recording.name).write_bytes(recording.read_bytes())
    (slow / recording.name).write_bytes(slowed(recording.read_bytes(), 1.5))
    baseline = tmp_path / "baseline.json"
    runner = CliRunner()
    made = runner.invoke(app, ["report", str(original), "-q", "-o", str(baseline)])
    assert made.exit_code == 0, made.output
    gate = ["--baseline", str(baseline), "--max-regression", "first_output.p90=20%"]
    same = runner.invoke(
        app, ["report", str(original), "-q", "-o", str(tmp_path / "a.json"), *gate]
    )
    assert same.exit_code == 0, same.output
    worse = runner.invoke(app, ["report", str(slow), "-q", "-o", str(tmp_path / "b.json"), *gate])
    assert worse.exit_code == 1, worse.output
    deltas = orjson.loads((tmp_path / "b.json").read_bytes())["comparison"]["deltas"]
    (delta,) = [d for d in deltas if d["measure"] == "first_output_ms.p90"]
    assert delta["regressed"]
    assert [d["measure"] for d in deltas if d["regressed"]] == ["first_output_ms.p90"]
    assert delta["change_pct"] == pytest.approx(50.0, abs=0.1)


def test_a_prompt_refused_before_any_update_is_no_turn_in_the_latencies(tmp_path: Path) -> None:
    """Seven real recordings of agents-2026-12b send a prompt before the session is loaded, or
    while a load holds it; the Agent answers with an error in a few milliseconds. Counted, they
    made claude-agent-acp's turns look twice as fast (p50 551 ms for 939 ms). A turn that fails
    after its first update is a turn, and counted."""
    t = Transcript()
    t.open()
    t.initialize()
    t.new_session()
    t.prompt(id=5, at_ms=1000.0)  # refused at once: no turn ran
    t.error(5, -32602, at_ms=1002.0)
    t.prompt(id=6, at_ms=2000.0)  # began, then failed: a turn
    t.update("agent_message_chunk", at_ms=2300.0, content={"type": "text", "text": "hm"})
    t.error(6, -32603, at_ms=2900.0)
    t.prompt(id=7, at_ms=3000.0)
    t.update("agent_message_chunk", at_ms=3100.0, content={"type": "text", "text": "ok"})
    t.state("idle", stop_reason="end_turn", at_ms=3400.0)
    (tmp_path / "refused.jsonl").write_bytes(t.text())
    report = build_report([str(tmp_path)], jobs=1)
    (group,) = report.groups
    assert group.turns.turns == 3
    assert sorted(group.samples[Metric.TURN_DURATION]) == [400.0, 900.0]
    assert sorted(group.samples[Metric.FIRST_OUTPUT]) == [100.0, 300.0]
    for metric in (Metric.TURN_DURATION, Metric.FIRST_OUTPUT):
        assert group.turns.left_out[metric][LeftOut.REJECTED] == 1
    not_counted = "\n".join(section(terminal_text(report, 80), "Not counted in the turn latencies"))
    assert not_counted.count("1   rejected") == 2  # (first output, turn duration)
