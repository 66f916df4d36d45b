"""The rule catalogue as a terminal table, a Markdown table (docs/rules.md's) or JSON."""

from __future__ import annotations

from collections.abc import Iterable

import orjson
from rich import box
from rich.console import Console, ConsoleOptions, RenderResult
from rich.padding import Padding
from rich.table import Table
from rich.text import Text

from acptrace.judge.rules import SOURCE_LEGEND, Rule

TABLE_WIDTH = 150
"""The narrowest terminal the rules are shown on as a table; narrower, as a list."""


class RulesView:
    """The rules for the width they are printed at: a table, or on a narrow terminal a list (a
    line with the ID, level and family, the help and the source indented under it); then what
    the abbreviations of their sources stand for."""

    def __init__(self, rules: Iterable[Rule]) -> None:
        self.rules = list(rules)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        if options.max_width >= TABLE_WIDTH:
            yield _table(self.rules)
        else:
            yield Text("acptrace rules", style="italic")
            for rule in self.rules:
                yield Text(rule.id, style="bold").append(f"  {rule.level} · {rule.family}")
                yield Padding(Text(rule.help), (0, 0, 0, 4))
                yield Padding(Text(f"source: {rule.source}", style="dim"), (0, 0, 0, 4))
        yield Text("\nSources:")
        legend = Table.grid(padding=(0, 1))
        legend.add_column(no_wrap=True, style="bold")
        legend.add_column()
        for short, meaning in SOURCE_LEGEND:
            legend.add_row(short, meaning)
        yield legend


def rules_table(rules: Iterable[Rule]) -> RulesView:
    """The rules for the terminal (`RulesView`)."""
    return RulesView(rules)


def _table(rules: Iterable[Rule]) -> Table:
    table = Table(title="acptrace rules", title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False)
    for heading in ("ID", "level", "family", "source", "help"):
        table.add_column(heading, no_wrap=heading == "ID")
    for rule in rules:
        table.add_row(rule.id, rule.level, rule.family, rule.source, rule.help)
    return table


def rules_markdown(rules: Iterable[Rule]) -> str:
    """A Markdown table of the rules (docs/rules.md embeds exactly this)."""
    lines = ["| ID | level | family | source | help |", "|---|---|---|---|---|"]
    for rule in rules:
        cells = (f"`{rule.id}`", rule.level, rule.family, rule.source, rule.help)
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    lines += ["", "Sources:", ""]
    lines += [f"- {short}: {meaning}" for short, meaning in SOURCE_LEGEND]
    return "\n".join(lines) + "\n"


def rules_json(rules: Iterable[Rule]) -> bytes:
    """The rules as a JSON array of `{id, severity, family, source, help, retired}`
    (`severity` null for RC-INFLIGHT and retired rules; `retired` says why, else null)."""
    documents = [
        {
            "id": r.id,
            "severity": r.severity,
            "family": r.family,
            "source": r.source,
            "help": r.help,
            "retired": r.retired,
        }
        for r in rules
    ]
    return orjson.dumps(documents, option=orjson.OPT_INDENT_2) + b"\n"
