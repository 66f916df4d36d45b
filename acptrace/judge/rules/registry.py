"""The rule registry: every check, with its stable ID, level, one-line help and spec source.

A rule observes one kind of observation (see `acptrace.correlate.observations`) and yields
verdicts; the registry turns verdicts into findings with the rule's ID and level (demoted one
level where the trace cannot prove the violation).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any, TypeVar

import msgspec

from acptrace.model.domain import Finding, JsonId, Severity


class Verdict(msgspec.Struct, frozen=True):
    """One violation a check found, before the rule's ID and level are attached."""

    line: int
    """The line that shows it."""
    message: str
    """What happened."""
    session_id: str | None = None
    """The session concerned."""
    request_id: JsonId = None
    """The request concerned."""
    demoted_because: str | None = None
    """Why the trace cannot prove it: the finding drops a level and says so."""
    demoted_to: Severity | None = None
    """The level it drops to (one level below the rule's when not given)."""
    level: Severity | None = None
    """The level of this case, where the catalogue gives the rule another level for it
    (CAP-UNADVERTISED: an error for v1 `session/load`); None: the rule's level."""


Check = Callable[[Any], Iterable[Verdict]]


class Rule(msgspec.Struct, frozen=True):
    """One entry of the rule catalogue (rules.md)."""

    id: str
    """Stable, user-visible ID."""
    severity: Severity | None
    """Level before any demotion (None for RC-INFLIGHT, which is an exception, not a check)."""
    family: str
    """Group of related rules (`marker`, `history`, `child`, …) for reports and selection."""
    source: str
    """Where the rule comes from in the spec."""
    help: str
    """One line: the condition that makes a finding."""
    observes: type | None
    """The observation type the check reads."""
    check: Check | None
    """The check itself."""
    retired: str | None = None
    """Why and when the rule was retired (rules.md lists it as `retired`): never reported,
    listed so that a user's `--select` or `--ignore` of its ID still means something."""

    @property
    def level(self) -> str:
        """The catalogue's level column: the severity, `retired`, or `—` for an exception."""
        if self.retired is not None:
            return "retired"
        return self.severity.value if self.severity is not None else "—"

    def judge(self, observation: Any) -> Iterator[Finding]:
        """The findings this rule makes of one observation."""
        if self.check is None or self.severity is None:
            return
        for verdict in self.check(observation):
            severity, message = verdict.level or self.severity, verdict.message
            if verdict.demoted_because:
                severity = verdict.demoted_to or severity.demoted()
                message = f"{message} (demoted to {severity}: {verdict.demoted_because})"
            yield Finding(
                self.id, severity, verdict.line, message, verdict.session_id, verdict.request_id
            )


REGISTRY: dict[str, Rule] = {}
"""Every rule by ID, in the order registered, which is the catalogue's: the rule modules are
imported in the order of rules.md's sections (`acptrace.judge.rules.SECTIONS`) and each
registers its rules in the order its section lists them."""

_O = TypeVar("_O")


def rule(
    rule_id: str,
    severity: Severity,
    family: str,
    source: str,
    observes: type[_O],
    help_line: str | None = None,
) -> Callable[[Callable[[_O], Iterable[Verdict]]], Callable[[_O], Iterable[Verdict]]]:
    """Register a check; its help is `help_line` or else its docstring's first paragraph, on
    one line (a condition longer than a line of code is not cut)."""

    def register(check: Callable[[_O], Iterable[Verdict]]) -> Callable[[_O], Iterable[Verdict]]:
        first = (check.__doc__ or "").strip().split("\n\n")[0]
        help_line_ = help_line or " ".join(first.split())
        REGISTRY[rule_id] = Rule(rule_id, severity, family, source, help_line_, observes, check)
        return check

    return register


def exception(rule_id: str, family: str, source: str, help_line: str) -> None:
    """Register a catalogue entry that is not a check (it changes how other rules judge)."""
    REGISTRY[rule_id] = Rule(rule_id, None, family, source, help_line, None, None)


def retired(rule_id: str, family: str, source: str, help_line: str, why: str) -> None:
    """Register a rule the catalogue keeps as retired: listed, never reported."""
    REGISTRY[rule_id] = Rule(rule_id, None, family, source, help_line, None, None, why)
