"""The options several commands take that are not analysis settings: each declared once here.

A command annotates its parameter with its own type and one of these declarations
(`Annotated[AnalyzeFormat, FORMAT]`), so `--format` and `-o` have one name, one short form and
one help text everywhere; what a command writes, and where by default, its own help says.
The analysis settings (`--config`, `--select`, `--fail-on`, ...) are in `acptrace.cli.settings`.
"""

from __future__ import annotations

from typing import Annotated

import typer

FORMAT = typer.Option("--format", "-f", help="Output format.")

FilesArgument = Annotated[
    list[str],
    typer.Argument(metavar="FILE...", help="Transcripts, directories or globs (`-` for stdin)."),
]
"""The transcripts a command reads (usage: `FILE...`)."""
"""`--format`: the choices are the command's own (its parameter's enum)."""

OUTPUT = typer.Option(
    "--output",
    "-o",
    metavar="PATH",
    help="Where to write the result (the command's description says what it writes there, "
    "and where it goes without -o).",
)
"""`-o`: a file (or a directory, for `export`; repeatable for `report`)."""

OutputOption = Annotated[str | None, OUTPUT]
"""`-o FILE`, stdout when not given."""

JobsOption = Annotated[
    int | None,
    typer.Option(
        "--jobs",
        "-j",
        min=0,
        metavar="N",
        help="Processes to use, this one included (default, or 0: chosen from the input's "
        "size; 1: this process only). Several files: analysed N at a time, results in the "
        "order given. One big file: its pieces decoded by N processes.",
        show_default=False,
    ),
]

RedactOption = Annotated[
    bool,
    typer.Option(
        "--redact/--no-redact", help="Replace secrets in the transcript (never in the traffic)."
    ),
]
"""`--no-redact`: record secrets as they were (`record`, and `drive`'s recordings)."""

QuietOption = Annotated[
    bool,
    typer.Option(
        "--quiet",
        "-q",
        help="No progress bar on stderr, and no summary beside the output (`report`'s on "
        "stdout); errors still go to stderr.",
    ),
]
