"""Stopping the Agent: its whole process group, a signal first, SIGKILL after a grace.

The one way acptrace stops an Agent, for `record` (a signal it received, the Client gone) and
for `drive` (an Agent that outlives its stdin): the signal to the Agent's process group, a
grace, SIGKILL to the group. Once the Agent has exited, what it left in its group (a child
that ignores SIGTERM) is stopped the same way, so no process of the Agent outlives acptrace;
so is a process that left the group for its own (`setpgid`) but not the Agent's session.
"""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
from collections.abc import Callable

STOP_GRACE_S = 2.0
"""After the stopping signal, how long the Agent's group has to exit before SIGKILL."""
_POLL_S = 0.02
"""How often the leftovers of an exited Agent are looked for during the grace."""


class AgentGroup:
    """The Agent's process group (the Agent leads it), and how acptrace stops it."""

    def __init__(self, agent: subprocess.Popen[bytes], grace_s: float = STOP_GRACE_S) -> None:
        self._agent = agent
        self._grace_s = grace_s
        self._lock = threading.RLock()  # (re-entered by a signal handler in its thread)
        self._timers: list[threading.Timer] = []
        self._kill_scheduled = False
        self._ended = False

    def stop(self, number: int = signal.SIGTERM, *, after_s: float = 0.0) -> None:
        """Without blocking: after `after_s`, if the Agent still runs, send `number` to its
        group; SIGKILL the group when it still runs a grace later."""
        if after_s > 0:
            self._later(after_s, lambda: self._escalate(number))
        else:
            self._escalate(number)

    def end(self) -> None:
        """The Agent has exited: stop whatever it left in its group (SIGTERM, grace, SIGKILL);
        returns when none is left, or SIGKILL was sent."""
        with self._lock:
            self._ended = True
            timers, self._timers = self._timers, []
        for timer in timers:
            timer.cancel()
        if not _signal_group(self._agent.pid, signal.SIGTERM):
            return  # (nothing left)
        deadline = time.monotonic() + self._grace_s
        while time.monotonic() < deadline:
            time.sleep(_POLL_S)
            if not _signal_group(self._agent.pid, 0):
                return
        _signal_group(self._agent.pid, signal.SIGKILL)

    def _escalate(self, number: int) -> None:
        if not self._running():
            return
        _signal_group(self._agent.pid, number)
        with self._lock:
            first, self._kill_scheduled = not self._kill_scheduled, True
        if first:
            self._later(self._grace_s, self._kill)

    def _kill(self) -> None:
        if self._running():
            _signal_group(self._agent.pid, signal.SIGKILL)

    def _running(self) -> bool:
        with self._lock:
            return not self._ended and self._agent.returncode is None

    def _later(self, seconds: float, action: Callable[[], None]) -> None:
        timer = threading.Timer(seconds, action)
        timer.daemon = True
        with self._lock:
            if self._ended:
                return
            self._timers.append(timer)
        timer.start()


def _signal_group(group: int, number: int) -> bool:
    """Send the signal to the process group, and to the processes of the Agent's session
    that left it for a group of their own (`setpgid`); whether any was still there."""
    try:
        os.killpg(group, number)
        alive = True
    except ProcessLookupError:
        alive = False
    except PermissionError:
        alive = True
    for pid in _strays(group):
        try:
            os.kill(pid, number)
            alive = True
        except ProcessLookupError:
            pass
        except PermissionError:
            alive = True
    return alive


def _strays(session: int) -> list[int]:
    """The live processes of the Agent's session (it leads the one `start_new_session` made)
    outside its process group: a child that called `setpgid`. One that called `setsid` has a
    session of its own and is out of reach. Read from /proc (Linux); elsewhere none."""
    found: list[int] = []
    try:
        entries = os.listdir("/proc")
    except OSError:
        return found
    for entry in entries:
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", "rb") as stat:
                    fields = stat.read().rsplit(b")", 1)[1].split()
            except OSError:  # (gone meanwhile)
                continue
            state, group, sid = fields[0], int(fields[2]), int(fields[3])
            if sid == session and group != session and state != b"Z":
                found.append(int(entry))
    return found
