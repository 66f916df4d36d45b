"""The timeline's rows written as plain text are what rich printed, and the hot path that keeps
payloads for them gives the steps the general path gives."""

from __future__ import annotations

import io
import re
from pathlib import Path
from typing import Any, cast

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st
from rich.console import Console
from rich.text import Span, Text

import acptrace.render.timeline.rows as rows_module
from acptrace.cli.common import strip_trailing_spaces
from acptrace.correlate.correlator import Step
from acptrace.decode.fastpath import KeptPayload
from acptrace.decode.views import shown_payload
from acptrace.model.options import Execution
from acptrace.pipeline.transcripts import analyze, open_walk
from acptrace.read.records import DETECTION_SAMPLE
from acptrace.render.cells import Cell
from acptrace.render.entries import TimelineBuilder, View
from acptrace.render.timeline import Rows, TimelineStream
from acptrace.render.timeline.rows import NONE, Row, Widths
from tests.golden import ROOT
from tests.shared import REAL_WORLD
from tests.test_fastpath import canonical_lines, first_line
from tests.test_timeline import hostile
from tests.transcript import Transcript

FILES = [
    *sorted((ROOT / "sample_traces").glob("*.jsonl")),
    *(pytest.param(path, marks=pytest.mark.shared) for path in sorted(REAL_WORLD.glob("*.jsonl"))),
]
KEEPING = Execution(payloads=True)
GENERAL = Execution(fast=False)


def walked(data: bytes, execution: Execution, *, runs: bool = False) -> list[Any]:
    """Every item of the walk, a step as its message, request and payload (parsed); with
    `runs`, the analysis takes runs of plain updates as one (as the timeline's walk does)."""
    with open_walk(io.BytesIO(data), each_message=not runs, execution=execution) as walk:
        return [
            (item.message, item.request, shown_payload(item.payload))
            if isinstance(item, Step)
            else item
            for item in walk
        ]


@pytest.mark.parametrize("runs", [False, True], ids=["each", "runs"])
@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_the_hot_path_keeps_the_payloads_the_general_path_reads(path: Path, runs: bool) -> None:
    data = path.read_bytes()
    assert walked(data, KEEPING, runs=runs) == walked(data, GENERAL)


@pytest.mark.parametrize("runs", [False, True], ids=["each", "runs"])
def test_both_paths_give_the_same_steps_on_a_generated_transcript(runs: bool) -> None:
    from benchmarks.generate import generate

    out = io.BytesIO()
    generate(out, mb=None, sessions=4, seed=5, faults=0.3)
    assert walked(out.getvalue(), KEEPING, runs=runs) == walked(out.getvalue(), GENERAL)


def test_runs_of_plain_updates_give_a_step_for_each() -> None:
    t = Transcript()
    t.open()
    t.initialize()
    t.resume(id=1)
    t.history(count=300)  # (a long run, over blocks of lines)
    t.marker()
    t.result(1)
    t.history(count=40)
    t.close()
    with open_walk(io.BytesIO(t.text()), each_message=False, execution=KEEPING) as walk:
        steps = [item.message.line for item in walk if isinstance(item, Step)]
    assert steps == list(range(2, len(t.lines)))  # (every line but the open and close events)
    assert walked(t.text(), KEEPING, runs=True) == walked(t.text(), GENERAL)


@pytest.mark.parametrize("runs", [False, True], ids=["each", "runs"])
@given(records=st.lists(canonical_lines, max_size=25))
def test_both_paths_give_the_same_steps_on_canonical_noise(
    records: list[object], runs: bool
) -> None:
    data = b"\n".join([first_line] * 17 + [orjson.dumps(record) for record in records])
    assert walked(data, KEEPING, runs=runs) == walked(data, GENERAL)


def test_a_kept_payload_is_parsed_only_when_shown_as_the_general_path_parses_it() -> None:
    t = Transcript()
    t.open()
    t.initialize()
    t.history(count=DETECTION_SAMPLE)  # (the lines the format is detected from: general path)
    t.raw(  # (numbers beyond a double, escapes, text of every width)
        b'{"dir": "a2c", "ts": "2026-12-02T10:00:01.000000Z", "msg": {"jsonrpc": "2.0", '
        b'"method": "session/update", "params": {"sessionId": "s", "update": {"sessionUpdate": '
        b'"agent_message_chunk", "n": 1e400, "big": 123456789012345678901234567890, '
        b'"text": "caf\\u00e9 \\u001b[31m \xe4\xb8\xad\xe6\x96\x87 \\ud83d\\ude00"}}}}'
    )
    with open_walk(io.BytesIO(t.text()), execution=KEEPING) as walk:
        kept = [item.payload for item in walk if isinstance(item, Step)]
    assert type(kept[-1]) is KeptPayload
    general = [step[2] for step in walked(t.text(), GENERAL) if isinstance(step, tuple)]
    assert [shown_payload(payload) for payload in kept] == general
    assert general[-1]["params"]["update"]["n"] == float("inf")


def wide() -> bytes:
    """Text of two-cell characters, emoji and combining marks, in ids, labels and payloads."""
    t = Transcript()
    t.open()
    t.initialize()
    t.resume(id=1)
    t.history()
    t.update("agent_message_chunk", content={"text": "中文字符" * 30 + "e\u0301" * 20 + "😀" * 9})
    t.update("工具_更新", content={"text": "\uff41\uff42\uff43" * 40})
    t.marker()
    t.result(1)
    t.request("session/prompt", {"sessionId": "セッション" * 5, "prompt": ["x" * 300]}, id="中")
    t.result("中")
    t.close()
    return t.text()


def blocks(data: bytes, full: bool) -> list[Rows]:
    analysis = analyze(io.BytesIO(data))
    stream = TimelineStream(TimelineBuilder(View(full=full)), analysis, lookahead=3)
    found: list[Rows] = []
    with open_walk(io.BytesIO(data), execution=KEEPING) as walk:
        for item in walk:
            found.extend(block for block in stream.add(item) if isinstance(block, Rows))
    found.extend(b for b in stream.finish(analysis) if isinstance(b, Rows))
    return found


@pytest.mark.parametrize("width", [30, 80, 100, 160])
@pytest.mark.parametrize("full", [False, True])
@pytest.mark.parametrize("data", [hostile(), wide()], ids=["hostile", "wide"])
def test_plain_rows_are_what_rich_printed(data: bytes, full: bool, width: int) -> None:
    for rows in blocks(data, full):
        console = Console(
            file=io.StringIO(), width=width, color_system=None, highlight=False, emoji=False
        )
        console.print(rows)
        printed = console.file
        assert isinstance(printed, io.StringIO)
        assert rows.plain_text(width) == strip_trailing_spaces(printed.getvalue())


def test_a_joined_cell_styles_its_parts_only_when_styled() -> None:
    cell = Cell.joined(("  ", ""), ("result", "green"), (" #1", "bold"))
    assert cell.plain == "  result #1"
    assert cell.spans == ()  # (a plain row never needs them)
    assert cell.text().spans == [Span(2, 8, "green"), Span(8, 11, "bold")]


LONG_SESSION = "c09edff1-2b3c-4d5e-8f90-a1b2c3d40751"


def long_ids() -> bytes:
    """Sessions with uuid ids (as real Agents name them), updates and requests of them."""
    t = Transcript()
    t.initialize()
    t.new_session(LONG_SESSION)
    t.resume(session=LONG_SESSION, id=2)
    t.history(LONG_SESSION, count=2)
    t.marker(LONG_SESSION)
    t.result(2)
    t.request("session/prompt", {"sessionId": LONG_SESSION, "prompt": ["x" * 80]}, id=3)
    t.update("agent_message_chunk", LONG_SESSION, content={"text": "y" * 80})
    t.result(3)
    return t.text()


ESCAPES = re.compile(r"\x1b\[[0-9;]*m")
SESSION_WORD = re.compile(r'(?<!["\w-])c09e\S*')
"""The session's id where a row names it (not inside a payload's JSON)."""


@pytest.mark.parametrize("width", [50, 60, 64, 70, 80, 120])
def test_a_cut_row_shows_a_session_id_whole_or_not_at_all(width: int) -> None:
    seen = []
    for rows in blocks(long_ids(), full=False):
        styled = Console(file=io.StringIO(), width=width, color_system="truecolor")
        styled.print(rows)
        plain = rows.plain_text(width)
        assert isinstance(styled.file, io.StringIO)
        assert strip_trailing_spaces(ESCAPES.sub("", styled.file.getvalue())) == plain
        rows_of_lines = [line for line in plain.splitlines() if line.split()[0].isdigit()]
        seen += SESSION_WORD.findall("\n".join(rows_of_lines))  # (not findings: whole ids)
    assert set(seen) <= {"c09edff1…0751"}  # (never c09edff1…07…, c09edff1……, c09edff1…0751…)
    assert seen or width < 60  # (from 60 columns on, some rows are wide enough for the id)


NOTES = [
    "  turn: idle · end_turn · 16 updates, 1 tool call, 1 permission request · →first output"
    " 1.07 s · →idle ~1.78 s · waited for permission —",
    '  tool call read "Read README.md": completed · 3 updates · →completed 228.4 ms · '
    "permission asked at line 12, waited 1.69 s",
    "  ▲ warning LC-UNKNOWN-SESSION: 1 session/update for sess_stray (the last at line 19)"
    " while no session/new, session/fork, session/resume or announcement had named it",
    "  ambiguous · 0 replayed, 1 held · →marker 805.0 ms · marker→response 95.0 ms",
    "    tool call " + "x" * 70 + ":  no status,   unfinished ·  1 update  ",
]
"""Notes and findings as the timeline says them: latencies to keep with their labels, runs of
spaces, a word longer than the line."""


@pytest.mark.parametrize("note", NOTES, ids=range(len(NOTES)))
def test_a_note_is_wrapped_as_rich_wraps_it(note: str) -> None:
    """A note or a finding is cut into lines without rich where its characters are one cell
    each (`fitting.line_starts`, about a tenth of rich's cost): at every width the lines are
    rich's, plain and styled, spaces and all."""
    cell = Cell.of(Text(note, "dim", spans=[Span(2, 6, "bold")]))
    rows = Rows([Row("", NONE, NONE, NONE, NONE, cell, NONE, True)], Widths(1, 1, 1))

    def shown(width: int) -> tuple[str, ...]:
        plain = Console(file=io.StringIO(), width=width, color_system=None)
        styled = Console(file=io.StringIO(), width=width, color_system="truecolor")
        plain.print(rows)
        styled.print(rows)
        printed = [cast(io.StringIO, console.file).getvalue() for console in (plain, styled)]
        return rows.plain_text(width), *printed

    widths = range(12, len(note) + 12)
    cut = [shown(width) for width in widths]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(rows_module, "line_starts", lambda *_: None)  # (rich's wrapping)
        assert cut == [shown(width) for width in widths]
