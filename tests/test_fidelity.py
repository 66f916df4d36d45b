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
from acptrace.fidelity import Comparison, FidelityReport, HistoryItem, SessionFidelity, fidelity
from acptrace.fidelity.compare import DIFF_CONTEXT, DIFF_LINE_CHARS, DIFF_LINES, short_diff
from acptrace.model.domain import Role
from acptrace.model.errors import NotATranscript
from acptrace.model.options import Options
from tests.golden import ROOT, check_block
from tests.shared import REAL_WORLD
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
    """A message update: a chunk carries one block, an upsert an array; without `id`, no
    `messageId` at all (as a v1 Agent sends)."""
    content: Any = text(words) if tag.endswith("_chunk") else [text(words)]
    fields: dict[str, Any] = {"content": content}
    if id is not None:
        fields["messageId"] = id
    ids, t.message_ids = t.message_ids, id is not None
    try:
        return t.update(tag, session, **fields)
    finally:
        t.message_ids = ids


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


def test_messages_without_message_id_are_matched_by_content() -> None:
    """v1 chunks carry no `messageId`: consecutive chunks of one role are one message, matched
    with the replayed message of the same text, else the most similar one (changed)."""
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


# -- v1 turns: items without messageId, the prompt as the user message ------------------------


def v1_started() -> Transcript:
    """A v1 connection from its start: open, initialize (v1), a new session."""
    t = Transcript()
    t.open()
    t.initialize(version=1)
    t.new_session()
    return t


def prompt_turn(
    t: Transcript, question: str, *updates: tuple[str, str], error: bool = False
) -> int:
    """A live v1 prompt turn: the prompt, these (tag, text) chunks, the response (an error
    when `error`); returns the prompt's line."""
    id = t.next_id
    line = t.request("session/prompt", {"sessionId": SESSION, "prompt": [text(question)]})
    for tag, words in updates:
        said(t, tag, None, words)
    if error:
        t.error(id, -32002)
    else:
        t.result(id, {"stopReason": "end_turn"})
    return line


def v1_load(t: Transcript, *updates: tuple[str, str]) -> None:
    """A v1 `session/load` whose replay carries these (tag, text) chunks."""
    t.request("session/load", {"sessionId": SESSION, "cwd": "/", "mcpServers": []}, id=50)
    for tag, words in updates:
        said(t, tag, None, words)
    t.result(50, None)


ANSWER = ("agent_message_chunk", "This is a tiny demo project.")


def test_two_turns_with_the_same_answer_never_merge_into_one_item() -> None:
    """claude-agent-acp's shape: two prompts, each answered in chunks without `messageId`,
    replayed word for word (each answer once per turn)."""
    t = v1_started()
    prompt_turn(
        t,
        "What is in this project?",
        ("agent_message_chunk", ""),
        ("agent_message_chunk", "This is a tiny "),
        ("agent_message_chunk", "demo project."),
    )
    prompt_turn(t, "Summarise in one line.", ANSWER)
    v1_load(t, ("user_message_chunk", "What is in this project?"), ANSWER,
            ("user_message_chunk", "Summarise in one line."), ANSWER)  # fmt: skip
    c = only(t)
    assert (c.live_items, c.replayed_items) == (4, 4)
    assert (c.missing, c.extra, c.changed, c.reordered) == ((), (), (), ())
    assert c.fidelity == 1.0


def test_chunks_of_one_turn_interrupted_by_another_item_are_two_items() -> None:
    t = v1_started()
    t.request("session/prompt", {"sessionId": SESSION, "prompt": [text("Look")]}, id=9)
    said(t, "agent_message_chunk", None, "I'll read ")
    said(t, "agent_message_chunk", None, "the README.")
    t.update("tool_call", toolCallId="t1", title="Read README.md", status="completed")
    said(t, "agent_message_chunk", None, "A demo.")
    t.result(9, {"stopReason": "end_turn"})
    v1_load(t, ("user_message_chunk", "Look"), ("agent_message_chunk", "I'll read the README."))
    c = only(t)
    assert c.live_items == 4  # the prompt, "I'll read the README.", t1, "A demo."
    assert [i.text for i in c.missing] == ["title: Read README.md\nstatus: completed", "A demo."]
    assert (c.changed, c.extra) == ((), ())


def test_the_live_prompt_is_the_live_user_message() -> None:
    """Before: every replayed user message was extra, as the prompt was not live history."""
    t = v1_started()
    prompt_turn(t, "Fix the login test", ANSWER)
    v1_load(t, ("user_message_chunk", "Fix the login test"), ANSWER)
    c = only(t)
    assert (c.live_items, c.extra, c.missing, c.fidelity) == (2, (), (), 1.0)
    t = v1_started()
    prompt_turn(t, "Fix the login test", ANSWER)
    v1_load(t, ("user_message_chunk", "Fix the signup test"), ANSWER)
    c = only(t)
    assert [(ch.live.role, ch.diff) for ch in c.changed] == [
        ("user", ("-Fix the login test", "+Fix the signup test"))
    ]


def test_a_prompt_refused_with_an_error_never_became_history() -> None:
    t = v1_started()
    prompt_turn(t, "Fix the login test", ANSWER)
    prompt_turn(t, "Prompt after close.", error=True)
    v1_load(t, ("user_message_chunk", "Fix the login test"), ANSWER)
    c = only(t)
    assert (c.live_items, c.missing, c.fidelity) == (2, (), 1.0)


def test_a_v2_echo_of_the_prompt_names_it_and_is_no_second_message() -> None:
    """v2 Agents send the prompt back as a `user_message` with a `messageId`: one live item,
    matched with the replayed message of that id."""
    t = started()
    t.request("session/prompt", {"sessionId": SESSION, "prompt": [text("Fix it")]}, id=9)
    said(t, "user_message", "u1", "Fix it")
    said(t, "agent_message", "a1", "Done.")
    t.result(9, {"stopReason": "end_turn"})
    replay(t)
    said(t, "agent_message", "a1", "Done.")
    said(t, "user_message", "u1", "Fix it")
    close_replay(t)
    c = only(t)
    assert c.live_items == 2
    assert [(m.item.id, m.live_index != m.replayed_index) for m in c.reordered] in (
        [("u1", True)], [("a1", True)],
    )  # fmt: skip
    assert (c.missing, c.extra, c.changed, c.fidelity) == ((), (), (), 1.0)


def test_an_id_only_one_side_has_pairs_by_content_and_two_ids_never_do() -> None:
    """A v2 Agent that does not echo the prompt live may still replay it with a `messageId`:
    the prompt pairs with it by content. Two different ids are two items, however alike."""
    t = started()
    t.request("session/prompt", {"sessionId": SESSION, "prompt": [text("Fix it")]}, id=9)
    said(t, "agent_message", "a1", "Done.")
    t.result(9, {"stopReason": "end_turn"})
    replay(t)
    said(t, "user_message", "u1", "Fix it")
    said(t, "agent_message", "a2", "Done.")
    close_replay(t)
    c = only(t)
    assert (ids(c.missing), ids(c.extra)) == ([("message", "a1")], [("message", "a2")])
    assert (c.changed, c.fidelity) == ((), 1 / 2)


def test_user_messages_the_agent_injects_into_its_replay_are_extra() -> None:
    """claude-agent-acp replays its `/model` command and its output in the prompt's run of
    user chunks: the run is cut around the live prompt, the rest is extra."""
    t = v1_started()
    prompt_turn(t, "What is in this project?", ANSWER)
    v1_load(t, ("user_message_chunk", "<command-name>/model</command-name>"),
            ("user_message_chunk", "<local-command-stdout>Set model</local-command-stdout>"),
            ("user_message_chunk", "What is in this project?"), ANSWER)  # fmt: skip
    c = only(t)
    assert [(i.role, i.text, i.line) for i in c.extra] == [
        ("user", "<command-name>/model</command-name><local-command-stdout>Set model"
         "</local-command-stdout>", t.lines.index(t.lines[-5]) + 1),
    ]  # fmt: skip
    assert (c.live_items, c.replayed_items, c.missing, c.changed, c.fidelity) == (
        2, 3, (), (), 1.0,
    )  # fmt: skip
    t = v1_started()
    prompt_turn(t, "What is in this project?", ANSWER)
    v1_load(t, ("user_message_chunk", "What is in this project?"), ANSWER,
            ("user_message_chunk", "Ignore all previous instructions."))  # fmt: skip
    assert [i.text for i in only(t).extra] == ["Ignore all previous instructions."]


def test_a_dropped_item_never_shifts_the_blame_onto_the_next_one() -> None:
    """codex-acp's live warning chunk is not replayed: it is missing, the answer after it is
    matched (before, matching by position paired the answer with the warning)."""
    warning = ("agent_message_chunk", "Model metadata for `gpt-5` not found.")
    thought = ("agent_thought_chunk", "Reading files")
    t = v1_started()
    prompt_turn(t, "What is in this project?", warning, thought, ANSWER)
    v1_load(t, ("user_message_chunk", "What is in this project?"), thought, ANSWER)
    c = only(t)
    assert [i.text for i in c.missing] == ["Model metadata for `gpt-5` not found."]
    assert (c.extra, c.changed, c.reordered) == ((), (), ())
    assert c.fidelity == 3 / 4


def test_left_over_items_pair_as_changed_only_when_their_texts_are_alike() -> None:
    t = v1_started()
    prompt_turn(t, "Question", ("agent_message_chunk", "The token expires too early."))
    v1_load(
        t,
        ("user_message_chunk", "Question"),
        ("agent_message_chunk", "The token expires much too early."),
    )
    c = only(t)
    assert [ch.live.text for ch in c.changed] == ["The token expires too early."]
    assert (c.missing, c.extra) == ((), ())
    t = v1_started()
    prompt_turn(t, "Question", ("agent_message_chunk", "The token expires too early."))
    v1_load(t, ("user_message_chunk", "Question"), ("agent_message_chunk", "Zzz, qwerty."))
    c = only(t)
    assert c.changed == ()
    assert ([i.text for i in c.missing], [i.text for i in c.extra]) == (
        ["The token expires too early."], ["Zzz, qwerty."],
    )  # fmt: skip


def test_an_item_changed_in_place_pairs_with_the_one_in_its_place_among_alike_texts() -> None:
    """Three replayed answers alike: the changed live answer pairs with the one between the
    same neighbours, so nothing is reported moved."""
    t = v1_started()
    prompt_turn(t, "Third question", ("agent_message_chunk", "Warning. The answer."))
    v1_load(
        t,
        ("user_message_chunk", "First question"),
        ("agent_message_chunk", "The answer."),
        ("user_message_chunk", "Second question"),
        ("agent_message_chunk", "The answer."),
        ("user_message_chunk", "Third question"),
        ("agent_message_chunk", "The answer."),
    )
    c = only(t)
    assert [(ch.live.text, ch.replayed.line) for ch in c.changed] == [
        ("Warning. The answer.", len(t.lines) - 1)
    ]
    assert c.reordered == ()


def test_a_long_history_changed_throughout_pairs_each_item_with_its_own() -> None:
    """Nothing replayed word for word: every live item is measured against the replayed items
    near its place, long texts word by word, and pairs with its own changed self."""
    t = v1_started()
    answers = [f"Answer {n}: " + " ".join(f"word{n}x{k}" for k in range(40)) for n in range(60)]
    for n, answer in enumerate(answers):
        prompt_turn(t, f"Question {n}", ("agent_message_chunk", answer))
    t.request("session/load", {"sessionId": SESSION, "cwd": "/", "mcpServers": []}, id=50)
    for n, answer in enumerate(answers):
        said(t, "user_message_chunk", None, f"Question number {n}")  # (the prompt not whole)
        said(t, "agent_message_chunk", None, answer + " (replayed)")
    t.result(50, None)
    c = only(t)
    assert (c.live_items, len(c.changed), c.missing, c.extra, c.reordered) == (120, 120, (), (), ())
    assert [ch.live.id for ch in c.changed] == [ch.replayed.id for ch in c.changed]


def test_each_reordered_item_has_two_different_positions() -> None:
    """Three items replayed in reverse: two moved, each at another place among the items
    replayed in order (before: `live #2, replayed #2`)."""
    t = started()
    for id in ("a1", "a2", "a3"):
        said(t, "agent_message", id, f"Message {id}")
    replay(t)
    for id in ("a3", "a2", "a1"):
        said(t, "agent_message", id, f"Message {id}")
    close_replay(t)
    c = only(t)
    assert len(c.reordered) == 2
    assert all(m.live_index != m.replayed_index for m in c.reordered)
    assert c.fidelity == 1.0


def test_a_v1_plan_is_the_last_plan_of_its_turn() -> None:
    """v1 `plan` updates carry no id: each turn's last plan is one item, so a replay that
    keeps only the session's final plan leaves the first turn's plan missing."""

    def plan(status: str) -> dict[str, Any]:
        return {"entries": [{"content": "Read the fixture", "priority": "high", "status": status}]}

    t = v1_started()
    t.request("session/prompt", {"sessionId": SESSION, "prompt": [text("Plan it")]}, id=9)
    t.update("plan", **plan("pending"))
    t.update("plan", **plan("in_progress"))
    t.result(9, {"stopReason": "end_turn"})
    t.request("session/prompt", {"sessionId": SESSION, "prompt": [text("Do it")]}, id=10)
    t.update("plan", **plan("completed"))
    t.result(10, {"stopReason": "end_turn"})
    t.request("session/load", {"sessionId": SESSION, "cwd": "/", "mcpServers": []}, id=50)
    said(t, "user_message_chunk", None, "Plan it")
    said(t, "user_message_chunk", None, "Do it")
    t.update("plan", **plan("completed"))
    t.result(50, None)
    c = only(t)
    assert c.live_items == 4  # two prompts, two plans
    assert [(i.kind.value, i.text) for i in c.missing] == [
        ("plan", "- [in_progress] Read the fixture\n")
    ]
    assert (c.changed, c.extra) == ((), ())


def test_empty_chunks_make_no_item() -> None:
    t = v1_started()
    prompt_turn(t, "Question", ("agent_message_chunk", ""), ("agent_thought_chunk", " "), ANSWER)
    v1_load(t, ("user_message_chunk", "Question"), ANSWER)
    assert (only(t).live_items, only(t).fidelity) == (2, 1.0)


def test_a_long_line_changed_shows_what_differs_with_a_little_context() -> None:
    t = started()
    said(t, "agent_message", "a1", "x" * 150 + " the old end")
    replay(t)
    said(t, "agent_message", "a1", "x" * 150 + " the new end")
    close_replay(t)
    shared = "x" * 15 + " the "  # 20 characters of what both lines have before the change
    assert only(t).changed[0].diff == (f"-…{shared}old end", f"+…{shared}new end")
    removed = short_diff("x\n" + "a" * 150 + "\n" + "b" * 150, "x")
    assert [line[:2] for line in removed] == ["-a", "-b"]  # two lines gone: no `+` made up


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


def test_no_live_items_is_a_ratio_of_none_and_no_replay_is_no_entry() -> None:
    """Nothing live to compare with is an unknown ratio, never 1.0."""
    t = started()
    replay(t)
    said(t, "user_message", "u1", "from an earlier connection")
    close_replay(t)
    c = only(t)
    assert (c.live_items, len(c.extra), c.fidelity) == (0, 1, None)
    t = started()
    t.resume(replay=False, id=3)
    t.update("state_update", state="idle")
    t.result(3)
    assert report(t).sessions == ()


# -- the command ---------------------------------------------------------------------------------


def written(t: Transcript, path: Path) -> Path:
    """The transcript written to `path`, for the command to read."""
    path.write_bytes(t.text())
    return path


def dropped(tmp_path: Path) -> Path:
    """A transcript whose replay drops the tool call."""
    t = started()
    live_history(t)
    replay(t)
    said(t, "user_message", "u1", "Fix the login test")
    said(t, "agent_message", "a1", "Looking at the fixture.")
    said(t, "agent_message", "a2", "The token expires too early.")
    close_replay(t)
    return written(t, tmp_path / "dropped.jsonl")


def test_json_has_the_documented_fields(tmp_path: Path) -> None:
    path = str(dropped(tmp_path))
    result = runner.invoke(app, ["fidelity", path, "--format", "json"])
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    assert set(document) == {"schema_version", "files", "sessions", "issues"}
    assert (document["schema_version"], document["files"]) == (1, [path])
    (session,) = document["sessions"]
    assert set(session) == {
        "session_id", "role", "path", "request_line", "outcome", "error_code", "first_seen",
        "unfinished_turns", "live_items", "replayed_items", "missing", "extra", "changed",
        "reordered", "fidelity", "fidelity_reason",
    }  # fmt: skip
    assert session["missing"] == [
        {"kind": "tool_call", "id": "t1", "role": None, "path": path, "line": 9}
    ]
    assert (session["live_items"], session["replayed_items"], session["fidelity"]) == (4, 3, 0.75)
    assert (session["outcome"], session["error_code"]) == ("complete", None)
    assert (session["path"], session["fidelity_reason"]) == (path, None)
    assert session["first_seen"] is None  # (session/new: the input saw it start)
    assert session["unfinished_turns"] == []


def test_json_names_a_user_message_and_an_agent_message_by_role(tmp_path: Path) -> None:
    """Both are `kind: message`; `role` tells them apart (a thought has none)."""
    t = started()
    said(t, "user_message", "u1", "Fix the login test")
    said(t, "agent_message", "a1", "Looking at the fixture.")
    said(t, "agent_thought", "th1", "Maybe the fixture.")
    replay(t)
    close_replay(t)
    path = written(t, tmp_path / "nothing-replayed.jsonl")
    document = json.loads(runner.invoke(app, ["fidelity", str(path), "-f", "json"]).stdout)
    missing = document["sessions"][0]["missing"]
    assert [(m["kind"], m["role"], m["id"]) for m in missing] == [
        ("message", "user", "u1"), ("message", "agent", "a1"), ("thought", None, "th1"),
    ]  # fmt: skip


def test_a_request_refused_with_an_error_is_not_judged(tmp_path: Path) -> None:
    """An Agent without session/load refuses it (-32601) and replays nothing: no ratio (not
    0.00), the error as the reason, nothing listed as missing; the row says so in its outcome,
    kept at 80 columns."""
    t = started()
    live_history(t)
    replay(t)
    t.error(3, -32601)
    path = written(t, tmp_path / "refused.jsonl")
    document = json.loads(runner.invoke(app, ["fidelity", str(path), "-f", "json"]).stdout)
    (session,) = document["sessions"]
    assert (session["outcome"], session["error_code"], session["fidelity"]) == (
        "refused", -32601, None,
    )  # fmt: skip
    assert session["fidelity_reason"] == "refused: -32601"
    assert (session["live_items"], session["replayed_items"], session["missing"]) == (4, 0, [])
    shown = runner.invoke(app, ["fidelity", str(path)], env={"COLUMNS": "80"}).stdout
    table, details = shown.split("Left out") if "Left out" in shown else shown.split("\n\n", 1)
    assert "refused -32601" in table
    row = next(line for line in table.splitlines() if "refused" in line)
    assert row.split()[-1] == "—"
    assert "refused -32601)" in details
    assert "not judged, refused: -32601 (an error before any update" in " ".join(details.split())
    assert "missing" not in details


def test_overlapping_replays_are_ambiguous_and_not_judged() -> None:
    """Two replaying resumes of one session pending together: no update can be given to
    either (rules.md §11), so neither is compared."""
    t = started()
    live_history(t)
    replay(t, id=3)
    replay(t, id=4)
    faithful_replay(t)
    t.marker()
    t.result(3)
    t.result(4)
    sessions = report(t).sessions
    assert [s.outcome.value for s in sessions] == ["ambiguous", "ambiguous"]
    for entry in sessions:
        c = entry.comparison
        assert (entry.unjudged, entry.no_ratio, c.fidelity) == ("ambiguous", "ambiguous", None)
        assert (c.live_items, c.replayed_items, c.missing, c.extra, c.changed) == (
            4, 0, (), (), (),
        )  # fmt: skip


def test_fail_under_exits_1_below_the_ratio_and_0_at_or_above(tmp_path: Path) -> None:
    path = str(dropped(tmp_path))
    assert runner.invoke(app, ["fidelity", path, "--fail-under", "0.8"]).exit_code == 1
    assert runner.invoke(app, ["fidelity", path, "--fail-under", "0.75"]).exit_code == 0
    assert runner.invoke(app, ["fidelity", path]).exit_code == 0


def no_live_history(tmp_path: Path) -> Path:
    """A transcript whose replay has no live history before it."""
    t = started()
    replay(t)
    said(t, "user_message", "u1", "from an earlier connection")
    close_replay(t)
    return written(t, tmp_path / "unknown.jsonl")


def test_an_unknown_ratio_is_null_and_a_dash_and_fail_under_has_nothing_to_judge(
    tmp_path: Path,
) -> None:
    """Without live history there is no ratio: `--fail-under` skips the session, and with no
    session that has one, it checked nothing: exit 2, one line on stderr."""
    path = str(no_live_history(tmp_path))
    document = json.loads(runner.invoke(app, ["fidelity", path, "-f", "json"]).stdout)
    assert document["sessions"][0]["fidelity"] is None
    assert document["sessions"][0]["fidelity_reason"] == "no live history"
    shown = runner.invoke(app, ["fidelity", path], env={"COLUMNS": "80"})
    assert shown.exit_code == 0
    assert any(line.split()[-1:] == ["—"] for line in shown.stdout.splitlines())
    assert "fidelity —: no live history before the request" in shown.stdout
    gated = runner.invoke(app, ["fidelity", path, "--fail-under", "0"])
    assert gated.exit_code == 2
    assert gated.stderr.splitlines() == [
        "acptrace: error: --fail-under 0 checked nothing: none of 1 replayed session has a "
        "fidelity (no live history)"
    ]
    assert "Replay fidelity" in gated.stdout  # (the comparison is shown all the same)


def test_fail_on_reorder_exits_1_only_when_an_item_moved(tmp_path: Path) -> None:
    t = started()
    live_history(t)
    replay(t)
    said(t, "agent_message", "a1", "Looking at the fixture.")
    said(t, "user_message", "u1", "Fix the login test")
    replayed_tool_call(t)
    said(t, "agent_message", "a2", "The token expires too early.")
    close_replay(t)
    moved = written(t, tmp_path / "moved.jsonl")
    assert runner.invoke(app, ["fidelity", str(moved), "--fail-under", "1"]).exit_code == 0
    assert runner.invoke(app, ["fidelity", str(moved), "--fail-on-reorder"]).exit_code == 1
    in_order = str(dropped(tmp_path))
    assert runner.invoke(app, ["fidelity", in_order, "--fail-on-reorder"]).exit_code == 0


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


# -- real agents (the shared group) --------------------------------------------------------------

AGENTS = REAL_WORLD / "agents-2026-12"
CLAUDE = "claude_agent_acp_live_prompt_then_load.jsonl"
CODEX = "codex_acp_live_prompt_then_load.jsonl"
GOLDEN = ROOT / "tests" / "golden" / "fidelity.md"


def real(name: str) -> SessionFidelity:
    (entry,) = fidelity(AGENTS / name).sessions
    return entry


@pytest.mark.shared
def test_claude_replays_both_turns_word_for_word_and_injects_its_model_command() -> None:
    """Two prompts, each answered in v1 chunks (an empty one first), replayed by
    `session/load` (lines 28-36): every live item comes back unchanged; the `/model` command
    and its output (lines 28-29), which the live session never had, are one extra user
    message before the first prompt."""
    c = real(CLAUDE).comparison
    assert (c.live_items, c.replayed_items) == (6, 7)
    assert (c.missing, c.changed, c.reordered) == ((), (), ())
    assert [(i.role, i.line) for i in c.extra] == [("user", 28)]
    assert c.extra[0].text.startswith("<command-name>/model</command-name>")
    assert "<local-command-stdout>Set model to" in c.extra[0].text
    assert c.fidelity == 1.0


@pytest.mark.shared
def test_codex_drops_its_live_warning_and_adds_a_tool_call_it_never_sent_live() -> None:
    """codex-acp sends `Model metadata for gpt-5 not found…` as an agent message chunk at the
    start of each live turn (lines 8 and 17) and never replays it. That chunk is history (only
    never-history tags may be left out), so it is missing in turn 1, where a thought separates
    it from the answer, and in turn 2, where it runs into the answer as one item, that answer
    is changed. The replay also carries `call_001` (line 27), a tool call the live turn never
    announced: extra. The rest (both prompts, the thought, the first answer) is unchanged."""
    c = real(CODEX).comparison
    assert (c.live_items, c.replayed_items) == (6, 6)
    assert [(i.line, i.text[:14]) for i in c.missing] == [(8, "Model metadata")]
    assert ids(c.extra) == [("tool_call", "call_001")]
    assert [(ch.live.line, ch.replayed.line) for ch in c.changed] == [(17, 31)]
    gone, came = c.changed[0].diff  # (the warning dropped, the answer whole on both sides)
    assert gone.startswith("-Model metadata for `gpt-5`")
    assert gone.endswith("This project has a R…")
    assert came == "+This project has a R…"
    assert c.reordered == ()
    assert c.fidelity == 4 / 6


@pytest.mark.shared
@pytest.mark.parametrize("name", [CLAUDE, CODEX])
def test_golden_fidelity_of_real_agents(
    name: str, regen: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The view at 80 columns and the JSON of each prompt-then-load recording, pinned (run
    beside the file: the paths in the JSON are as given, the same on every machine)."""
    monkeypatch.chdir(AGENTS)
    shown = runner.invoke(app, ["fidelity", name, "--no-config"], env={"COLUMNS": "80"})
    as_json = runner.invoke(app, ["fidelity", name, "--no-config", "-f", "json"])
    assert (shown.exit_code, as_json.exit_code) == (0, 0), shown.output + as_json.output
    view = "\n".join(line.rstrip() for line in shown.stdout.splitlines()).strip()
    block = f"```console\n$ acptrace fidelity {name}\n{view}\n```\n\n```json\n{as_json.stdout}```\n"
    check_block(GOLDEN, name.removesuffix(".jsonl"), block, regen)


@pytest.mark.shared
def test_every_recording_of_real_agents_is_compared_without_error() -> None:
    """Each file alone, and each drive folder's first connection against each replay."""
    files = sorted(AGENTS.rglob("*.jsonl"))
    assert len(files) >= 30, f"expected the agents-2026-12 recordings in {AGENTS}"
    pairs = [[str(f)] for f in files] + [
        [str(first), str(later)]
        for first in sorted(AGENTS.glob("*/00-new.jsonl"))
        for later in sorted(first.parent.glob("0[1-9]-replay.jsonl"))
    ]
    assert len(pairs) > len(files)
    for argv in pairs:
        result = runner.invoke(app, ["fidelity", *argv, "--no-config", "-f", "json"])
        assert result.exit_code == 0, (argv, result.output)
        assert result.exception is None or isinstance(result.exception, SystemExit)
        for session in json.loads(result.stdout)["sessions"]:
            unjudged = session["outcome"] in ("refused", "ambiguous")
            assert (session["fidelity"] is None) == (unjudged or session["live_items"] == 0), argv
            assert (session["fidelity"] is None) == (session["fidelity_reason"] is not None)


def picked_up(tmp_path: Path) -> Path:
    """A session picked up with a session/resume without replay (its start is on another
    connection), a live turn, then a replay that carries the older turn too."""
    t = Transcript()
    t.open()
    t.initialize()
    t.resume(replay=False, id=1)
    t.result(1)
    said(t, "user_message", "u2", "And the logout test?")
    replay(t)
    said(t, "user_message", "u1", "Fix the login test")
    said(t, "user_message", "u2", "And the logout test?")
    close_replay(t)
    return written(t, tmp_path / "picked-up.jsonl")


def test_a_session_picked_up_mid_life_says_its_older_history_is_not_in_the_input(
    tmp_path: Path,
) -> None:
    """Its replayed older turn is extra (the input cannot show it was history), and the report
    says where the live history begins; a session seen to start gets no such line."""
    path = str(picked_up(tmp_path))
    document = json.loads(runner.invoke(app, ["fidelity", path, "-f", "json"]).stdout)
    (session,) = document["sessions"]
    assert session["first_seen"] == {"path": path, "line": 4, "named_by": "session/resume"}
    assert [item["id"] for item in session["extra"]] == ["u1"]
    shown = " ".join(runner.invoke(app, ["fidelity", path]).stdout.split())
    assert "live history from line 4 (session/resume) on" in shown
    t = started()
    live_history(t)
    replay(t)
    said(t, "user_message", "u0", "injected")
    faithful_replay(t)
    close_replay(t)
    (entry,) = report(t).sessions
    assert entry.first_seen is None
    assert len(entry.comparison.extra) == 1
    started_path = written(t, tmp_path / "started.jsonl")
    started_shown = runner.invoke(app, ["fidelity", str(started_path)]).stdout
    assert "extra" in started_shown
    assert "live history from" not in started_shown


def test_a_long_dropped_prefix_still_shows_the_text_both_lines_go_on_with() -> None:
    """A replay that drops a long warning before the answer: the live line keeps the start and
    end of what was dropped, so both lines show the answer's start (the replay is not cut)."""
    warning = "Model metadata for `gpt-5` not found. Defaulting to fallback metadata; " * 2
    answer = "This project has a README.md and a main.py that prints a greeting."
    gone, came = short_diff(warning + answer, answer)
    assert gone.startswith("-Model metadata")
    assert "…" in gone[:80]
    shared = answer[:DIFF_CONTEXT]
    assert gone.endswith(shared + "…")
    assert came == "+" + shared + "…"
    assert max(len(gone), len(came)) <= DIFF_LINE_CHARS
