"""Whether a process is gone, for the tests that stop Agents (no process may outlive acptrace)."""

from __future__ import annotations

import time
from pathlib import Path

GONE_WITHIN_S = 10.0
"""Sanity bound for a process killed with SIGKILL to be gone (only reached on a bug)."""


def running(pid: int) -> bool:
    """Whether the process exists and is not a zombie (a zombie has exited: only its parent,
    maybe init in a container that does not reap, has not collected it)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def gone(pid: int) -> bool:
    """Whether the process is gone, allowing the kernel a moment to finish a SIGKILL."""
    deadline = time.monotonic() + GONE_WITHIN_S
    while running(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


def pids_in(path: Path, count: int = 1) -> list[int]:
    """The pids Agents wrote into `path`, one a line (waiting for `count` of them)."""
    deadline = time.monotonic() + GONE_WITHIN_S
    while len(lines := _lines(path)) < count:
        assert time.monotonic() < deadline, f"{path} never held {count} pids"
        time.sleep(0.01)
    return [int(line) for line in lines]


def _lines(path: Path) -> list[str]:
    text = path.read_text() if path.exists() else ""
    return text.splitlines() if text.endswith("\n") else text.splitlines()[:-1]
