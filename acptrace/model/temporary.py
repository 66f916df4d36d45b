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
another PID namespace sharing the folder, a container say, keeps writing to its file). Nothing
else in the folder is touched.
"""

from __future__ import annotations

import os
import re
import signal
import stat
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
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
    prefix = f".{path.name[:NAME_KEPT]}{MARK}{os.getpid()}-"
    handle, name = tempfile.mkstemp(dir=path.parent, prefix=prefix, suffix=SUFFIX)
    temporary = Path(name)
    try:
        with removed_on_signals(temporary), os.fdopen(handle, "wb") as stream:
            yield stream
        os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


def is_own_temporary(name: str) -> bool:
    """Whether a file name is that of an acptrace temporary file."""
    return _OWN.match(name) is not None


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
            mine = stat.S_ISREG(info.st_mode) and info.st_uid == me
            if mine and now - info.st_mtime >= STALE_AFTER_S:
                os.unlink(entry.path)
                removed.append(Path(entry.path))
        except OSError:
            continue
    return removed


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
def removed_on_signals(path: Path) -> Iterator[None]:
    """Remove `path` if SIGTERM or SIGINT arrives during the block, then let the signal do what
    it did before (the default action is taken again: SIGTERM still ends the process). Only the
    main thread can catch signals: elsewhere the block runs as it is."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    owner = os.getpid()
    previous: dict[int, Handler] = {number: signal.getsignal(number) for number in SIGNALS}

    def remove_then_resume(number: int, frame: FrameType | None) -> None:
        if os.getpid() == owner:  # (not in a forked worker: the file is the parent's)
            with suppress(OSError):
                path.unlink()
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
