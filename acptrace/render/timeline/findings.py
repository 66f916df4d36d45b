"""The findings of an analysis as the timeline reads them: in line order, one at a time, from
the analysis or from disk; and a finding's note under its line."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Protocol

from rich.text import Text

from acptrace.model.domain import Analysis, Finding
from acptrace.render.summary import SEVERITY_STYLE
from acptrace.render.text import inert


class FindingsInOrder(Protocol):
    """An analysis's findings, read in line order (from disk, say: `ParkedFindings`)."""

    @property
    def count(self) -> int:
        """How many there are."""

    def in_line_order(self) -> Iterator[Finding]:
        """Each in line order, as `Analysis.findings` holds them."""


class HeldFindings:
    """The findings an analysis holds, as `FindingsInOrder`."""

    def __init__(self, analysis: Analysis) -> None:
        self.findings = analysis.findings

    @property
    def count(self) -> int:
        """How many there are."""
        return len(self.findings)

    def in_line_order(self) -> Iterator[Finding]:
        """Each in line order."""
        return iter(self.findings)


class FindingQueue:
    """Findings in line order, taken one at a time (only the next one is held)."""

    def __init__(self, findings: Iterable[Finding]) -> None:
        self._findings = iter(findings)
        self._next: Finding | None = None
        self.next_line: float = float("inf")
        """The line of the next finding (infinity: none is left), read for every row."""
        self._take()

    def _take(self) -> None:
        """Hold the following finding (and its line)."""
        following = self._next = next(self._findings, None)
        self.next_line = float("inf") if following is None else following.line

    def next_before(self, line: int | None) -> Finding | None:
        """The next finding, taken, when it is on a line before `line` (any, for None)."""
        following = self._next
        if following is None or (line is not None and following.line >= line):
            return None
        self._take()
        return following

    def next_at(self, line: int) -> Finding | None:
        """The next finding, taken, when it is on this line."""
        following = self._next
        if following is None or following.line != line:
            return None
        self._take()
        return following


def finding_note(finding: Finding) -> Text:
    """What is said of a finding under its line: `▲ severity rule: message`."""
    text = Text("  ▲ ", SEVERITY_STYLE[finding.severity])
    text.append(f"{finding.severity.value} {finding.rule}", SEVERITY_STYLE[finding.severity])
    text.append(": ")
    text.append_text(inert(finding.message))
    return text
