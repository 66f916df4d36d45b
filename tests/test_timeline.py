"""`acptrace timeline`: golden views of the samples, the views' selections, inert hostile text."""

from __future__ import annotations

import io
import os
import re
from pathlib import Path

import pytest
from rich.console import Console
from typer.testing import CliRunner, Result

from acptrace.cli import app
from acptrace.cli.common import EXIT_ERROR, EXIT_FINDINGS, EXIT_OK
from acptrace.model.options import Execution
from acptrace.pipeline.transcripts import analyze, open_walk
from acptrace.render.entries import PAYLOAD_CHARS, TimelineBuilder, View, session_tree
from acptrace.render.timeline import BATCH_ROWS, TimelineStream
from tests.golden import ROOT, check_block
from tests.test_connections import frames, header, jsonl
from tests.transcript import Transcript

GOLDEN = ROOT / "tests" / "golden" / "timeline.md"
WIDTH = 100
runner = CliRunner()


def timeline(*args: str, stdin: bytes | None = None) -> str:
    """The command's output at a fixed width without colour (trailing blanks dropped)."""
    result = runner.invoke(
        app, ["timeline", *args, "--no-config"], input=stdin, env={"COLUMNS": str(WIDTH)}
    )
    assert result.exit_code in (EXIT_OK, EXIT_FINDINGS), result.output
    return "\n".join(line.rstrip() for line in result.stdout.splitlines()).strip() + "\n"


@pytest.fixture(autouse=True)
def _at_root(monkeypatch: pytest.MonkeyPatch) -> None:
    """Sample paths in the output are relative to the repository."""
    monkeypatch.chdir(ROOT)


GOLDEN_VIEWS = {
    "child-complete": ["sample_traces/outcome-child-complete.jsonl"],
    "lifecycle": ["sample_traces/rules-lifecycle.jsonl"],
    "children-session": ["sample_traces/rules-children.jsonl", "--session", "sess_lead"],
    "mixed-around": ["sample_traces/mixed-session.jsonl", "--around", "66", "--context", "4"],
    "history-request": ["sample_traces/rules-history.jsonl", "--request", "2"],
}


def test_a_run_of_bare_json_rpc_updates_is_shown(tmp_path: Path) -> None:
    # (found by fuzzing: the run's first update was read as a canonical record, `msg` and all,
    # and the command stopped on an internal error)
    update = (
        b'{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1",'
        b'"update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"}}}}'
    )
    path = tmp_path / "bare.jsonl"
    path.write_bytes(b"\n".join([update] * 20) + b"\n")
    shown = timeline(str(path))
    assert shown.count("agent_message_chunk") == 20


@pytest.mark.parametrize("name", GOLDEN_VIEWS)
def test_golden_view(name: str, regen: bool) -> None:
    text = timeline(*GOLDEN_VIEWS[name])
    check_block(GOLDEN, name, f"```text\n{text}```\n", regen)


def test_golden_without_timestamps(regen: bool) -> None:
    t = Transcript(timed=False)
    t.initialize()
    t.resume(id=3)
    t.history()
    t.result(3)
    text = timeline("-", stdin=t.text())
    check_block(GOLDEN, "no-timestamps", f"```text\n{text}```\n", regen)


def test_replay_window_is_a_block_from_request_through_marker_to_response() -> None:
    rows = timeline("sample_traces/outcome-complete.jsonl").splitlines()
    gutter = {int(m[1]): m[2] for row in rows if (m := re.match(r"\s*(\d+) \S+ \S (.)", row))}
    assert gutter[4] == "┌"  # the resume request
    assert gutter[10] == "├"  # its replay_complete
    assert gutter[13] == "└"  # its response
    assert all(gutter[line] == "│" for line in (5, 6, 7, 8, 9, 11, 12))
    assert gutter[3] == " "
    assert gutter[14] == " "


def test_requests_and_responses_point_at_each_other_with_the_duration() -> None:
    text = timeline("sample_traces/outcome-complete.jsonl")
    request = next(row for row in text.splitlines() if "session/resume #1" in row)
    response = next(row for row in text.splitlines() if "↩ result #1" in row)
    assert request.rstrip().endswith("⇢ 13")
    assert response.rstrip().endswith("⇠ 4 · 852.2 ms")


def test_children_are_indented_under_their_parent() -> None:
    rows = timeline("sample_traces/outcome-child-complete.jsonl").splitlines()
    parent = next(row for row in rows if row.lstrip().startswith("5 "))
    child = next(row for row in rows if row.lstrip().startswith("7 "))
    assert child.index("user_message") == parent.index("user_message") + 2


def test_findings_sit_under_the_line_they_concern() -> None:
    rows = timeline("sample_traces/rules-history.jsonl").splitlines()
    at = next(i for i, row in enumerate(rows) if row.lstrip().startswith("6 "))
    assert "▲ error RC-NOT-HISTORY" in rows[at + 1]


def test_session_view_includes_children_even_before_their_announcement() -> None:
    text = timeline("sample_traces/rules-children.jsonl", "--session", "sess_lead")
    assert "RC-CHILD-TRAFFIC-BEFORE-ANNOUNCE" in text  # sess_kid_a speaks at line 6, announced at 8
    assert "RC-CHILD-BEFORE-ANNOUNCE" in text  # sess_kid_b's marker at 13, announced at 14
    assert "not shown" not in text


def test_session_tree_is_every_descendant() -> None:
    with open_walk(ROOT / "sample_traces" / "rules-children.jsonl") as walk:
        for _ in walk:
            pass
    tree = session_tree(walk.analysis.sessions, "sess_lead")
    assert tree == {"sess_lead", "sess_kid_a", "sess_kid_b", "sess_kid_c"}
    assert session_tree(walk.analysis.sessions, "sess_kid_a") == {"sess_kid_a"}


@pytest.mark.parametrize(
    ("view", "lines"),
    [
        (View(request="1"), [4, 5, 6, 7, 8, 9]),  # the resume, what came meanwhile, its response
        (View(request='"x"'), [10, 11]),  # a string id, given as JSON
        (View(request="x"), [10, 11]),  # … or as it is
        (View(around=9, context=1), [8, 9, 10]),
        (View(session="sess_other"), [12, 13]),
    ],
)
def test_views_select_their_lines(view: View, lines: list[int]) -> None:
    t = Transcript()
    t.open()  # 1
    t.initialize()  # 2, 3
    t.resume(id=1)  # 4
    t.history()  # 5, 6
    t.marker()  # 7
    t.update("state_update")  # 8
    t.result(1)  # 9
    t.request("session/prompt", {"sessionId": "sess_1"}, id="x")  # 10
    t.result("x")  # 11
    t.request("session/prompt", {"sessionId": "sess_other"}, id=5)  # 12
    t.result(5)  # 13
    builder = TimelineBuilder(view)
    with open_walk(io.BytesIO(t.text()), execution=Execution(fast=False)) as walk:
        for item in walk:
            builder.add(item)
    assert [entry.line for entry in builder.entries] == lines


@pytest.mark.parametrize(
    ("view", "said"),
    [
        (["--request", "99"], "Nothing in this view: no request with id 99 in the transcript."),
        (["--around", "500"], "Nothing in this view: the transcript has 247 lines."),
        (["--lines", "300-"], "Nothing in this view: the transcript has 247 lines."),
        (
            ["--lines", "300-400", "--request", "99"],
            "Nothing in this view: the transcript has 247 lines; no request with id 99 in "
            "these lines.",
        ),
    ],
)
def test_a_view_that_shows_nothing_says_why(view: list[str], said: str) -> None:
    """A request id the view never meets, lines past the end: said, not only 'Nothing'."""
    text = timeline("sample_traces/mixed-session.jsonl", *view)
    assert said in " ".join(text.split())
    assert "shown: 0 rows" in text


def hostile() -> bytes:
    t = Transcript()
    t.open()
    t.initialize()
    evil = "\x1b[31mred\x1b[0m[bold]loud[/bold]\x1b]0;pwned\x07"
    t.resume(evil + "x" * 5000, id=3)
    t.update("agent_message", evil, content={"text": evil + "y" * 200_000})
    t.request(evil * 3 + "m" * 1000, {"sessionId": evil}, id=4)
    t.result(3)
    t.raw(b"\x1b[2J not json [bold]")
    t.close()
    return t.text()


def test_hostile_text_is_shown_inertly_and_cut() -> None:
    text = timeline("-", stdin=hostile())
    assert "\x1b" not in text
    assert "\x07" not in text
    assert "\\x1b[31mred\\x1b[0m[bold]loud[/bold]" in text  # markup shown, not applied
    assert all(len(row) <= WIDTH for row in text.splitlines())
    assert "y" * (PAYLOAD_CHARS + 1) not in text.replace("\n", "")
    assert len(text) < 20_000


def test_full_shows_payloads_whole_still_inertly() -> None:
    text = timeline("-", "--full", stdin=hostile())
    assert "\x1b" not in text
    assert "\x07" not in text
    assert all(len(row) <= WIDTH for row in text.splitlines())
    assert text.count("y") >= 200_000


def test_unreadable_file_is_exit_2(tmp_path: Path) -> None:
    result = runner.invoke(app, ["timeline", str(tmp_path / "missing.jsonl"), "--no-config"])
    assert result.exit_code == 2
    assert "missing.jsonl" in result.stderr


# -- streaming, paging, exit codes (issue #15 items 6 and 7) -------------------------------------


def invoke(*args: str, stdin: bytes | None = None) -> Result:
    return runner.invoke(
        app, ["timeline", *args, "--no-config"], input=stdin, env={"COLUMNS": str(WIDTH)}
    )


def row_lines(text: str) -> list[int]:
    """The input lines of the rows (not of the notes and findings under them)."""
    return [int(m[1]) for row in text.splitlines() if (m := re.match(r"\s*(\d+) ", row))]


def test_error_findings_fail_the_run_like_analyze() -> None:
    sample = "sample_traces/rules-history.jsonl"  # error RC-NOT-HISTORY
    assert invoke(sample).exit_code == EXIT_FINDINGS
    assert invoke(sample, "--fail-on", "never").exit_code == EXIT_OK
    assert invoke(sample, "--fail-on", "never").stdout == invoke(sample).stdout
    assert invoke("sample_traces/outcome-complete.jsonl").exit_code == EXIT_OK


def test_fail_on_warning_counts_warnings_even_from_stdin() -> None:
    t = Transcript()
    t.initialize()
    t.resume(id=3)
    t.marker()
    t.result(3)  # no state_update after the marker: warning RC-NO-SNAPSHOT, no error
    assert invoke("-", stdin=t.text()).exit_code == EXIT_OK
    assert invoke("-", "--fail-on", "warning", stdin=t.text()).exit_code == EXIT_FINDINGS


def test_an_unknown_session_is_named_with_the_sessions_there_are() -> None:
    result = invoke("sample_traces/rules-children.jsonl", "--session", "sess_nope")
    assert result.exit_code == EXIT_ERROR
    assert "sess_nope" in result.stderr
    assert "sess_kid_a, sess_kid_b, sess_kid_c, sess_lead" in result.stderr
    assert result.stdout == ""  # a file is analysed first: nothing is written
    piped = invoke("-", "--session", "sess_nope", stdin=ROOT.joinpath(result_file()).read_bytes())
    assert piped.exit_code == EXIT_ERROR  # stdin: copied, then analysed first like a file
    assert "sess_kid_a, sess_kid_b, sess_kid_c, sess_lead" in piped.stderr
    assert piped.stdout == ""


def test_a_session_is_named_by_its_short_form_or_the_start_of_its_id() -> None:
    long_id = "c09edff1-d797-4307-9266-5eb460680751"
    t = Transcript()
    t.initialize()
    t.new_session(long_id)
    t.new_session("c09edff1-0000-4000-8000-000000000000")
    t.new_session("sess_other")
    whole = invoke("-", "--session", long_id, stdin=t.text())
    assert whole.exit_code == EXIT_OK
    for named in ("c09edff1…0751", "c09edff1-d7"):
        shown = invoke("-", "--session", named, stdin=t.text())
        assert shown.exit_code == EXIT_OK, shown.stderr
        assert shown.stdout == whole.stdout  # (the view of the whole id, heading and all)
    shared = invoke("-", "--session", "c09edff1", stdin=t.text())
    assert shared.exit_code == EXIT_ERROR
    assert "'c09edff1' names 2 sessions" in shared.stderr
    assert "sess_other" not in shared.stderr


def test_colour_codes_in_an_agents_stderr_are_left_out_other_control_codes_shown() -> None:
    t = Transcript()
    t.open()
    coloured = t.add({"dir": "stderr", "text": "\x1b[2m13:26:20Z\x1b[0m \x1b[31mERROR\x1b[0m boom"})
    bell = t.add({"dir": "stderr", "text": "ring\x07 \x1b]0;title\x07"})  # (not a colour)
    t.initialize()
    shown = timeline("-", stdin=t.text()).splitlines()
    rows = {int(line.split()[0]): line for line in shown if line.split()[0].isdigit()}
    assert "stderr 13:26:20Z ERROR boom" in rows[coloured]
    assert "\\x1b" not in rows[coloured]
    assert "ring\\x07 \\x1b]0;title\\x07" in rows[bell]  # (escaped, as any control code)


def test_a_request_waiting_where_the_file_stops_is_pending_not_unanswered() -> None:
    """As `analyze` judges JR-UNANSWERED only at a recorded (or assumed) end of the
    connection, the timeline calls a request still waiting at an unknown end pending."""
    sample = "sample_traces/outcome-unknown.jsonl"
    [stopped] = [line for line in timeline(sample).splitlines() if line.startswith(" 4 ")]
    assert stopped.rstrip().endswith("⇢ pending at end")
    assumed = timeline(sample, "--assume-closed").splitlines()
    [closed] = [line for line in assumed if line.startswith(" 4 ")]
    assert closed.rstrip().endswith("⇢ unanswered")
    recorded = timeline("sample_traces/rules-lifecycle.jsonl")  # (a close is recorded)
    assert "⇢ unanswered" in recorded
    assert "pending at end" not in recorded


def test_a_window_without_a_marker_says_its_time_to_the_response_not_two_dashes() -> None:
    v1 = timeline("sample_traces/outcome-loaded-v1.jsonl").splitlines()
    [note] = [line for line in v1 if "loaded ·" in line]
    assert note.rstrip().endswith("→response 905.0 ms")
    assert "→marker" not in note
    v2 = " ".join(timeline("sample_traces/rules-history.jsonl").replace("│", "").split())
    assert "complete · 3 replayed, 1 held · →marker 1.51 s · marker→response 790.0 ms" in v2


@pytest.mark.parametrize("width", [60, 70, 80, 90])
def test_the_legend_wraps_between_its_items_never_inside_one(width: int) -> None:
    result = runner.invoke(
        app, ["timeline", "sample_traces/rules-history.jsonl"], env={"COLUMNS": str(width)}
    )
    head = result.stdout.split(" 1 ")[0]  # (the heading, up to the first row)
    for item in ("→ to agent", "← to client", "⇢ answered at", "⇠ answers"):
        assert any(line.find(item) >= 0 for line in head.splitlines()), (item, head)
    assert all(len(line) <= width for line in head.splitlines())


@pytest.mark.parametrize("width", [30, 40])
def test_a_legend_item_wider_than_the_line_wraps_between_its_words(width: int) -> None:
    result = runner.invoke(
        app, ["timeline", "sample_traces/rules-history.jsonl"], env={"COLUMNS": str(width)}
    )
    head = result.stdout.split(" 1 ")[0]
    legend = head.splitlines()[2:]  # (after the file and the view)
    assert all(len(line) <= width for line in legend)
    words = " ".join(legend).split()
    for word in ("replay", "window:", "resume,", "marker,", "response", "answered", "answers"):
        assert word in words, (word, legend)  # whole, never folded across two lines


def result_file() -> str:
    return "sample_traces/rules-children.jsonl"


@pytest.mark.parametrize("source", ["file", "stdin"])
def test_lines_shows_only_that_stretch(source: str) -> None:
    sample = "sample_traces/rules-lifecycle.jsonl"
    args = [sample] if source == "file" else ["-"]
    stdin = None if source == "file" else (ROOT / sample).read_bytes()
    text = timeline(*args, "--lines", "5-9", stdin=stdin)
    assert row_lines(text) == [5, 6, 7, 8, 9]
    assert "view: lines 5-9" in text
    assert "RC-CONCURRENT" in text  # the finding on line 5 still sits under it
    assert "LC-PROMPT-INACTIVE" not in text  # line 16 is not shown
    assert invoke(*args, "--lines", "5-9", stdin=stdin).exit_code == EXIT_FINDINGS  # all judged
    assert row_lines(timeline(*args, "--lines", "30-", stdin=stdin)) == [30, 31, 32]


@pytest.mark.parametrize("bad", ["x", "9-5", "0-3", "3-y"])
def test_a_bad_line_range_is_a_usage_error(bad: str) -> None:
    result = invoke("sample_traces/rules-lifecycle.jsonl", "--lines", bad)
    assert result.exit_code == EXIT_ERROR
    assert "--lines" in result.stderr


def test_each_connection_of_a_file_is_shown_in_turn_under_its_name() -> None:
    data = jsonl([header(), *frames(1), *frames(2, start_ms=1000)])
    text = timeline("-", stdin=data)
    assert text.count("connection 1\n") == 1
    assert text.count("connection 2\n") == 1
    assert text.index("connection 1") < text.index("connection 2")
    assert text.count("session/resume #2") == 2  # one resume in each connection
    assert text.count("acp-inspector-trace format") == 2


def stream_text(data: bytes, lookahead: int, *, ahead: bool) -> str:
    """The timeline of a transcript streamed through a look-ahead of this many entries (rows
    must go out while the transcript is still read when the look-ahead is short)."""
    analysis = analyze(io.BytesIO(data)) if ahead else None
    builder = TimelineBuilder(View())
    stream = TimelineStream(builder, analysis, lookahead)
    console = Console(file=io.StringIO(), width=400, color_system=None)  # (nothing cut)
    written_early = 0
    with open_walk(io.BytesIO(data), execution=Execution(fast=False)) as walk:
        for item in walk:
            for block in stream.add(item):
                console.print(block)
                written_early += 1
    for block in stream.finish(analysis or walk.analysis):
        console.print(block)
    assert (written_early > 0) == (lookahead < 1000)
    output = console.file
    assert isinstance(output, io.StringIO)
    return "\n".join(line.rstrip() for line in output.getvalue().splitlines())


def long_transcript() -> bytes:
    t = Transcript()
    t.open()
    t.initialize()
    for n in range(1, 4):
        t.resume(id=n)
        t.history(count=BATCH_ROWS)
        t.update("state_update")  # before the marker: RC-NOT-HISTORY
        t.marker()
        t.result(n)
    t.close()
    return t.text()


def test_with_the_analysis_ahead_a_short_look_ahead_changes_only_the_forward_links() -> None:
    data = long_transcript()
    whole = stream_text(data, 100_000, ahead=True)
    short = stream_text(data, 3, ahead=True)

    def words(text: str) -> list[list[str]]:  # (column widths differ; links are checked below)
        return [row.split("⇢")[0].split() for row in text.splitlines()]

    assert words(short) == words(whole)
    assert "⇢ later" in short  # answers more than 3 entries on
    assert "⇢ later" not in whole
    assert short.count("RC-NOT-HISTORY") == 3  # still under their lines
    assert "Found after" not in short


def test_read_once_rows_written_early_get_their_findings_after_the_last_row() -> None:
    data = long_transcript()
    text = stream_text(data, 3, ahead=False)
    rows, late = text.split("Found after the lines above were written:")
    assert text.count("RC-NOT-HISTORY") == 3  # none lost
    assert "205  ▲ error RC-NOT-HISTORY" in late  # (line 205 was written before the end)
    assert "4  session/resume sess_1: complete" in late  # and the outcome of its replay window
    assert rows.count("RC-NOT-HISTORY") == 1  # the last window's, read within the look-ahead
    small = stream_text(data, 100_000, ahead=False)  # ends within the look-ahead: laid out whole
    assert small == stream_text(data, 100_000, ahead=True)


def test_output_goes_to_the_file_o_names_and_nowhere_on_failure(tmp_path: Path) -> None:
    sample = "sample_traces/outcome-complete.jsonl"
    target = tmp_path / "timeline.txt"
    assert invoke(sample, "-o", str(target)).exit_code == EXIT_OK
    assert target.read_text() == invoke(sample).stdout
    assert invoke(sample, "-o", os.devnull).exit_code == EXIT_OK  # a device is written to
    missing = invoke(sample, "-o", str(tmp_path / "no" / "such" / "dir.txt"))
    assert missing.exit_code == EXIT_ERROR
    assert "cannot write" in missing.stderr
    assert "Traceback" not in missing.output
    target.write_text("kept")
    assert invoke("sample_traces/none.jsonl", "-o", str(target)).exit_code == EXIT_ERROR
    assert target.read_text() == "kept"
    assert [p.name for p in tmp_path.iterdir()] == ["timeline.txt"]  # nothing left behind


def test_a_session_view_of_stdin_is_the_same_as_of_the_file() -> None:
    # stdin is copied once and read as a file: the first pass knows the session's tree, so a
    # child that speaks before its announcement is in the view either way
    sample = "sample_traces/rules-children.jsonl"  # sess_kid_a: line 6, announced at 8, then 9
    from_file = row_lines(timeline(sample, "--session", "sess_lead"))
    piped = row_lines(timeline("-", "--session", "sess_lead", stdin=(ROOT / sample).read_bytes()))
    assert 6 in from_file
    assert piped == from_file


@pytest.mark.parametrize("source", ["file", "stdin"])
@pytest.mark.parametrize("choice", [("--lines", "4-9"), ("--around", "6", "--context", "3")])
def test_a_request_answered_after_the_view_links_its_answer(
    source: str, choice: tuple[str, ...]
) -> None:
    """The resume at line 4 is answered at line 12, past the stretch shown: it once read
    `⇢ unanswered`, as if the Agent never answered it."""
    sample = "sample_traces/rules-history.jsonl"
    args = [sample] if source == "file" else ["-"]
    stdin = None if source == "file" else (ROOT / sample).read_bytes()
    text = timeline(*args, *choice, stdin=stdin)
    assert 12 not in row_lines(text)
    [resume] = [line for line in text.splitlines() if line.startswith("4 ")]
    assert resume.rstrip().endswith("⇢ 12")
    assert "unanswered" not in text


def test_a_wrapped_finding_or_note_keeps_its_left_edge_under_its_text() -> None:
    result = CliRunner().invoke(
        app, ["timeline", "sample_traces/rules-lifecycle.jsonl"], env={"COLUMNS": "70"}
    )
    lines = result.stdout.splitlines()
    at = next(i for i, line in enumerate(lines) if "▲ warning LC-UNKNOWN-SESSION" in line)
    text_column = lines[at].index("▲") + 2
    rest = lines[at + 1 : at + 3]
    assert [line[:text_column].strip(" ┃") for line in rest] == ["", ""]  # (a turn's lane)
    assert all(line[text_column] != " " for line in rest)  # (under "warning", not further in)
    note = next(i for i, line in enumerate(lines) if "ambiguous · 0 replayed, 1 held" in line)
    column = lines[note].index("ambiguous")
    assert lines[note + 1][:column].strip(" │") == ""
    assert lines[note + 1][column] != " "  # (under "ambiguous")
    assert "marker→response 95.0 ms" in lines[note + 1]  # (label and value on one line)
    assert not lines[note + 1][column:].startswith("·")  # (a separator ends a line)


def test_full_payloads_under_a_link_wrap_to_the_end_of_the_line() -> None:
    """Only a row's first line shares its width with the link: the payload's other lines run
    as wide as a row without a link, and nothing of it is lost in the wrapping."""
    result = CliRunner().invoke(
        app, ["timeline", "sample_traces/clean.jsonl", "--full"], env={"COLUMNS": "80"}
    )
    lines = result.stdout.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith(" 3 ") and "⇠ 2" in line)
    payload = lines[at + 1 : at + 3]
    assert all(len(line) <= 80 for line in lines)
    assert len(payload[1].rstrip()) > lines[at].index("⇠")  # (the link's column, and past it)
    assert "".join(line.strip() for line in payload) == (
        '{"protocolVersion":2,"info":{"name":"claude-agent-acp","version":"1.2.0"},'
        '"capabilities":{"session":{}}}'
    )
    # (an identifier in it is parted after a hyphen, where the next piece would pass 80 columns)
    assert payload[0].endswith('"claude-agent-')
    assert len(payload[0]) + len(payload[1].strip()) > 80


def test_a_long_path_in_the_heading_breaks_after_a_slash(tmp_path: Path) -> None:
    folder = tmp_path / "real-world" / "agents-2026-12"
    folder.mkdir(parents=True)
    path = folder / "codex_acp_resume_close_load.jsonl"
    path.write_bytes((ROOT / "sample_traces" / "outcome-complete.jsonl").read_bytes())
    shown = CliRunner().invoke(app, ["timeline", str(path)], env={"COLUMNS": "60"}).stdout
    lines = shown.splitlines()
    named = next(i for i, line in enumerate(lines) if ".jsonl" in line)
    assert named > 0  # (wider than the line)
    assert "/codex_acp_resume_close_load.jsonl" in "/" + lines[named]  # (the name whole)
    assert all(line.endswith("/") for line in lines[:named])


def test_a_refused_replay_says_so_under_its_request() -> None:
    text = timeline("sample_traces/outcome-refused.jsonl")
    assert "refused · 0 replayed, 0 held · →response 12.0 ms" in text
