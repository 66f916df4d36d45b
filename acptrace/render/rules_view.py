"""The rule catalogue as a terminal table, a Markdown table (docs/rules.md's) or JSON."""

from __future__ import annotations

from collections.abc import Iterable

import orjson
from rich.table import Table

from acptrace.judge.rules import Rule


def rules_table(rules: Iterable[Rule]) -> Table:
    """A rich table of the rules."""
    table = Table(title="acptrace rules", title_justify="left")
    for heading in ("ID", "level", "family", "source", "help"):
        table.add_column(heading, no_wrap=heading == "ID")
    for rule in rules:
        table.add_row(rule.id, _level(rule), rule.family, rule.source, rule.help)
    return table


def rules_markdown(rules: Iterable[Rule]) -> str:
    """A Markdown table of the rules (docs/rules.md embeds exactly this)."""
    lines = ["| ID | level | family | source | help |", "|---|---|---|---|---|"]
    for rule in rules:
        cells = (f"`{rule.id}`", _level(rule), rule.family, rule.source, rule.help)
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(lines) + "\n"


def rules_json(rules: Iterable[Rule]) -> bytes:
    """The rules as a JSON array of `{id, severity, family, source, help}`."""
    documents = [
        {"id": r.id, "severity": r.severity, "family": r.family, "source": r.source, "help": r.help}
        for r in rules
    ]
    return orjson.dumps(documents, option=orjson.OPT_INDENT_2) + b"\n"


def _level(rule: Rule) -> str:
    return rule.severity.value if rule.severity is not None else "—"
