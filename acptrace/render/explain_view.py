"""`acptrace explain ID|COLUMN`: a rule of the registry, or a column of the tables `analyze`
and `report` print, explained for the terminal."""

from __future__ import annotations

import difflib
from collections.abc import Iterator

from rich.console import Group, RenderableType
from rich.padding import Padding
from rich.text import Text

from acptrace.judge.rules import RULES, SOURCE_LEGEND, Rule
from acptrace.judge.rules.examples import EXAMPLES, SHARED
from acptrace.model.columns import COLUMNS, PAGES, TABLES, ColumnMeaning, named
from acptrace.render.facts import Facts


def subjects() -> list[tuple[str, str]]:
    """Everything `explain` explains, as (what to type, a few words on it): the rule IDs, then
    the column headings (spaces typed as `-`)."""
    found = [(rule.id, f"{rule.level} rule") for rule in RULES]
    headings = dict.fromkeys(column.heading.replace(" ", "-") for column in COLUMNS)
    return found + [(heading, "column") for heading in headings]


def explanation(subject: str) -> list[RenderableType] | None:
    """The rule with this ID, or every column with this heading (case, `-` and `->` for a
    space and `→` aside), each a block of lines; None when there is none."""
    rule = next((r for r in RULES if r.id.casefold() == subject.strip().casefold()), None)
    if rule is not None:
        return [Group(*_rule(rule))]
    return [Group(*_column(column)) for column in named(subject)] or None


def _rule(rule: Rule) -> Iterator[RenderableType]:
    yield Text(rule.id, "bold").append(f"  {rule.level} · family {rule.family}", "")
    yield _indented(rule.help)
    if rule.retired is not None:
        yield _indented(f"Retired: {rule.retired}")
    yield _indented(f"Source: {rule.source}")
    for short, meaning in SOURCE_LEGEND:
        if _cites(rule.source, short):
            yield _indented(f"{short}: {meaning}", 4, "dim")
    example = EXAMPLES.get(rule.id)
    if example is not None:
        yield _indented("Example:" if example.place is None else _found_in(example.place))
        if example.place is not None:  # (a long path breaks after a `/`)
            yield Facts([example.place], indent=4)
        yield _indented(example.message, 4)
    yield _indented("Catalogue: docs/rules.md; acptrace rules lists every rule.", 2, "dim")


def _found_in(place: str) -> str:
    """Where an example was found, as a user who installed acptrace can tell: neither the
    repository's samples nor the recordings its tests read are installed with it."""
    if place.startswith(SHARED):
        return "Example, from a real recording the tests read (not installed):"
    return "Example, from a sample in acptrace's repository (not installed):"


def _cites(source: str, short: str) -> bool:
    """The source cites this abbreviation (as a word of its own)."""
    words = source.replace(";", " ").replace("(", " ").replace(")", " ").split()
    return short in words or (short == "JSON-RPC 2.0" and "JSON-RPC" in words)


def _column(column: ColumnMeaning) -> Iterator[RenderableType]:
    tables = ", ".join(_where(table) for table in column.tables)
    yield Text(column.heading, "bold").append(f"  column of {tables}", "")
    yield _indented(column.meaning.replace("`", ""))
    yield _indented(f"Unit: {column.unit.replace('`', '')}")


def _where(table: str) -> str:
    """`the Resumes table (analyze)`."""
    commands = [page for page, tables in PAGES.items() if table in tables]
    return f"{TABLES[table]} ({', '.join(commands)})"


def _indented(text: str, indent: int = 2, style: str = "") -> Padding:
    return Padding(Text(text, style), (0, 0, 0, indent))


def unknown(subject: str) -> str:
    """The error for a subject that is neither a rule ID nor a column heading, with the
    subjects it may have meant."""
    typed = {name.casefold(): name for name, _ in subjects()}
    close = difflib.get_close_matches(subject.casefold(), typed, n=3, cutoff=0.6)
    names = [typed[c] for c in close]
    listed = ", ".join(names[:-1]) + (" or " if len(names) > 1 else "") + names[-1] if names else ""
    meant = f"; did you mean {listed}?" if names else ""
    return (
        f"explain: {subject!r} is neither a rule ID nor a column heading{meant} "
        "(acptrace rules lists the rules, docs/analyze.md and docs/report.md the columns)"
    )
