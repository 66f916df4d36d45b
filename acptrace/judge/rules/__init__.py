"""Every rule of the catalogue (rules.md), registered by the modules below, in catalogue order."""

from __future__ import annotations

from acptrace.judge.rules import (  # noqa: F401  (register)
    capabilities,
    children,
    history,
    jsonrpc,
    lifecycle,
    marker,
)
from acptrace.judge.rules.registry import REGISTRY, Rule, Verdict

CATALOGUE_ORDER = (
    "RC-DUPLICATE",
    "RC-MISSING",
    "RC-AFTER-RESPONSE",
    "RC-WITHOUT-CURSOR",
    "RC-UNSOLICITED",
    "RC-CURSOR-REJECTED",
    "RC-UNKNOWN-CURSOR",
    "RC-NOT-HISTORY",
    "RC-REQUEST-BEFORE-MARKER",
    "RC-NO-SNAPSHOT",
    "RC-INFLIGHT",
    "RC-CHILD-MISSING",
    "RC-CHILD-DUPLICATE",
    "RC-CHILD-BEFORE-ANNOUNCE",
    "RC-CHILD-NOT-HISTORY",
    "RC-CHILD-TRAFFIC-BEFORE-ANNOUNCE",
    "RC-CONCURRENT",
    "LC-PROMPT-INACTIVE",
    "LC-ACTIVE-REJECTED",
    "LC-UNKNOWN-SESSION",
    "LC-WRONG-DIRECTION",
    "CX-NO-RESPONSE",
    "CX-WRONG-CODE",
    "CAP-UNADVERTISED",
    "CAP-NOT-HONOURED",
    "JR-INVALID",
    "JR-ORPHAN-RESPONSE",
    "JR-DUPLICATE-ID",
    "JR-UNANSWERED",
    "TR-BATCH-LIFECYCLE",
    "TR-EMPTY-BATCH",
)

RULES: tuple[Rule, ...] = tuple(REGISTRY[rule_id] for rule_id in CATALOGUE_ORDER)
"""Every rule, in the order of rules.md."""

MARKER_RULE_PREFIX = "RC-"
"""Rules that apply to ACP v2 connections only (rules.md §7), but for `KEPT_ON_V1`."""

KEPT_ON_V1 = frozenset({"RC-CONCURRENT"})
"""The RC rules judged on ACP v1 connections too (overlapping loads, rules.md §10)."""


def applies_on(rule_id: str, protocol_version: int) -> bool:
    """Whether a rule is judged on a connection of this protocol version (rules.md §7, §10)."""
    return (
        protocol_version >= 2 or not rule_id.startswith(MARKER_RULE_PREFIX) or rule_id in KEPT_ON_V1
    )


CHILD_RULES = frozenset(r.id for r in RULES if r.family == "child")
"""Rules that `--no-child-rules` turns off."""

SOURCE_LEGEND: tuple[tuple[str, str], ...] = (
    ("RFD", 'the ACP v2 RFD "Replay Complete Signal" (quoted words, or its section)'),
    ("SETUP", "the ACP v2 Session Setup page"),
    ("PL", "the ACP v2 Prompt Lifecycle page"),
    ("CX", "the ACP v2 Cancellation page"),
    ("TR", "the ACP v2 Transports page"),
    ("ERR", "the ACP v2 Errors page"),
    ("SUB", "the Subagent Sessions RFD"),
    ("SCHEMA", "the ACP v2 JSON Schema (a type's description, or its `x-side`)"),
    ("JSON-RPC 2.0", "the JSON-RPC 2.0 specification"),
    ("FAQ", "the RFD's FAQ"),
)
"""What the abbreviations in the rules' sources stand for (rules.md, "Sources")."""

__all__ = [
    "CHILD_RULES",
    "KEPT_ON_V1",
    "MARKER_RULE_PREFIX",
    "RULES",
    "SOURCE_LEGEND",
    "Rule",
    "Verdict",
    "applies_on",
]
