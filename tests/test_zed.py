"""Zed's "Copy All Messages" dumps: stderr elements, several pasted arrays, `"id": null`."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import orjson
import pytest
from typer.testing import CliRunner

import acptrace
from acptrace.cli import app
from acptrace.read.envelopes import RecorderEvent
from tests import shared

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
    analysis = acptrace.analyze(io.BytesIO(dump(NEW, odd, NEW_OK)))
    assert [i.kind for i in analysis.issues] == ["mixed_format"]


def test_null_id_on_a_notification_means_no_id() -> None:
    with acptrace.open_walk(io.BytesIO(dump(NEW, NEW_OK, UPDATE))) as walk:
        steps = [i for i in walk if isinstance(i, acptrace.Step)]
    assert [s.message.kind.value for s in steps] == ["request", "response", "notification"]
    assert steps[2].message.id is None
    assert walk.analysis.findings == ()


def test_several_arrays_in_one_file_are_read_in_turn_as_one_transcript() -> None:
    first, second = dump(NEW, NEW_OK), dump(PROMPT, UPDATE, PROMPT_OK)
    data = first + b"\n" + second
    with acptrace.open_walk(io.BytesIO(data)) as walk:
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
    analysis = acptrace.analyze(io.BytesIO(data))
    assert (analysis.source.messages, analysis.issues) == (2, ())


def test_a_repeated_prefix_is_skipped_with_its_count() -> None:
    first = dump(NEW, NEW_OK)
    second = dump(NEW, NEW_OK, PROMPT, PROMPT_OK)
    data = first + second
    analysis = acptrace.analyze(io.BytesIO(data))
    assert analysis.source.messages == 4
    second_starts = opening_lines(data)[2:]
    (issue,) = analysis.issues
    assert (issue.line, issue.kind) == (second_starts[0], "repeated_messages")
    assert "2 element(s)" in issue.message
    assert analysis.findings == ()


def test_an_array_that_repeats_the_one_before_whole_adds_nothing() -> None:
    once = dump(NEW, NEW_OK)
    analysis = acptrace.analyze(io.BytesIO(once + once))
    assert analysis.source.messages == 2
    assert [(i.kind, "2 element(s)" in i.message) for i in analysis.issues] == [
        ("repeated_messages", True)
    ]


def test_an_array_that_starts_differently_is_read_whole() -> None:
    data = dump(NEW, NEW_OK) + dump(PROMPT, NEW, NEW_OK)
    analysis = acptrace.analyze(io.BytesIO(data))
    assert analysis.source.messages == 5
    assert not [i for i in analysis.issues if i.kind == "repeated_messages"]


def test_text_between_arrays_is_an_issue_on_its_line() -> None:
    data = dump(NEW, NEW_OK) + b"copied at 10:00\n" + dump(PROMPT, PROMPT_OK)
    analysis = acptrace.analyze(io.BytesIO(data))
    stray = data.split(b"\n").index(b"copied at 10:00") + 1
    assert [(i.line, i.kind) for i in analysis.issues] == [(stray, "not_json")]
    assert analysis.source.messages == 4


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
    once = acptrace.analyze(io.BytesIO(data))
    twice = acptrace.analyze(io.BytesIO(data + data))
    assert twice.source.messages == once.source.messages
    assert [i.kind for i in twice.issues] == ["repeated_messages"]
    assert [r.outcome for r in twice.resumes] == [r.outcome for r in once.resumes]
