"""`acptrace fidelity`: a replay against the history as first sent live, one test per rule."""

from __future__ import annotations

import gzip
import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from acptrace.cli import app
from acptrace.fidelity import Comparison, FidelityReport, HistoryItem, fidelity
from acptrace.fidelity.compare import DIFF_LINES
from acptrace.model.domain import Role
from acptrace.model.errors import NotATranscript
from acptrace.model.options import Options
from tests.transcript import SESSION, Transcript

runner = CliRunner()


def started() -> Transcript:
    """A connection from its start: open, initialize (v2), a new session."""
    t = Transcript()
    t.open()
    t.initialize()
    t.new_session()
    return t


def text(value: str) -> dict[str, str]:
    return {"type": "text", "text": value}


def said(t: Transcript, tag: str, id: str | None, words: str, session: str = SESSION) -> int:
    """A message update: a chunk carries one block, an upsert an array."""
    content: Any = text(words) if tag.endswith("_chunk") else [text(words)]
    fields: dict[str, Any] = {"content": content}
    if id is not None:
        fields["messageId"] = id
    return t.update(tag, session, **fields)


def live_history(t: Transcript) -> None:
    """A prompt turn as it streamed live: a user message, two agent messages in chunks, and a
    tool call from pending to completed with its output."""
    said(t, "user_message", "u1", "Fix the login test")
    said(t, "agent_message_chunk", "a1", "Looking at ")
    said(t, "agent_message_chunk", "a1", "the fixture.")
    t.update("tool_call_update", toolCallId="t1", title="Read conftest.py", status="pending")
    t.update("tool_call_update", toolCallId="t1", status="in_progress")
    t.update("tool_call_content_chunk", toolCallId="t1", content={"type": "content",
             "content": text("def token(): ...")})  # fmt: skip
    t.update("tool_call_update", toolCallId="t1", status="completed")
    said(t, "agent_message_chunk", "a2", "The token expires ")
    said(t, "agent_message_chunk", "a2", "too early.")


def replayed_tool_call(t: Transcript, status: str = "completed") -> None:
    t.update("tool_call_update", toolCallId="t1", title="Read conftest.py", status=status,
             content=[{"type": "content", "content": text("def token(): ...")}])  # fmt: skip


def replay(t: Transcript, *, id: int = 3) -> None:
    """A replaying resume of the session whose history the caller writes (call `close_replay`)."""
    t.resume(id=id)


def close_replay(t: Transcript, id: int = 3, marker: bool = True) -> None:
    if marker:
        t.marker()
    t.update("state_update", state="idle")
    t.result(id)


def report(t: Transcript, **options: Any) -> FidelityReport:
    return fidelity(io.BytesIO(t.text()), options=Options(**options))


def only(t: Transcript, **options: Any) -> Comparison:
    """The comparison of the transcript's one replay."""
    (entry,) = report(t, **options).sessions
    return entry.comparison


def ids(items: tuple[HistoryItem, ...]) -> list[tuple[str, str]]:
    return [(item.kind.value, item.id) for item in items]


def faithful_replay(t: Transcript) -> None:
    """The live history, replayed whole as upserts."""
    said(t, "user_message", "u1", "Fix the login test")
    said(t, "agent_message", "a1", "Looking at the fixture.")
    replayed_tool_call(t)
    said(t, "agent_message", "a2", "The token expires too early.")


# -- matching rules ------------------------------------------------------------------------------


def test_a_replay_of_the_whole_history_is_faithful_chunks_against_upserts() -> None:
    t = started()
    live_history(t)
    replay(t)
    faithful_replay(t)
    close_replay(t)
    c = only(t)
    assert (c.live_items, c.replayed_items) == (4, 4)
    assert (c.missing, c.extra, c.changed, c.reordered) == ((), (), (), ())
    assert c.fidelity == 1.0


def test_done_when_a_dropped_tool_call_and_two_merged_messages_are_exactly_reported() -> None:
    """The issue's example: the replay leaves out t1 and merges a2 into a1."""
    t = started()
    live_history(t)
    replay(t)
    said(t, "user_message", "u1", "Fix the login test")
    said(t, "agent_message", "a1", "Looking at the fixture.The token expires too early.")
    close_replay(t)
    c = only(t)
    assert ids(c.missing) == [("tool_call", "t1"), ("message", "a2")]
    assert ids(c.extra) == []
    assert [ids((ch.live,)) for ch in c.changed] == [[("message", "a1")]]
    assert c.changed[0].diff == (
        "-Looking at the fixture.",
        "+Looking at the fixture.The token expires too early.",
    )
    assert c.reordered == ()
    assert c.fidelity == 1 / 4  # only u1 came back unchanged


def test_an_item_the_live_history_never_held_is_extra() -> None:
    t = started()
    live_history(t)
    replay(t)
    faithful_replay(t)
    said(t, "agent_message", "a9", "A message nobody saw live.")
    close_replay(t)
    c = only(t)
    assert ids(c.extra) == [("message", "a9")]
    assert c.extra[0].role == "agent"
    assert c.fidelity == 1.0  # an extra item takes nothing from the live history


def test_a_tool_call_is_compared_by_its_last_status() -> None:
    t = started()
    live_history(t)
    replay(t)
    said(t, "user_message", "u1", "Fix the login test")
    said(t, "agent_message", "a1", "Looking at the fixture.")
    replayed_tool_call(t, status="failed")
    said(t, "agent_message", "a2", "The token expires too early.")
    close_replay(t)
    c = only(t)
    assert ids(tuple(ch.live for ch in c.changed)) == [("tool_call", "t1")]
    assert c.changed[0].diff == ("-status: completed", "+status: failed")
    assert c.fidelity == 3 / 4


def test_a_permission_requests_tool_call_is_live_history_like_an_update() -> None:
    """Clients apply a permission request's `toolCall` like a `tool_call_update` (the RFD), so
    the title it brings is part of the live tool call."""
    t = started()
    subject = {"type": "tool_call", "toolCall": {"toolCallId": "t1", "title": "Edit a.py"}}
    t.request("session/request_permission", {"sessionId": SESSION, "subject": subject,
              "options": []}, id=7, agent=True)  # fmt: skip
    t.result(7, {"outcome": {"outcome": "selected", "optionId": "allow"}}, agent=False)
    t.update("tool_call_update", toolCallId="t1", status="completed")
    replay(t)
    t.update("tool_call_update", toolCallId="t1", title="Edit a.py", status="completed")
    close_replay(t)
    c = only(t)
    assert (c.live_items, c.changed, c.fidelity) == (1, (), 1.0)


def test_items_out_of_the_live_order_are_reordered_and_still_count_as_faithful() -> None:
    t = started()
    live_history(t)
    replay(t)
    said(t, "agent_message", "a1", "Looking at the fixture.")
    said(t, "user_message", "u1", "Fix the login test")  # u1 after a1: one item moved
    replayed_tool_call(t)
    said(t, "agent_message", "a2", "The token expires too early.")
    close_replay(t)
    c = only(t)
    assert len(c.reordered) == 1
    move = c.reordered[0]
    assert move.item.id in {"u1", "a1"}
    assert {move.live_index, move.replayed_index} == {0, 1}
    assert (c.missing, c.extra, c.changed) == ((), (), ())
    assert c.fidelity == 1.0


def test_never_history_updates_are_not_missing_from_a_replay() -> None:
    """Live-only tags (usage, session info, commands, snapshots) make no item; a tag made
    never-history with `--live-tag` leaves the comparison too."""
    t = started()
    t.update("usage_update", used=10, size=100)
    t.update("session_info_update", title="Login")
    t.update("available_commands_update", availableCommands=[])
    said(t, "user_message", "u1", "Fix the login test")
    said(t, "agent_thought_chunk", "th1", "Maybe the fixture.")
    t.update("state_update", state="idle")
    replay(t)
    said(t, "user_message", "u1", "Fix the login test")
    close_replay(t)
    assert ids(only(t).missing) == [("thought", "th1")]
    c = only(t, live_tags=("agent_thought_chunk",))
    assert (c.live_items, c.missing, c.fidelity) == (1, (), 1.0)


def test_messages_without_message_id_match_by_order_within_kind_and_role() -> None:
    """v1 chunks carry no `messageId`: consecutive chunks of one role are one message, the Nth
    user (agent) message of the live history is matched with the Nth of the replay."""
    t = started()
    said(t, "user_message_chunk", None, "First question")
    said(t, "agent_message_chunk", None, "First ")
    said(t, "agent_message_chunk", None, "answer")
    said(t, "user_message_chunk", None, "Second question")
    said(t, "agent_message_chunk", None, "Second answer")
    replay(t)
    said(t, "user_message_chunk", None, "First question")
    said(t, "agent_message_chunk", None, "First answer")
    said(t, "user_message_chunk", None, "Second question")
    said(t, "agent_message_chunk", None, "Second answer, reworded")
    close_replay(t)
    c = only(t)
    assert c.live_items == 4
    assert [(ch.live.role, ch.live.id, ch.live.keyed) for ch in c.changed] == [
        ("agent", "#2", False)
    ]
    assert (c.missing, c.extra, c.reordered) == ((), (), ())


def test_a_v1_load_replays_v1_tool_calls_and_plans() -> None:
    """v1's `tool_call` and `plan` tags (not in the v2 tag table) are history items too."""
    t = Transcript()
    t.open()
    t.initialize(version=1)
    t.new_session()
    entries = [{"content": "Read the fixture", "priority": "high", "status": "completed"}]

    def turn(answer: str) -> None:
        said(t, "user_message_chunk", None, "Fix it")
        t.update("tool_call", toolCallId="t1", title="Read", kind="read", status="completed")
        t.update("plan", entries=entries)
        said(t, "agent_message_chunk", None, answer)

    turn("Done.")
    t.request("session/load", {"sessionId": SESSION, "cwd": "/", "mcpServers": []}, id=5)
    turn("Done!")
    t.result(5, None)
    (entry,) = report(t).sessions
    assert entry.outcome.value == "loaded"
    c = entry.comparison
    assert ids(tuple(ch.live for ch in c.changed)) == [("message", "#1")]
    assert (c.live_items, c.replayed_items, c.missing, c.extra) == (4, 4, (), ())


def test_messages_of_each_role_and_thoughts_have_their_own_ids() -> None:
    """MessageId spaces are per type: a user message and an agent message may share an id."""
    t = started()
    said(t, "user_message", "m1", "question")
    said(t, "agent_message", "m1", "answer")
    said(t, "agent_thought", "m1", "thinking")
    replay(t)
    said(t, "user_message", "m1", "question")
    said(t, "agent_message", "m1", "answer")
    close_replay(t)
    c = only(t)
    assert c.live_items == 3
    assert ids(c.missing) == [("thought", "m1")]
    assert c.changed == ()


def test_the_replay_ends_at_the_marker_or_else_at_the_response() -> None:
    """Updates after the marker are live again (the cut point, new work): neither extra nor
    replayed. Without a marker the replay runs to the response."""
    t = started()
    said(t, "user_message", "u1", "Fix the login test")
    replay(t)
    said(t, "user_message", "u1", "Fix the login test")
    t.marker()
    said(t, "agent_message", "a5", "New work after the marker.")
    t.result(3)
    c = only(t)
    assert (c.replayed_items, c.extra) == (1, ())
    t = started()
    said(t, "user_message", "u1", "Fix the login test")
    replay(t)
    said(t, "user_message", "u1", "Fix the login test")
    said(t, "agent_message", "a5", "Still replayed: no marker.")
    t.result(3)
    (entry,) = report(t).sessions
    assert entry.outcome.value == "unmarked_success"
    assert ids(entry.comparison.extra) == [("message", "a5")]


def test_plans_are_compared_by_their_entries_and_a_removed_plan_is_not_missing() -> None:
    def plan(id: str, status: str) -> dict[str, Any]:
        entries = [{"content": "Read the fixture", "priority": "high", "status": status}]
        return {"type": "items", "planId": id, "entries": entries}

    t = started()
    t.update("plan_update", plan=plan("p1", "pending"))
    t.update("plan_update", plan=plan("p1", "completed"))
    t.update("plan_update", plan=plan("p2", "pending"))
    t.update("plan_removed", planId="p2")
    replay(t)
    t.update("plan_update", plan=plan("p1", "in_progress"))
    close_replay(t)
    c = only(t)
    assert (c.live_items, c.missing) == (1, ())
    assert c.changed[0].diff == (
        "-- [completed] Read the fixture",
        "+- [in_progress] Read the fixture",
    )


def test_a_child_announcement_missing_from_the_parents_replay_is_missing() -> None:
    t = started()
    said(t, "user_message", "u1", "Review auth/")
    t.announce("sess_child")
    said(t, "user_message", "c1", "Check auth/ for leaks", session="sess_child")
    replay(t)
    said(t, "user_message", "u1", "Review auth/")
    close_replay(t)
    (parent,) = report(t).sessions
    assert parent.role is Role.REQUESTED
    assert ids(parent.comparison.missing) == [("child", "sess_child")]


def test_an_announced_childs_own_replay_is_compared_with_its_live_history() -> None:
    t = started()
    t.announce("sess_child")
    said(t, "user_message", "c1", "Check auth/ for leaks", session="sess_child")
    said(t, "agent_message", "c2", "No leaks.", session="sess_child")
    replay(t)
    t.announce("sess_child")
    said(t, "user_message", "c1", "Check auth/ for leaks", session="sess_child")
    t.marker("sess_child")
    close_replay(t)
    sessions = {entry.session_id: entry for entry in report(t).sessions}
    assert sessions["sess_child"].role is Role.CHILD
    assert ids(sessions["sess_child"].comparison.missing) == [("message", "c2")]
    assert sessions[SESSION].comparison.fidelity == 1.0


def test_a_second_replay_is_compared_with_the_live_history_not_the_first_replay() -> None:
    """Replayed items never join the live history (chunks replayed again would double it)."""
    t = started()
    said(t, "agent_message_chunk", "a1", "one")
    replay(t, id=3)
    said(t, "agent_message_chunk", "a1", "one")
    close_replay(t, id=3)
    said(t, "agent_message_chunk", "a2", "two")  # live again, after the first replay
    replay(t, id=4)
    said(t, "agent_message_chunk", "a1", "one")
    said(t, "agent_message_chunk", "a2", "two")
    close_replay(t, id=4)
    first, second = report(t).sessions
    assert (first.comparison.live_items, first.comparison.fidelity) == (1, 1.0)
    assert (second.comparison.live_items, second.comparison.fidelity) == (2, 1.0)


def two_recordings(tmp_path: Path, *replayed: tuple[str, str, str]) -> None:
    """`live.jsonl` (the live history) and `replay.jsonl` (a later connection whose replay
    carries these (tag, id, words) items) in `tmp_path`."""
    live = started()
    live_history(live)
    live.close()
    later = Transcript()
    later.open()
    later.initialize()
    replay(later)
    for tag, item_id, words in replayed:
        said(later, tag, item_id, words)
    close_replay(later)
    (tmp_path / "live.jsonl").write_bytes(live.text())
    (tmp_path / "replay.jsonl").write_bytes(later.text())


def test_two_files_the_live_recording_then_the_replay_recording(tmp_path: Path) -> None:
    two_recordings(
        tmp_path,
        ("user_message", "u1", "Fix the login test"),
        ("agent_message", "a1", "Looking at the fixture."),
        ("agent_message", "a2", "The token expires too early."),
    )
    result = fidelity(tmp_path / "live.jsonl", tmp_path / "replay.jsonl")
    (entry,) = result.sessions
    assert entry.request_line == 4  # a line of the replay recording
    assert ids(entry.comparison.missing) == [("tool_call", "t1")]
    assert entry.comparison.fidelity == 3 / 4
    alone = fidelity(tmp_path / "replay.jsonl").sessions[0].comparison
    assert (alone.live_items, len(alone.extra)) == (0, 3)  # the live recording is what counts


def test_a_long_diff_is_cut_to_a_few_lines() -> None:
    t = started()
    said(t, "agent_message", "a1", "\n".join(f"line {i}" for i in range(20)))
    replay(t)
    said(t, "agent_message", "a1", "\n".join(f"line {i}!" for i in range(20)))
    close_replay(t)
    diff = only(t).changed[0].diff
    assert len(diff) == DIFF_LINES + 1
    assert diff[-1] == f"… {40 - DIFF_LINES} more lines"


def test_no_live_items_is_a_ratio_of_one_and_no_replay_is_no_entry() -> None:
    t = started()
    replay(t)
    said(t, "user_message", "u1", "from an earlier connection")
    close_replay(t)
    c = only(t)
    assert (c.live_items, len(c.extra), c.fidelity) == (0, 1, 1.0)
    t = started()
    t.resume(replay=False, id=3)
    t.update("state_update", state="idle")
    t.result(3)
    assert report(t).sessions == ()


# -- the command ---------------------------------------------------------------------------------


def dropped(tmp_path: Path) -> Path:
    """A transcript whose replay drops the tool call."""
    t = started()
    live_history(t)
    replay(t)
    said(t, "user_message", "u1", "Fix the login test")
    said(t, "agent_message", "a1", "Looking at the fixture.")
    said(t, "agent_message", "a2", "The token expires too early.")
    close_replay(t)
    path = tmp_path / "dropped.jsonl"
    path.write_bytes(t.text())
    return path


def test_json_has_the_documented_fields(tmp_path: Path) -> None:
    result = runner.invoke(app, ["fidelity", str(dropped(tmp_path)), "--format", "json"])
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    assert set(document) == {"sessions", "issues"}
    (session,) = document["sessions"]
    assert set(session) == {
        "session_id", "role", "request_line", "outcome", "live_items", "replayed_items",
        "missing", "extra", "changed", "reordered", "fidelity",
    }  # fmt: skip
    assert session["missing"] == [{"kind": "tool_call", "id": "t1", "role": None, "line": 9}]
    assert (session["live_items"], session["replayed_items"], session["fidelity"]) == (4, 3, 0.75)


def test_fail_under_exits_1_below_the_ratio_and_0_at_or_above(tmp_path: Path) -> None:
    path = str(dropped(tmp_path))
    assert runner.invoke(app, ["fidelity", path, "--fail-under", "0.8"]).exit_code == 1
    assert runner.invoke(app, ["fidelity", path, "--fail-under", "0.75"]).exit_code == 0
    assert runner.invoke(app, ["fidelity", path]).exit_code == 0


def test_an_unreadable_file_exits_2_with_one_line_on_stderr(tmp_path: Path) -> None:
    result = runner.invoke(app, ["fidelity", str(tmp_path / "absent.jsonl")])
    assert result.exit_code == 2
    assert "no such file" in result.stderr
    assert result.stdout == ""
    both = runner.invoke(app, ["fidelity", str(dropped(tmp_path)), str(tmp_path)])
    assert both.exit_code == 2
    assert "is a directory" in both.stderr


@pytest.mark.parametrize(
    ("content", "why"),
    [
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00", "binary"),
        (b"", "it is empty"),
        (b'{"name": "a package.json"}\n', "no line is a JSON-RPC message"),
    ],
)
def test_a_file_that_is_not_a_transcript_exits_2_naming_it(
    tmp_path: Path, content: bytes, why: str
) -> None:
    """An image, an empty file or JSON of another kind is not compared as if it had no replays."""
    other = tmp_path / "other.jsonl"
    other.write_bytes(content)
    for argv in ([str(other)], [str(dropped(tmp_path)), str(other)]):
        result = runner.invoke(app, ["fidelity", *argv])
        assert result.exit_code == 2, result.output
        assert f"{other}: not a transcript ({why}" in result.stderr
        assert result.stdout == ""
    with pytest.raises(NotATranscript):
        fidelity(other, require_transcripts=True)
    assert fidelity(other).sessions == ()  # (the library asked plainly still answers)


def test_a_bad_line_is_an_issue_with_its_line_number_not_a_traceback(tmp_path: Path) -> None:
    path = dropped(tmp_path)
    path.write_bytes(path.read_bytes() + b"{not json\n")
    result = runner.invoke(app, ["fidelity", str(path), "--format", "json"])
    assert result.exit_code == 0, result.output
    assert f"{path}:22: not_json:" in result.stderr
    issues = json.loads(result.stdout)["issues"]
    assert [(i["line"], i["kind"]) for i in issues] == [(22, "not_json")]


def test_stdin_and_output_file(tmp_path: Path) -> None:
    out = tmp_path / "out.json"
    data = dropped(tmp_path).read_bytes()
    result = runner.invoke(app, ["fidelity", "-", "-f", "json", "-o", str(out)], input=data)
    assert result.exit_code == 0, result.output
    assert json.loads(out.read_text())["sessions"][0]["fidelity"] == 0.75


def test_gzip_through_a_pipe_is_read_twice(tmp_path: Path) -> None:
    """A gzip reader over a pipe claims it can seek; stdin is spooled so both passes read it."""
    data = gzip.compress(dropped(tmp_path).read_bytes())
    command = [sys.executable, "-m", "acptrace", "fidelity", "-", "-f", "json", "--no-config"]
    done = subprocess.run(command, input=data, capture_output=True, check=False)
    assert done.returncode == 0, done.stderr.decode()
    assert json.loads(done.stdout)["sessions"][0]["fidelity"] == 0.75


def test_the_table_reads_at_80_columns(tmp_path: Path) -> None:
    result = runner.invoke(app, ["fidelity", str(dropped(tmp_path))], env={"COLUMNS": "80"})
    lines = result.stdout.splitlines()
    assert max(len(line.rstrip()) for line in lines) <= 80
    assert any("fidelity" in line and "missing" in line for line in lines)
    assert any(line.split()[-1:] == ["0.75"] for line in lines)
    assert "missing   tool_call t1  (live line 9)" in result.stdout
