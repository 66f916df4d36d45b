"""The latencies of turns, tool calls and permission requests as every view shows them
(terminal, Markdown, HTML alike): the lines of a group's table, what each did not count and
why, and the notes under the table."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from acptrace.report.numbers import FEW_MARK, shows_few
from acptrace.report.stats import Distribution
from acptrace.report.summaries import FEW_REPLAYS, TURN_METRICS, Group, Metric
from acptrace.report.turn_summaries import LeftOut

TURN_FEW_LEGEND = (
    f"{FEW_MARK} from fewer than {FEW_REPLAYS} turns, tool calls or permission requests: one "
    "more can move it a lot"
)
"""The line that explains the few-samples mark under a table of turn latencies."""

NOT_COUNTED_NOTE = (
    "not counted: turns a replay of their session overlapped (during replay), estimated times "
    "(approximate), prompts refused with an error before any update (rejected), what the "
    "recording lacks the end of (unfinished), finished turns without a message or thought (no "
    "output), what has no times (untimed)"
)
"""Under a table of turn latencies, when it did not count some rows: why."""


@dataclass(frozen=True, slots=True)
class TurnLine:
    """One line of a group's table of turn latencies: a metric, or the tool calls of a kind."""

    metric: Metric
    """The metric (its unit, its label)."""
    kind: str | None
    """A tool-call kind (transcript text): the line is of the tool calls of that kind."""
    distribution: Distribution
    """Its values."""
    not_counted: dict[LeftOut, int]
    """The rows it has no value for, by reason (none for a kind's line: the metric's line
    counts them)."""

    @property
    def label(self) -> str:
        """Its measure in a cell: `tool call duration: read` for a kind's line."""
        return self.metric.label if self.kind is None else f"{self.metric.label}: {self.kind}"

    @property
    def why_not_counted(self) -> str:
        """`1 during replay, 2 unfinished`; empty when every row was counted."""
        return ", ".join(f"{n} {reason.words}" for reason, n in self.not_counted.items() if n)


def turn_lines(group: Group) -> list[TurnLine]:
    """The lines of a group's table: first output and turn duration where it has turns, tool
    call duration and a line per kind where it has tool calls, permission wait where it has
    permission requests."""
    figures = group.turns
    present = {
        Metric.FIRST_OUTPUT: figures.turns,
        Metric.TURN_DURATION: figures.turns,
        Metric.TOOL_CALL_DURATION: figures.tool_calls,
        Metric.PERMISSION_WAIT: figures.permission_requests,
    }
    lines = []
    for metric in TURN_METRICS:
        if not present[metric]:
            continue
        lines.append(TurnLine(metric, None, group.metrics[metric], figures.left_out[metric]))
        if metric is Metric.TOOL_CALL_DURATION:
            lines += [TurnLine(metric, kind, d, {}) for kind, d in figures.kinds.items()]
    return lines


def turn_groups(groups: Sequence[Group]) -> list[Group]:
    """The groups that have turns, tool calls or permission requests."""
    return [group for group in groups if group.turns.any]


def few_in_turns(groups: Sequence[Group]) -> bool:
    """Whether a table of these groups' turn lines shows the few-samples mark."""
    return any(shows_few(line.distribution) for g in groups for line in turn_lines(g))


def any_not_counted(groups: Sequence[Group]) -> bool:
    """Whether some group's turn latencies did not count a row."""
    return any(any(r.values()) for g in groups for r in g.turns.left_out.values())


def turn_notes(groups: Sequence[Group]) -> list[str]:
    """The lines under a table of these groups' turn latencies: what the few-samples mark
    means where one shows, why rows were not counted where some were not."""
    few = [TURN_FEW_LEGEND] if few_in_turns(groups) else []
    return few + ([NOT_COUNTED_NOTE] if any_not_counted(groups) else [])
