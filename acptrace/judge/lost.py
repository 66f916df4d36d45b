"""Input that lost messages (rules.md §9): findings that rest on something not seen drop a level.

An input lost messages when the recorder says it dropped frames (issue `frames_dropped`), or a
payload was cut (issue `truncated_payload`) so badly that no message could be read on its line.
A cut payload whose message was still read lost nothing.
"""

from __future__ import annotations

from dataclasses import replace

import msgspec

from acptrace.model.domain import Finding, Issue, IssueKind

DROPPED = IssueKind.FRAMES_DROPPED
TRUNCATED = IssueKind.TRUNCATED_PAYLOAD

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
    }
)
"""Rules whose findings rest on something the transcript does not show."""


class LostInput(msgspec.Struct):
    """Follows the issues and message lines of one analysis to tell whether messages were lost."""

    dropped_line: int | None = None
    """The line of the first `frames_dropped` issue."""
    unread: set[int] = msgspec.field(default_factory=set)
    """Lines with a `truncated_payload` issue and, so far, no message."""
    read_lines: tuple[int, int] = (0, 0)
    """The last span of lines (first, last) that held messages."""

    def on_issue(self, issue: Issue) -> None:
        """Note an input issue."""
        if issue.kind == DROPPED and self.dropped_line is None:
            self.dropped_line = issue.line
        elif issue.kind == TRUNCATED and not self._was_read(issue.line):
            self.unread.add(issue.line)

    def on_messages(self, first: int, count: int = 1) -> None:
        """Note messages on lines `first` to `first + count - 1`."""
        last = first + count - 1
        self.read_lines = (first, last)
        if self.unread:
            self.unread = {line for line in self.unread if not first <= line <= last}

    def reason(self) -> str | None:
        """Why the input lost messages, or None when it lost none."""
        if self.dropped_line is not None:
            return f"the input dropped frames (line {self.dropped_line})"
        if self.unread:
            return f"a cut payload at line {min(self.unread)} could not be read"
        return None

    def _was_read(self, line: int) -> bool:
        first, last = self.read_lines
        return first <= line <= last


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
    return replace(finding, severity=severity, message=message)
