"""Writing results: to stdout, or atomically to a file (nothing is left behind on failure).

Every command checks its `-o` with `check_output` (or `check_output_folder`) before any work,
by the one rule of `acptrace.model.outputs`, so a long analysis is not wasted on a path that
cannot be written; whatever still goes wrong while writing is one line and exit 2.
"""

from __future__ import annotations

import errno
import os
import stat
import sys
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

from acptrace.cli.common import fail
from acptrace.model import outputs
from acptrace.model.outputs import OutputRefused


def check_output(path: str | None) -> None:
    """Refuse (one line, exit 2) an `-o` file that cannot be written; stdout always can."""
    if path is None or path == "-":
        return
    try:
        outputs.check_output(path)
    except OutputRefused as error:
        fail(f"cannot write {error}")


def check_output_folder(path: str) -> None:
    """Refuse (one line, exit 2) an `-o` folder that files cannot be written in."""
    try:
        outputs.check_output_folder(path)
    except OutputRefused as error:
        fail(f"cannot write in {error}")


Write = Callable[[bytes], object]
"""Takes the next piece of the output."""


def write_output(data: bytes | Iterable[bytes], path: str | None) -> None:
    """Write to stdout when `path` is None or `-`, else atomically replace the file (into a
    device or a FIFO, such as /dev/stdout, straight). Reports 0666 less the umask. `data` may
    come in pieces (a long report written as it is made)."""
    pieces = [data] if isinstance(data, bytes) else data
    to_file = path is not None and path != "-"
    if to_file:
        check_output(path)  # (again: the path may have changed during the work)
    try:
        with output_stream(path) as write:
            for piece in pieces:
                write(piece)
    except BrokenPipeError:
        raise  # (the reader went away: the command ends quietly, `PlainUsageCommand`)
    except OSError as error:
        fail(f"cannot write {path if to_file else 'stdout'}: {error.strerror or error}")


def stdout_bytes() -> BinaryIO:
    """stdout as bytes; OSError (EBADF, as a write to a closed descriptor fails) when the
    process was started without one (`>&-`: Python's `sys.stdout` is then None), for the
    caller to report as it reports a full disk."""
    if sys.stdout is None:
        raise OSError(errno.EBADF, os.strerror(errno.EBADF))
    return sys.stdout.buffer


@contextmanager
def output_stream(path: str | None) -> Iterator[Write]:
    """Where output goes as it is made: stdout (None or `-`), a device or a FIFO straight, or a
    file replaced atomically once all of it is written (nothing is left behind on failure, on
    SIGTERM or SIGINT, and a later run sweeps what SIGKILL left: `acptrace.model.temporary`).
    OSError is the caller's to report."""
    if path is None or path == "-":
        stdout = stdout_bytes()
        yield stdout.write
        stdout.flush()
        return
    target = Path(path)
    if target.exists() and not stat.S_ISREG(target.stat().st_mode):
        with target.open("wb") as stream:
            yield stream.write
        return
    from acptrace.model.temporary import atomic_file  # (here: stdout never needs it)

    with atomic_file(target, 0o666 & ~_umask()) as stream:  # (a report is for sharing)
        yield stream.write


def _umask() -> int:
    """The process's umask (reading it means setting it; it is set straight back)."""
    mask = os.umask(0)
    os.umask(mask)
    return mask
