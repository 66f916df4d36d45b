"""The protocol version of a transcript without `initialize`: inferred from what it shows.

rules.md §7 (revised 2026-12-07): an acp-tck report's own `protocol_version` first; then v2
evidence (a `session/resume` carrying a `replayFrom` member, even `null`; a v2-only method or
update tag; an `initialize` result shaped `capabilities`/`info`); then v1 evidence (a
`session/load`; an `initialize` result shaped `agentCapabilities`/`agentInfo`; a v1-only method).
No evidence, or evidence both ways: v2, and the reason says so. A `session/resume` without
`replayFrom` is no evidence (v1 has had one since 2026-04-22). The evidence kept is the first of
each kind; an update inside a run of plain updates is seen as the run's first update, or as one
of its never-history or noted tags (`decode.runs.notes`).
"""

from __future__ import annotations

import msgspec

from acptrace.model.domain import Message, MessageKind
from acptrace.model.tags import V1_TAGS, V2_TAGS

V2_METHODS = frozenset(
    {
        "auth/login",
        "auth/logout",
        "auth/status",
        "session/archive",
        "session/unarchive",
        "session/status",
        "session/set_title",
        "terminal/cancel",
        "tool_call/cancel",
    }
)
"""Methods only ACP v2 has (schema-v2.json and the v2 capabilities of rules.md §4b)."""
V2_PREFIXES = ("providers/",)
"""Method families only ACP v2 has."""
V1_METHODS = frozenset({"authenticate", "logout", "session/set_mode"})
"""Methods only ACP v1 has (schema-v1.json); `session/load` is evidence of its own."""


class Evidence(msgspec.Struct):
    """The first evidence of each version seen so far."""

    v2: tuple[int, str] | None = None
    """(line, what) of the first sign of ACP v2."""
    v1: tuple[int, str] | None = None
    """(line, what) of the first sign of ACP v1."""
    report_version: int | None = None
    """The `protocol_version` an acp-tck report states for its tests."""

    def note(self, version: int, line: int, what: str) -> None:
        """A sign of this version (kept when it is the first of its kind)."""
        if version >= 2:
            self.v2 = self.v2 or (line, what)
        else:
            self.v1 = self.v1 or (line, what)

    def message(self, message: Message) -> None:
        """What one message says of the version, if anything."""
        method = message.method
        if message.kind is MessageKind.RESPONSE:
            shaped = message.shaped_for
            if shaped is not None:
                members = "capabilities/info" if shaped >= 2 else "agentCapabilities/agentInfo"
                self.note(shaped, message.line, f"an initialize result with {members}")
        elif method == "session/update":
            if message.update_tag is not None:
                self.tag(message.line, message.update_tag)
        elif method == "session/resume" and message.replay_from_given:
            self.note(2, message.line, "session/resume with replayFrom")
        elif method == "session/load":
            self.note(1, message.line, "session/load")
        elif method in V2_METHODS or (method or "").startswith(V2_PREFIXES):
            self.note(2, message.line, f"{method}, a v2 method")
        elif method in V1_METHODS:
            self.note(1, message.line, f"{method}, a v1 method")

    def tag(self, line: int, tag: str) -> None:
        """An update with this tag."""
        if tag in V2_TAGS:
            self.note(2, line, f"a {tag} update")
        elif tag in V1_TAGS:
            self.note(1, line, f"a {tag} update")

    def version(self) -> int:
        """The version `inferred` gives, without saying why."""
        if self.report_version is not None:
            return self.report_version
        return 1 if self.v1 is not None and self.v2 is None else 2

    def inferred(self) -> tuple[int, str, bool]:
        """The version, why, and whether anything showed it (False: v2 for want of evidence)."""
        if self.report_version is not None:
            return self.report_version, "the acp-tck report's protocol_version", True
        v2, v1 = self.v2, self.v1
        if v2 is not None and v1 is not None:
            return 2, f"evidence both ways: {_said(v2)}; {_said(v1)}: taken as v2", True
        if v2 is not None:
            return 2, _said(v2), True
        if v1 is not None:
            return 1, _said(v1), True
        return 2, "no initialize and nothing else shows the version: taken as v2", False


def _said(evidence: tuple[int, str]) -> str:
    line, what = evidence
    return f"{what} (line {line})"
