"""What several commands share: exit codes, rich rendering, diagnostics, the end of a run.

Nothing here imports typer (the quick path of `analyze` runs without it): a usage error or a
closed pipe ends the run with `SystemExit`, which typer lets through as it would its own `Exit`,
and a diagnostic is written as typer's `echo` wrote it.
"""

from __future__ import annotations

import codecs
import contextlib
import io
import os
import re
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING, NoReturn

from acptrace.model.excerpt import printable

if TYPE_CHECKING:  # (`--version` reads no input: common is imported before any command)
    from acptrace.read.inputs import Skipped

EXIT_OK, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2
EXIT_INTERRUPTED = 130
"""Ctrl-C (SIGINT), as shells report a process it ended: 128 + 2, never 1 (findings)."""

PLAIN_WIDTH = 160
"""Width of rich output that does not go to a terminal (pipes, files, `-o`, CI logs): wide enough
for every table whole; `COLUMNS` wins."""
TRAILING_SPACES = re.compile(r" +$", re.MULTILINE)


def rich_bytes(*renderables: object, output: str | None = None) -> bytes:
    """Render for the terminal when the output (`-o`; None or `-`: stdout) is stdout and stdout
    is a terminal; otherwise as plain text: no escape codes, `PLAIN_WIDTH` (or `COLUMNS`) wide,
    no spaces at the ends of lines."""
    from rich.console import Console  # (here: a run writing JSON never needs rich, ~14 ms)

    screen = Console()
    terminal = screen.is_terminal and output in (None, "-")
    buffer = io.StringIO()
    console = Console(
        file=buffer,
        force_terminal=terminal,
        width=screen.width if terminal else plain_width(),
        color_system="auto" if terminal else None,
        highlight=False,
        emoji=False,  # (`:smile:` in a cell stays as written)
    )
    for renderable in renderables:
        console.print(renderable)
        console.print()
    text = buffer.getvalue()
    return (text if terminal else strip_trailing_spaces(text)).encode()


def is_plain(output: str | None = None) -> bool:
    """Whether `rich_bytes` renders plain text for this output (a file, a pipe: not the
    terminal), so a command may write the same text without rich."""
    from rich.console import Console

    return not (output in (None, "-") and Console().is_terminal)


def strip_trailing_spaces(text: str) -> str:
    """The text without spaces at the ends of its lines, as `rich_bytes` writes plain text."""
    return TRAILING_SPACES.sub("", text)


def text_width(output: str | None = None) -> int:
    """The width to wrap plain text at, by the rule of `rich_bytes`: the terminal's when the
    output is stdout and stdout is a terminal, else `COLUMNS` or `PLAIN_WIDTH`."""
    import shutil

    if output in (None, "-") and sys.stdout is not None and sys.stdout.isatty():
        return shutil.get_terminal_size().columns
    return plain_width()


def plain_width() -> int:
    """The width of plain output (not to a terminal): `COLUMNS`, else `PLAIN_WIDTH`."""
    columns = os.environ.get("COLUMNS", "")
    return int(columns) if columns.isdigit() and int(columns) > 0 else PLAIN_WIDTH


def print_error(message: str) -> None:
    """One diagnostic line on stderr (control characters in it, as a file name may hold,
    shown as escapes: `printable`)."""
    print_note(f"error: {message}")


def print_note(message: str) -> None:
    """One line on stderr that is not an error (what was written where), escaped the same way."""
    stderr_line(printable(f"acptrace: {message}"))


def stderr_line(text: str) -> None:
    """One line on stderr, flushed, as click's `echo` (typer's) writes it: to a stream that
    says it is ASCII (`PYTHONIOENCODING=ascii`) or has no error handler, as UTF-8 with
    errors replaced."""
    stream = sys.stderr
    if stream is None:  # (no stderr at all: pythonw)
        return
    try:
        buffer = getattr(stream, "buffer", None)
        if buffer is not None and _misconfigured(stream):
            stream.flush()
            buffer.write(f"{text}\n".encode("utf-8", "replace"))
            buffer.flush()
            return
        stream.write(f"{text}\n")
        stream.flush()
    except OSError:  # (a full or closed stderr: the line is lost, the exit status is not)
        _drop_pending()


def _drop_pending() -> None:
    """Forget what a stderr that cannot be written still holds, so that Python's flush at exit
    does not fail on it again (and print a traceback about it to that same stderr)."""
    try:
        sys.stderr = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115 (kept till exit)
    except OSError:
        return


def _misconfigured(stream: object) -> bool:
    """A text stream click's `echo` would not write to as it is."""
    if getattr(stream, "errors", None) is None:
        return True
    try:
        return codecs.lookup(getattr(stream, "encoding", None) or "ascii").name == "ascii"
    except LookupError:
        return False


def note_skipped(skipped: Skipped) -> None:
    """What a directory held that was not read (a folder that cannot be listed, a link to
    outside it), one line on stderr."""
    print_note(f"skipped {skipped.path}: {skipped.reason}")


def fail(message: str) -> NoReturn:
    """A usage error: one line on stderr, exit 2."""
    print_error(message)
    raise SystemExit(EXIT_ERROR)


def reader_gone() -> NoReturn:
    """The reader of the output went away (`| head -1`, `| true`): end quietly with exit 0, as
    other command-line tools do, and never 1 (findings) or 2 (an error); nothing on stderr.
    What Python still holds for stdout and stderr, flushed at exit, goes to /dev/null."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # (not a real stream: a test's runner)
            os.dup2(devnull, stream.fileno())
    os.close(devnull)
    raise SystemExit(EXIT_OK)


@contextlib.contextmanager
def plainly() -> Iterator[None]:
    """A command's run, ended the one way every command's is: a closed pipe quietly
    (`reader_gone`: exit 0, never click's 1, which reads as findings), Ctrl-C with exit 130
    (click would say "Aborted!" and exit 1), a bug with exit 2 (`internal_error`)."""
    try:
        yield
    except BrokenPipeError:
        reader_gone()
    except KeyboardInterrupt:
        print_error("interrupted")
        raise SystemExit(EXIT_INTERRUPTED) from None
    except Exception as error:
        if _said_elsewhere(error):
            raise
        internal_error(error)


def _said_elsewhere(error: Exception) -> bool:
    """An error a caller says in its own words: acptrace's (`AcptraceError`: one line), and
    the command-line reader's usage errors and exits (click's, which typer carries; by name:
    the quick path never imports them)."""
    from acptrace.model.errors import AcptraceError

    readers = ("click", "typer")
    return isinstance(error, AcptraceError) or any(
        kind.__module__.partition(".")[0] in readers for kind in type(error).__mro__
    )


def internal_error(error: Exception) -> NoReturn:
    """A bug: its traceback on stderr, for a report, then one line saying so; exit 2 (the
    analysis could not be made), never 1, which says the transcript has findings."""
    import traceback

    if sys.stderr is not None:  # (`print_exception` would print to stdout, into the data)
        with contextlib.suppress(OSError):
            traceback.print_exception(error, file=sys.stderr)
    print_error(
        f"internal error: {type(error).__name__}: {error} "
        "(a bug in acptrace: please report it with the traceback above)"
    )
    raise SystemExit(EXIT_ERROR) from None
