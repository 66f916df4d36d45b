"""acptrace run in a real pseudo-terminal of a given width, for the tests of what a terminal
shows (colours, widths, wrapping, progress)."""

from __future__ import annotations

import fcntl
import os
import pty
import re
import struct
import subprocess
import sys
import termios
from pathlib import Path

ACPTRACE = [sys.executable, "-m", "acptrace"]
TIMEOUT_S = 120.0
ESCAPES = re.compile(rb"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07")


def in_terminal(
    args: list[str],
    columns: int,
    cwd: Path,
    *,
    stderr: bool = False,
    env: dict[str, str] | None = None,
) -> bytes:
    """What acptrace writes to a terminal `columns` wide: its stdout, and its stderr too when
    `stderr` (else stderr and stdin are not the terminal)."""
    main, side = pty.openpty()
    fcntl.ioctl(side, termios.TIOCSWINSZ, struct.pack("HHHH", 50, columns, 0, 0))
    unset = ("NO_COLOR", "FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE", "COLUMNS", "LINES")
    environment = {k: v for k, v in os.environ.items() if k not in unset}
    environment |= {"TERM": "xterm-256color"} | (env or {})
    process = subprocess.Popen(
        [*ACPTRACE, *args],
        stdin=subprocess.DEVNULL,
        stdout=side,
        stderr=side if stderr else subprocess.DEVNULL,
        cwd=cwd,
        env=environment,
    )
    os.close(side)
    chunks = []
    while True:
        try:
            chunk = os.read(main, 65536)
        except OSError:  # (the terminal is gone: the process closed its side)
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(main)
    process.wait(TIMEOUT_S)
    return b"".join(chunks)


def plain(shown: bytes) -> str:
    """What a terminal showed, without its escape codes and carriage returns."""
    return ESCAPES.sub(b"", shown).decode().replace("\r\n", "\n")
