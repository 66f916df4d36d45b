"""The options several commands take that are not analysis settings: each declared once here,
as data (`acptrace.cli.declare`).

A command annotates its parameter with its own type and one of these declarations
(`Annotated[AnalyzeFormat, FORMAT]`; typer's forms of them are in `acptrace.cli.typer_options`),
so `--format`, `-o` and `-q` have one name and one short form everywhere; what `-o` writes, and
where the output goes without it, each command says in the help it gives `output_option`. The
analysis settings (`--config`, `--select`, `--fail-on`, ...) are in `acptrace.cli.settings`.

Placeholders in `--help` are one style: an upper-case word for a value (FILE, DIR, N, MS, ID,
TAG, RULE, ...), the values themselves for a closed set (`<rich|json>`, `1|2`); never typer's
`<int range>` or `<str>` (tests/test_cli_options.py).
"""

from __future__ import annotations

from acptrace.cli.declare import Argument, Option

FORMAT = Option("--format", "-f", help="Output format.")
"""`--format`: the choices are the command's own (its parameter's enum)."""

FILES = Argument(metavar="FILE...", help="Transcripts, directories or globs (`-` for stdin).")
"""The transcripts a command reads (usage: `FILE...`)."""

OUTPUT = Option("--output", "-o", metavar="FILE", help="", show_default=False)
"""`-o`: each command gives its own help (`output_option`)."""


def output_option(help: str, metavar: str = "FILE") -> Option:
    """`-o`: `help` says what this command writes there, and where it goes without -o."""
    own = OUTPUT.helped(help)
    own.metavar = metavar
    return own


JOBS = Option(
    "--jobs",
    "-j",
    minimum=0,
    metavar="N",
    help="Processes to use, this one included (default, or 0: chosen from the input's "
    "size; 1: this process only). Several files: analysed N at a time, results in the "
    "order given. One big file: its pieces decoded by N processes.",
    show_default=False,
)

REDACT = Option(
    "--redact", off="--no-redact", help="Replace secrets in the transcript (never in the traffic)."
)
"""`--no-redact`: record secrets as they were (`record`, and `drive`'s recordings)."""

QUIET_HELP = "Nothing but the output and errors: no progress bar and no notes on stderr."
QUIET = Option("--quiet", "-q", help=QUIET_HELP)
REPORT_QUIET = QUIET.helped(
    QUIET_HELP.removesuffix(".")
    + "; no summary on stdout either, so it needs -o (or -f json or markdown, whose report "
    "stays on stdout)."
)
"""`report -q`: its summary on stdout goes too (the other commands' -q keeps their output, as
report's does with `-f json` or `markdown`)."""
