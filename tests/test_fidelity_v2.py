"""`acptrace fidelity` after the decisions of 2026-12-07 (fidelity.md, rules.md §11): v2 turns,
upserts, plans by id, text compared white space aside, injected user text, refused prompts, no
ratio without a replay, live history outside every window, two files, `--fail-under`."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from acptrace.cli import app
from acptrace.fidelity import FidelityReport, PlaceNames, fidelity
from tests.golden import check_block
from tests.shared import REAL_WORLD
from tests.test_fidelity import (
    GOLDEN,
    close_replay,
    dropped,
    faithful_replay,
    live_history,
    only,
    prompt_turn,
    replay,
    report,
    said,
    started,
    text,
    v1_load,
    v1_started,
    written,
)
from tests.transcript import SESSION, Transcript

runner = CliRunner()


def v2_prompt(t: Transcript, words: str, message_id: str | None = "u1", *, id: int = 9) -> int:
    """A v2 `session/prompt` and its response, which names the user message (`messageId`)
    and ends nothing: the turn runs until `idle`. Returns the request's line."""
    line = t.request("session/prompt", {"sessionId": SESSION, "prompt": [text(words)]}, id=id)
    t.result(id, {} if message_id is None else {"messageId": message_id})
    return line


def idle(t: Transcript, session: str = SESSION) -> int:
    """The v2 end of a turn."""
    return t.update("state_update", session, state="idle", stopReason="end_turn")


# -- 1. v2 turns ---------------------------------------------------------------------------------


def test_a_v2_prompts_response_names_its_user_message() -> None:
    """The v2 response carries the inserted message's `messageId`: the live prompt is that
    message, matched by id (not `#1`) even where the Agent's echo is not recorded."""
    t = started()
    v2_prompt(t, "Fix the login test", "u1")
    said(t, "agent_message", "a1", "Done.")
    idle(t)
    replay(t)
    said(t, "agent_message", "a1", "Done.")
    close_replay(t)
    c = only(t)
    assert [(i.role, i.id, i.keyed) for i in c.missing] == [("user", "u1", True)]


def test_a_v2_echo_after_the_response_is_the_prompt_not_a_second_message() -> None:
    """The echo may arrive after the response (the schema: "before or after"): the turn is
    still open until `idle`, so the echo is the prompt's message, not one more."""
    t = started()
    v2_prompt(t, "Fix the login test", None)
    said(t, "user_message", "u1", "Fix the login test")
    said(t, "agent_message", "a1", "Done.")
    idle(t)
    replay(t)
    said(t, "user_message", "u1", "Fix the login test")
    said(t, "agent_message", "a1", "Done.")
    close_replay(t)
    c = only(t)
    assert (c.live_items, c.missing, c.extra, c.fidelity) == (2, (), (), 1.0)


def test_a_v2_turn_ends_at_idle_so_chunks_after_it_are_another_item() -> None:
    """Chunks without `messageId` (an Agent that breaks LC-NO-MESSAGE-ID) continue the item of
    their turn only; on v2 the turn ends at `idle`, so a v2 turn's chunks on either side of
    the prompt's response are one answer, and work after `idle` is another item."""
    t = started()
    t.request("session/prompt", {"sessionId": SESSION, "prompt": [text("Hi")]}, id=9)
    said(t, "agent_message_chunk", None, "Hello, ")
    t.result(9, {"messageId": "u1"})
    said(t, "agent_message_chunk", None, "how can I help?")
    idle(t)
    said(t, "agent_message_chunk", None, "(a background task finished)")
    replay(t)  # (carrying nothing: every live item is listed missing)
    close_replay(t)
    assert [i.text for i in only(t).missing] == [
        "Hi", "Hello, how can I help?", "(a background task finished)",
    ]  # fmt: skip


def test_a_turn_the_recording_ends_inside_is_unfinished_and_its_items_count(
    tmp_path: Path,
) -> None:
    """The drive bug's shape: the v2 response comes at once, the connection closes before the
    turn's `idle`. The prompt and what came count; the report says the turn was unfinished."""
    live = started()
    prompt_line = v2_prompt(live, "Fix the login test", "u1")
    said(live, "agent_message_chunk", "a1", "Looking")
    live.close()
    later = Transcript()
    later.open()
    later.initialize()
    replay(later)
    said(later, "user_message", "u1", "Fix the login test")
    said(later, "agent_message", "a1", "Looking at the fixture.")
    close_replay(later)
    live_path = written(live, tmp_path / "live.jsonl")
    replay_path = written(later, tmp_path / "replay.jsonl")
    (entry,) = fidelity(live_path, replay_path).sessions
    assert [(p.path, p.line) for p in entry.unfinished] == [(str(live_path), prompt_line)]
    assert (entry.comparison.live_items, len(entry.comparison.changed)) == (2, 1)
    document = json.loads(
        runner.invoke(app, ["fidelity", str(live_path), str(replay_path), "-f", "json"]).stdout
    )
    turns = document["sessions"][0]["unfinished_turns"]
    assert turns == [{"path": str(live_path), "line": prompt_line}]
    shown = runner.invoke(app, ["fidelity", str(live_path), str(replay_path)]).stdout
    assert (
        f"turn unfinished: the recording ends inside the turn of the prompt at live.jsonl:"
        f"{prompt_line}" in " ".join(shown.split())
    )


def test_a_finished_turn_and_a_v1_turn_are_not_unfinished() -> None:
    t = started()
    v2_prompt(t, "Fix the login test", "u1")
    idle(t)
    replay(t)
    close_replay(t)
    assert report(t).sessions[0].unfinished == ()
    t = v1_started()
    prompt_turn(t, "Fix the login test", ("agent_message_chunk", "Done."))
    v1_load(t, ("user_message_chunk", "Fix the login test"))
    assert report(t).sessions[0].unfinished == ()


AGENTS_B = REAL_WORLD / "agents-2026-12b"


def real_pair(agent: str) -> FidelityReport:
    return fidelity(AGENTS_B / f"{agent}_v2_live.jsonl", AGENTS_B / f"{agent}_v2_reattach.jsonl")


@pytest.mark.shared
def test_claude_v2_replays_both_turns_with_their_ids_and_one_tool_output_changed() -> None:
    """claude-agent-acp 0.101.0 on v2: live, two turns (prompts at lines 17 and 37, each
    echoed as a `user_message` with the `messageId` the response repeats, ended by `idle` at
    34 and 46); the reattach replays them at line 4 (no `replay_complete`: the window runs to
    the response at 37) as `user_message`/`agent_message` upserts with `content: []` followed
    by one chunk each. Six live items, six replayed, matched by id; the tool call's output
    comes back with one more line (`3<TAB>`, the README's empty third line), so it alone is
    changed: 5/6. The two later resumes are refused (-32002 for an unknown session at 51,
    -32602 for the `_fromMessage` cursor at 65): no ratio, nothing missing. The prompt at 69,
    answered -32002 after the close, is no live item."""
    first, unknown, cursor = real_pair("claude-agent-acp-0.101.0").sessions
    c = first.comparison
    assert (first.request_line, first.outcome.value) == (4, "unmarked_success")
    assert (c.live_items, c.replayed_items, c.missing, c.extra, c.reordered) == (6, 6, (), (), ())
    assert [(ch.live.id, ch.live.line, ch.replayed.line) for ch in c.changed] == [
        ("toolu_fake_07", 24, 17)
    ]
    assert c.changed[0].diff == ("+3\t",)
    assert c.fidelity == 5 / 6
    assert first.unfinished == ()
    assert [(s.request_line, s.no_ratio, s.comparison.missing) for s in (unknown, cursor)] == [
        (51, "refused: -32002", ()),
        (65, "refused: -32602", ()),
    ]
    assert cursor.comparison.live_items == 8  # (the reattach's own live turn at 38 counts)


@pytest.mark.shared
def test_codex_v2_replays_its_history_whole() -> None:
    """codex-acp 2.6.0 on v2: live, the prompts are echoed as `user_message_chunk`s (lines 11
    and 29) before the response names them; each turn ends with `idle` (24, 35). The replay
    at line 4 carries the two prompts, the thought, the tool call (completed, as it ended
    live) and both answers as upserts with `content: []` then one chunk: all six unchanged.
    The warning `notice` before each live turn is never history. Then -32603 (no rollout for
    an unknown session) and -32602 (the cursor): not judged."""
    first, unknown, cursor = real_pair("codex-acp-2.6.0").sessions
    c = first.comparison
    assert (c.live_items, c.replayed_items, c.missing, c.extra, c.changed) == (6, 6, (), (), ())
    assert c.fidelity == 1.0
    assert [(s.request_line, s.no_ratio) for s in (unknown, cursor)] == [
        (38, "refused: -32603"),
        (45, "refused: -32602"),
    ]


@pytest.mark.shared
def test_claude_drive_on_v2_shows_the_unfinished_turn() -> None:
    """`acptrace drive` closed the connection before the first turn's `idle`: each replay
    holds only the user message, and the report says the live turn was unfinished."""
    folder = AGENTS_B / "claude-agent-acp-0.101.0-drive-v2"
    (entry,) = fidelity(folder / "00-new.jsonl", folder / "01-replay.jsonl").sessions
    assert [(Path(p.path).name, p.line) for p in entry.unfinished] == [("00-new.jsonl", 12)]
    assert (entry.comparison.live_items, entry.comparison.fidelity) == (1, 1.0)


@pytest.mark.shared
@pytest.mark.parametrize("agent", ["claude-agent-acp-0.101.0", "codex-acp-2.6.0"])
def test_golden_fidelity_of_real_v2_agents(
    agent: str, regen: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The view at 80 columns and the JSON of each live recording against its reattach,
    pinned (run beside the files: the paths are as given, the same on every machine)."""
    monkeypatch.chdir(AGENTS_B)
    files = [f"{agent}_v2_live.jsonl", f"{agent}_v2_reattach.jsonl"]
    shown = runner.invoke(app, ["fidelity", *files, "--no-config"], env={"COLUMNS": "80"})
    as_json = runner.invoke(app, ["fidelity", *files, "--no-config", "-f", "json"])
    assert (shown.exit_code, as_json.exit_code) == (0, 0), shown.output + as_json.output
    view = "\n".join(line.rstrip() for line in shown.stdout.splitlines()).strip()
    command = f"$ acptrace fidelity {' '.join(files)}"
    block = f"```console\n{command}\n{view}\n```\n\n```json\n{as_json.stdout}```\n"
    check_block(GOLDEN, f"{agent}_v2", block, regen)


# -- 2. upserts ----------------------------------------------------------------------------------


def test_v2_message_updates_are_upserts_and_chunks_append_in_the_order_received() -> None:
    """An upsert with `content` replaces the text held for its `messageId`, chunks before it
    included; later chunks append. The echo `user_message` with `content: []` then a chunk
    (claude's replay shape) leaves the prompt's text, not nothing."""
    t = started()
    v2_prompt(t, "Fix the login test", "u1")
    t.update("user_message", messageId="u1", content=[])
    said(t, "user_message_chunk", "u1", "Fix the login test")
    said(t, "agent_thought", "th1", "Maybe")
    said(t, "agent_thought_chunk", "th1", " the fixture.")
    said(t, "agent_message_chunk", "a1", "Draft ")
    said(t, "agent_message", "a1", "Final")
    said(t, "agent_message_chunk", "a1", " answer.")
    idle(t)
    replay(t)
    said(t, "user_message", "u1", "Fix the login test")
    said(t, "agent_thought", "th1", "Maybe the fixture.")
    said(t, "agent_message", "a1", "Final answer.")
    close_replay(t)
    c = only(t)
    assert (c.live_items, c.missing, c.extra, c.changed, c.fidelity) == (3, (), (), (), 1.0)


def test_an_upsert_without_content_leaves_the_text() -> None:
    t = started()
    said(t, "agent_message_chunk", "a1", "Kept.")
    t.update("agent_message", messageId="a1")  # (metadata only)
    replay(t)
    said(t, "agent_message", "a1", "Kept.")
    close_replay(t)
    assert only(t).fidelity == 1.0


# -- 3. plans ------------------------------------------------------------------------------------


def test_a_v2_plan_is_the_last_content_of_its_plan_id_whatever_its_type() -> None:
    """Content of another type than `items` replaces the plan's all the same (the schema)."""
    entries = [{"content": "Read the fixture", "priority": "high", "status": "pending"}]
    custom = {"type": "_markdown", "planId": "p1", "text": "1. Read the fixture"}
    t = started()
    t.update("plan_update", plan={"type": "items", "planId": "p1", "entries": entries})
    t.update("plan_update", plan=custom)
    t.update("plan_update", plan={"type": "items", "planId": "p2", "entries": entries})
    replay(t)
    t.update("plan_update", plan=custom)
    t.update("plan_update", plan={"type": "items", "planId": "p2", "entries": entries})
    close_replay(t)
    c = only(t)
    assert (c.live_items, c.missing, c.changed, c.fidelity) == (2, (), (), 1.0)


# -- 4. white space ------------------------------------------------------------------------------


def test_a_difference_in_white_space_only_is_no_change() -> None:
    t = started()
    said(t, "agent_message_chunk", "a1", "Looking at\n\nthe  fixture. ")
    t.update("tool_call_update", toolCallId="t1", title="Read  a.py", status="completed")
    replay(t)
    said(t, "agent_message", "a1", " Looking at the\tfixture.")
    t.update("tool_call_update", toolCallId="t1", title="Read a.py", status="completed")
    close_replay(t)
    c = only(t)
    assert (c.changed, c.fidelity) == ((), 1.0)


# -- 5. injected user text -----------------------------------------------------------------------

REMINDER = "<system-reminder>The date is 2026-12-07.</system-reminder>"


def test_text_the_agent_adds_to_a_replayed_user_message_is_one_extra_item() -> None:
    """The live prompt found whole in the replayed message of its id: the prompt is matched
    (unchanged), what the Agent added before and after it is one extra user message."""
    t = started()
    v2_prompt(t, "Fix the login test", "u1")
    idle(t)
    replay(t)
    line = said(t, "user_message", "u1", f"{REMINDER}\nFix the   login test\n(sent from Zed)")
    close_replay(t)
    c = only(t)
    assert (c.changed, c.missing, c.fidelity) == ((), (), 1.0)
    assert [(i.role, i.keyed, i.text, i.line) for i in c.extra] == [
        ("user", False, f"{REMINDER}\n\n(sent from Zed)", line)
    ]


def test_a_replayed_user_message_without_the_prompt_whole_is_changed() -> None:
    """Not found whole (a word of it changed, or found only inside a longer word): changed."""
    for replayed in ("Fix the signup test", "Fix itself", "Please Fix it"):
        t = started()
        v2_prompt(t, "Fix it" if replayed != "Fix the signup test" else "Fix the login test")
        idle(t)
        replay(t)
        said(t, "user_message", "u1", replayed)
        close_replay(t)
        c = only(t)
        if replayed == "Please Fix it":
            assert ([i.text for i in c.extra], c.changed) == (["Please"], ())
        else:
            assert (len(c.changed), c.extra) == (1, ()), replayed


def test_a_v1_run_of_user_chunks_is_cut_where_its_chunks_meet() -> None:
    """Chunks glued without a space (`…</command-name>What is…`) still part the prompt from
    the command before it: a boundary between chunks is a word boundary."""
    t = v1_started()
    prompt_turn(t, "What is in this project?", ("agent_message_chunk", "A demo."))
    v1_load(t, ("user_message_chunk", "<command-name>/model</command-name>model"),
            ("user_message_chunk", "What is in this project?"),
            ("agent_message_chunk", "A demo."))  # fmt: skip
    c = only(t)
    assert [i.text for i in c.extra] == ["<command-name>/model</command-name>model"]
    assert (c.changed, c.fidelity) == ((), 1.0)


# -- 6. a prompt answered with an error ----------------------------------------------------------


def test_a_prompt_answered_with_an_error_is_no_live_item_whatever_came_before() -> None:
    """v1: an error at the end of a turn that streamed an answer; v2: an error after the
    Agent's echo. Neither prompt was inserted; the answer sent live stays."""
    t = v1_started()
    prompt_turn(t, "Fix the login test", ("agent_message_chunk", "Looking."), error=True)
    v1_load(t, ("agent_message_chunk", "Looking."))
    c = only(t)
    assert (c.live_items, c.missing, c.fidelity) == (1, (), 1.0)
    t = started()
    t.request("session/prompt", {"sessionId": SESSION, "prompt": [text("Fix it")]}, id=9)
    said(t, "user_message", "u1", "Fix it")
    t.error(9, -32002)
    replay(t)
    close_replay(t)
    assert only(t).live_items == 0


# -- 7. no replay, no ratio: see test_fidelity.py (refused, ambiguous) ---------------------------

# -- 8. live history ------------------------------------------------------------------------------


def test_what_an_agent_replays_in_a_resume_without_cursor_is_not_live_history() -> None:
    """An Agent that replays on every resume (RC-REPLAY-WITHOUT-CURSOR): its chunks there are
    not sent a second time live, so a later replay is compared with the history once."""
    t = started()
    live_history(t)
    t.resume(replay=False, id=3)
    said(t, "user_message", "u1", "Fix the login test")
    said(t, "agent_message_chunk", "a1", "Looking at the fixture.")
    t.result(3)
    replay(t, id=4)
    faithful_replay(t)
    close_replay(t, id=4)
    (entry,) = report(t).sessions
    assert (entry.comparison.changed, entry.comparison.fidelity) == ((), 1.0)


def test_a_live_turn_during_a_resume_without_cursor_is_live_history() -> None:
    t = v1_started()
    t.request("session/prompt", {"sessionId": SESSION, "prompt": [text("Hi")]}, id=9)
    t.resume(replay=False, id=3)
    said(t, "agent_message_chunk", None, "Hello.")
    t.result(3)
    t.result(9, {"stopReason": "end_turn"})
    v1_load(t, ("user_message_chunk", "Hi"), ("agent_message_chunk", "Hello."))
    c = next(s for s in report(t).sessions if s.outcome.value == "loaded").comparison
    assert (c.live_items, c.fidelity) == (2, 1.0)


# -- 9. two files --------------------------------------------------------------------------------


def two_files(tmp_path: Path) -> tuple[Path, Path]:
    """`live.jsonl` with the live history; `replay.jsonl` with a live turn of its own, then a
    replay that drops the tool call of the first and the answer of the second."""
    live = started()
    live_history(live)
    live.close()
    later = Transcript()
    later.open()
    later.initialize()
    v2_prompt(later, "And the logout test?", "u2", id=20)
    said(later, "agent_message", "a3", "Also the token.")
    idle(later)
    replay(later)
    said(later, "user_message", "u1", "Fix the login test")
    said(later, "agent_message", "a1", "Looking at the fixture.")
    said(later, "agent_message", "a2", "The token expires too early.")
    said(later, "user_message", "u2", "And the logout test?")
    said(later, "agent_message", "a9", "Invented.")
    close_replay(later)
    return written(live, tmp_path / "live.jsonl"), written(later, tmp_path / "replay.jsonl")


def test_with_two_files_every_line_names_its_file(tmp_path: Path) -> None:
    live, replayed = two_files(tmp_path)
    shown = runner.invoke(app, ["fidelity", str(live), str(replayed)], env={"COLUMNS": "100"})
    assert shown.exit_code == 0, shown.output
    words = " ".join(shown.stdout.split())
    assert "Replay fidelity of the replays in replay.jsonl" in words
    assert "(request at replay.jsonl:8, complete)" in words
    assert "missing tool_call t1 (live at live.jsonl:9)" in words
    assert "missing agent message a3 (live at replay.jsonl:6)" in words
    assert "extra agent message a9 (replayed at replay.jsonl:13)" in words
    assert " line " not in words.split("complete)", 1)[1]  # (no line without its file)
    document = json.loads(
        runner.invoke(app, ["fidelity", str(live), str(replayed), "-f", "json"]).stdout
    )
    assert document["files"] == [str(live), str(replayed)]
    (session,) = document["sessions"]
    assert (session["path"], session["request_line"]) == (str(replayed), 8)
    assert [(m["id"], m["path"], m["line"]) for m in session["missing"]] == [
        ("t1", str(live), 9),
        ("a3", str(replayed), 6),
    ]
    assert [(e["id"], e["path"], e["line"]) for e in session["extra"]] == [
        ("a9", str(replayed), 13)
    ]


def test_one_file_keeps_plain_line_numbers_and_two_alike_names_keep_their_paths() -> None:
    assert PlaceNames.of(["a.jsonl"]).at("a.jsonl", 7, "live") == "live line 7"
    two = PlaceNames.of(["x/a.jsonl", "y/b.jsonl"])
    assert (two.at("x/a.jsonl", 7, "live"), two.at("y/b.jsonl", 3)) == (
        "live at a.jsonl:7", "b.jsonl:3",
    )  # fmt: skip
    alike = PlaceNames.of(["x/run.jsonl", "y/run.jsonl"])
    assert alike.at("y/run.jsonl", 3) == "y/run.jsonl:3"


@pytest.mark.parametrize("width", [40, 50, 60, 70, 80, 120])
def test_two_file_details_fit_and_never_part_a_file_from_its_line(
    tmp_path: Path, width: int
) -> None:
    live, replayed = two_files(tmp_path)
    shown = runner.invoke(app, ["fidelity", str(live), str(replayed)], env={"COLUMNS": str(width)})
    details = shown.stdout.split("sess_1  (", 1)[1].splitlines()
    for line in details:
        assert len(line) <= width, line
        assert not re.search(r"\.jsonl:?$|^\s*:?\d", line), line  # (FILE:LINE kept whole)
        wrapped = line is not details[0] and line and not line.startswith("  ")
        assert not wrapped or line.endswith(("at", ",")), line
    assert "live.jsonl:9)" in shown.stdout


@pytest.mark.parametrize("width", [40, 60, 80])
def test_one_file_details_never_part_a_line_number_from_line(tmp_path: Path, width: int) -> None:
    path = str(dropped(tmp_path))
    shown = runner.invoke(app, ["fidelity", path], env={"COLUMNS": str(width)}).stdout
    details = shown.split("sess_1  (", 1)[1].splitlines()
    assert "(request at line 15," in shown
    for line in details:
        assert len(line) <= width, line
        assert not re.search(r"\bline$|^\s*\d+[),]", line), line


# -- 11. --fail-under ----------------------------------------------------------------------------


def rated_and_refused(tmp_path: Path, replayed_text: str) -> Path:
    """A faithful (or not) replay, then a refused one."""
    t = started()
    said(t, "agent_message", "a1", "Looking at the fixture.")
    replay(t, id=3)
    said(t, "agent_message", "a1", replayed_text)
    close_replay(t, id=3)
    t.resume(id=4, replay={"type": "_fromMessage", "messageId": "a1"})
    t.error(4, -32602)
    return written(t, tmp_path / "gate.jsonl")


def test_fail_under_judges_the_sessions_with_a_ratio_and_names_those_skipped(
    tmp_path: Path,
) -> None:
    path = str(rated_and_refused(tmp_path, "Looking at the fixture."))
    result = runner.invoke(app, ["fidelity", path, "--fail-under", "1"])
    assert result.exit_code == 0, result.output
    assert result.stderr.splitlines() == [
        "acptrace: --fail-under 1 skips 1 session without a fidelity: line 12 (refused: -32602)"
    ]
    quiet = runner.invoke(app, ["fidelity", path, "--fail-under", "1", "-q"])
    assert (quiet.exit_code, quiet.stderr) == (0, "")
    path = str(rated_and_refused(tmp_path, "Looking at something else entirely."))
    assert runner.invoke(app, ["fidelity", path, "--fail-under", "0.5"]).exit_code == 1


def test_fail_under_without_any_replay_checks_nothing(tmp_path: Path) -> None:
    t = started()
    path = written(t, tmp_path / "no-replay.jsonl")
    result = runner.invoke(app, ["fidelity", str(path), "--fail-under", "0.9"])
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [
        "acptrace: error: --fail-under 0.9 checked nothing: no replays to compare"
    ]
