"""One real finding of each rule, for `acptrace explain ID`: the message as a user meets it,
and where it was found (a sample transcript of this repository, or a real recording of
`../shared/real-world`). A test analyses each file named and finds the finding there."""

from __future__ import annotations

import msgspec


class RuleExample(msgspec.Struct, frozen=True):
    """A finding as `analyze` reports it."""

    place: str | None
    """`path:line` where it was found (None: made up for a test, found in no recording)."""
    message: str


SHARED = "../shared/real-world/"
"""Where the real recordings the tests read lie, beside a clone (not in the repository, nor
installed)."""
_MARKER = "sample_traces/rules-marker.jsonl"
_HISTORY = "sample_traces/rules-history.jsonl"
_CHILDREN = "sample_traces/rules-children.jsonl"
_LIFECYCLE = "sample_traces/rules-lifecycle.jsonl"
_JSONRPC = "sample_traces/rules-jsonrpc.jsonl"

EXAMPLES: dict[str, RuleExample] = {
    "RC-DUPLICATE": RuleExample(
        f"{_MARKER}:7", "another replay_complete for sess_dup (first at line 6)"
    ),
    "RC-MISSING": RuleExample(
        "sample_traces/outcome-unmarked-success.jsonl:9",
        "session/resume of sess_unmarked (line 4) succeeded without replay_complete",
    ),
    "RC-AFTER-RESPONSE": RuleExample(
        f"{_MARKER}:10",
        "replay_complete for sess_dup after the response (line 9) to session/resume id 1 of "
        "sess_dup",
    ),
    "RC-WITHOUT-CURSOR": RuleExample(
        f"{_MARKER}:12",
        "replay_complete for sess_live: a marker in the window of a session/resume without "
        "replayFrom.",
    ),
    "RC-UNSOLICITED": RuleExample(
        f"{_MARKER}:17",
        "replay_complete for sess_fresh: a marker that no pending resume or announced child of "
        "its session asked for.",
    ),
    "RC-CURSOR-REJECTED": RuleExample(
        f"{_MARKER}:21",
        "resume rejected with -32602, yet 1 replay_complete and 1 update for sess_rejected came "
        "first",
    ),
    "RC-REPLAY-WITHOUT-CURSOR": RuleExample(
        f"{_MARKER}:25",
        "session/resume of sess_again (line 24, without replayFrom) must not replay, yet 1 user "
        "message update came while no prompt was pending, the first here",
    ),
    "RC-UNKNOWN-CURSOR": RuleExample(
        f"{_MARKER}:22",
        'replayFrom type "after": the Agent answered error -32602 (0 replay_complete)',
    ),
    "RC-NOT-HISTORY": RuleExample(
        f"{_HISTORY}:6", "available_commands_update for sess_hist before its replay_complete"
    ),
    "RC-REQUEST-BEFORE-MARKER": RuleExample(
        f"{_HISTORY}:7",
        "session/request_permission (id 0) for sess_hist before its replay_complete",
    ),
    "RC-NO-SNAPSHOT": RuleExample(
        f"{_HISTORY}:17",
        "resume of sess_nosnap succeeded with no state_update after replay_complete",
    ),
    "RC-CHILD-MISSING": RuleExample(
        f"{_CHILDREN}:19", "child sess_kid_c (announced at line 15) has no replay_complete"
    ),
    "RC-CHILD-DUPLICATE": RuleExample(
        f"{_CHILDREN}:12", "another replay_complete for child sess_kid_a (first at line 11)"
    ),
    "RC-CHILD-BEFORE-ANNOUNCE": RuleExample(
        f"{_CHILDREN}:13",
        "replay_complete for child sess_kid_b before its subagent_update announcement",
    ),
    "RC-CHILD-NOT-HISTORY": RuleExample(
        f"{_CHILDREN}:10", "notice for sess_kid_a before its replay_complete"
    ),
    "RC-CHILD-TRAFFIC-BEFORE-ANNOUNCE": RuleExample(
        f"{_CHILDREN}:6",
        "message for sess_kid_a before its announcement at line 8 (1 such message)",
    ),
    "RC-CONCURRENT": RuleExample(
        "sample_traces/outcome-ambiguous.jsonl:6",
        "replaying session/resume of sess_twice sent while the replaying session/resume at line "
        "4 is pending: any update while both are pending belongs to neither",
    ),
    "LC-PROMPT-INACTIVE": RuleExample(
        f"{_LIFECYCLE}:16",
        "session/prompt for sess_gone succeeded although its session/resume failed",
    ),
    "LC-NO-MESSAGE-ID": RuleExample(
        f"{_LIFECYCLE}:29",
        "2 message updates for sess_noid without a messageId (none in a replay), the first "
        "here: on ACP v2 each carries one",
    ),
    "LC-ACTIVE-REJECTED": RuleExample(
        f"{_LIFECYCLE}:18",
        "session/prompt for sess_twice rejected with -32002 although the session was active "
        "when it was sent",
    ),
    "LC-UNKNOWN-SESSION": RuleExample(
        f"{_LIFECYCLE}:19",
        "1 session/update for sess_stray (the last at line 19) while no session/new, "
        "session/fork, session/resume, session/load, session/list or announcement had named it",
    ),
    "LC-WRONG-DIRECTION": RuleExample(
        None,
        "session/update sent by the Client, but only the other side sends it: left out of the "
        "session and replay rules",
    ),
    "CX-NO-RESPONSE": RuleExample(
        f"{_LIFECYCLE}:23", "cancelled session/prompt (id 7) never got a response"
    ),
    "CX-WRONG-CODE": RuleExample(
        f"{_LIFECYCLE}:22",
        "cancelled session/prompt (id 6) answered with error -32603, not -32800",
    ),
    "CAP-UNADVERTISED": RuleExample(
        f"{SHARED}agents-2026-12/pysdk-echo-v2/00-new.jsonl:4",
        "session/new used once without capabilities.session advertised in the initialize result",
    ),
    "CAP-NOT-HONOURED": RuleExample(
        f"{SHARED}agents-2026-12b/ts-sdk-2.4.0-dual-version-example_v2_live.jsonl:19",
        "session/close answered -32601 (method not found) although capabilities.session was "
        "advertised",
    ),
    "SCHEMA-INVALID": RuleExample(
        f"{SHARED}acp-spec-docs__v2-prompt-lifecycle.jsonl:2",
        "session/prompt (result): result.messageId breaks the ACP v2 schema: it wants a required "
        "member, and nothing came",
    ),
    "SCHEMA-UNKNOWN-MEMBER": RuleExample(
        None,  # (the 2.4.0 schemas close no object: no recording can break it yet)
        "session/prompt (params): params.extra is no member the ACP v2 schema defines there "
        "(a number came)",
    ),
    "SCHEMA-VERSION-SHAPE": RuleExample(
        f"{SHARED}agents-2026-12/pysdk-echo-v2/00-new.jsonl:8",
        "session/prompt (result) is shaped for ACP v1 on a v2 connection: it carries stopReason, "
        "which only v1 defines, and meets the v1 schema; v2 wants a required member at "
        "result.messageId, and nothing came",
    ),
    "JR-INVALID": RuleExample(f"{_JSONRPC}:7", 'invalid JSON-RPC: jsonrpc is 2.0, not "2.0"'),
    "JR-ORPHAN-RESPONSE": RuleExample(f"{_JSONRPC}:8", "response id 99 matches no pending request"),
    "JR-DUPLICATE-ID": RuleExample(
        f"{_JSONRPC}:10", "session/list reuses id 2 of the pending request at line 9"
    ),
    "JR-UNANSWERED": RuleExample(
        "sample_traces/outcome-truncated-disconnect.jsonl:4",
        "session/resume (id 1) has no response by the connection end",
    ),
    "TR-BATCH": RuleExample(
        f"{_JSONRPC}:4",
        "a batch array of 1 message: ACP defines no JSON-RPC batches, so the other side may not "
        "accept it; its members are read in array order",
    ),
    "TR-EMPTY-BATCH": RuleExample(f"{_JSONRPC}:6", "empty batch array"),
}
"""One example per rule that makes findings (not RC-INFLIGHT, not the retired rules)."""
