"""Reading and writing raw file descriptors: whole writes, blocking or not, retried on EINTR."""

from __future__ import annotations

import os
import select

READ_SIZE = 64 * 1024
"""Bytes asked for per read: one pipe buffer on Linux."""


def read_some(fd: int) -> bytes:
    """What is there to read (waiting for it); b"" at end of file or when the fd fails."""
    while True:
        try:
            return os.read(fd, READ_SIZE)
        except BlockingIOError:
            select.select([fd], [], [])
        except OSError:
            return b""


def write_all(fd: int, data: bytes) -> None:
    """Write every byte (waiting while a non-blocking fd is full); OSError if the fd fails."""
    _, error = write_prefix(fd, data)
    if error is not None:
        raise error


def write_prefix(fd: int, data: bytes) -> tuple[int, OSError | None]:
    """Write every byte it can (waiting while a non-blocking fd is full): how many were
    written, and the error that stopped it (None when all were)."""
    view = memoryview(data)
    done = 0
    while done < len(data):
        try:
            done += os.write(fd, view[done:])
        except BlockingIOError:
            select.select([], [fd], [])
        except OSError as error:
            return done, error
    return done, None


def retire(fd: int) -> None:
    """Let go of what an fd refers to (the peer sees EOF or EPIPE) but keep the number taken.

    The fd then refers to /dev/null, so a later open can never reuse it by accident.
    """
    try:
        null = os.open(os.devnull, os.O_RDWR)
    except OSError:
        return
    try:
        os.dup2(null, fd)
    except OSError:
        pass
    finally:
        os.close(null)
