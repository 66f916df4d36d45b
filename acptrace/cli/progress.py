"""Progress on stderr for work that can run longer than a second (#37 item 2): files analysed,
charts drawn, connections driven, or the bytes of a big input read so far. Shown only when
stderr is a terminal and not --quiet, transient (gone when the work is done), and never in a
pipe; one helper for every command, so that each says its progress the same way.

Work that ends within `DELAY_S` shows nothing (a bar that flashes for a small file says nothing
but noise)."""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, BinaryIO

from acptrace.cli.common import stderr_line

if TYPE_CHECKING:
    from rich.console import Console
    from rich.progress import Progress, TaskID

DELAY_S = 0.5
"""How long work runs before its progress is shown."""
HEAD_BYTES = 1024 * 1024
"""What is read of a file to tell its format before the work starts (one read block)."""
POLL_S = 0.1
"""How often the bytes read of a watched input are looked at."""


class Meter:
    """What the work says of its progress: how many of its things are done, what it does now,
    and lines to print above the bar (an error met on the way). Without a terminal every call
    does nothing but `note`, which prints on stderr as usual."""

    def __init__(self, progress: Progress | None = None, task: TaskID | None = None) -> None:
        self._progress, self._task = progress, task

    def advance(self, count: int = 1) -> None:
        """`count` more of the things done."""
        if self._progress is not None and self._task is not None:
            self._progress.advance(self._task, count)

    def step(self, what: str, total: int | None = None) -> None:
        """A new stage of the work, counted from 0 (of `total` things, when known)."""
        if self._progress is not None and self._task is not None:
            self._progress.reset(self._task, total=total, description=what)

    def describe(self, what: str) -> None:
        """What the work does now (the bar's label)."""
        if self._progress is not None and self._task is not None:
            self._progress.update(self._task, description=what)

    def note(self, text: str) -> None:
        """A line on stderr, above the bar while one is shown."""
        if self._progress is not None:
            self._progress.console.print(text, markup=False, highlight=False)
        else:
            stderr_line(text)


def shows_progress(quiet: bool) -> bool:
    """Whether progress may be shown: stderr is a terminal, and not --quiet."""
    return not quiet and sys.stderr is not None and sys.stderr.isatty()


@contextmanager
def progress(what: str, total: int | None, quiet: bool, unit: str = "") -> Iterator[Meter]:
    """A transient bar of `total` things done (`unit`: their name, `bytes` for a size; None: a
    count without a bar), on stderr once the work has run `DELAY_S`."""
    if not shows_progress(quiet):
        yield Meter()
        return
    bar = _bar(unit)
    task = bar.add_task(what, total=total)
    with _after_delay(bar):
        yield Meter(bar, task)


@contextmanager
def reading(quiet: bool) -> Iterator[None]:
    """The bytes read so far of each transcript the work opens (`read.source.OPENED`), out of
    its size, under its name: for the commands that read one big file in this process (or in
    pieces, in other processes too: `read.source.JOINED` tells how far they are joined)."""
    from acptrace.read.source import JOINED, OPENED

    if not shows_progress(quiet):
        yield
        return
    bar = _bar("bytes")
    watched: list[tuple[BinaryIO, TaskID]] = []
    joined = [0]
    """How far the file watched is read and joined, when it is read in pieces."""

    def watch(handle: BinaryIO, name: str) -> None:
        del name  # (the handle's own name, without its folders)
        for _, old in watched:
            bar.remove_task(old)
        watched[:] = [(handle, bar.add_task(f"reading {_name(handle)}", total=None))]
        joined[0] = 0

    def join(offset: int) -> None:
        joined[0] = offset  # (one store per piece: the drawing thread reads it)

    def poll() -> None:
        for handle, task in list(watched):
            if not handle.closed:
                _show_read(bar, task, handle, joined[0])

    opened, pieces = OPENED.set(watch), JOINED.set(join)
    try:
        with _after_delay(bar, poll):
            yield
    finally:
        JOINED.reset(pieces)
        OPENED.reset(opened)


def _bar(unit: str) -> Progress:
    from rich.progress import (
        BarColumn,
        DownloadColumn,
        MofNCompleteColumn,
        Progress,
        SpinnerColumn,
        TextColumn,
        TimeElapsedColumn,
    )

    count = DownloadColumn() if unit == "bytes" else MofNCompleteColumn()
    columns = (SpinnerColumn(), TextColumn("{task.description}"), BarColumn(), count)
    return Progress(
        *columns,
        *([TextColumn(unit)] if unit and unit != "bytes" else []),
        TimeElapsedColumn(),
        console=_stderr(),
        transient=True,
        auto_refresh=False,  # (drawn by `_after_delay`)
        redirect_stdout=False,  # (the command's output is its own)
        redirect_stderr=False,
    )


def _stderr() -> Console:
    from rich.console import Console

    return Console(stderr=True)


@contextmanager
def _after_delay(bar: Progress, poll: Callable[[], None] | None = None) -> Iterator[None]:
    """The bar drawn from `DELAY_S` on until the work ends (and `poll` called before each
    drawing), then erased."""
    done = threading.Event()

    def draw() -> None:
        if done.wait(DELAY_S):
            return
        bar.start()
        while not done.wait(POLL_S):
            if poll is not None:
                poll()
            bar.refresh()

    drawer = threading.Thread(target=draw, name="acptrace-progress", daemon=True)
    drawer.start()
    try:
        yield
    finally:
        done.set()
        drawer.join()
        bar.stop()


def _show_read(bar: Progress, task: TaskID, handle: BinaryIO, joined: int) -> None:
    """How far `handle` is read, of its size (`joined`: how far its pieces are read and joined
    when other processes decode it, `pipeline.pieces`, its own position then staying at its
    head); a pulse while no more than its head is, and what goes on once all of it is."""
    name = _name(handle)
    size, done = _size(handle), max(_position(handle), joined)
    if done <= HEAD_BYTES or size is None:
        bar.update(task, total=None, description=f"analysing {name}")
    elif done < size:
        bar.update(task, total=size, completed=done, description=f"reading {name}")
    else:
        bar.update(task, total=size, completed=size, description=f"read {name}, working")


def _name(handle: BinaryIO) -> str:
    return os.path.basename(str(getattr(handle, "name", ""))) or "the input"


def _size(handle: BinaryIO) -> int | None:
    try:
        size = os.fstat(handle.fileno()).st_size
    except (OSError, ValueError):
        return None
    return size or None


def _position(handle: BinaryIO) -> int:
    """How far the file has been read (its offset in the system, not in Python's buffer: safe
    to ask from another thread)."""
    try:
        return os.lseek(handle.fileno(), 0, os.SEEK_CUR)
    except (OSError, ValueError):
        return 0
