"""Input that lost messages (rules.md §9, §10, §11): findings that rest on something not seen
drop a level.

An input lost messages when the recorder says it dropped frames (issue `frames_dropped`), or a
payload was cut so badly that what is left of it does not say what message it was (the decoder
says so: `acptrace.decode.malformed.LostMessage`). A cut payload whose message was still read
lost nothing.
"""

from __future__ import annotations

import msgspec

from acptrace.model.domain import Finding, Issue, IssueKind

DROPPED = IssueKind.FRAMES_DROPPED

RESTS_ON_ABSENCE = frozenset(
    {
        "RC-MISSING",
        "RC-CHILD-MISSING",
        "RC-NO-SNAPSHOT",
        "JR-UNANSWERED",
        "CX-NO-RESPONSE",
        "JR-ORPHAN-RESPONSE",
        "LC-UNKNOWN-SESSION",
        "RC-CHILD-TRAFFIC-BEFORE-ANNOUNCE",
        "LC-PROMPT-INACTIVE",
        # a lost message may have been the resume a marker answers (rules.md §11)
        "RC-UNSOLICITED",
        "RC-AFTER-RESPONSE",
        "RC-WITHOUT-CURSOR",
    }
)
"""Rules whose findings rest on something the transcript does not show."""


class LostInput(msgspec.Struct):
    """Whether one analysis's input lost messages, and where it first did."""

    dropped_line: int | None = None
    """The line of the first `frames_dropped` issue."""
    lost_line: int | None = None
    """The line of the first cut payload whose message could not be read."""

    def on_issue(self, issue: Issue) -> None:
        """Note an input issue."""
        if issue.kind == DROPPED and self.dropped_line is None:
            self.dropped_line = issue.line

    def on_lost(self, line: int) -> None:
        """A message was lost to a cut on this line."""
        if self.lost_line is None:
            self.lost_line = line

    def reason(self) -> str | None:
        """Why the input lost messages, or None when it lost none."""
        if self.dropped_line is not None:
            return f"the input dropped frames (line {self.dropped_line})"
        if self.lost_line is not None:
            return f"a cut payload at line {self.lost_line} could not be read"
        return None


def demote_for_lost_input(findings: tuple[Finding, ...], reason: str | None) -> tuple[Finding, ...]:
    """Each finding that rests on something not seen, one level down and saying why, when the
    input lost messages (`reason`); the others as they are."""
    if reason is None:
        return findings
    return tuple(_demoted(f, reason) if f.rule in RESTS_ON_ABSENCE else f for f in findings)


def _demoted(finding: Finding, reason: str) -> Finding:
    severity = finding.severity.demoted()
    if severity is finding.severity:
        return finding
    message = f"{finding.message} (demoted to {severity}: {reason})"
    return msgspec.structs.replace(finding, severity=severity, message=message)
