"""Opening the transcript so that one recording owns it (issue #39.6).

Two `record -o SAME` started together used to both open the file and both write it: the
lines mixed, one recording mostly lost. The file is now created exclusively when it is
missing (`O_EXCL`, which also never follows a symbolic link: a dangling link is refused, not
followed to create its target), opened as it is when it exists, and locked (`flock`) for as
long as the recording runs. A second recorder finds it locked and is refused; one that locks
it after the first has ended finds the first's bytes in it and is refused as any existing
recording is, unless asked to replace it.
"""

from __future__ import annotations

import errno
import fcntl
import os
import stat
from dataclasses import dataclass

from acptrace.record.outputs import (
    OWNER_ONLY,
    OutputRefused,
    check_not_dangling,
    check_nothing_recorded,
)

_WRITE = os.O_WRONLY | getattr(os, "O_CLOEXEC", 0)
_TRIES = 5
"""Times the path is opened again when it changed between the open and the lock (another
recorder that failed to start removed the file it had created)."""


class TranscriptTaken(OutputRefused):
    """Another recorder is writing the transcript."""


@dataclass(frozen=True, slots=True)
class Claimed:
    """The transcript, open for writing and locked when it is a regular file."""

    fd: int
    created: bool
    """This recorder created the file (it is removed if the Agent cannot be started)."""


def claim_transcript(path: str | os.PathLike[str], *, keep_recording: bool) -> Claimed:
    """Open (creating it 0600 when missing) and lock the transcript at `path`.

    Raises TranscriptTaken when another recorder holds it, RecordingExists when
    `keep_recording` and it holds bytes, OutputRefused for a dangling symbolic link, and
    OSError when it cannot be opened."""
    for _ in range(_TRIES):
        fd, created = _open(path)
        try:
            if _locked(fd, path):
                if keep_recording and not created:
                    check_nothing_recorded(path)  # (a recorder that ended while this one opened)
                return Claimed(fd, created)
        except BaseException:
            os.close(fd)
            raise
        os.close(fd)
    raise TranscriptTaken(f"{os.fspath(path)}: it kept changing while it was opened")


def _open(path: str | os.PathLike[str]) -> tuple[int, bool]:
    """The file descriptor, and whether this call created the file."""
    for _ in range(_TRIES):
        try:
            return os.open(path, _WRITE | os.O_CREAT | os.O_EXCL, OWNER_ONLY), True
        except FileExistsError:
            pass
        try:
            return os.open(path, _WRITE), False
        except FileNotFoundError:
            check_not_dangling(path)  # (else removed since the first open: try again)
    raise TranscriptTaken(f"{os.fspath(path)}: it kept changing while it was opened")


def _locked(fd: int, path: str | os.PathLike[str]) -> bool:
    """Lock a regular file for this recorder; True if it is still the file at `path` (a FIFO
    or a device is not locked). TranscriptTaken if another recorder holds it."""
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        return True
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        raise TranscriptTaken(f"{os.fspath(path)}: another acptrace record is writing it") from None
    except OSError as error:
        if error.errno not in (errno.ENOLCK, errno.EOPNOTSUPP, errno.EINVAL):
            raise  # (a file system without locks: recorded unlocked, as before)
    try:
        now = os.stat(path)
    except FileNotFoundError:
        return False
    return (now.st_dev, now.st_ino) == (info.st_dev, info.st_ino)
