"""Writing results: to stdout, or atomically to a file (nothing is left behind on failure)."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable
from pathlib import Path


def write_output(data: bytes | Iterable[bytes], path: str | None) -> None:
    """Write to stdout when `path` is None or `-`, else atomically replace the file. `data`
    may come in pieces (a long report written as it is made)."""
    pieces = [data] if isinstance(data, bytes) else data
    if path is None or path == "-":
        for piece in pieces:
            sys.stdout.buffer.write(piece)
        sys.stdout.buffer.flush()
        return
    import tempfile  # (here: a run that writes to stdout never needs it)

    target = Path(path)
    handle, temporary = tempfile.mkstemp(dir=target.parent or Path("."), prefix=f".{target.name}.")
    try:
        with os.fdopen(handle, "wb") as stream:
            for piece in pieces:
                stream.write(piece)
        os.chmod(temporary, 0o666 & ~_umask())  # mkstemp makes 0600; a report is for sharing
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def _umask() -> int:
    """The process's umask (reading it means setting it; it is set straight back)."""
    mask = os.umask(0)
    os.umask(mask)
    return mask
