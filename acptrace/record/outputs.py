"""Where `record` and `redact` may write: the same rule for both, checked before any work.

An output path is refused (one sentence saying what and where) when its folder does not exist
(it is never created: a typo should not grow a folder tree), when something on the way is a
file, when the path is a folder, or when it is a read-only file (it is not silently replaced,
not even by root). What is written is readable by its owner only (0600), whether or not the
file existed.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from acptrace.model.errors import AcptraceError

OWNER_ONLY = 0o600
"""The mode of every recording and redacted file."""

_ANY_WRITE = stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH


class OutputRefused(AcptraceError):
    """The output path cannot be written: its folder is missing, it is a folder, read-only."""


def check_output(path: str | os.PathLike[str]) -> None:
    """Nothing if `path` can be written; OutputRefused saying why not."""
    reason = _refusal(Path(path))
    if reason is not None:
        raise OutputRefused(f"{path}: {reason}")


def _refusal(target: Path) -> str | None:
    folder = target.parent
    if not folder.is_dir():
        return _missing_folder(folder)
    try:
        info = target.stat()
    except FileNotFoundError:
        return None
    except OSError as error:
        return f"it cannot be checked ({error.strerror or error})"
    if stat.S_ISDIR(info.st_mode):
        return "it is a folder"
    if stat.S_ISREG(info.st_mode) and (
        not info.st_mode & _ANY_WRITE or not os.access(target, os.W_OK)
    ):
        return "it is a read-only file"
    return None


def _missing_folder(folder: Path) -> str:
    """Why a folder is not there: a file in its place (or above it), or it does not exist."""
    for step in (folder, *folder.parents):
        if step.is_dir():
            break
        if step.exists() or step.is_symlink():
            return f"{step} is not a folder"
    return f"the folder {folder} does not exist"
