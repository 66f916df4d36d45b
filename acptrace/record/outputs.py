"""Where `record` and `redact` may write: the rule of every command (`acptrace.model.outputs`).

An output path is refused (one sentence saying what and where) when its folder does not exist
(it is never created: a typo should not grow a folder tree), when something on the way is a
file, when the path is a folder, or when it is a read-only file (it is not silently replaced,
not even by root). What is written is readable by its owner only (0600), whether or not the
file existed.

`record` also keeps a recording that exists (`check_nothing_recorded`, asked once the file is
locked: `acptrace.record.claim`): a recording cannot be made again, so it is replaced only when
the caller says so.
"""

from __future__ import annotations

import os
import stat

from acptrace.model.outputs import OutputRefused, check_output

OWNER_ONLY = 0o600
"""The mode of every recording and redacted file."""


class RecordingExists(OutputRefused):
    """The output path is a file with something in it, which recording would replace."""


def check_not_dangling(path: str | os.PathLike[str]) -> None:
    """Nothing unless `path` is a symbolic link to nothing; then OutputRefused (`PATH: it is a
    symbolic link to TARGET, which does not exist`). Writing there would create a file where
    the link points (`record`'s open) or replace the link by a file (`redact`'s rename), and
    neither is what whoever made the link meant: both commands refuse it."""
    if os.path.islink(path) and not os.path.exists(path):
        target = os.readlink(path)
        raise OutputRefused(
            f"{os.fspath(path)}: it is a symbolic link to {target}, which does not exist"
        )


def check_nothing_recorded(path: str | os.PathLike[str]) -> None:
    """Nothing if recording to `path` replaces no data: it does not exist, is an empty file,
    a FIFO or a device; RecordingExists (`PATH: why not`) if it is a file with bytes in it."""
    try:
        info = os.stat(path)
    except OSError:
        return  # missing (or unreadable: check_output says why)
    if stat.S_ISREG(info.st_mode) and info.st_size:
        raise RecordingExists(f"{os.fspath(path)}: it exists and holds {info.st_size} bytes")


__all__ = [
    "OWNER_ONLY",
    "OutputRefused",
    "RecordingExists",
    "check_not_dangling",
    "check_nothing_recorded",
    "check_output",
]
