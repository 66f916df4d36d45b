"""The typer application every command module registers on, and running it."""

from __future__ import annotations

from typing import Annotated

import typer

from acptrace.cli.common import fail
from acptrace.model.errors import AcptraceError
from acptrace.model.version import __version__

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
