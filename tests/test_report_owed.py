"""`acptrace report` over real Agents (rules.md §11, "report: shares over what owes the thing
shared" and "A regression gate that can check nothing fails"): the marker share counts only the
replays that owe a marker, loads have a line of their own, a group where nothing owes a marker
leads with request -> response, the cut replays are only the cut ones, "first at" is in time
order, and a gate that can check nothing exits 2 naming the measure that has values."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from typer.testing import CliRunner

from acptrace.cli import app
from acptrace.model.domain import Outcome
from acptrace.report import GroupBy, Metric, build_report
from acptrace.report.document import document
from acptrace.report.html import render_html
from acptrace.report.markdown_page import render_markdown
from acptrace.report.markdown_parts import escape
from acptrace.report.numbers import stat_text
from acptrace.report.summaries import REPLAY_METRICS, Group, Report
from acptrace.report.terminal import CUT_TITLE, terminal_report
from tests.shared import REAL_WORLD
from tests.test_report import complete, transcript
from tests.transcript import Transcript

runner = CliRunner()
ZERO_OF = re.compile(r"\b0/\d+ \(")
"""A marker share of nothing complete: `0/3 (0.0%)`."""
LOADS_HEADING = ["loads", "loaded", "refused", "truncated", "unknown", "ambig"]
"""The columns of the terminal's table of loads."""


def terminal_text(report: Report, width: int = 200) -> str:
    console = Console(width=width, record=True, color_system=None, file=io.StringIO())
    for renderable in terminal_report(report):
        console.print(renderable)
    return console.export_text()


def lines_after(text: str, title: str) -> list[str]:
    """The lines of the section whose title starts with `title`, to the next blank line after
    its heading."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(title))
    end = next((i for i in range(start + 3, len(lines)) if not lines[i].strip()), len(lines))
    return lines[start:end]


def row_of(lines: list[str], name: str) -> str:
    (row,) = [line for line in lines if line.startswith(f" {name} ")]
    return row


def cell(lines: list[str], name: str, heading: str) -> str:
    """The last word of a right-aligned column's cell in the row of `name` (lines: a table's
    title, a blank line, its heading, its rule and its rows)."""
    header = lines[2]
    end = header.index(f" {heading} ") + len(heading) + 1 if f" {heading} " in header else None
    if end is None:
        end = header.rindex(heading) + len(heading)
    return row_of(lines, name)[:end].split()[-1]


def named(report: Report, name: str) -> Group:
    return next(g for g in report.groups if g.name == name)


def v1_agent(name: str, offset_ms: float = 0.0, timed: bool = True) -> Transcript:
    """A v1 connection to an Agent of this name, starting `offset_ms` after the others."""
    t = Transcript(timed=timed, now_ms=offset_ms)
    t.open()
    t.initialize(version=1)
    t.lines.pop()  # (the result names the Agent: test-agent; this one is `name`)
    info = {"name": name, "version": "1.0"}
    t.result(0, {"protocolVersion": 1, "agentCapabilities": {}, "info": info})  # (CAP-UNADVERTISED)
    return t


def load(t: Transcript, session: str, request: int, updates: int, at_ms: float) -> None:
    """A `session/load` of `session` and some replayed history, unanswered (yet)."""
    t.request("session/load", {"sessionId": session, "cwd": "/", "mcpServers": []}, id=request,
              at_ms=at_ms)  # fmt: skip
    for index in range(updates):
        kind = ("user_message_chunk", "agent_message_chunk")[index % 2]
        t.update(kind, session, at_ms=at_ms + 1 + index, content={"type": "text", "text": "hi"})


def v1_loads(name: str = "old-acp", offset_ms: float = 0.0, timed: bool = True) -> Transcript:
    """Every way a v1 load ends: answered (two, 300 and 900 ms), refused (an error before any
    update), truncated (updates, then an error) and unknown (pending where the file stops)."""
    t = v1_agent(name, offset_ms, timed)
    at = offset_ms
    load(t, "s1", 10, 3, at_ms=at + 1_000)
    t.result(10, at_ms=at + 1_300)
    load(t, "s2", 11, 2, at_ms=at + 2_000)
    t.result(11, at_ms=at + 2_900)
    load(t, "s3", 12, 0, at_ms=at + 3_000)
    t.error(12, -32002, at_ms=at + 3_005)
    load(t, "s4", 13, 2, at_ms=at + 4_000)
    t.error(13, -32603, at_ms=at + 4_050)
    load(t, "s5", 14, 1, at_ms=at + 5_000)  # (no response, no recorded end: unknown)
    return t


def v2_mixed() -> Transcript:
    """A v2 Agent: two complete replays, one refused, two overlapping (ambiguous) and one
    answered without a marker (unmarked_success)."""
    t = transcript("new-acp", "2.0", complete(700, 900))
    t.lines.pop()  # (reopen after the recorded close)
    t.resume("sess_r", id=50, at_ms=100_000)
    t.error(50, -32002, at_ms=100_010)  # refused: nothing replayed
    t.resume("sess_o", id=51, at_ms=110_000)
    t.resume("sess_o", id=52, at_ms=110_001)
    t.update("user_message", "sess_o", at_ms=110_002)  # (while both are pending: ambiguous)
    t.marker("sess_o", at_ms=110_003)
    t.result(51, at_ms=110_004)
    t.result(52, at_ms=110_005)
    t.resume("sess_u", id=53, at_ms=120_000)
    t.update("user_message", "sess_u", at_ms=120_001)
    t.result(53, at_ms=120_050)  # unmarked_success (RC-MISSING)
    t.close(at_ms=130_000)
    return t


@pytest.fixture(scope="module")
def mixed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("owed")
    (root / "new.jsonl").write_bytes(v2_mixed().text())
    (root / "old.jsonl").write_bytes(v1_loads().text())
    return root


def test_the_marker_share_counts_only_the_replays_that_owe_a_marker(mixed: Path) -> None:
    report = build_report([str(mixed / "new.jsonl")], jobs=1)
    group = named(report, "new-acp")
    outcomes = {o.value: n for o, n in group.outcomes.items() if n}
    assert outcomes == {"complete": 2, "refused": 1, "ambiguous": 2, "unmarked_success": 1}
    assert (group.replaying, group.expecting_marker) == (6, 3)  # (not the refused, ambiguous)
    assert group.rate(Outcome.COMPLETE) == 2 / 3
    assert group.rate(Outcome.UNMARKED_SUCCESS) == 1 / 3
    assert group.rate(Outcome.REFUSED) == 1 / 6  # (of every replay)
    assert group.rate(Outcome.AMBIGUOUS) == 2 / 6
    data = document(report)["groups"][0]
    assert data["expecting_marker"] == 3
    assert data["rates"]["complete"] == 2 / 3
    overview = lines_after(terminal_text(report), "Resumes by group")
    assert " 2/3 (66.7%) " in row_of(overview, "new-acp")
    counts = [cell(overview, "new-acp", h) for h in ("unmarked", "cut", "refused", "ambig")]
    assert counts == ["1", "0", "1", "2"]
    assert "| 2/3 (66.7%) | 1 | 0 | 1 | 2 |" in render_markdown(report).decode()


def test_loads_have_a_line_of_their_own_never_a_marker_share(mixed: Path) -> None:
    """A v1 Agent's loads owe no marker: answered, refused, truncated and unknown counted on
    their own line; the complete share is `—` (null), never `0/N complete`."""
    report = build_report([str(mixed / "old.jsonl")], jobs=1)
    group = named(report, "old-acp")
    assert (group.replaying, group.loads, group.expecting_marker) == (5, 5, 0)
    loads = {o.value: n for o, n in group.load_outcomes.items() if n}
    assert loads == {"loaded": 2, "refused": 1, "truncated": 1, "unknown": 1}
    assert group.rate(Outcome.COMPLETE) is None
    assert group.rate(Outcome.TRUNCATED) is None  # (a truncated load is no marker missing)
    assert group.rate(Outcome.LOADED) == 2 / 5
    data = document(report)["groups"][0]
    assert data["loads"] == 5
    assert data["load_outcomes"] == {
        "loaded": 2,
        "refused": 1,
        "truncated": 1,
        "unknown": 1,
        "ambiguous": 0,
    }
    assert data["rates"]["complete"] is None
    for width in (80, 200):
        text = terminal_text(report, width)
        assert not ZERO_OF.search(text), text
        table = lines_after(text, "Loads (session/load")
        assert table[2].split() == ["group", *LOADS_HEADING]
        assert row_of(table, "old-acp").split()[1:] == ["5", "2", "1", "1", "1", "0"]
    markdown = render_markdown(report).decode()
    assert not ZERO_OF.search(markdown)
    assert (
        "Loads (session/load, no marker owed): 5: 2 answered with success, 1 refused, "
        "1 truncated, 1 unknown, 0 ambiguous."
    ) in markdown
    page = render_html(report).decode()
    assert not ZERO_OF.search(page)
    assert "5: 2 answered with success, 1 refused, 1 truncated, 1 unknown, 0 ambiguous" in page


def test_a_group_that_owes_no_marker_leads_with_request_to_response(mixed: Path) -> None:
    """Each group its own headline: marker -> response for the v2 Agent, request -> response
    (percentiles, slowest list, charts) for the v1 one, never a column of dashes."""
    report = build_report([str(mixed)], jobs=1)
    new, old = named(report, "new-acp"), named(report, "old-acp")
    assert new.headline is Metric.MARKER_TO_RESPONSE
    assert old.headline is Metric.REQUEST_TO_RESPONSE
    assert old.metrics[Metric.MARKER_TO_RESPONSE].count == 0
    # the slowest by request -> response: the 900 ms load first, the refused one (5 ms) last
    assert [r.request_to_response_ms for r in old.slowest] == [900.0, 300.0, 50.0, 5.0]
    assert [r.marker_to_response_ms for r in new.slowest][:2] == [900.0, 700.0]
    assert [g["headline"] for g in document(report)["groups"]] == [
        "marker_to_response_ms",
        "request_to_response_ms",
    ]
    text = terminal_text(report)
    overview = lines_after(text, "Resumes by group")
    assert overview[0].rstrip() == "Resumes by group (p50, p90, p99 of each group's latency)"
    old_row = row_of(overview, "old-acp")
    assert "request→resp" in old_row
    assert stat_text(Metric.REQUEST_TO_RESPONSE, old.metrics[old.headline], "p90") in old_row
    assert "marker→resp" in row_of(overview, "new-acp")
    assert "marker → response: replays per log-spaced bin" in text
    assert "request → response: replays per log-spaced bin" in text
    slowest = lines_after(text, "Slowest replays")
    assert (
        slowest[0].rstrip() == "Slowest replays (top 3 per group, by each group's headline latency)"
    )
    assert "900.0 ms" in row_of(slowest, "old-acp")
    latencies = lines_after(text, "Latency and throughput")  # (old-acp: one line, no dashes)
    assert "request → response" in row_of(latencies, "old-acp")
    assert sum("marker → response" in line for line in latencies) == 1  # (new-acp's)
    assert len(latencies) == 4 + len(REPLAY_METRICS) + 1
    markdown = render_markdown(report).decode()
    assert "| latency | p50 | p90 | p99 |" in markdown
    assert "| request→resp |" in markdown
    page = render_html(report).decode()
    assert page.count("ECDF of ") == 2  # one chart per headline latency
    assert "Slowest replays (request → response)" in page
    assert "Slowest replays (marker → response)" in page


def test_the_cut_replays_are_only_the_cut_ones(tmp_path: Path) -> None:
    """truncated, complete_failed and unknown are cut; unmarked_success, refused and ambiguous
    are counted on their own and never listed as cut."""
    t = v2_mixed()
    t.lines.pop()  # (reopen)
    t.resume("sess_t", id=60, at_ms=140_000)
    t.update("user_message", "sess_t", at_ms=140_001)
    t.error(60, -32603, at_ms=140_010)  # truncated
    t.resume("sess_f", id=61, at_ms=150_000)
    t.update("user_message", "sess_f", at_ms=150_001)
    t.marker("sess_f", at_ms=150_002)
    t.error(61, -32603, at_ms=150_010)  # complete_failed
    t.resume("sess_p", id=62, at_ms=160_000)  # unknown: pending where the file stops
    (tmp_path / "t.jsonl").write_bytes(t.text())
    (tmp_path / "old.jsonl").write_bytes(v1_loads().text())
    report = build_report([str(tmp_path)], jobs=1)
    new, old = named(report, "new-acp"), named(report, "old-acp")
    cut = [r.outcome.value for r in new.cut]
    assert cut == ["truncated", "complete_failed", "unknown"]
    assert new.cut_total == 3
    assert [r.outcome.value for r in old.cut] == ["truncated", "unknown"]  # (the loads')
    data = document(report)["groups"][0]
    assert [r["outcome"] for r in data["incomplete"]] == cut
    text = terminal_text(report)
    listed = lines_after(text, CUT_TITLE)
    assert not any(o in line for line in listed for o in ("unmarked", "refused", "ambiguous"))
    overview = lines_after(text, "Resumes by group")
    heading = overview[2].split()
    assert heading[heading.index("complete") + 1 :][:4] == ["unmarked", "cut", "refused", "ambig"]


def test_first_at_orders_by_time_not_path(tmp_path: Path) -> None:
    """`a.jsonl` sorts first but was recorded an hour after `b.jsonl`: the first place of a rule
    is b's, in the report over the transcripts and over their export alike."""
    (tmp_path / "a.jsonl").write_bytes(v1_loads(offset_ms=3_600_000).text())
    (tmp_path / "b.jsonl").write_bytes(v1_loads().text())
    (tmp_path / "0-untimed.jsonl").write_bytes(v1_loads(timed=False).text())
    report = build_report([str(tmp_path)], jobs=1)
    (group,) = report.groups
    first = {count.rule: [Path(p).name for p, _ in count.first] for count in group.findings}
    assert first, "the loads break some rule"
    for places in first.values():
        assert places == ["b.jsonl", "a.jsonl", "0-untimed.jsonl"][: len(places)]
    assert [Path(r.path).name for r in group.cut] == ["b.jsonl", "b.jsonl", "a.jsonl",
        "a.jsonl", "0-untimed.jsonl", "0-untimed.jsonl"]  # fmt: skip
    exported = tmp_path.parent / f"{tmp_path.name}-export"
    result = runner.invoke(app, ["export", str(tmp_path), "-o", str(exported)])
    assert result.exit_code in (0, 1), result.output
    over_tables = build_report([str(exported)], jobs=1)
    assert over_tables.groups[0].findings == group.findings
    assert over_tables.groups[0].cut == group.cut


def test_a_gate_on_a_v1_agent_that_checks_nothing_exits_2_naming_request_to_response(
    mixed: Path, tmp_path: Path
) -> None:
    old_report = tmp_path / "old.json"
    only_v1 = str(mixed / "old.jsonl")
    assert runner.invoke(app, ["report", only_v1, "-q", "-o", str(old_report)]).exit_code == 0
    args = ["report", only_v1, "--baseline", str(old_report), "-o", str(tmp_path / "new.json")]
    failed = runner.invoke(app, [*args, "--max-regression", "p90=20%"])
    assert failed.exit_code == 2, failed.output
    assert failed.stderr.splitlines() == [
        "acptrace: error: --max-regression p90=20% checked nothing: no group has marker → "
        "response p90 in both reports; request → response p90 has values "
        "(request_to_response.p90=20% would check it)"
    ]
    assert "1 limit checked nothing." in failed.stdout
    verdict: dict[str, Any] = json.loads((tmp_path / "new.json").read_text())["comparison"]
    assert (verdict["passed"], verdict["unchecked"]) == (False, ["p90=20%"])
    # the comparison leaves out what neither side has: no column of dashes for a v1 Agent
    assert [d["measure"] for d in verdict["deltas"]] == [
        "marker_to_response_ms.p90",  # (named by the limit: "no data")
        "request_to_response_ms.p50",
        "request_to_response_ms.p90",
        "request_to_response_ms.p99",
        "rate.loaded",
    ]
    share = runner.invoke(app, [*args, "--max-regression", "complete=1pp"])
    assert share.exit_code == 2
    assert share.stderr.splitlines() == [
        "acptrace: error: --max-regression complete=1pp checked nothing: no group has complete "
        "rate in both reports; loaded rate has values (loaded=1pp would check it)"
    ]
    checked = runner.invoke(app, [*args, "--max-regression", "request_to_response.p90=20%"])
    assert checked.exit_code == 0, checked.output
    assert "No regression beyond the limits." in checked.stdout


@pytest.mark.shared
def test_a_report_over_real_agents_leads_each_with_numbers() -> None:
    """The recordings of real Agents (v1, and v2 without a marker yet): per Agent,
    request -> response percentiles and slowest replays, and no `0/N complete` for a group
    that owes no marker."""
    folders = [REAL_WORLD / "agents-2026-12", REAL_WORLD / "agents-2026-12b"]
    if not all(folder.is_dir() for folder in folders):
        pytest.skip(f"{REAL_WORLD} lacks agents-2026-12 or agents-2026-12b")
    report = build_report([str(f) for f in folders], by=GroupBy.AGENT, jobs=1)
    agents = [g for g in report.groups if g.name != "unknown"]
    assert len(agents) >= 8
    for group in agents:
        assert group.headline is Metric.REQUEST_TO_RESPONSE, group.name
        assert group.metrics[Metric.REQUEST_TO_RESPONSE].p90 is not None, group.name
        assert group.slowest, group.name
        assert group.slowest[0].request_to_response_ms is not None
    names = {g.name for g in agents}
    assert {"codex-acp", "cline", "qwen-code", "OpenCode"} <= names
    text = terminal_text(report, 120)
    overview = lines_after(text, "Resumes by group")
    assert overview[0].rstrip() == "Resumes by group (p50, p90, p99: request → response)"
    for group in report.groups:
        row = row_of(overview, group.name) if len(group.name) < 25 else None
        if not group.owes_marker:
            assert group.expecting_marker == 0
            if row is not None:
                assert not ZERO_OF.search(row), row
                assert " — " in row
        if row is not None:
            p50 = stat_text(Metric.REQUEST_TO_RESPONSE, group.metrics[group.headline], "p50")
            assert p50 in row
    owing = [g for g in report.groups if g.owes_marker]  # (v2 claude and codex: no marker yet)
    assert owing
    assert all(g.replay_outcomes[Outcome.COMPLETE] == 0 for g in owing)
    assert "Loads (session/load: no marker owed)" in text
    assert "Slowest replays (top 3 per group, by request → response)" in text
    page = render_html(report).decode()
    assert page.count("ECDF of request → response") == 1
    markdown = render_markdown(report).decode()
    overview = markdown.split("### Turns", 1)[0].splitlines()  # (the turns have a table too)
    for group in report.groups:
        (row,) = [line for line in overview if line.startswith(f"| {escape(group.name)} |")]
        assert ZERO_OF.search(row) is None or group.owes_marker, row
