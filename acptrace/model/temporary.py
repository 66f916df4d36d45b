"""Temporary output files: a file is written beside its target and renamed over it at the end,
so it appears whole or not at all. This module makes sure the temporary file does not outlive
the run that made it:

- it is removed when the block fails, and on SIGTERM and SIGINT (the signal then does what it
  did before: SIGTERM still ends the process, SIGINT still interrupts it);
- after SIGKILL (or a power cut) nothing can remove it, so each run sweeps the stale ones of
  its own from the folder it writes in before it makes a new one.

"Its own" is the name: `.TARGET.acptrace-PID-XXXXXXXX.tmp` (TARGET the output's name, cut to
`NAME_KEPT` characters; PID the process writing it). A file of that shape is stale, and swept,
only when all of these hold: no process with that PID is alive here, it is a regular file
owned by this user, and it has not been written to for `STALE_AFTER_S` seconds (a writer in
another PID namespace sharing the folder, a container say, keeps writing to its file). A
folder of that shape (`export`'s scratch folder, `scratch_folder`) is swept the same way,
counting the last write to anything in it. Nothing else in the folder is touched.
"""

from __future__ import annotations

import glob
import os
import re
import shutil
import signal
import stat
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from functools import partial
from pathlib import Path
from types import FrameType
from typing import Any, BinaryIO

Handler = Callable[[int, FrameType | None], Any] | int | signal.Handlers | None
"""What `signal.getsignal` returns."""

STALE_AFTER_S = 60.0
"""A temporary file of a process that is gone is swept once it is this old (last written)."""
NAME_KEPT = 100
"""Characters of the target's name kept in the temporary name (a name may be 255 at most)."""
MARK = ".acptrace-"
SUFFIX = ".tmp"
_OWN = re.compile(r"^\..*" + re.escape(MARK) + r"(\d+)-[a-z0-9_]+" + re.escape(SUFFIX) + "$")
SIGNALS = (signal.SIGTERM, signal.SIGINT)
"""The signals on which a temporary file is removed."""


@contextmanager
def atomic_file(target: str | os.PathLike[str], mode: int) -> Iterator[BinaryIO]:
    """A file that appears at `target`, with `mode`, only when the block succeeds (renamed over
    it); until then a temporary file beside it, removed on failure, SIGTERM or SIGINT. Stale
    temporary files of earlier runs in that folder are swept first."""
    path = Path(target)
    sweep_stale(path.parent)
    prefix = _prefix(path.name)
    with removed_on_signals(partial(_remove_own, path.parent, prefix)):  # (before it is made)
        handle, name = tempfile.mkstemp(dir=path.parent, prefix=prefix, suffix=SUFFIX)
        temporary = Path(name)
        try:
            with os.fdopen(handle, "wb") as stream:
                yield stream
            os.chmod(temporary, mode)
            os.replace(temporary, path)
        except BaseException:
            temporary.unlink(missing_ok=True)
            raise


@contextmanager
def scratch_folder(parent: str | os.PathLike[str], name: str) -> Iterator[Path]:
    """A folder in `parent` for work files (`export`'s staged tables), named like a temporary
    file after `name`, and removed with all it holds when the block ends, however it ends, and
    on SIGTERM and SIGINT. Stale ones of earlier runs in `parent` are swept first."""
    sweep_stale(parent)
    prefix = _prefix(name)
    with removed_on_signals(partial(_remove_own, Path(parent), prefix)):  # (before it is made)
        folder = Path(tempfile.mkdtemp(dir=parent, prefix=prefix, suffix=SUFFIX))
        try:
            yield folder
        finally:
            shutil.rmtree(folder, ignore_errors=True)


def _prefix(name: str) -> str:
    return f".{name[:NAME_KEPT]}{MARK}{os.getpid()}-"


def _remove_own(folder: Path, prefix: str) -> None:
    """Remove this process's temporary files (folders) of that prefix in `folder`: the one
    being made, even when the signal came between its making and its name being known."""
    for path in folder.glob(glob.escape(prefix) + "*" + SUFFIX):
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path, ignore_errors=True)
        else:
            with suppress(OSError):
                path.unlink()


def sweep_stale(folder: str | os.PathLike[str]) -> list[Path]:
    """Remove the stale temporary files of earlier runs in `folder` (see the module); the paths
    removed. Whatever cannot be looked at or removed is left alone."""
    removed: list[Path] = []
    now, me = time.time(), os.getuid()
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return removed
    for entry in entries:
        found = _OWN.match(entry.name)
        if found is None or _alive(int(found.group(1))):
            continue
        try:
            info = entry.stat(follow_symlinks=False)
            if info.st_uid != me:
                continue
            if stat.S_ISREG(info.st_mode) and now - info.st_mtime >= STALE_AFTER_S:
                os.unlink(entry.path)
                removed.append(Path(entry.path))
            elif stat.S_ISDIR(info.st_mode) and now - _last_written(entry.path) >= STALE_AFTER_S:
                shutil.rmtree(entry.path)
                removed.append(Path(entry.path))
        except OSError:
            continue
    return removed


def _last_written(folder: str) -> float:
    """When anything in the folder (itself included) was last written."""
    latest = os.stat(folder).st_mtime
    for parent, _, files in os.walk(folder):
        for name in [".", *files]:
            with suppress(OSError):
                latest = max(latest, os.stat(os.path.join(parent, name)).st_mtime)
    return latest


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # (another user's process: alive)
        return True
    return True


@contextmanager
def removed_on_signals(remove: Callable[[], object]) -> Iterator[None]:
    """Call `remove` if SIGTERM or SIGINT arrives during the block, then let the signal do what
    it did before (the default action is taken again: SIGTERM still ends the process). Only the
    main thread can catch signals: elsewhere the block runs as it is."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    owner = os.getpid()
    previous: dict[int, Handler] = {number: signal.getsignal(number) for number in SIGNALS}

    def remove_then_resume(number: int, frame: FrameType | None) -> None:
        if os.getpid() == owner:  # (not in a forked worker: the file is the parent's)
            remove()
        before = previous[number]
        if callable(before):
            before(number, frame)  # (SIGINT: KeyboardInterrupt, as before)
            return
        signal.signal(number, signal.SIG_DFL)
        os.kill(os.getpid(), number)

    for number, before in previous.items():
        if before is not signal.SIG_IGN:  # (an ignored signal stays ignored)
            signal.signal(number, remove_then_resume)
    try:
        yield
    finally:
        for number, before in previous.items():
            if before is not None:
                signal.signal(number, before)
