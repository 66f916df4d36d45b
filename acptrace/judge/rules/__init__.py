"""Every rule of the catalogue (rules.md), registered by the modules below, in catalogue order."""

from __future__ import annotations

from importlib import import_module

from acptrace.judge.rules.registry import REGISTRY, Rule, Verdict

SECTIONS = ("marker", "history", "children", "lifecycle", "capabilities", "jsonrpc", "schema")
"""The rule modules, in the order of rules.md's sections (§1, §2, §3, §4, §4b, §5, §12): each
registers its section's rules in the catalogue's order, so that the registry is the catalogue
(a test holds it to rules.md)."""

for _section in SECTIONS:
    import_module(f"{__name__}.{_section}")

RULES: tuple[Rule, ...] = tuple(REGISTRY.values())
"""Every rule, in the order of rules.md."""

MARKER_RULE_PREFIX = "RC-"
"""Rules that apply to ACP v2 connections only (rules.md §7), but for `KEPT_ON_V1`."""

KEPT_ON_V1 = frozenset({"RC-CONCURRENT", "RC-REPLAY-WITHOUT-CURSOR"})
"""The RC rules judged on ACP v1 connections too (overlapping replays, rules.md §10 and §11;
a resume that replays without being asked, §11)."""

V2_ONLY = frozenset({"LC-NO-MESSAGE-ID"})
"""Rules outside RC that judge what only ACP v2 requires (message ids, rules.md §4)."""

SHOWN_ONLY = frozenset({"SCHEMA-VERSION-SHAPE"})
"""Rules judged only where something showed the version (a message shaped for the other
version than the inference's default is only evidence, rules.md §12)."""


def applies_on(rule_id: str, protocol_version: int, shown: bool = True) -> bool:
    """Whether a rule is judged on a connection of this protocol version (rules.md §7, §10,
    §11); `shown`: something in the transcript showed the version (a rule of `V2_ONLY` is not
    judged on a version that is only the inference's default)."""
    if rule_id in V2_ONLY:
        return protocol_version >= 2 and shown
    if rule_id in SHOWN_ONLY:
        return shown
    if protocol_version >= 2:
        return True
    return not rule_id.startswith(MARKER_RULE_PREFIX) or rule_id in KEPT_ON_V1


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
    ("MSGID", "the Message ID RFD (v2 message updates carry a `messageId`)"),
    ("SCHEMA", "the ACP v2 JSON Schema (a type's description, or its `x-side`)"),
    ("JSON-RPC 2.0", "the JSON-RPC 2.0 specification"),
    ("FAQ", "the RFD's FAQ"),
    ("SDK", "an ACP SDK's release (the Rust SDK 5.0.0 removed batches)"),
)
"""What the abbreviations in the rules' sources stand for (rules.md, "Sources")."""

__all__ = [
    "CHILD_RULES",
    "KEPT_ON_V1",
    "MARKER_RULE_PREFIX",
    "RULES",
    "SECTIONS",
    "SHOWN_ONLY",
    "SOURCE_LEGEND",
    "V2_ONLY",
    "Rule",
    "Verdict",
    "applies_on",
]
