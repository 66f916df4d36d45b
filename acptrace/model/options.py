"""The settings one analysis runs with (the CLI's options, the library's keyword arguments), as
two values: what to read and judge (`Options`), and how to run (`Execution`), which never
changes what an analysis finds."""

from __future__ import annotations

from enum import StrEnum

import msgspec

from acptrace.model.tags import MARKER_TAG, TagPolicy

SCHEMA_RULES = ("SCHEMA-INVALID", "SCHEMA-UNKNOWN-MEMBER", "SCHEMA-VERSION-SHAPE")
"""The rules of the schema check (rules.md §12): when none is wanted, no message is checked."""


class SchemaDepth(StrEnum):
    """What the schema check reads (`Options.schema`, `--schema`)."""

    DEFAULT = "default"
    """Every message outside runs of plain updates, and the first update of each tag."""
    FULL = "full"
    """Every message (each update on its own: slower)."""


DEFAULT_MAX_LINE_BYTES = 64 * 1024 * 1024
"""Longer lines are reported and skipped."""


class Options(msgspec.Struct, frozen=True, gc=False):
    """What to read and how to judge it: the rules, tags, protocol and format."""

    input_format: str | None = None
    """Force an input format by name (None: detect it)."""
    assume_closed: bool = False
    """Treat a transcript that simply stops as a recorded disconnect."""
    protocol: int | None = None
    """Apply the rules of this ACP version (None: from `initialize`, else inferred)."""
    child_rules: bool = True
    """Judge the child-session rules (RC-CHILD-*)."""
    marker_tag: str = MARKER_TAG
    """The `sessionUpdate` tag that marks the end of a replay."""
    history_tags: tuple[str, ...] = ()
    """By-default never-history tags to treat as history."""
    live_tags: tuple[str, ...] = ()
    """Further tags to treat as never history."""
    select: tuple[str, ...] = ()
    """Only these rule IDs (or prefixes such as `RC-CHILD`); empty for all."""
    ignore: tuple[str, ...] = ()
    """Rule IDs (or prefixes) to leave out."""
    link: str | None = None
    """For multi-hop traces: the link to analyse (`client`, `agent` or `A,B`; None: the Agent's)."""
    schema: SchemaDepth = SchemaDepth.DEFAULT
    """What the schema check reads (rules.md §12): `default`, every message but updates of a
    tag already checked on the connection; `full`, every message (the hot path keeps every
    line of a run for it: slower)."""

    def tag_policy(self) -> TagPolicy:
        """The tag classification these options ask for."""
        return TagPolicy.build(self.marker_tag, self.history_tags, self.live_tags)

    @property
    def checks_schema(self) -> bool:
        """Whether any schema rule is wanted (else no message is checked)."""
        return any(self.wants(rule, "schema") for rule in SCHEMA_RULES)

    @property
    def schema_every(self) -> bool:
        """The schema check reads every message (`schema` `full`)."""
        return self.schema == SchemaDepth.FULL and self.checks_schema

    def wants(self, rule_id: str, family: str) -> bool:
        """Whether findings of this rule are reported."""
        if family == "child" and not self.child_rules:
            return False
        if self.select and not any(rule_id.startswith(p) for p in self.select):
            return False
        return not any(rule_id.startswith(p) for p in self.ignore)


class Execution(msgspec.Struct, frozen=True, gc=False):
    """How to run an analysis: processes, fast paths, buffer sizes. Never changes a verdict
    (tests compare every setting with the reference, one process on the general path)."""

    max_line_bytes: int = DEFAULT_MAX_LINE_BYTES
    """Longer lines are reported and skipped."""
    fast: bool = True
    """Decode plain lines on the hot path."""
    payloads: bool = False
    """Keep each message's JSON object, for views that show payloads (the hot path keeps the
    line it came from, decoded only when a view shows it: `decode.fastpath.KeptPayload`)."""
    split: int = 1
    """Processes for one file: from 2, a big file of a line-based format is decoded in pieces
    by that many processes and correlated in order, with the same result
    (`acptrace.pipeline.pieces`)."""
    split_min_bytes: int = 32 * 1024 * 1024
    """Smaller files are not split: what the processes save is small next to starting acptrace."""
    split_piece_bytes: int = 0
    """The size of the pieces handed out (ended at the next line end; 0: chosen by file size)."""
