"""`acptrace export --format trace-event`: Chrome Trace Event JSON as the format's published
rules require it (JSON Object Format; required fields per phase; microsecond `ts`/`dur`;
matching B/E; slices of a track nest), and the timeline it draws of a transcript."""

from __future__ import annotations

import io
import json
import math
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import acptrace
from acptrace.cli import app
from acptrace.cli.export_command import ExportChoice
from acptrace.export.file_formats import ExportFormat
from acptrace.export.trace_clock import Axis, Moment, place
from acptrace.export.trace_event import trace_events
from tests import shared
from tests.golden import ROOT
from tests.transcript import Transcript

runner = CliRunner()
SAMPLES = sorted((ROOT / "sample_traces").glob("*.jsonl"))
REAL_WORLD = sorted(shared.REAL_WORLD.glob("*.jsonl"))
"""Third-party recordings, where `../shared` is there (untimed formats among them)."""
PHASES = {"X", "i", "I", "M", "B", "E"}
METADATA = {"process_name", "process_labels", "process_sort_index", "thread_name",
            "thread_sort_index"}  # fmt: skip
EPSILON = 1e-6


def check_trace_format(document: Any) -> list[dict[str, Any]]:
    """The document follows the Trace Event Format's rules; its events."""
    assert isinstance(document, dict)
    events = document["traceEvents"]
    assert isinstance(events, list)
    assert document.get("displayTimeUnit", "ms") in {"ms", "ns"}
    named_threads, named_processes = set(), set()
    used_threads, open_b = set(), defaultdict(list)
    for event in events:
        assert event["ph"] in PHASES, event
        assert isinstance(event["name"], str), event
        assert type(event["pid"]) is int, event
        assert type(event["tid"]) is int, event
        assert isinstance(event.get("args", {}), dict), event
        if event["ph"] == "M":
            assert event["name"] in METADATA, event
            if event["name"].endswith("_name"):
                assert isinstance(event["args"]["name"], str), event
            else:
                assert type(event["args"]["sort_index"]) is int, event
            if event["name"] == "thread_name":
                named_threads.add((event["pid"], event["tid"]))
            if event["name"] == "process_name":
                named_processes.add(event["pid"])
            continue
        assert _microseconds(event["ts"]), event
        used_threads.add((event["pid"], event["tid"]))
        match event["ph"]:
            case "X":
                assert _microseconds(event["dur"]), event
            case "i" | "I":
                assert event.get("s", "t") in {"g", "p", "t"}, event
            case "B":
                open_b[(event["pid"], event["tid"])].append(event)
            case "E":
                begun = open_b[(event["pid"], event["tid"])].pop()
                assert begun["ts"] <= event["ts"], event
    assert all(not stack for stack in open_b.values()), "a B without its E"
    assert used_threads <= named_threads, "a track without a name"
    assert {pid for pid, _ in used_threads} <= named_processes
    _check_nesting(events)
    return events


def _microseconds(value: Any) -> bool:
    """A time in microseconds: a finite, non-negative number with at most ns precision."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return False
    return value >= 0 and abs(value * 1000 - round(value * 1000)) < 1e-3


def _check_nesting(events: list[dict[str, Any]]) -> None:
    """Complete events of one track nest: each one ends before its enclosing one ends."""
    by_track = defaultdict(list)
    for event in events:
        if event["ph"] == "X":
            by_track[(event["pid"], event["tid"])].append(event)
    for track, slices in by_track.items():
        stack: list[float] = []
        for event in sorted(slices, key=lambda e: (e["ts"], -e["dur"])):
            start, end = event["ts"], event["ts"] + event["dur"]
            while stack and stack[-1] <= start + EPSILON:
                stack.pop()
            assert not stack or end <= stack[-1] + EPSILON, (track, event)
            stack.append(end)


def export(data: bytes) -> list[dict[str, Any]]:
    """The events of one transcript's timeline, checked against the format."""
    document = trace_events([io.BytesIO(data)])
    return check_trace_format(json.loads(json.dumps(document)))


def named(events: list[dict[str, Any]], name: str, ph: str = "X") -> list[dict[str, Any]]:
    return [e for e in events if e["name"] == name and e["ph"] == ph]


def track_names(events: list[dict[str, Any]]) -> dict[int, str]:
    return {e["tid"]: e["args"]["name"] for e in events if e["name"] == "thread_name"}


# -- every sample -----------------------------------------------------------------------------


@pytest.mark.parametrize("path", SAMPLES, ids=lambda path: path.name)
def test_every_sample_exports_a_valid_timeline_that_agrees_with_its_analysis(
    path: Path, tmp_path: Path
) -> None:
    out = tmp_path / "trace.json"
    result = runner.invoke(app, ["export", str(path), "-f", "trace-event", "-o", str(out)])
    assert result.exit_code == 0, result.output
    events = check_trace_format(json.loads(out.read_bytes()))
    analysis = acptrace.analyze(path)
    requests = {(e["tid"], e["args"]["line"]): e for e in events if e.get("cat") == "request"}
    for row in analysis.resumes:
        if row.role.value != "requested":
            continue
        (request,) = [e for (_, line), e in requests.items() if line == row.request_line]
        if row.request_to_response_ms is not None:
            assert request["dur"] == pytest.approx(row.request_to_response_ms * 1000, abs=1)
        window = (row.request_line, row.session_id)
        replays = [e for e in named(events, "replay")
                   if (e["args"]["request_line"], e["args"]["session"]) == window]  # fmt: skip
        assert len(replays) == row.replaying
        if replays and row.request_to_marker_ms is not None:
            assert replays[0]["dur"] == pytest.approx(row.request_to_marker_ms * 1000, abs=1)  # µs
    shown = {(e["args"]["rule"], e["args"]["line"]) for e in events if e.get("cat") == "finding"}
    assert shown == {(f.rule, f.line) for f in analysis.findings}


@pytest.mark.shared
@pytest.mark.parametrize("path", REAL_WORLD, ids=lambda path: path.name)
def test_every_real_world_recording_exports_a_valid_timeline(path: Path) -> None:
    events = check_trace_format(json.loads(json.dumps(trace_events([str(path)]))))
    analysis = acptrace.analyze(path)
    shown = {(e["args"]["rule"], e["args"]["line"]) for e in events if e.get("cat") == "finding"}
    assert shown == {(f.rule, f.line) for f in analysis.findings}


def test_export_writes_to_stdout_without_o() -> None:
    result = runner.invoke(app, ["export", str(SAMPLES[0]), "--format", "trace-event"])
    assert result.exit_code == 0, result.output
    check_trace_format(json.loads(result.stdout))
    assert "trace events" in result.stderr


def test_an_unreadable_input_writes_nothing(tmp_path: Path) -> None:
    out = tmp_path / "trace.json"
    missing = str(tmp_path / "missing.jsonl")
    result = runner.invoke(app, ["export", missing, "-f", "trace-event", "-o", str(out)])
    assert result.exit_code == 2
    assert not out.exists()


def test_tables_still_need_a_directory() -> None:
    result = runner.invoke(app, ["export", str(SAMPLES[0])])
    assert result.exit_code == 2
    assert "--output" in result.stderr


def test_the_format_choice_holds_every_table_format() -> None:
    assert {f.value for f in ExportFormat} | {"trace-event", "otlp", "speedscope"} == {
        c.value for c in ExportChoice
    }


# -- the timeline -----------------------------------------------------------------------------


def paged() -> Transcript:
    """A replay of 3 updates with 400 ms of silence, its marker, a held update, the response."""
    t = Transcript()
    t.open()
    t.initialize()
    t.resume(id=7, at_ms=1000)
    t.history(count=2)
    t.update("agent_message", messageId="late", at_ms=t.now_ms + 400)
    t.marker(at_ms=1500)
    t.update("state_update", at_ms=1600)
    t.result(7, at_ms=2250)
    t.close(at_ms=3000)
    return t


def test_a_replay_window_shows_its_phases_in_microseconds() -> None:
    events = export(paged().text())
    (resume,) = named(events, "session/resume")
    assert (resume["ts"], resume["dur"]) == (990_000.0, 1_250_000.0)  # from the open at 10 ms
    spans = {name: (e["ts"], e["dur"]) for name in ("replay", "held", "setup")
             for e in named(events, name)}  # fmt: skip
    assert spans == {
        "replay": (990_000.0, 500_000.0),
        "held": (1_490_000.0, 100_000.0),
        "setup": (1_590_000.0, 650_000.0),
    }
    (marker,) = named(events, "replay_complete", "i")
    assert (marker["ts"], marker["cat"], marker["s"]) == (1_490_000.0, "marker", "t")
    assert resume["tid"] == marker["tid"] == named(events, "replay")[0]["tid"]
    assert track_names(events)[resume["tid"]] == "sess_1"
    assert named(events, "replay")[0]["args"]["max_replay_gap_ms"] == 400.0


def test_a_replay_without_marker_is_one_phase_to_its_response() -> None:
    t = Transcript()
    t.initialize()
    t.resume(id=7, at_ms=100)
    t.history(count=2)
    t.error(7, -32603, at_ms=400)
    events = export(t.text())
    assert [(e["ts"], e["dur"]) for e in named(events, "replay")] == [(90_000.0, 300_000.0)]
    assert named(events, "held") == named(events, "setup") == []
    assert named(events, "session/resume")[0]["args"]["error_code"] == -32603


def test_findings_are_instants_with_their_rule_and_line() -> None:
    t = Transcript()
    t.initialize()
    t.resume(id=7)
    t.history(count=1)
    answer = t.result(7)  # no marker: RC-MISSING
    events = export(t.text())
    (finding,) = [e for e in events if e.get("cat") == "finding" and e["name"] == "RC-MISSING"]
    assert finding["args"]["line"] == answer
    assert finding["args"]["severity"] == "error"
    assert (finding["ph"], finding["s"]) == ("i", "t")


def test_the_monotonic_clock_wins_over_a_jumping_wall_clock() -> None:
    t = Transcript()
    t.initialize()
    t.request("session/new", {"cwd": "/"}, id=5)
    line = t.result(5, {"sessionId": "s"}, at_ms=t.now_ms + 100)
    t.lines[line - 1] = t.lines[line - 1].replace(b'"ts":"2025-12-02T10', b'"ts":"2025-12-02T11')
    events = export(t.text())
    assert named(events, "session/new")[0]["dur"] == 100_000.0


def test_a_wall_clock_only_transcript_is_timed_by_the_wall_clock() -> None:
    t = Transcript()
    t.initialize()
    t.request("session/new", {"cwd": "/"}, id=5)
    t.result(5, {"sessionId": "s"}, at_ms=t.now_ms + 250)
    t.lines = [line.split(b',"mono_ns":')[0] + b"," + line.split(b",", 2)[2] for line in t.lines]
    document = trace_events([io.BytesIO(t.text())])
    assert document["otherData"]["axes"] == ["wall"]
    assert named(check_trace_format(document), "session/new")[0]["dur"] == 250_000.0


def test_an_untimed_transcript_is_laid_out_by_line_and_says_so() -> None:
    t = Transcript(timed=False)
    t.initialize()
    t.resume(id=7)
    t.history(count=2)
    t.marker()
    t.result(7)
    document = trace_events([io.BytesIO(t.text())])
    events = check_trace_format(document)
    assert document["otherData"]["axes"] == ["lines"]
    (process,) = [e for e in events if e["name"] == "process_name"]
    assert "no times" in process["args"]["name"]
    assert named(events, "session/resume")[0]["dur"] == 4.0  # lines 3 to 7


def test_overlapping_requests_of_a_session_take_a_second_track() -> None:
    t = Transcript()
    t.initialize()
    t.new_session()
    t.request("session/prompt", {"sessionId": "sess_1"}, id=1, at_ms=1000)
    t.request("session/set_mode", {"sessionId": "sess_1"}, id=2, at_ms=1100)
    t.result(1, at_ms=1200)  # the prompt ends before the mode change: no nesting
    t.result(2, at_ms=1300)
    events = export(t.text())
    prompt, mode = named(events, "session/prompt")[0], named(events, "session/set_mode")[0]
    names = track_names(events)
    assert prompt["tid"] != mode["tid"]
    assert {names[prompt["tid"]], names[mode["tid"]]} == {"sess_1", "sess_1 (2)"}


def test_unanswered_requests_last_until_the_end() -> None:
    t = Transcript()
    t.initialize()
    t.request("session/prompt", {"sessionId": "sess_1"}, id=1, at_ms=100)
    t.update("agent_message_chunk", at_ms=600)
    events = export(t.text())
    (prompt,) = named(events, "session/prompt")
    assert (prompt["dur"], prompt["args"]["unanswered"]) == (500_000.0, True)


def test_each_file_is_a_process(tmp_path: Path) -> None:
    first, second = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    first.write_bytes(paged().text())
    second.write_bytes(paged().text())
    events = check_trace_format(trace_events([str(first), str(second)]))
    processes = {e["pid"]: e["args"]["name"] for e in events if e["name"] == "process_name"}
    assert processes == {1: str(first), 2: str(second)}
    assert {e["pid"] for e in named(events, "session/resume")} == {1, 2}


@pytest.mark.parametrize(
    ("moments", "axis", "expected"),
    [
        ([Moment(1, 5_000, 1_000), Moment(2, 9_000, 3_000)], Axis.MONOTONIC, [0, 2]),
        ([Moment(1, 5_000, 1_000), Moment(2, 9_000, None)], Axis.MONOTONIC, [0, 4]),  # offset
        ([Moment(1, None, None), Moment(2, None, 3_000)], Axis.MONOTONIC, [0, 0]),
        ([Moment(1, 5_000, None), Moment(2, 7_499, None)], Axis.WALL, [0, 2]),
        ([Moment(1, 5_000, None), Moment(2, 7_500, None)], Axis.WALL, [0, 3]),  # half up
        ([Moment(3, None, None), Moment(9, None, None)], Axis.LINES, [0, 6]),
        ([], Axis.LINES, []),
    ],
)
def test_moments_are_placed_on_one_axis(
    moments: list[Moment], axis: Axis, expected: list[int]
) -> None:
    placed = place(moments, axis)
    assert placed == expected
    assert all(type(value) is int for value in placed)


def test_times_are_whole_microseconds_so_touching_slices_add_up_exactly() -> None:
    """A viewer adds `ts` and `dur` in floating point after moving the track's start to 0
    (speedscope does): with decimals, a replay phase ending at 36107.639 could end after the
    held phase that begins there, and the viewer sees two slices overlap."""
    events = export((ROOT / "sample_traces" / "mixed-session.jsonl").read_bytes())
    timed = [e for e in events if e["ph"] in {"X", "i"}]
    assert all(type(e["ts"]) is int for e in timed)
    assert all(type(e["dur"]) is int for e in timed if e["ph"] == "X")
    tracks: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for event in timed:
        if event["ph"] == "X":
            tracks[event["tid"]].append(event)
    touching = 0
    for slices in tracks.values():
        origin = float(min(e["ts"] for e in slices))
        ends = {float(e["ts"]) - origin + float(e["dur"]) for e in slices}
        touching += sum(1 for e in slices if float(e["ts"]) - origin in ends)
    assert touching >= 2  # the held and setup phases begin where the phase before them ended


def test_sorting_on_disk_in_small_batches_gives_the_same_bytes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The export sorts its events in batches merged from disk: with batches of 7 events (runs
    on disk for every sample) the document is the one sorted in memory, byte for byte."""
    from acptrace.export.trace_event import write_trace_events
    from acptrace.model import spill

    def document() -> bytes:
        made = io.BytesIO()
        write_trace_events([str(path) for path in SAMPLES], made.write)
        return made.getvalue()

    whole = document()
    monkeypatch.setattr(spill, "BATCH", 7)
    assert document() == whole
    assert whole.count(b'"ph":"X"') > 7 * 3


def test_a_refused_replay_says_so() -> None:
    # outcome `refused` (outcomes.md, 2026-12-07): the replay's window event names it
    events = export((ROOT / "sample_traces" / "outcome-refused.jsonl").read_bytes())
    (window,) = named(events, "replay")
    assert (window["args"]["outcome"], window["args"]["replayed_updates"]) == ("refused", 0)
