"""The rows of a run's plain updates, made straight from the run's lines (`Walk.runs_whole`,
`decode.fastpath.run_updates`), are the rows the general chain makes (a `Message`, a `Step` and
an `Entry` for each update), styled and plain, in every view, with or without the analysis
ahead."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from acptrace.decode.classify import Found
from acptrace.decode.views import run_updates
from acptrace.model.domain import UpdateRun
from acptrace.model.options import Execution
from acptrace.pipeline.transcripts import analyze, open_walk
from acptrace.render.entries import TimelineBuilder, View, session_tree
from acptrace.render.timeline import Rows, TimelineStream
from tests.test_fastpath import padded
from tests.test_plain_runs import _line
from tests.test_timeline import hostile
from tests.test_timeline_rows import wide
from tests.transcript import SESSION

KEEPING = Execution(payloads=True)


def timeline(data: bytes, view: View, *, whole: bool, ahead: bool, width: int = 100) -> str:
    """The timeline's blocks, each plain and styled, with runs read whole (`whole`) or a step
    for each update (the general chain)."""
    known = analyze(io.BytesIO(data)) if ahead else None
    builder = TimelineBuilder(view)
    if known is not None and view.session is not None:
        builder.focus |= session_tree(known.sessions, view.session)
    stream = TimelineStream(builder, known, lookahead=3)
    blocks: list[object] = []
    with open_walk(io.BytesIO(data), each_message=False, execution=KEEPING) as walk:
        walk.runs_whole = whole
        for item in walk:
            blocks.extend(stream.add(item))
        blocks.extend(stream.finish(known if known is not None else walk.analysis))
    console = Console(
        file=io.StringIO(), width=width, color_system="truecolor", force_terminal=True
    )
    plain = []
    for block in blocks:
        console.print(block)
        if isinstance(block, Rows):
            plain.append(block.plain_text(width))
    styled = console.file
    assert isinstance(styled, io.StringIO)
    return "".join(plain) + "\n====\n" + styled.getvalue()


def replays() -> bytes:
    """Replay windows (one still open), a child session, runs of updates inside and outside
    them, wide characters, a request answered and one not, and findings on lines of runs."""
    t = padded()  # (the hot path, and its runs, start once the format is settled)
    t.initialize()
    t.new_session()
    t.resume(id=7)
    t.history(count=3)
    t.update("usage_update", used=1)  # (never history, before the marker: a finding)
    t.history(count=2)
    t.announce("child_1")
    t.history("child_1", count=2)
    t.update("usage_update", "child_1", used=2)
    t.history("child_1", count=2)
    t.marker("child_1")
    t.history(count=4)
    t.marker()
    t.history(count=3)
    t.result(7)
    t.request("session/prompt", {"sessionId": SESSION, "prompt": []}, id=8)
    for _ in range(6):
        t.update("agent_message_chunk", text="中文 ok 😀")
    t.update("agent_message_chunk", at_ms=t.now_ms - 50)  # (a clock going back)
    t.history(count=3)
    t.result(8)
    t.resume(id=9)
    t.history(count=4)
    t.request("session/prompt", {"sessionId": SESSION, "prompt": []}, id=10)
    return t.text()


def generated() -> bytes:
    from benchmarks.generate import generate

    out = io.BytesIO()
    generate(out, mb=None, sessions=4, seed=5, faults=0.3)
    return out.getvalue()


TRANSCRIPTS = {
    "replays": replays,
    "wide": wide,
    "hostile": hostile,
    "a run broken by a general-path line": lambda: _line("method twice, the last plain")[0],
    "generated with faults": generated,
}
VIEWS = {
    "whole": View(),
    "full": View(full=True),
    "lines": View(lines=(20, 50)),
    "around": View(around=35, context=4),
    "request": View(request="8"),
    "session": View(session=SESSION),
    "child": View(session="child_1"),
}


@pytest.mark.parametrize("ahead", [True, False], ids=["ahead", "read-once"])
@pytest.mark.parametrize("view", sorted(VIEWS))
@pytest.mark.parametrize("name", sorted(TRANSCRIPTS))
def test_the_rows_of_a_run_read_whole_are_the_general_rows(
    name: str, view: str, ahead: bool
) -> None:
    data = TRANSCRIPTS[name]()
    whole = timeline(data, VIEWS[view], whole=True, ahead=ahead)
    assert whole == timeline(data, VIEWS[view], whole=False, ahead=ahead)


@pytest.mark.parametrize("name", sorted(set(TRANSCRIPTS) - {"hostile", "wide"}))  # (no run)
def test_runs_read_whole_hold_lines_read_straight_and_lines_read_as_steps(name: str) -> None:
    data = TRANSCRIPTS[name]()
    kinds: set[str] = set()
    with open_walk(io.BytesIO(data), each_message=False, execution=KEEPING) as walk:
        walk.runs_whole = True
        for item in walk:
            if isinstance(item, UpdateRun):
                kinds.update(type(update).__name__ for update in run_updates(item))
    assert "PlainRow" in kinds  # (straight from the line: no `Message`)
    assert "Found" in kinds  # (each run's first update, as the general path finds it)


def test_a_line_the_run_took_on_the_general_path_comes_as_found() -> None:
    data, _ = _line("method twice, the last plain")
    found_lines = []
    with open_walk(io.BytesIO(data), each_message=False, execution=KEEPING) as walk:
        walk.runs_whole = True
        for item in walk:
            if isinstance(item, UpdateRun) and item.count > 1:
                found_lines += [u.message.line for u in run_updates(item) if isinstance(u, Found)]
    assert len(found_lines) == 2  # (the run's first update, and the line it took)


@pytest.mark.parametrize("view", sorted(VIEWS))
@pytest.mark.parametrize("ahead", [True, False], ids=["ahead", "read-once"])
def test_a_plain_update_is_made_its_row_as_it_is_read_only_when_known_ahead_and_cut(
    view: str, ahead: bool
) -> None:
    """With the analysis ahead and payloads cut, a plain update of a run is kept as its row
    (`EntryRows.update_row`: no `Entry`), which the test above holds to the general
    rows; read once, or with payloads whole, it is kept as an entry."""
    data, shown = replays(), VIEWS[view]
    known = analyze(io.BytesIO(data)) if ahead else None
    builder = TimelineBuilder(shown)
    if known is not None and shown.session is not None:
        builder.focus |= session_tree(known.sessions, shown.session)
    stream = TimelineStream(builder, known)
    with open_walk(io.BytesIO(data), each_message=False, execution=KEEPING) as walk:
        walk.runs_whole = True
        for item in walk:
            stream.add(item)
        kept = {type(entry).__name__ for entry in stream.waiting}
    made_ahead = ahead and not shown.full
    assert ("Row" in kept) == made_ahead
    assert "Entry" in kept  # (requests, responses, each run's first update)
