"""Findings parked on disk as a walk finds them, read back in line order: what a view that draws
every line (the timeline) holds of a million findings is a batch of them and a few counts, not
all of them (issue #25). The records go through `acptrace.model.spill`, in a folder the caller
owns (a `scratch_folder`, removed on SIGTERM and SIGINT too).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path

from acptrace.judge.dispatch import Finishing
from acptrace.model.domain import Analysis, Finding, Severity
from acptrace.model.options import Options
from acptrace.model.spill import SortedRuns
from acptrace.pipeline.analysis import TranscriptInput
from acptrace.pipeline.transcripts import open_walks


class ParkedFindings:
    """A walk's `findings_sink`: each finding written to `folder` as found, counted by rule and
    level; once the walk ends, the analysis's findings in line order (`in_line_order`), as
    `Analysis.findings` would hold them, and how many of each level (`levels`)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)
        self._runs = SortedRuns(folder)
        self._found: Counter[tuple[str, Severity]] = Counter()
        self._finishing: Finishing | None = None

    def add(self, finding: Finding) -> None:
        """One finding, as found (its number in the walk keeps equal lines and rules in the
        order found, as `Judge.verdict` does)."""
        self._found[finding.rule, finding.severity] += 1
        self._runs.add(
            (
                finding.line,
                finding.rule,
                self._runs.count,
                finding.severity.value,
                finding.message,
                finding.session_id,
                finding.request_id,
            )
        )

    def finish(self, finishing: Finishing) -> None:
        """The walk has ended: how each finding is finished."""
        self._finishing = finishing

    def levels(self) -> Counter[Severity]:
        """How many findings the analysis has of each level."""
        finishing = self._finished()
        levels: Counter[Severity] = Counter()
        for (rule, severity), count in self._found.items():
            finished = finishing.finished(Finding(rule, severity, 0, ""))
            if finished is not None:
                levels[finished.severity] += count
        return levels

    @property
    def count(self) -> int:
        """How many findings the analysis has."""
        return self.levels().total()

    def in_line_order(self) -> Iterator[Finding]:
        """The analysis's findings in line order, read back from the folder (once)."""
        finishing = self._finished()
        for line, rule, _, severity, message, session_id, request_id in self._runs.merged():
            found = Finding(rule, Severity(severity), line, message, session_id, request_id)
            finished = finishing.finished(found)
            if finished is not None:
                yield finished

    def _finished(self) -> Finishing:
        if self._finishing is None:
            raise RuntimeError("the walk has not been iterated to its end yet")
        return self._finishing


def analyze_parked(
    source: TranscriptInput, options: Options, folder: Path, *, name: str | None = None
) -> list[tuple[Analysis, ParkedFindings]]:
    """`analyze_file`, each connection's findings parked in a folder of its own under `folder`
    (its analysis holds none): one analysis per connection, with its findings."""
    analysed: list[tuple[Analysis, ParkedFindings]] = []
    with open_walks(source, options, name=name, each_message=False) as walks:
        for index, walk in enumerate(walks):
            parked = ParkedFindings(folder / f"connection-{index}")
            walk.findings_sink = parked
            for _ in walk:
                pass
            analysed.append((walk.analysis, parked))
    return analysed
