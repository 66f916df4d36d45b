"""Turns and tool calls in `acptrace timeline`: each a span in the gutter (a turn from its
prompt through its first output to its end, a tool call from its first update to its final
status) with its measures said under the row where it starts (docs/timeline.md)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from acptrace.cli import app
from acptrace.cli.common import EXIT_FINDINGS, EXIT_OK
from acptrace.render.timeline import BATCH_ROWS
from acptrace.render.timeline.frame import OPEN_SHOWN
from acptrace.render.timeline.spans import TOOL_LANES
from tests.test_timeline import stream_text
from tests.transcript import Transcript

runner = CliRunner()
S2 = "sess_2"


def timeline(t: Transcript, tmp_path: Path, *args: str, stdin: bool = False) -> str:
    """The timeline of the transcript (from a file, or piped), 120 columns, no colour."""
    path = tmp_path / "t.jsonl"
    path.write_bytes(t.text())
    source = "-" if stdin else str(path)
    result = runner.invoke(
        app,
        ["timeline", source, *args, "--no-config"],
        input=t.text() if stdin else None,
        env={"COLUMNS": "120"},
    )
    assert result.exit_code in (EXIT_OK, EXIT_FINDINGS), result.output
    return result.stdout


ROW = re.compile(r"\s*(\d+) +\S+ \S ")
"""The start of a numbered row, up to its gutter."""


def gutters(text: str, width: int) -> dict[int, str]:
    """The gutter of each numbered row (`width` cells: the lanes)."""
    shown = {}
    for line in text.splitlines():
        if (row := ROW.match(line)) is not None:
            shown[int(row[1])] = line[row.end() : row.end() + width]
    return shown


def under(text: str, line: int) -> str:
    """The lines said under a numbered row (its notes and findings), joined."""
    lines = text.splitlines()
    at = next(i for i, row in enumerate(lines) if (m := ROW.match(row)) and int(m[1]) == line)
    said = []
    for row in lines[at + 1 :]:
        if ROW.match(row) or not row.startswith(" "):
            break
        said.append(row.strip(" ┃│┌├└"))
    return " ".join(said)


def started(version: int = 2) -> Transcript:
    t = Transcript()
    t.open()
    t.initialize(version)
    t.new_session()
    return t


def v2_turn() -> tuple[Transcript, dict[str, int]]:
    """A v2 turn: the echo, the acknowledgement, an output, a tool call that asks permission
    (waited 1 s), its completion, idle; then the connection closes."""
    t = started()
    lines = {"prompt": t.prompt(id=5, at_ms=1000)}
    t.update("user_message", at_ms=1040)
    lines["ack"] = t.result(5, {"messageId": "m1"}, at_ms=1050)
    lines["output"] = t.update("agent_message_chunk", at_ms=1500)
    lines["tool"] = t.tool("c1", status="pending", kind="edit", title="Edit main.py", at_ms=1600)
    lines["asked"] = t.permission("c1", id=9, at_ms=1700)
    lines["answer"] = t.choose(9, "allow", at_ms=2700)
    lines["done"] = t.tool("c1", status="completed", at_ms=2900)
    lines["idle"] = t.state("idle", stop_reason="end_turn", at_ms=3000)
    lines["close"] = t.close(at_ms=4000)
    return t, lines


@pytest.mark.parametrize("stdin", [False, True], ids=["file", "stdin"])
def test_a_v2_turn_runs_from_its_prompt_to_idle_with_its_tool_call_inside(
    tmp_path: Path, stdin: bool
) -> None:
    t, at = v2_turn()
    text = timeline(t, tmp_path, stdin=stdin)
    shown = gutters(text, 2)
    assert shown[at["prompt"] - 1] == "  "  # (before the turn)
    assert shown[at["prompt"]] == "┏ "
    assert shown[at["ack"]] == "┃ "  # (on v2 the response does not end the turn)
    assert shown[at["output"]] == "┣ "
    assert shown[at["tool"]] == "┃╭"
    assert shown[at["asked"]] == shown[at["answer"]] == "┃│"
    assert shown[at["done"]] == "┃╰"
    assert shown[at["idle"]] == "┗ "
    assert shown[at["close"]] == "  "
    assert under(text, at["prompt"]) == (
        "turn: idle · end_turn · 5 updates, 1 tool call, 1 permission request · "
        "→first output 500.0 ms · →idle 2.00 s · waited for permission 1.00 s"
    )
    assert under(text, at["tool"]) == (
        'tool call edit "Edit main.py": completed · 2 updates · →completed 1.30 s · '
        f"permission asked at line {at['asked']}, waited 1.00 s"
    )
    assert under(text, at["idle"]) == f"end of the turn of line {at['prompt']} · 2.00 s"
    assert "still open" not in text


def test_a_v1_turn_ends_at_its_response_which_says_how_long(tmp_path: Path) -> None:
    t = started(version=1)
    prompt = t.prompt(id=5, at_ms=1000)
    output = t.update("agent_thought_chunk", at_ms=1200)
    tool = t.tool("c1", tag="tool_call", status="pending", kind="read", title="Read", at_ms=1300)
    done = t.tool("c1", status="completed", at_ms=1350)
    response = t.result(5, {"stopReason": "end_turn"}, at_ms=1400)
    text = timeline(t, tmp_path)
    shown = gutters(text, 2)
    assert [shown[line] for line in (prompt, output, tool, done, response)] == [
        "┏ ", "┣ ", "┃╭", "┃╰", "┗ ",
    ]  # fmt: skip
    assert under(text, prompt).startswith("turn: response · end_turn · 3 updates, 1 tool call")
    assert "→response 400.0 ms" in under(text, prompt)
    assert under(text, response) == ""  # (its link says `⇠ prompt · 400.0 ms`)
    assert f"⇠ {prompt} · 400.0 ms" in text


def test_an_unfinished_turn_runs_to_the_last_row_and_says_so(tmp_path: Path) -> None:
    t = started()
    prompt = t.prompt(id=5, at_ms=1000)
    t.update("agent_message_chunk", at_ms=1100)
    tool = t.tool("c1", status="in_progress", kind="execute", title="make", at_ms=1200)
    last = t.update("agent_message_chunk", at_ms=1300)  # (no idle, no close: the file stops)
    text = timeline(t, tmp_path)
    shown = gutters(text, 2)
    assert shown[tool] == "┃╭"
    assert shown[last] == "┃│"  # (both still open where the recording stops)
    assert under(text, prompt).startswith("turn: open (trace end) · 3 updates, 1 tool call")
    assert "→trace_end" not in text  # (no made-up duration)
    assert under(text, tool) == 'tool call execute "make": in_progress, unfinished · 1 update'
    assert f"Turn of request 5 (line {prompt}) still open at the end (trace end)." in text


def test_the_turns_still_open_at_the_end_are_capped(tmp_path: Path) -> None:
    """A recording cut while many sessions were busy: the footer says the first few open
    turns, then how many more (not hundreds of lines)."""
    t = started()
    sessions = [f"sess_{index}" for index in range(OPEN_SHOWN + 3)]
    for index, session in enumerate(sessions):
        t.new_session(session)
        t.prompt(session, id=100 + index, at_ms=1000.0 + index)
    text = timeline(t, tmp_path)
    said = [line for line in text.splitlines() if line.startswith("Turn of request ")]
    assert len(said) == OPEN_SHOWN
    assert "… and 3 more turns still open at the end" in text


def test_the_legend_shows_the_marks_of_turns_only_when_there_are_turns(tmp_path: Path) -> None:
    """A recording without turns, resumes or tool calls shows no lane for them: its legend does
    not explain them either (known from the file read ahead); read once from a pipe, the legend
    comes before any row is known, and explains them all."""
    t = started()
    t.close()
    plain = timeline(t, tmp_path)
    assert "→ to agent  ← to client  ⇢ answered at  ⇠ answers" in plain
    assert not any(mark in plain for mark in ("turn:", "tool call", "replay window"))
    piped = timeline(t, tmp_path, stdin=True)
    assert "turn: prompt, first output, end" in piped
    turns = timeline(v2_turn()[0], tmp_path)
    assert "turn: prompt, first output, end  ╭ ╰ tool call" in turns
    assert "replay window" not in turns  # (no resume)


def test_an_error_ends_a_turn_at_its_response(tmp_path: Path) -> None:
    t = started()
    prompt = t.prompt(id=5, at_ms=1000)
    error = t.error(5, -32603, at_ms=1010)
    text = timeline(t, tmp_path)
    assert (gutters(text, 1)[prompt], gutters(text, 1)[error]) == ("┏", "┗")
    assert under(text, prompt) == "turn: error · 0 updates · →error 10.0 ms"


def test_a_tool_call_of_one_update_and_one_made_by_its_permission_request(
    tmp_path: Path,
) -> None:
    t = started()
    t.prompt(id=5, at_ms=1000)
    alone = t.tool("c1", status="completed", kind="read", at_ms=1100)
    asked = t.permission("c2", id=9, at_ms=1200)  # (v2: a first-seen toolCallId makes it)
    t.choose(9, "reject", at_ms=1300)
    failed = t.tool("c2", status="failed", at_ms=1400)
    t.state("idle", at_ms=1500)
    text = timeline(t, tmp_path)
    shown = gutters(text, 2)
    assert (shown[alone], shown[asked], shown[failed]) == ("┃─", "┃╭", "┃╰")
    assert under(text, alone) == "tool call read c1: completed · 1 update · →completed 0.0 ms"
    assert under(text, asked).startswith("tool call c2: failed · 1 update · →failed 200.0 ms")


def test_tool_calls_at_once_take_a_few_lanes_and_the_others_only_their_notes(
    tmp_path: Path,
) -> None:
    t = started()
    t.prompt(id=5, at_ms=1000)
    firsts = [t.tool(f"c{n}", status="pending", title=f"job {n}") for n in range(TOOL_LANES + 2)]
    for n in range(TOOL_LANES + 2):
        t.tool(f"c{n}", status="completed")
    t.state("idle")
    text = timeline(t, tmp_path)
    width = 1 + TOOL_LANES
    shown = gutters(text, width + 1)
    assert all(row[width] == " " for row in shown.values())  # (no lane beyond the last)
    assert [shown[line][:width] for line in firsts] == [
        "┃╭  ", "┃│╭ ", "┃││╭", "┃│││", "┃│││",
    ]  # fmt: skip
    assert all(f'"job {n}": completed' in under(text, line) for n, line in enumerate(firsts))


def test_a_session_view_draws_only_the_turns_of_its_sessions(tmp_path: Path) -> None:
    t = started()
    t.request("session/new", {"cwd": "/"}, id=2)
    t.result(2, {"sessionId": S2})
    ours = t.prompt(id=5, at_ms=1000)
    theirs = t.prompt(S2, id=6, at_ms=1010)
    t.state("idle", S2, at_ms=1020)
    t.state("idle", at_ms=1030)
    text = timeline(t, tmp_path, "--session", "sess_1")
    assert gutters(text, 2)[ours] == "┏ "  # (one lane: the other session's turn is not drawn)
    assert theirs not in gutters(text, 2)
    assert "turn:" in under(text, ours)
    both = timeline(t, tmp_path)
    assert (gutters(both, 2)[ours], gutters(both, 2)[theirs]) == ("┏ ", "┃┏")


def test_read_once_turns_written_early_are_told_after_the_last_row() -> None:
    t, at = v2_turn()
    for _ in range(BATCH_ROWS + 10):  # (past a look-ahead of 3, and a batch)
        t.update("usage_update")
    text = stream_text(t.text(), 3, ahead=False)
    rows, late = text.split("Found after the lines above were written:")
    assert "turn:" not in rows
    assert f"{at['prompt']}  turn: idle · end_turn" in late
    assert f'{at["tool"]}  tool call edit "Edit main.py": completed' in late
    whole = stream_text(t.text(), 3, ahead=True)
    assert "Found after" not in whole
    assert "┏" in whole


def test_a_stretch_that_begins_inside_a_turn_draws_its_lane_without_its_start(
    tmp_path: Path,
) -> None:
    t, at = v2_turn()
    text = timeline(t, tmp_path, "--lines", f"{at['answer']}-")
    shown = gutters(text, 2)
    assert shown[at["answer"]] == "┃│"  # (the turn and the tool call began above the view)
    assert (shown[at["done"]], shown[at["idle"]]) == ("┃╰", "┗ ")
    assert "  turn:" not in text  # (its note is under its prompt, not shown)
    before = timeline(t, tmp_path, "--lines", f"{at['close']}-")
    assert gutters(before, 2)[at["close"]] == "  "  # (over before the view: not drawn)


def test_a_tool_call_never_finished_stops_at_the_end_of_its_turn(tmp_path: Path) -> None:
    """Its lane is not held to the last row: the tool calls of later turns take it again."""
    t = started()
    t.prompt(id=5, at_ms=1000)
    lost = t.tool("c1", status="in_progress", kind="execute", title="make", at_ms=1100)
    idle = t.state("idle", at_ms=1200)  # (c1 never reaches a final status)
    after = t.update("agent_message_chunk", at_ms=1300)
    t.prompt(id=6, at_ms=2000)
    next_call = t.tool("c2", status="pending", kind="read", at_ms=2100)
    done = t.tool("c2", status="completed", at_ms=2200)
    last = t.state("idle", at_ms=2300)
    text = timeline(t, tmp_path)
    shown = gutters(text, 3)
    assert (shown[lost], shown[idle], shown[after]) == ("┃╭ ", "┗│ ", "   ")  # (no ╰: not ended)
    assert (shown[next_call], shown[done], shown[last]) == ("┃╭ ", "┃╰ ", "┗  ")  # (one lane)
    assert under(text, lost) == 'tool call execute "make": in_progress, unfinished · 1 update'
    assert "still open" not in text
