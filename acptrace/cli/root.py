"""The typer application every command module registers on, and running it."""

# (no `from __future__ import annotations`: typer reads each option from its annotation,
# and would evaluate the annotations' text again on every run)

import re
from typing import Annotated, Any

import typer
from typer.core import TyperCommand

from acptrace.cli.common import EXIT_INTERRUPTED, fail, print_error, reader_gone
from acptrace.model.errors import AcptraceError
from acptrace.model.version import __version__

HELP_OPTIONS = ["-h", "--help"]
"""`-h` as well as `--help`, on `acptrace` and every command (click passes it down)."""


class PlainUsageCommand(TyperCommand):
    """A command whose usage line names its arguments the usual way (`FILE...`, `FILE`), not in
    typer's braces (`{files}...`), whose line in `acptrace --help` is the first sentence of its
    description, whole (click cuts it at the terminal's width, with "..."), and that ends
    quietly when its reader goes away."""

    def collect_usage_pieces(self, ctx: Any) -> list[str]:
        return [_unbraced(piece) for piece in super().collect_usage_pieces(ctx)]

    def invoke(self, ctx: Any) -> Any:
        """Run the command; a closed pipe on stdout or stderr, wherever the command meets it,
        ends it quietly (`reader_gone`: exit 0), not with click's exit 1 (read as findings)."""
        try:
            return super().invoke(ctx)
        except BrokenPipeError:
            reader_gone()
        except KeyboardInterrupt:  # (click would say "Aborted!" and exit 1: read as findings)
            print_error("interrupted")
            raise typer.Exit(EXIT_INTERRUPTED) from None

    def get_short_help_str(self, limit: int = 45) -> str:
        del limit  # (the first sentences are kept short: tests/test_cli_options.py)
        return first_sentence(self.help or "")


def first_sentence(text: str) -> str:
    """The first sentence of a description (up to the first full stop that ends a word)."""
    words = " ".join(text.split("\n\n", 1)[0].split())
    found = re.search(r"\.(\s|$)", words)
    return words[: found.start() + 1] if found else words


def _unbraced(piece: str) -> str:
    if piece.startswith("{") and "}" in piece:
        inner, _, rest = piece[1:].partition("}")
        return inner + rest
    return piece


app = typer.Typer(
    name="acptrace",
    help="Forensic analyzer for recorded Agent Client Protocol (ACP) traffic.",
    no_args_is_help=True,
    add_completion=True,  # (--install-completion: typer imports its machinery anyway)
    rich_markup_mode=None,
    context_settings={"help_option_names": HELP_OPTIONS},
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"acptrace {__version__}")
        raise typer.Exit()


@app.callback()
def main_callback(
    version: Annotated[
        bool,
        typer.Option(
            "--version", "-V", callback=_version, is_eager=True, help="Show the version and exit."
        ),
    ] = False,
) -> None:
    """Forensic analyzer for recorded Agent Client Protocol (ACP) traffic."""


def main() -> None:
    """Run the app with the commands registered so far (`acptrace.cli.main` registers them)."""
    try:
        app()
    except AcptraceError as error:  # commands handle their own; this is the last net
        fail(str(error))
