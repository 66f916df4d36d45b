"""Where acptrace may write: one rule for every command's `-o`, checked before any work.

An output path is refused (one sentence saying what and where) when its folder does not exist
(it is never created: a typo should not grow a folder tree), when something on the way is a
file, when its folder cannot be written, when the path is a folder, or when it is a read-only
file (it is not silently replaced, not even by root). A path that must be a folder (`export`'s
tables, `drive`'s recordings) may itself be missing (it is made), but not its parent, and a
file in its place is refused.
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

from acptrace.model.errors import AcptraceError

_ANY_WRITE = stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH


class OutputRefused(AcptraceError):
    """The output path cannot be written: its folder is missing, it is a folder, read-only."""


class OutputFailed(AcptraceError):
    """Writing an output failed part way (`PATH: why`, a full disk say); nothing of it is left
    behind."""


def write_error_reason(error: OSError) -> str:
    """Why a write failed, in the system's words (`No space left on device`), also for the
    errors polars raises, which carry their number only in the text (`… (os error 28)`)."""
    if error.strerror:
        return error.strerror
    text = str(error)
    number = re.search(r"\(os error (\d+)\)", text)
    return os.strerror(int(number.group(1))) if number else text


def check_output(path: str | os.PathLike[str]) -> None:
    """Nothing if a file can be written at `path`; OutputRefused (`PATH: why not`) if not."""
    if not os.fspath(path):  # (`Path("")` is the current folder: "it is a folder" misleads)
        raise OutputRefused("an empty path: name a file, or - for stdout")
    reason = _refusal(Path(path))
    if reason is not None:
        raise OutputRefused(f"{os.fspath(path)}: {reason}")


def check_output_folder(path: str | os.PathLike[str]) -> None:
    """Nothing if files can be written in the folder `path` (made when missing, its parent
    not); OutputRefused (`PATH: why not`) if not."""
    if not os.fspath(path):
        raise OutputRefused("an empty path: name a folder")
    reason = _folder_refusal(Path(path))
    if reason is not None:
        raise OutputRefused(f"{os.fspath(path)}: {reason}")


def _refusal(target: Path) -> str | None:
    folder = target.parent
    if not folder.is_dir():
        return _missing_folder(folder)
    try:
        info = target.stat()
    except FileNotFoundError:
        return _unwritable_folder(folder)
    except OSError as error:
        return f"it cannot be checked ({error.strerror or error})"
    if stat.S_ISDIR(info.st_mode):
        return "it is a folder"
    if stat.S_ISREG(info.st_mode) and (
        not info.st_mode & _ANY_WRITE or not os.access(target, os.W_OK)
    ):
        return "it is a read-only file"
    if stat.S_ISREG(info.st_mode):
        return _unwritable_folder(folder)  # (the file is replaced by one made beside it)
    return None  # a device or a FIFO is written into as it is


def _folder_refusal(target: Path) -> str | None:
    if target.is_dir():
        return _unwritable_folder(target)
    if target.exists() or target.is_symlink():
        return "it is a file, not a folder"
    folder = target.parent
    if not folder.is_dir():
        return _missing_folder(folder)
    return _unwritable_folder(folder)


def _unwritable_folder(folder: Path) -> str | None:
    if os.access(folder, os.W_OK | os.X_OK):
        return None
    return f"the folder {folder} is not writable"


def _missing_folder(folder: Path) -> str:
    """Why a folder is not there: a file in its place (or above it), or it does not exist."""
    for step in (folder, *folder.parents):
        if step.is_dir():
            break
        if step.exists() or step.is_symlink():
            return f"{step} is not a folder"
    return f"the folder {folder} does not exist"
