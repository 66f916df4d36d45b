"""Which `sessionUpdate` tags may be replayed as history before the marker (rules.md §6)."""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum

import msgspec

MARKER_TAG = "replay_complete"
SNAPSHOT_TAG = "state_update"
ANNOUNCE_TAG = "subagent_update"

HISTORY_TAGS = frozenset(
    {
        "user_message",
        "user_message_chunk",
        "agent_message",
        "agent_message_chunk",
        "agent_thought",
        "agent_thought_chunk",
        "tool_call_update",
        "tool_call_content_chunk",
        "terminal_update",
        "terminal_output_chunk",
        "plan_update",
        "plan_removed",
        "compaction_update",
        "compaction_summary_chunk",
        "session_message",
        "session_message_chunk",
        ANNOUNCE_TAG,
    }
)
"""Tags that may be replayed history."""

USER_MESSAGE_TAGS = frozenset({"user_message", "user_message_chunk"})
"""The user's messages: replayed by a resume that was asked for no replay, they show it
replayed anyway (RC-REPLAY-WITHOUT-CURSOR)."""

MESSAGE_TAGS = USER_MESSAGE_TAGS | {
    "agent_message",
    "agent_message_chunk",
    "agent_thought",
    "agent_thought_chunk",
}
"""Updates of a message, whole or a chunk: on ACP v2 each carries a `messageId`
(LC-NO-MESSAGE-ID)."""

V2_TAGS = frozenset(
    {
        "state_update",
        MARKER_TAG,
        "agent_message",
        "agent_thought",
        "user_message",
        "plan_update",
        "plan_removed",
        "terminal_update",
        "terminal_output_chunk",
        "tool_call_content_chunk",
        "session_message",
        "session_message_chunk",
        "subagent_update",
    }
)
"""`sessionUpdate` tags only ACP v2 has (schema-v2*.json; `replay_complete`)."""
V1_TAGS = frozenset({"plan", "tool_call", "current_mode_update"})
"""`sessionUpdate` tags only ACP v1 has (schema-v1.json)."""
EVIDENCE_TAGS = V2_TAGS | V1_TAGS
"""Tags that are evidence either way."""


FIXED_LIVE_TAGS = frozenset(
    {SNAPSHOT_TAG, "notice", "available_commands_update", "config_option_update", MARKER_TAG}
)
"""Tags that are never history, whatever the configuration."""

DEFAULT_LIVE_TAGS = frozenset({"usage_update", "session_info_update", "prompt_suggestions_update"})
"""Tags that are never history by default; `--history-tag` can reclassify them."""

KNOWN_TAGS = (
    HISTORY_TAGS
    | EVIDENCE_TAGS
    | FIXED_LIVE_TAGS
    | DEFAULT_LIVE_TAGS
    | {"tool_call_update", "usage_update", "compaction_update"}
)
"""Every tag acptrace knows of either version: the schema check samples the first update of
each on a connection from inside runs of plain updates (`decode.runs.SAMPLED`)."""


class TagClass(StrEnum):
    """How the ordering rules treat an update tag."""

    HISTORY = "history"
    LIVE = "live"
    IGNORED = "ignored"


class TagPolicy(msgspec.Struct, frozen=True):
    """The classification in force for one analysis."""

    marker_tag: str = MARKER_TAG
    """The tag that marks the end of a replay."""
    live_tags: frozenset[str] = FIXED_LIVE_TAGS | DEFAULT_LIVE_TAGS
    """Tags that are never history (RC-NOT-HISTORY before the marker)."""

    @classmethod
    def build(
        cls,
        marker_tag: str = MARKER_TAG,
        history: Iterable[str] = (),
        live: Iterable[str] = (),
    ) -> TagPolicy:
        """The default policy with some by-default tags moved to history and others made live."""
        moved = frozenset(history) & DEFAULT_LIVE_TAGS
        live_tags = (FIXED_LIVE_TAGS | DEFAULT_LIVE_TAGS | frozenset(live)) - moved
        return cls(marker_tag, live_tags | {marker_tag})

    def classify(self, tag: str) -> TagClass:
        """History, live (never history), or ignored (unknown and `_`-prefixed tags)."""
        if tag in self.live_tags:
            return TagClass.LIVE
        if tag in HISTORY_TAGS or tag in DEFAULT_LIVE_TAGS:
            return TagClass.HISTORY
        return TagClass.IGNORED
