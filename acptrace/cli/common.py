"""What several commands share: exit codes, the output option, rich rendering, diagnostics."""

from __future__ import annotations

import io
from typing import Annotated, NoReturn

import typer
from rich.console import Console

EXIT_OK, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2

PLAIN_WIDTH = 160
"""Width of rich output when stdout is not a terminal (files, pipes, CI logs)."""

OutputOption = Annotated[
    str | None, typer.Option("--output", "-o", help="Write to this file instead of stdout.")
]


def rich_bytes(*renderables: object) -> bytes:
    """Render for the terminal when stdout is one, as plain text otherwise."""
    terminal = Console()
    buffer = io.StringIO()
    console = Console(
        file=buffer,
        force_terminal=terminal.is_terminal,
        width=terminal.width if terminal.is_terminal else PLAIN_WIDTH,
        color_system="auto" if terminal.is_terminal else None,
        highlight=False,
    )
    for renderable in renderables:
        console.print(renderable)
        console.print()
    return buffer.getvalue().encode()


def print_error(message: str) -> None:
    """One diagnostic line on stderr."""
    typer.echo(f"acptrace: error: {message}", err=True)


def fail(message: str) -> NoReturn:
    """A usage error: one line on stderr, exit 2."""
    print_error(message)
    raise typer.Exit(EXIT_ERROR)
