"""`acptrace rules` and `acptrace formats`: what acptrace checks and what it reads."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated

from acptrace.cli.common import rich_bytes
from acptrace.cli.options import FORMAT, output_option
from acptrace.cli.output import write_output
from acptrace.cli.root import app
from acptrace.judge.rules import RULES
from acptrace.read.formats import FORMATS
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
def formats_command() -> None:
    """List the input formats acptrace reads.

    Each format, who writes it, and one example line.
    """
    lines = [
        f"{known.name}: {known.summary}\n    written by: {known.producers}\n    {known.example}\n"
        for known in FORMATS
    ]
    write_output("".join(lines).encode(), None)
