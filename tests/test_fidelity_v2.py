"""`acptrace fidelity` after the decisions of 2026-12-07 (fidelity.md, rules.md §11): v2 turns,
upserts, plans by id, text compared white space aside, injected user text, refused prompts, live
history outside every window."""

from __future__ import annotations

from pathlib import Path

from acptrace.fidelity import fidelity
from tests.test_fidelity import (
    close_replay,
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
    turn's `idle`. The prompt and what came count; the turn is known to be unfinished."""
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
