"""Where a recording goes: the default name when no `-o` is given, and the placeholders an
`-o` may hold so that each run gets its own file."""

from __future__ import annotations

import os
import time
from collections.abc import Mapping
from pathlib import Path

DIRECTORY_VARIABLE = "ACPTRACE_DIR"
"""The environment variable naming the folder for recordings (default: the current one)."""


TIME_PLACEHOLDER = "{time}"
"""In an `-o` path: the UTC time the recording starts, `20261202T100000.123Z`."""
PID_PLACEHOLDER = "{pid}"
"""In an `-o` path: acptrace's process id (two recordings started in the same millisecond)."""


def default_transcript_path(
    environ: Mapping[str, str] | None = None, now_ns: int | None = None, pid: int | None = None
) -> Path:
    """`$ACPTRACE_DIR/acptrace-20261202T100000.123Z-4242.jsonl` (UTC; the pid keeps it unique)."""
    environ = os.environ if environ is None else environ
    directory = Path(environ.get(DIRECTORY_VARIABLE) or ".")
    name = f"acptrace-{TIME_PLACEHOLDER}-{PID_PLACEHOLDER}.jsonl"
    return directory / fill_placeholders(name, now_ns, pid)


def fill_placeholders(path: str, now_ns: int | None = None, pid: int | None = None) -> str:
    """`path` with `{time}` and `{pid}` replaced (`/rec/a-{time}.jsonl` ->
    `/rec/a-20261202T100000.123Z.jsonl`); anything else, braces included, kept as it is."""
    if TIME_PLACEHOLDER in path:
        path = path.replace(
            TIME_PLACEHOLDER, utc_stamp(time.time_ns() if now_ns is None else now_ns)
        )
    if PID_PLACEHOLDER in path:
        path = path.replace(PID_PLACEHOLDER, str(os.getpid() if pid is None else pid))
    return path


def utc_stamp(now_ns: int) -> str:
    """`20261202T100000.123Z` for nanoseconds since the Unix epoch: sorts as it reads, and
    needs no quoting in a file name."""
    seconds, rest = divmod(now_ns, 1_000_000_000)
    return time.strftime("%Y%m%dT%H%M%S", time.gmtime(seconds)) + f".{rest // 1_000_000:03d}Z"


OWNER_ONLY_FOLDER = 0o700
"""The mode of every folder `record` creates, whatever the umask (recordings hold prompts)."""


def make_folder(path: Path) -> None:
    """Create the folder of a default transcript path (`$ACPTRACE_DIR` may not exist yet) and
    any missing folder above it, each 0700 whatever the umask (folders that exist are left as
    they are); OSError on failure. An `-o` path's folder is never created
    (`acptrace.record.outputs`)."""
    missing: list[Path] = []
    folder = path.parent
    while not folder.is_dir() and folder != folder.parent:
        missing.append(folder)
        folder = folder.parent
    for folder in reversed(missing):
        try:
            folder.mkdir(OWNER_ONLY_FOLDER)
        except FileExistsError:  # made meanwhile (or a file: is_dir says so below)
            if not folder.is_dir():
                raise
            continue
        os.chmod(folder, OWNER_ONLY_FOLDER)  # mkdir's mode is masked by the umask
