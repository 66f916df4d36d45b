"""Rules on each message against the ACP JSON Schema of its version (rules.md §12)."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from acptrace.judge.rules.registry import Verdict, rule
from acptrace.judge.schema.conformance import (
    SCHEMA_INVALID,
    SCHEMA_UNKNOWN_MEMBER,
    SCHEMA_VERSION_SHAPE,
    SchemaBreak,
)
from acptrace.model.domain import Severity

SCHEMA = "SCHEMA"
SHAPE = "SCHEMA; v2 migration guide"


def _times(found: SchemaBreak) -> str:
    return "" if found.count == 1 else f" ({found.count} messages, the first here)"


def _invalid(found: SchemaBreak) -> str:
    return (
        f"{found.label}: {found.path} breaks the ACP v{found.version} schema: it wants "
        f"{found.want}, and {found.came} came{_times(found)}"
    )


def _unknown_member(found: SchemaBreak) -> str:
    return (
        f"{found.label}: {found.path} is no member the ACP v{found.version} schema defines "
        f"there ({found.came} came){_times(found)}"
    )


def _version_shape(found: SchemaBreak) -> str:
    other = 1 if found.version >= 2 else 2
    carried = ", ".join(found.shaped_by[:4]) + (", …" if len(found.shaped_by) > 4 else "")
    return (
        f"{found.label} is shaped for ACP v{other} on a v{found.version} connection: it "
        f"carries {carried}, which only v{other} defines, and meets the v{other} schema; "
        f"v{found.version} wants {found.want} at {found.path}, and {found.came} came"
    )


def _register(
    rule_id: str, severity: Severity, source: str, help_line: str,
    words: Callable[[SchemaBreak], str],
) -> None:  # fmt: skip
    """A schema rule: the breaks the schema check tallied for it, each a finding at its first
    message, in its `words`."""

    def check(found: SchemaBreak) -> Iterator[Verdict]:
        if found.rule == rule_id:
            yield Verdict(found.line, words(found), found.session_id, found.request_id)

    rule(rule_id, severity, "schema", source, SchemaBreak, help_line)(check)


_register(SCHEMA_INVALID, Severity.ERROR, SCHEMA,
          "A message breaks the schema of its version (once per method or tag and JSON path).",
          _invalid)  # fmt: skip
_register(SCHEMA_UNKNOWN_MEMBER, Severity.NOTE, SCHEMA,
          "A member the schema does not define where it closes the object (once per path).",
          _unknown_member)  # fmt: skip
_register(SCHEMA_VERSION_SHAPE, Severity.ERROR, SHAPE,
          "A message shaped for the other protocol version than the one negotiated (per "
          "method).", _version_shape)  # fmt: skip
