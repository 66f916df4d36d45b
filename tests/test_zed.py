"""Zed's "Copy All Messages" dumps: stderr elements, several pasted arrays, `"id": null`."""

from __future__ import annotations

import io
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson
import pytest
from typer.testing import CliRunner

import acptrace
from acptrace.cli import app
from acptrace.export.trace_event import trace_events
from acptrace.model.domain import Analysis, ResumeRow
from acptrace.read.envelopes import RecorderEvent
from acptrace.read.formats.zed import leading_time_ns
from acptrace.report import GroupBy, Metric, build_report
from acptrace.tables.builder import frames
from tests import shared
from tests.transcript import NO_SCHEMA, Transcript

REAL_WORLD = shared.REAL_WORLD
ZED_DUMPS = sorted(REAL_WORLD.glob("zed-*.json"))


def entry(direction: str, kind: str, id: Any, method: str, params: Any) -> dict[str, Any]:
    """One element of a Zed dump."""
    return {"_direction": direction, "_type": kind, "id": id, "method": method, "params": params}


def stderr(text: str) -> dict[str, Any]:
    return entry("stderr", "stderr", None, "stderr", text)


NEW = entry("outgoing", "request", "u1", "session/new", {"cwd": "/"})
NEW_OK = entry("incoming", "response", "u1", "session/new", {"sessionId": "s1"})
UPDATE = entry(
    "incoming",
    "notification",
    None,
    "session/update",
    {"sessionId": "s1", "update": {"sessionUpdate": "agent_message_chunk"}},
)
PROMPT = entry("outgoing", "request", "u2", "session/prompt", {"sessionId": "s1", "prompt": []})
PROMPT_OK = entry("incoming", "response", "u2", "session/prompt", {"stopReason": "end_turn"})


def dump(*elements: dict[str, Any]) -> bytes:
    return orjson.dumps(list(elements), option=orjson.OPT_INDENT_2) + b"\n"


def opening_lines(data: bytes) -> list[int]:
    """The lines on which the elements' objects open."""
    return [n for n, text in enumerate(data.split(b"\n"), 1) if text == b"  {"]


def test_stderr_elements_are_stderr_events_not_an_issue() -> None:
    data = dump(NEW, stderr("\x1b[32mINFO\x1b[0m starting"), NEW_OK)
    with acptrace.open_walk(io.BytesIO(data)) as walk:
        items = list(walk)
    events = [i for i in items if isinstance(i, RecorderEvent)]
    assert [(e.kind, e.line, e.detail["text"]) for e in events] == [
        ("stderr", opening_lines(data)[1], "\x1b[32mINFO\x1b[0m starting")
    ]
    analysis = walk.analysis
    assert analysis.source.format == "zed"
    assert (analysis.source.messages, analysis.source.events) == (2, 1)
    assert analysis.issues == ()


def test_an_element_that_only_looks_like_stderr_is_not_read_as_it() -> None:
    odd = {"_direction": "stderr", "_type": "notification", "id": None, "params": "x"}
    analysis = acptrace.analyze(io.BytesIO(dump(NEW, odd, NEW_OK)), NO_SCHEMA)
    assert [i.kind for i in analysis.issues] == ["mixed_format"]


def test_null_id_on_a_notification_means_no_id() -> None:
    with acptrace.open_walk(io.BytesIO(dump(NEW, NEW_OK, UPDATE)), NO_SCHEMA) as walk:
        steps = [i for i in walk if isinstance(i, acptrace.Step)]
    assert [s.message.kind.value for s in steps] == ["request", "response", "notification"]
    assert steps[2].message.id is None
    assert walk.analysis.findings == ()


def test_several_arrays_in_one_file_are_read_in_turn_as_one_transcript() -> None:
    first, second = dump(NEW, NEW_OK), dump(PROMPT, UPDATE, PROMPT_OK)
    data = first + b"\n" + second
    with acptrace.open_walk(io.BytesIO(data), NO_SCHEMA) as walk:
        steps = [i for i in walk if isinstance(i, acptrace.Step)]
    assert [s.message.method for s in steps if s.message.method] == [
        "session/new",
        "session/prompt",
        "session/update",
    ]
    assert [s.message.line for s in steps] == opening_lines(data)
    assert walk.analysis.issues == ()
    assert walk.analysis.findings == ()


def test_arrays_may_follow_each_other_on_one_line() -> None:
    data = b'[{"_direction": "outgoing", "_type": "request", "id": 1, "method": "session/new",\n'
    data += b'"params": {}}][{"_direction": "incoming", "_type": "response", "id": 1,\n'
    data += b'"method": "session/new", "params": {"sessionId": "s1"}}]\n'
    analysis = acptrace.analyze(io.BytesIO(data), NO_SCHEMA)
    assert (analysis.source.messages, analysis.issues) == (2, ())


def test_a_repeated_prefix_is_skipped_with_its_count() -> None:
    first = dump(NEW, NEW_OK)
    second = dump(NEW, NEW_OK, PROMPT, PROMPT_OK)
    data = first + second
    analysis = acptrace.analyze(io.BytesIO(data), NO_SCHEMA)
    assert analysis.source.messages == 4
    second_starts = opening_lines(data)[2:]
    (issue,) = analysis.issues
    assert (issue.line, issue.kind) == (second_starts[0], "repeated_messages")
    assert "2 element(s)" in issue.message
    assert analysis.findings == ()


def test_an_array_that_repeats_the_one_before_whole_adds_nothing() -> None:
    once = dump(NEW, NEW_OK)
    analysis = acptrace.analyze(io.BytesIO(once + once), NO_SCHEMA)
    assert analysis.source.messages == 2
    assert [(i.kind, "2 element(s)" in i.message) for i in analysis.issues] == [
        ("repeated_messages", True)
    ]


def test_an_array_that_starts_differently_is_read_whole() -> None:
    data = dump(NEW, NEW_OK) + dump(PROMPT, NEW, NEW_OK)
    analysis = acptrace.analyze(io.BytesIO(data), NO_SCHEMA)
    assert analysis.source.messages == 5
    assert not [i for i in analysis.issues if i.kind == "repeated_messages"]


def test_text_between_arrays_is_an_issue_on_its_line() -> None:
    data = dump(NEW, NEW_OK) + b"copied at 10:00\n" + dump(PROMPT, PROMPT_OK)
    analysis = acptrace.analyze(io.BytesIO(data), NO_SCHEMA)
    stray = data.split(b"\n").index(b"copied at 10:00") + 1
    assert [(i.line, i.kind) for i in analysis.issues] == [(stray, "not_json")]
    assert analysis.source.messages == 4


# -- approximate times from the Agent's timed stderr lines ----------------------------------------

RESUME = entry(
    "outgoing",
    "request",
    "r1",
    "session/resume",
    {"sessionId": "s1", "cwd": "/", "replayFrom": {"type": "start"}},
)
RESUME_OK = entry("incoming", "response", "r1", "session/resume", {})


def replayed(tag: str) -> dict[str, Any]:
    update = {"sessionUpdate": tag, "messageId": "m1"}
    return entry(
        "incoming", "notification", None, "session/update", {"sessionId": "s1", "update": update}
    )


HISTORY, MARKER = replayed("user_message"), replayed("replay_complete")
T0 = "2026-08-18T05:50:31.398013Z"
T0_NS = int(datetime(2026, 8, 18, 5, 50, 31, tzinfo=UTC).timestamp()) * 10**9 + 398_013_000


def logged(at: str, text: str = "INFO gemini_acp_agent: working") -> dict[str, Any]:
    """A stderr line as a Rust `tracing` Agent writes it: the time dimmed, then the level."""
    return stderr(f"\x1b[2m{at}\x1b[0m \x1b[32m INFO\x1b[0m {text}")


def resume_row(*elements: dict[str, Any]) -> tuple[ResumeRow, Analysis]:
    analysis = acptrace.analyze(io.BytesIO(dump(*elements)), NO_SCHEMA)
    (row,) = analysis.resumes
    return row, analysis


def test_messages_after_a_timed_stderr_line_get_its_time_flagged_approximate() -> None:
    data = dump(NEW, logged(T0), NEW_OK, PROMPT)
    with acptrace.open_walk(io.BytesIO(data)) as walk:
        items = list(walk)
    steps = [i.message for i in items if isinstance(i, acptrace.Step)]
    assert [(m.ts_ns, m.approximate) for m in steps] == [
        (None, False),  # before the first anchor: no time at all
        (T0_NS, True),
        (T0_NS, True),
    ]
    (event,) = [i for i in items if isinstance(i, RecorderEvent)]
    assert event.ts_ns == T0_NS  # the stderr line's own time is the Agent's, as written


def test_a_dump_with_timed_stderr_lines_gives_latencies_flagged_approximate() -> None:
    row, analysis = resume_row(
        NEW,
        NEW_OK,
        logged("2026-08-18T05:50:31.000Z"),
        RESUME,
        HISTORY,
        logged("2026-08-18T05:50:31.250Z"),
        HISTORY,
        MARKER,
        logged("2026-08-18T05:50:32.000Z"),
        RESUME_OK,
    )
    assert analysis.issues == ()
    assert row.outcome == "complete"
    assert row.approximate
    assert row.request_to_first_update_ms == 0.0  # both after the same stderr line
    assert row.request_to_marker_ms == 250.0
    assert row.marker_to_response_ms == 750.0
    assert row.request_to_response_ms == 1000.0
    # between two stderr lines the silences are unknown (not 0): no gaps, no idle verdicts
    assert (row.max_replay_gap_ms, row.replay_pauses) == (None, ())


def test_a_dump_without_timed_stderr_lines_keeps_null_latencies_and_no_flag() -> None:
    row, _ = resume_row(NEW, NEW_OK, stderr("starting up"), RESUME, HISTORY, MARKER, RESUME_OK)
    assert not row.approximate
    latencies = (row.request_to_marker_ms, row.marker_to_response_ms, row.request_to_response_ms)
    assert latencies == (None, None, None)


def test_a_trace_of_estimated_times_is_laid_out_by_line_and_says_so() -> None:
    """Messages after one stderr line share its time: on that axis they would all sit at one
    point, in no order. The trace is laid out by line instead, and its name says why."""
    data = dump(NEW, logged(T0), NEW_OK, RESUME, HISTORY, MARKER, RESUME_OK)
    document = trace_events([io.BytesIO(data)])
    assert document["otherData"]["axes"] == ["lines"]
    events = document["traceEvents"]
    (process,) = [e for e in events if e["name"] == "process_name"]
    assert process["args"]["name"].endswith(" (times estimated: one line = 1 µs)")
    placed = [
        (e["args"]["line"], e["ts"]) for e in events if e["ph"] == "i" and "line" in e["args"]
    ]
    assert len({ts for _, ts in placed}) == len(placed)  # each line at its own point
    assert [ts for _, ts in sorted(placed)] == sorted(ts for _, ts in placed)


def test_a_one_line_dump_of_estimated_times_keeps_them_and_says_they_are_estimates() -> None:
    """A dump saved on one line has no lines to order it by: its estimated times are used,
    and named so."""
    later = logged("2026-08-18T05:50:32.000000Z")
    elements = [NEW, logged(T0), NEW_OK, RESUME, HISTORY, later, MARKER, RESUME_OK]
    one_line = orjson.dumps(elements) + b"\n"
    document = trace_events([io.BytesIO(one_line)])
    assert document["otherData"]["axes"] == ["wall"]
    events = document["traceEvents"]
    (process,) = [e for e in events if e["name"] == "process_name"]
    assert process["args"]["name"].endswith(" (times estimated from the Agent's stderr)")
    assert len({e["ts"] for e in events if e["ph"] != "M"}) == 2  # (the two stderr times)


def test_a_latency_from_a_time_before_the_first_anchor_stays_null() -> None:
    row, _ = resume_row(RESUME, HISTORY, logged(T0), MARKER, RESUME_OK)
    assert (row.request_to_marker_ms, row.marker_to_response_ms) == (None, 0.0)
    assert row.approximate


def test_the_json_flags_approximate_rows_only() -> None:
    timed = dump(logged(T0), RESUME, MARKER, RESUME_OK)
    untimed = dump(RESUME, MARKER, RESUME_OK)
    runner = CliRunner()
    documents = []
    for data in (timed, untimed):
        result = runner.invoke(app, ["analyze", "--format", "json", "-"], input=data)
        assert result.exit_code == 0, result.output
        documents.append(orjson.loads(result.stdout))
    rows = [document["resumes"][0] for document in documents]
    assert rows[0]["approximate"] is True
    assert documents[0]["idle_timers"][0]["replays"] == 0  # an estimate judges no idle timer
    assert rows[0]["marker_to_response_ms"] == 0.0
    assert "approximate" not in rows[1]  # measured (or untimed) rows are as they always were


def test_the_terminal_marks_approximate_latencies_and_says_why() -> None:
    data = dump(
        logged("2026-08-18T05:50:31Z"), RESUME, MARKER, logged("2026-08-18T05:50:31.5Z"), RESUME_OK
    )
    result = CliRunner().invoke(app, ["analyze", "-"], input=data, env={"COLUMNS": "120"})
    assert result.exit_code == 0, result.output
    assert "~500.0 ms" in result.stdout
    assert "~ approximate" in result.stdout
    measured = CliRunner().invoke(app, ["analyze", "-"], input=dump(RESUME, MARKER, RESUME_OK))
    assert "~" not in measured.stdout


def test_the_terminal_says_what_an_approximate_zero_means_only_where_one_is_shown() -> None:
    # ~0.0 ms reads as "instant"; it only means both ends came after the same stderr line.
    same = dump(logged(T0), RESUME, MARKER, RESUME_OK)
    spaced = dump(
        logged("2026-08-18T05:50:31Z"),
        RESUME,
        logged("2026-08-18T05:50:31.5Z"),
        MARKER,
        logged("2026-08-18T05:50:32Z"),
        RESUME_OK,
    )
    shown = []
    for data in (same, spaced):
        result = CliRunner().invoke(app, ["analyze", "-"], input=data, env={"COLUMNS": "120"})
        assert result.exit_code == 0, result.output
        assert "~ approximate" in result.stdout
        shown.append(result.stdout)
    assert "~0.0 ms" in shown[0]
    assert "~0.0 ms: both ends came after the same stderr line" in shown[0]
    assert "between them is unknown\n\n" in shown[0]  # (a section's blank line after it)
    assert "~500.0 ms" in shown[1]
    assert "~0.0 ms" not in shown[1]
    assert "same stderr line" not in shown[1]


def test_the_timeline_marks_estimated_times_but_not_the_stderr_lines_own() -> None:
    data = dump(logged("2026-08-18T05:50:31Z"), RESUME, MARKER, logged("2026-08-18T05:50:32Z"))
    data += dump(RESUME_OK)
    result = CliRunner().invoke(app, ["timeline", "-"], input=data, env={"COLUMNS": "120"})
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert "~ estimated" in result.stdout
    stderr_times = [line.split()[1] for line in lines if "stderr 2026-08-18T" in line]
    assert stderr_times == ["+0.000s", "+1.000s"]
    assert any("~+1.000s" in line and "⇠" in line and "~1.00 s" in line for line in lines)
    assert "marker→response ~1.00 s" in result.stdout


def test_ci_formats_mark_estimates_and_junit_gives_them_no_test_time() -> None:
    data = dump(logged("2026-08-18T05:50:31Z"), RESUME, MARKER, logged("2026-08-18T05:50:32Z"))
    data += dump(RESUME_OK)
    runner = CliRunner()
    markdown = runner.invoke(app, ["analyze", "--format", "markdown", "-"], input=data)
    assert "| ~1.00 s |" in markdown.stdout
    junit = runner.invoke(app, ["analyze", "--format", "junit", "-"], input=data).stdout
    (case,) = [line for line in junit.splitlines() if 'classname="acptrace.resumes"' in line]
    assert 'time="0"' in case  # (the default: no measured duration)
    assert "marker→response ~1.00 s" in junit
    measured = Transcript()
    measured.resume(id=3, at_ms=0)
    measured.marker(at_ms=40)
    measured.result(3, {}, at_ms=1040)
    timed = runner.invoke(app, ["analyze", "--format", "junit", "-"], input=measured.text())
    assert 'time="1.040"' in timed.stdout


def test_reports_leave_estimates_out_of_latency_statistics(tmp_path: Path) -> None:
    zed = dump(logged("2026-08-18T05:50:31Z"), RESUME, MARKER, logged("2026-08-18T05:50:39Z"))
    (tmp_path / "zed.json").write_bytes(zed + dump(RESUME_OK))
    measured = Transcript()
    measured.resume(id=3, at_ms=0)
    measured.marker(at_ms=40)
    measured.result(3, {}, at_ms=1040)
    (tmp_path / "measured.jsonl").write_bytes(measured.text())
    report = build_report([str(tmp_path)], by=GroupBy.AGENT, jobs=1)
    (group,) = report.groups
    assert group.replaying == 2  # the Zed resume counts among the outcomes ...
    assert group.metrics[Metric.MARKER_TO_RESPONSE].count == 1  # ... not its estimated 8 s
    assert [r.marker_to_response_ms for r in group.slowest] == [1000.0]


def test_reports_list_an_incomplete_zed_resume_without_its_estimated_times(tmp_path: Path) -> None:
    failed = entry("incoming", "response", "r1", "session/resume", {"code": -32603, "message": "x"})
    zed = dump(
        logged("2026-08-18T05:50:31Z"), RESUME, HISTORY, logged("2026-08-18T05:50:39Z"), failed
    )  # (with an update before the error: `truncated`, not `refused`)
    (tmp_path / "zed.json").write_bytes(zed)
    (group,) = build_report([str(tmp_path)], jobs=1).groups
    (listed,) = group.incomplete
    assert (listed.outcome, listed.request_to_response_ms) == ("truncated", None)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2026-08-18T05:50:31.398013Z INFO x", T0_NS),
        ("\x1b[2m2026-08-18T05:50:31.398013Z\x1b[0m \x1b[33m WARN\x1b[0m x", T0_NS),
        ("2026-08-18 05:50:31.398013Z x", T0_NS),  # a space for the T
        ("2026-08-18T07:50:31.398013+02:00 x", T0_NS),  # an offset
        ("2026-08-18 05:50:31,398013 x", T0_NS),  # no zone (read as UTC), a decimal comma
        ("[2026-08-18T05:50:31.398013Z INFO  agent] x", T0_NS),  # env_logger's bracket
        ("  2026-08-18T05:50:31.398013123Z x", T0_NS + 123),  # nanoseconds
        ("2026-08-18T05:50:31Z", T0_NS - 398_013_000),
        ("cache from 2026-08-18T05:50:31Z is stale", None),  # a date elsewhere: not an anchor
        ("✅ low warnings=[]", None),
        ("2026-08-18 x", None),  # a date without a time
        ("2026-13-18T05:50:31Z x", None),  # no such month
        ("2026-08-18T05:50:31.5.5 x", None),
        ("20260818T055031Z", None),
    ],
)
def test_what_counts_as_a_timed_stderr_line(text: str, expected: int | None) -> None:
    assert leading_time_ns(text) == expected


def test_a_dump_of_mostly_stderr_lines_is_still_read_as_zed() -> None:
    noisy = [logged(T0)] * 20
    analysis = acptrace.analyze(io.BytesIO(dump(*noisy, RESUME, MARKER, RESUME_OK)), NO_SCHEMA)
    assert (analysis.source.format, analysis.issues) == ("zed", ())
    assert analysis.resumes[0].approximate


def test_a_date_inside_a_stderr_line_is_not_an_anchor() -> None:
    row, _ = resume_row(
        stderr("loading the cache of 2026-08-18T05:50:31Z"), RESUME, MARKER, RESUME_OK
    )
    assert (row.marker_to_response_ms, row.approximate) == (None, False)


def test_times_never_go_back_an_earlier_anchor_is_ignored() -> None:
    data = dump(
        logged("2026-08-18T05:50:32Z"),
        RESUME,
        logged("2026-08-18T05:50:31Z"),  # a concurrent task's line, written earlier: ignored
        MARKER,
        logged("2026-08-18T05:50:33Z"),
        RESUME_OK,
    )
    with acptrace.open_walk(io.BytesIO(data)) as walk:
        items = list(walk)
    times = [i.message.ts_ns or 0 for i in items if isinstance(i, acptrace.Step)]
    assert times == sorted(times)
    assert 0 not in times
    events = [i.ts_ns for i in items if isinstance(i, RecorderEvent)]
    assert events[1] is None  # not an anchor: no time, rather than one that goes back
    (row,) = walk.analysis.resumes
    assert (row.request_to_marker_ms, row.marker_to_response_ms) == (0.0, 1000.0)
    assert walk.analysis.issues == ()


def test_tables_carry_the_approximate_flag() -> None:
    data = dump(NEW, logged(T0), NEW_OK, RESUME, MARKER, RESUME_OK)
    tables = frames([io.BytesIO(data)])
    assert tables["messages"]["approximate"].to_list() == [False, True, True, True, True]
    # session/new was sent before the first timed line: no time, no duration, nothing estimated
    assert tables["requests"].select("method", "duration_ms", "approximate").rows() == [
        ("session/new", None, False),
        ("session/resume", 0.0, True),
    ]
    assert tables["resumes"]["approximate"].to_list() == [True]


@pytest.mark.shared
@pytest.mark.skipif(not ZED_DUMPS, reason=f"no Zed dumps in {REAL_WORLD}")
@pytest.mark.parametrize("path", ZED_DUMPS, ids=lambda p: p.name)
def test_a_real_zed_capture_passes_strict_and_reads_every_element(path: Path) -> None:
    result = CliRunner().invoke(app, ["analyze", "--strict", "--format", "json", str(path)])
    assert result.exit_code == 0, result.output
    source = orjson.loads(result.stdout)["source"]
    elements = len(orjson.loads(path.read_bytes()))
    assert source["format"] == "zed"
    assert source["messages"] + source["events"] == elements
    assert source["issues"] == 0


@pytest.mark.shared
@pytest.mark.skipif(not ZED_DUMPS, reason=f"no Zed dumps in {REAL_WORLD}")
def test_a_real_zed_capture_pasted_twice_is_read_once() -> None:
    data = ZED_DUMPS[0].read_bytes()
    once = acptrace.analyze(io.BytesIO(data), NO_SCHEMA)
    twice = acptrace.analyze(io.BytesIO(data + data), NO_SCHEMA)
    assert twice.source.messages == once.source.messages
    assert [i.kind for i in twice.issues] == ["repeated_messages"]
    assert [r.outcome for r in twice.resumes] == [r.outcome for r in once.resumes]
