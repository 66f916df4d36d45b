"""Observations in, findings out: dispatches each observation to the rules that read it."""

from __future__ import annotations

from collections.abc import Iterable

import msgspec

from acptrace.correlate.observations import Observation
from acptrace.judge.rules import Rule, applies_on
from acptrace.model.domain import Finding


class Judge(msgspec.Struct):
    """Runs the selected rules on every observation and keeps their findings."""

    rules: Iterable[Rule]
    """The rules to run."""
    findings: list[Finding] = msgspec.field(default_factory=list)
    """Everything found so far, in the order found."""
    _by_type: dict[type, list[Rule]] = msgspec.field(default_factory=dict)

    def __post_init__(self) -> None:
        for rule in self.rules:
            if rule.observes is not None:
                self._by_type.setdefault(rule.observes, []).append(rule)

    def observe(self, observation: Observation) -> None:
        """Judge one observation."""
        for rule in self._by_type.get(type(observation), ()):
            self.findings.extend(rule.judge(observation))

    def verdict(self, protocol_version: int) -> tuple[Finding, ...]:
        """Findings in line order; the marker rules (RC-*) only for ACP v2 and later, but for
        RC-CONCURRENT (rules.md §7, §10)."""
        kept = (f for f in self.findings if applies_on(f.rule, protocol_version))
        return tuple(sorted(kept, key=lambda f: (f.line, f.rule)))
