"""`acptrace rules` and `acptrace formats`: what acptrace checks and what it reads."""

from __future__ import annotations

import textwrap
from enum import StrEnum
from typing import Annotated

from acptrace.cli.common import rich_bytes, text_width
from acptrace.cli.output import write_output
from acptrace.cli.root import app
from acptrace.cli.typer_options import FORMAT, output_option
from acptrace.judge.rules import RULES
from acptrace.read.formats import FORMATS
from acptrace.read.formats.base import TranscriptFormat
from acptrace.render.rules_view import rules_json, rules_markdown, rules_table


class RulesFormat(StrEnum):
    """Output formats of `rules`."""

    TABLE = "table"
    MARKDOWN = "markdown"
    JSON = "json"


@app.command("rules")
def rules_command(
    output_format: Annotated[RulesFormat, FORMAT] = RulesFormat.TABLE,
    output: Annotated[
        str | None,
        output_option("Write the list, in --format, to this file instead of stdout."),
    ] = None,
) -> None:
    """List the rules acptrace checks.

    Every rule with its ID, level, source and one-line help, to stdout or the file -o names.
    """
    match output_format:
        case RulesFormat.TABLE:
            data = rich_bytes(rules_table(RULES), output=output)
        case RulesFormat.MARKDOWN:
            data = rules_markdown(RULES).encode()
        case RulesFormat.JSON:
            data = rules_json(RULES)
    write_output(data, output)


@app.command("formats")
def formats_command(
    output: Annotated[
        str | None,
        output_option("Write the list to this file instead of stdout."),
    ] = None,
) -> None:
    """List the input formats acptrace reads.

    Each format, who writes it, and one example line, to stdout or the file -o names. The
    descriptions wrap at the terminal's width; an example line is never wrapped, so that it can
    be copied whole.
    """
    width = text_width(output)
    write_output("".join(_format_entry(known, width) for known in FORMATS).encode(), output)


def _format_entry(known: TranscriptFormat, width: int) -> str:
    """A format's name and summary, who writes it (both wrapped at `width`), its example line
    (whole, however long)."""
    described = textwrap.fill(f"{known.name}: {known.summary}", width, subsequent_indent="    ")
    producers = textwrap.fill(
        f"written by: {known.producers}",
        width,
        initial_indent="    ",
        subsequent_indent="      ",
    )
    return f"{described}\n{producers}\n    {known.example}\n"
