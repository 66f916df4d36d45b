"""Rules on each message against the ACP JSON Schema of its version (rules.md §12)."""

from __future__ import annotations

from collections.abc import Iterator

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


@rule(SCHEMA_INVALID, Severity.ERROR, "schema", SCHEMA, SchemaBreak)
def invalid(found: SchemaBreak) -> Iterator[Verdict]:
    """A message breaks the schema of its version (once per method or tag and JSON path)."""
    if found.rule == SCHEMA_INVALID:
        yield Verdict(
            found.line,
            f"{found.label}: {found.path} breaks the ACP v{found.version} schema: it wants "
            f"{found.want}, and {found.came} came{_times(found)}",
            found.session_id,
            found.request_id,
        )


@rule(SCHEMA_UNKNOWN_MEMBER, Severity.NOTE, "schema", SCHEMA, SchemaBreak)
def unknown_member(found: SchemaBreak) -> Iterator[Verdict]:
    """A member the schema does not define where it closes the object (once per path)."""
    if found.rule == SCHEMA_UNKNOWN_MEMBER:
        yield Verdict(
            found.line,
            f"{found.label}: {found.path} is no member the ACP v{found.version} schema "
            f"defines there ({found.came} came){_times(found)}",
            found.session_id,
            found.request_id,
        )


@rule(SCHEMA_VERSION_SHAPE, Severity.ERROR, "schema", SHAPE, SchemaBreak)
def version_shape(found: SchemaBreak) -> Iterator[Verdict]:
    """A message shaped for the other protocol version than the one negotiated (per method)."""
    if found.rule == SCHEMA_VERSION_SHAPE:
        other = 1 if found.version >= 2 else 2
        carried = ", ".join(found.shaped_by[:4]) + (", …" if len(found.shaped_by) > 4 else "")
        yield Verdict(
            found.line,
            f"{found.label} is shaped for ACP v{other} on a v{found.version} connection: it "
            f"carries {carried}, which only v{other} defines, and meets the v{other} schema; "
            f"v{found.version} wants {found.want} at {found.path}, and {found.came} came",
            found.session_id,
            found.request_id,
        )
