"""The typer application every command module registers on, and running it."""

from __future__ import annotations

from typing import Annotated, Any

import typer
from typer.core import TyperCommand

from acptrace.cli.common import fail, reader_gone
from acptrace.model.errors import AcptraceError
from acptrace.model.version import __version__


class PlainUsageCommand(TyperCommand):
    """A command whose usage line names its arguments the usual way (`FILE...`, `IN`), not in
    typer's braces (`{files}...`), and that ends quietly when its reader goes away."""

    def collect_usage_pieces(self, ctx: Any) -> list[str]:
        return [_unbraced(piece) for piece in super().collect_usage_pieces(ctx)]

    def invoke(self, ctx: Any) -> Any:
        """Run the command; a closed pipe on stdout or stderr, wherever the command meets it,
        ends it quietly (`reader_gone`: exit 0), not with click's exit 1 (read as findings)."""
        try:
            return super().invoke(ctx)
        except BrokenPipeError:
            reader_gone()


def _unbraced(piece: str) -> str:
    if piece.startswith("{") and "}" in piece:
        inner, _, rest = piece[1:].partition("}")
        return inner + rest
    return piece


app = typer.Typer(
    name="acptrace",
    help="Forensic analyzer for recorded Agent Client Protocol (ACP) traffic.",
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode=None,
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"acptrace {__version__}")
        raise typer.Exit()


@app.callback()
def main_callback(
    version: Annotated[
        bool,
        typer.Option("--version", callback=_version, is_eager=True, help="Show the version."),
    ] = False,
) -> None:
    """Forensic analyzer for recorded Agent Client Protocol (ACP) traffic."""


def main() -> None:
    """Run the app with the commands registered so far (`acptrace.cli.main` registers them)."""
    try:
        app()
    except AcptraceError as error:  # commands handle their own; this is the last net
        fail(str(error))
