"""The rule catalogue as a terminal table, a Markdown table (docs/rules.md's) or JSON."""

from __future__ import annotations

from collections.abc import Iterable

import orjson
from rich.console import Group
from rich.table import Table
from rich.text import Text

from acptrace.judge.rules import SOURCE_LEGEND, Rule


def rules_table(rules: Iterable[Rule]) -> Group:
    """A rich table of the rules, and what the abbreviations of their sources stand for."""
    table = Table(title="acptrace rules", title_justify="left")
    for heading in ("ID", "level", "family", "source", "help"):
        table.add_column(heading, no_wrap=heading == "ID")
    for rule in rules:
        table.add_row(rule.id, _level(rule), rule.family, rule.source, rule.help)
    legend = Table.grid(padding=(0, 1))
    legend.add_column(no_wrap=True, style="bold")
    legend.add_column()
    for short, meaning in SOURCE_LEGEND:
        legend.add_row(short, meaning)
    return Group(table, Text("Sources:"), legend)


def rules_markdown(rules: Iterable[Rule]) -> str:
    """A Markdown table of the rules (docs/rules.md embeds exactly this)."""
    lines = ["| ID | level | family | source | help |", "|---|---|---|---|---|"]
    for rule in rules:
        cells = (f"`{rule.id}`", _level(rule), rule.family, rule.source, rule.help)
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    lines += ["", "Sources:", ""]
    lines += [f"- {short}: {meaning}" for short, meaning in SOURCE_LEGEND]
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
