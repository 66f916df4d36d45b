"""A progress bar on stderr for long runs: only when stderr is a terminal, never with --quiet."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager

Advance = Callable[[], None]
"""Call once per file done."""


@contextmanager
def file_progress(total: int, what: str, quiet: bool) -> Iterator[Advance]:
    """A transient bar of files done (a spinner and the time while one big file runs)."""
    if quiet or total == 0 or not sys.stderr.isatty():
        yield lambda: None
        return
    from rich.console import Console  # (only when a bar is shown: rich.progress takes ~6 ms)
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        SpinnerColumn,
        TextColumn,
        TimeElapsedColumn,
    )

    columns = (
        SpinnerColumn(),
        TextColumn(what),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
    )
    with Progress(*columns, console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task(what, total=total)
        yield lambda: bar.advance(task)
