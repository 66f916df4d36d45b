"""Observations in, findings out: dispatches each observation to the rules that read it."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol

import msgspec

from acptrace.correlate.observations import Observation
from acptrace.judge.lost import demote_for_lost_input
from acptrace.judge.rules import Rule, applies_on
from acptrace.judge.schema.conformance import SchemaBreak
from acptrace.model.domain import Finding


class FindingSink(Protocol):
    """Where a judge hands its findings instead of keeping them (a file on disk, say), and
    how they are to be finished once the whole transcript is read (`Finishing`)."""

    def add(self, finding: Finding) -> None:
        """One finding, as found."""

    def finish(self, finishing: Finishing) -> None:
        """Every finding is in: how each is to be finished."""


class Judge(msgspec.Struct):
    """Runs the selected rules on every observation and keeps their findings (or hands them to
    `sink`, when there is one)."""

    rules: Iterable[Rule]
    """The rules to run."""
    findings: list[Finding] = msgspec.field(default_factory=list)
    """Everything found so far, in the order found (nothing, with a sink)."""
    sink: FindingSink | None = None
    """Where the findings go instead of `findings`."""
    _by_type: dict[type, list[Rule]] = msgspec.field(default_factory=dict)

    def __post_init__(self) -> None:
        for rule in self.rules:
            if rule.observes is not None:
                self._by_type.setdefault(rule.observes, []).append(rule)

    def observe(self, observation: Observation | SchemaBreak) -> None:
        """Judge one observation."""
        for rule in self._by_type.get(type(observation), ()):
            if self.sink is None:
                self.findings.extend(rule.judge(observation))
            else:
                for finding in rule.judge(observation):
                    self.sink.add(finding)

    def verdict(self, protocol_version: int, shown: bool = True) -> tuple[Finding, ...]:
        """Findings in line order, of the rules that apply to the protocol version (`shown`:
        something showed it, `applies_on`)."""
        kept = (f for f in self.findings if applies_on(f.rule, protocol_version, shown))
        return tuple(sorted(kept, key=lambda f: (f.line, f.rule)))


class Finishing(msgspec.Struct, frozen=True):
    """What is known of a finding only at the end of the transcript: whether its rule applies
    to the protocol version (`Judge.verdict`), and whether the input lost messages, which
    demotes it (`demote_for_lost_input`). For findings kept out of memory by a sink."""

    protocol_version: int
    lost: str | None
    """Why the input lost messages, or None."""
    shown: bool = True
    """Something showed the protocol version (`applies_on`)."""

    def finished(self, finding: Finding) -> Finding | None:
        """The finding as the analysis reports it; None when its rule does not apply."""
        if not applies_on(finding.rule, self.protocol_version, self.shown):
            return None
        if self.lost is None:
            return finding
        return demote_for_lost_input((finding,), self.lost)[0]
