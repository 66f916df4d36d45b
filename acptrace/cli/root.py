"""The typer application every command module registers on, and running it."""

# (no `from __future__ import annotations`: typer reads each option from its annotation,
# and would evaluate the annotations' text again on every run)

import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import IO, Annotated, Any

import typer
from typer._click.exceptions import UsageError
from typer.core import TyperCommand, TyperGroup

from acptrace.cli.common import fail, plainly, print_error
from acptrace.model.errors import AcptraceError
from acptrace.model.version import __version__

HELP_OPTIONS = ["-h", "--help"]
"""`-h` as well as `--help`, on `acptrace` and every command (click passes it down)."""
HELP_WIDTH = 120
"""Help fills the terminal up to this width (click's own cap is 80, whatever `COLUMNS` says);
piped, it is 80 wide, as click's fallback terminal is."""


class PlainContext(typer.Context):
    """A context whose help is wrapped between words only (`acptrace.cli.help_text`)."""

    def make_formatter(self) -> Any:
        from acptrace.cli.help_text import WholeWordsFormatter

        return WholeWordsFormatter(width=self.terminal_width, max_width=self.max_content_width)


class PlainUsageError(UsageError):
    """A usage error click found (a missing argument, an unknown option, a bad value), said as
    every other error is: the usage and where help is, then `acptrace: error: …` (not click's
    `Error: …`)."""

    def __init__(self, error: UsageError) -> None:
        super().__init__(error.format_message(), error.ctx)

    def show(self, file: IO[Any] | None = None) -> None:
        del file  # (stderr, as every error)
        if self.ctx is not None:
            typer.echo(self.ctx.get_usage(), err=True)
            help_option = self.ctx.help_option_names[0]
            typer.echo(f"Try '{self.ctx.command_path} {help_option}' for help.", err=True)
        message = self.message.rstrip(".")
        print_error(message[:1].lower() + message[1:])


@contextmanager
def _plainly() -> Iterator[None]:
    """Errors met while parsing or running a command, said one way: a closed pipe and Ctrl-C as
    every run ends on them (`plainly`), and a usage error is a `PlainUsageError`."""
    try:
        with plainly():
            yield
    except UsageError as error:
        if isinstance(error, PlainUsageError) or type(error).__name__ == "NoArgsIsHelpError":
            raise  # (said already, or the help that `acptrace` alone shows)
        raise PlainUsageError(error) from None


class _Plainly:
    """Errors, a closed pipe and Ctrl-C as every command has them (`_plainly`), while the
    options are read (`--help`) as well as while the command runs: mixed into a click command
    or group, before it."""

    def make_context(self, *args: Any, **kwargs: Any) -> Any:
        with _plainly():
            return super().make_context(*args, **kwargs)  # type: ignore[misc]

    def invoke(self, ctx: Any) -> Any:
        with _plainly():
            return super().invoke(ctx)  # type: ignore[misc]


class PlainUsageCommand(_Plainly, TyperCommand):
    """A command whose usage line names its arguments the usual way (`FILE...`, `FILE`), not in
    typer's braces (`{files}...`), whose line in `acptrace --help` is the first sentence of its
    description, whole (click cuts it at the terminal's width, with "..."), whose help wraps
    between words only, and whose errors, a closed pipe and Ctrl-C come out as every command's
    (`_plainly`), while its options are read (`--help`) as well as while it runs."""

    context_class = PlainContext

    def collect_usage_pieces(self, ctx: Any) -> list[str]:
        return [_unbraced(piece) for piece in super().collect_usage_pieces(ctx)]

    def get_short_help_str(self, limit: int = 45) -> str:
        del limit  # (the first sentences are kept short: tests/test_cli_options.py)
        return first_sentence(self.help or "")


class PlainGroup(_Plainly, TyperGroup):
    """`acptrace` itself: its help, `-V`, an unknown command and a closed pipe as its commands
    have them (`PlainUsageCommand`)."""

    context_class = PlainContext


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
    cls=PlainGroup,
    help="Forensic analyzer for recorded Agent Client Protocol (ACP) traffic.",
    no_args_is_help=True,
    add_completion=True,  # (--install-completion: typer imports its machinery anyway)
    rich_markup_mode=None,
    context_settings={"help_option_names": HELP_OPTIONS, "max_content_width": HELP_WIDTH},
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
