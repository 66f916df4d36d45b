"""`acptrace explain ID|COLUMN`: what a rule checks, or what a column of a table means."""

from __future__ import annotations

from typing import Annotated

import typer

from acptrace.cli.common import fail, rich_bytes
from acptrace.cli.output import write_output
from acptrace.cli.root import app
from acptrace.cli.typer_options import output_option
from acptrace.render.explain_view import explanation, subjects, unknown


def _complete(incomplete: str) -> list[tuple[str, str]]:
    """The rule IDs and column headings that start with what was typed (any case)."""
    typed = incomplete.casefold()
    return [(name, words) for name, words in subjects() if name.casefold().startswith(typed)]


@app.command(  # (`->marker`, as the help says `→marker` may be typed, is no unknown option)
    "explain", context_settings={"ignore_unknown_options": True}
)
def explain_command(
    subject: Annotated[
        str,
        typer.Argument(
            metavar="ID|COLUMN",
            help="A rule ID (RC-MISSING) or a column heading of analyze's or report's tables "
            "(mk, max-gap, marker->resp); the shell completes both.",
            autocompletion=_complete,
        ),
    ],
    output: Annotated[
        str | None,
        output_option("Write the explanation to this file instead of stdout."),
    ] = None,
) -> None:
    """Explain a rule or a table column.

    A rule: its condition, level, source in the spec and a real finding of it. A column: what
    its cells mean and their unit, in each table that shows it. Case does not matter; a space
    in a heading may be typed `-`, and `→` as `->`.
    """
    found = explanation(subject)
    if found is None:
        fail(unknown(subject))
    write_output(rich_bytes(*found, output=output), output)
