"""Idle-timer verdicts: the longest silence of each replay, and what a quiet-period timer of
each length would have cut (`max_replay_gap_ms`, `replay_pauses`, `idle_timers`)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from acptrace.cli import app
from acptrace.judge.idle_timers import (
    DEFAULT_IDLE_TIMEOUTS_MS,
    IdleVerdict,
    idle_verdicts,
    parse_idle_timeouts,
    timeout_text,
    updates_lost,
)
from acptrace.model.domain import ResumeRow, Role, Stamp
from acptrace.report import GroupBy, build_report
from tests.transcript import Transcript

runner = CliRunner()


def paged(t: Transcript, *, marker: bool = True, ok: bool = True) -> Transcript:
    """A replay in two pages: 3 updates 10 ms apart, 400 ms of silence, 2 more, then (60 ms
    later) the marker; the response 900 ms after that; a held update 2 s after the marker."""
    t.open()
    t.initialize()
    t.resume(id=7)
    t.history(count=3)
    t.update("agent_message", messageId="p2", at_ms=t.now_ms + 400)
    t.update("agent_message", messageId="p3")
    if marker:
        t.marker(at_ms=t.now_ms + 60)
        t.update("usage_update", at_ms=t.now_ms + 2000)  # held: after the marker
    t.result(7, at_ms=t.now_ms + 900) if ok else t.error(7, -32603, at_ms=t.now_ms + 900)
    t.close()
    return t


def pauses(row: ResumeRow) -> list[tuple[float, int]]:
    return [(p.gap_ms, p.updates_after) for p in row.replay_pauses]


# -- the gaps of a replay ---------------------------------------------------------------------


def test_the_longest_silence_runs_from_the_request_to_the_marker() -> None:
    (row,) = paged(Transcript()).analyze().resumes
    assert row.max_replay_gap_ms == 400.0  # not the 2 s after the marker, nor the response's
    assert pauses(row) == [(10.0, 5), (400.0, 2)]


def test_without_a_marker_the_silence_before_the_response_counts() -> None:
    (row,) = paged(Transcript(), marker=False).analyze().resumes
    assert row.outcome == "unmarked_success"
    assert row.max_replay_gap_ms == 900.0
    assert pauses(row) == [(10.0, 5), (400.0, 2), (900.0, 0)]  # nothing left to lose in it


def test_a_truncated_replay_is_measured_up_to_its_error_response() -> None:
    (row,) = paged(Transcript(), marker=False, ok=False).analyze().resumes
    assert row.outcome == "truncated"
    assert row.max_replay_gap_ms == 900.0


def test_a_replay_cut_by_the_end_of_the_file_ends_at_its_last_update() -> None:
    t = Transcript()
    t.initialize()
    t.resume(id=7)
    t.history(count=2)
    t.update("agent_message", messageId="late", at_ms=t.now_ms + 250)
    (row,) = t.analyze().resumes
    assert row.outcome == "unknown"
    assert pauses(row) == [(10.0, 3), (250.0, 1)]


def test_an_empty_replay_is_the_silence_from_request_to_marker() -> None:
    t = Transcript()
    t.initialize()
    t.resume(id=7)
    t.marker(at_ms=t.now_ms + 120)
    t.result(7)
    (row,) = t.analyze().resumes
    assert row.max_replay_gap_ms == 120.0
    assert pauses(row) == [(120.0, 0)]


def test_untimed_transcripts_and_resumes_without_replay_have_no_gap() -> None:
    untimed = paged(Transcript(timed=False)).analyze().resumes[0]
    assert (untimed.max_replay_gap_ms, untimed.replay_pauses) == (None, ())
    t = Transcript()
    t.initialize()
    t.new_session()
    t.resume(id=7, replay=False)
    t.update("agent_message_chunk", at_ms=t.now_ms + 500)
    t.result(7)
    (row,) = t.analyze().resumes
    assert row.outcome == "no_replay"
    assert (row.max_replay_gap_ms, row.replay_pauses) == (None, ())


def test_updates_of_other_sessions_do_not_break_the_silence() -> None:
    t = Transcript()
    t.initialize()
    t.new_session("other")
    t.resume(id=7)
    t.update("agent_message", messageId="a")
    t.update("agent_message_chunk", "other", at_ms=t.now_ms + 300)
    t.update("agent_message", messageId="b", at_ms=t.now_ms + 300)
    t.marker()
    t.result(7)
    row = t.analyze().resumes[0]
    assert row.max_replay_gap_ms == 600.0
    assert pauses(row) == [(10.0, 2), (600.0, 1)]


def test_a_child_replay_is_measured_from_its_announcement() -> None:
    t = Transcript()
    t.initialize()
    t.resume(id=7)
    t.history(count=1)
    t.announce("child_1")
    t.update("agent_message", "child_1", messageId="c1", at_ms=t.now_ms + 70)
    t.marker("child_1", at_ms=t.now_ms + 30)
    t.marker(at_ms=t.now_ms + 500)
    t.result(7)
    parent, child = t.analyze().resumes
    assert child.role is Role.CHILD
    assert pauses(child) == [(70.0, 1)]
    # from the announcement (the parent's last update): the child's traffic is not the parent's
    assert parent.max_replay_gap_ms == 600.0


def test_a_clock_going_back_leaves_that_gap_out_rather_than_negative() -> None:
    t = Transcript()
    t.initialize()
    t.resume(id=7)
    t.update("agent_message", messageId="a", at_ms=t.now_ms + 200)
    t.update("agent_message", messageId="b", at_ms=t.now_ms - 100)  # time_went_back
    t.marker(at_ms=t.now_ms + 30)
    t.result(7)
    row = t.analyze().resumes[0]
    assert row.max_replay_gap_ms == 200.0
    assert all(p.gap_ms >= 0 for p in row.replay_pauses)


@pytest.mark.parametrize(
    ("before", "after", "ns"),
    [
        (Stamp(1, 100, 10), Stamp(2, 300, 15), 5),  # monotonic when both have it
        (Stamp(1, 100, None), Stamp(2, 300, 15), 200),  # else wall
        (Stamp(1, 100, 20), Stamp(2, 300, 15), 200),  # monotonic went back: wall
        (Stamp(1, 300, 20), Stamp(2, 100, 15), None),  # both went back
        (Stamp(1, 300, None), Stamp(2, 100, None), None),
        (Stamp(1, None, None), Stamp(2, 100, 15), None),
    ],
)
def test_a_gap_is_never_negative(before: Stamp, after: Stamp, ns: int | None) -> None:
    assert before.ns_until(after) == ns


# -- the verdicts -----------------------------------------------------------------------------


def test_each_timeout_cuts_what_came_after_the_first_silence_that_long() -> None:
    (row,) = paged(Transcript()).analyze().resumes
    assert [updates_lost(row, ms) for ms in (5, 10, 50, 400, 401, 30_000)] == [5, 5, 2, 2, 0, 0]
    assert idle_verdicts([row, row], (50.0, 1000.0)) == (
        IdleVerdict(50.0, 2, 2, 4),
        IdleVerdict(1000.0, 2, 0, 0),
    )


def test_a_silence_before_the_marker_only_is_not_a_cut() -> None:
    (row,) = paged(Transcript(), marker=False).analyze().resumes
    assert updates_lost(row, 500.0) == 0  # fired in the 900 ms before the response: all came
    assert idle_verdicts([row], (500.0,)) == (IdleVerdict(500.0, 1, 0, 0),)


def test_untimed_replays_are_not_judged() -> None:
    (row,) = paged(Transcript(timed=False)).analyze().resumes
    assert updates_lost(row, 50.0) is None
    assert idle_verdicts([row]) == tuple(
        IdleVerdict(ms, 0, 0, 0) for ms in DEFAULT_IDLE_TIMEOUTS_MS
    )


@pytest.mark.parametrize(
    ("text", "ms"),
    [
        ("50ms,100ms,250ms,1s,5s,30s", DEFAULT_IDLE_TIMEOUTS_MS),
        ("1s,50ms", (1000.0, 50.0)),
        (" 2.5s , 75 ", (2500.0, 75.0)),
        ("0.5ms", (0.5,)),
        ("1s,50ms,1000ms,1s", (1000.0, 50.0)),
    ],
)
def test_timeouts_are_read_in_milliseconds(text: str, ms: tuple[float, ...]) -> None:
    assert parse_idle_timeouts(text) == ms


@pytest.mark.parametrize("text", ["", "1x", "-5ms", "0s", "1s,,2s", "1 min", "ms"])
def test_anything_else_is_not_a_timeout(text: str) -> None:
    with pytest.raises(ValueError, match="timeout"):
        parse_idle_timeouts(text)


def test_timeouts_are_shown_in_their_unit() -> None:
    assert [timeout_text(ms) for ms in (50.0, 0.5, 1000.0, 2500.0)] == [
        "50 ms", "0.5 ms", "1 s", "2.5 s"
    ]  # fmt: skip


# -- analyze and report -----------------------------------------------------------------------


def write(tmp_path: Path, name: str, t: Transcript) -> str:
    path = tmp_path / name
    path.write_bytes(t.text())
    return str(path)


def test_analyze_json_carries_the_gap_and_the_verdicts(tmp_path: Path) -> None:
    path = write(tmp_path, "run.jsonl", paged(Transcript()))
    result = runner.invoke(
        app, ["analyze", path, "-f", "json", "--idle-timeouts", "50ms,1s", "--ignore", "SCHEMA-"]
    )
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    (row,) = document["resumes"]
    assert row["max_replay_gap_ms"] == 400.0
    assert row["replay_pauses"] == [
        {"gap_ms": 10.0, "updates_after": 5},
        {"gap_ms": 400.0, "updates_after": 2},
    ]
    assert document["idle_timers"] == [
        {"timeout_ms": 50.0, "replays": 1, "cut_short": 1, "updates_lost": 2},
        {"timeout_ms": 1000.0, "replays": 1, "cut_short": 0, "updates_lost": 0},
    ]


def test_analyze_shows_the_idle_timer_table(tmp_path: Path) -> None:
    path = write(tmp_path, "run.jsonl", paged(Transcript()))
    result = runner.invoke(app, ["analyze", path, "--ignore", "SCHEMA-"])
    assert result.exit_code == 0, result.output
    lines = result.stdout.split("Idle timers")[1].splitlines()
    rows = [line.split() for line in lines if line.strip().endswith(("0", "2"))]
    assert rows == [  # 50, 100 and 250 ms fire in the 400 ms between the pages
        ["50", "ms", "1", "of", "1", "2"],
        ["100", "ms", "1", "of", "1", "2"],
        ["250", "ms", "1", "of", "1", "2"],
        ["1", "s", "0", "of", "1", "0"],
        ["5", "s", "0", "of", "1", "0"],
        ["30", "s", "0", "of", "1", "0"],
    ]


def test_a_bad_timeout_is_a_usage_error(tmp_path: Path) -> None:
    path = write(tmp_path, "run.jsonl", paged(Transcript()))
    for command in ("analyze", "report"):
        result = runner.invoke(app, [command, path, "--idle-timeouts", "soon"])
        assert result.exit_code == 2
        assert "--idle-timeouts" in result.stderr


def agent_run(t: Transcript, agent: str, silence_ms: float) -> Transcript:
    """One replay by `agent`: 2 updates, a silence, 3 more, the marker, the response."""
    t.open()
    t.request("initialize", {"protocolVersion": 2}, id=0)
    t.result(0, {"protocolVersion": 2, "info": {"name": agent, "version": "1"}})
    t.resume(id=7)
    t.history(count=2)
    t.update("agent_message", messageId="x", at_ms=t.now_ms + silence_ms)
    t.history(count=2)
    t.marker()
    t.result(7)
    t.close()
    return t


def test_report_counts_cut_replays_per_adapter(tmp_path: Path) -> None:
    write(tmp_path, "a1.jsonl", agent_run(Transcript(), "paged-agent", 300.0))
    write(tmp_path, "a2.jsonl", agent_run(Transcript(), "paged-agent", 2000.0))
    write(tmp_path, "b.jsonl", agent_run(Transcript(), "steady-agent", 20.0))
    report = build_report([str(tmp_path)], by=GroupBy.AGENT, jobs=1)
    verdicts = {
        g.name: [(v.cut_short, v.updates_lost) for v in g.idle_timers] for g in report.groups
    }
    assert verdicts == {
        "paged-agent": [(2, 6), (2, 6), (2, 6), (1, 3), (0, 0), (0, 0)],
        "steady-agent": [(0, 0)] * 6,
    }
    chosen = build_report([str(tmp_path)], jobs=1, idle_timeouts_ms=(300.0, 301.0))
    assert [(v.timeout_ms, v.cut_short) for v in chosen.groups[0].idle_timers] == [
        (300.0, 2), (301.0, 1)
    ]  # fmt: skip
    out = tmp_path / "report.json"
    result = runner.invoke(app, ["report", str(tmp_path), "-j", "1", "--idle-timeouts", "1s",
                                 "-o", str(out)])  # fmt: skip
    assert result.exit_code == 0, result.output
    groups = {g["name"]: g["idle_timers"] for g in json.loads(out.read_text())["groups"]}
    assert groups["paged-agent"] == [
        {"timeout_ms": 1000.0, "replays": 2, "cut_short": 1, "updates_lost": 3}
    ]
    table = result.stdout.split("Idle timers")[1].split("Findings")[0]
    assert [line.split() for line in table.splitlines() if "agent" in line] == [
        ["paged-agent", "1", "s", "1", "of", "2", "3"],
        ["steady-agent", "1", "s", "0", "of", "1", "0"],
    ]


def test_report_pages_show_the_idle_timers_per_group(tmp_path: Path) -> None:
    write(tmp_path, "a.jsonl", agent_run(Transcript(), "paged-agent", 300.0))
    markdown, page = tmp_path / "report.md", tmp_path / "report.html"
    result = runner.invoke(app, ["report", str(tmp_path / "a.jsonl"), "-q", "--idle-timeouts",
                                 "250ms,1s", "-o", str(markdown), "-o", str(page)])  # fmt: skip
    assert result.exit_code == 0, result.output
    rows = [line for line in markdown.read_text().splitlines() if " of 1 |" in line]
    assert rows == ["| 250 ms | 1 of 1 | 3 |", "| 1 s | 0 of 1 | 0 |"]
    html = page.read_text()
    assert "<h3>Idle timers</h3>" in html
    assert (
        '<tr class="bad"><td class="num" data-label="idle timer">250 ms</td>'
        '<td class="num" data-label="replays cut short">1 of 1</td>'
    ) in html
