"""The Agent's process: starting it on pipes, passing signals on, and its exit status."""

from __future__ import annotations

import signal
import subprocess
import threading
import time
from collections.abc import Callable, Sequence
from types import FrameType, TracebackType

from acptrace.model.errors import AcptraceError
from acptrace.record.stopping import AgentGroup

FORWARDED_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
"""Signals acptrace passes on to the Agent instead of acting on them itself."""

EXIT_NOT_FOUND, EXIT_NOT_EXECUTABLE = 127, 126


class AgentNotStarted(AcptraceError):
    """The Agent command could not be started (not found, not executable)."""

    def __init__(self, message: str, exit_code: int) -> None:
        super().__init__(message)
        self.exit_code = exit_code
        """What a shell would exit with: 127 not found, 126 not executable."""


def spawn(argv: Sequence[str]) -> subprocess.Popen[bytes]:
    """Start the Agent on three pipes, in its own session and process group; AgentNotStarted
    on failure.

    Its own group means a terminal's Ctrl-C reaches only acptrace, which passes it on once,
    and that acptrace can stop the Agent with everything it started (`AgentGroup`).
    """
    if not argv:
        raise AgentNotStarted("no agent command given", EXIT_NOT_FOUND)
    try:
        return subprocess.Popen(
            list(argv),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            bufsize=0,
            start_new_session=True,
        )
    except FileNotFoundError:
        raise AgentNotStarted(f"{argv[0]}: command not found", EXIT_NOT_FOUND) from None
    except PermissionError:
        raise AgentNotStarted(f"{argv[0]}: permission denied", EXIT_NOT_EXECUTABLE) from None
    except OSError as error:
        message = f"{argv[0]}: cannot be started ({error.strerror or error})"
        raise AgentNotStarted(message, EXIT_NOT_EXECUTABLE) from None


WAIT_STEP_S = 0.1
"""How long the main thread waits for the Agent at a time (see `wait_for_exit`)."""


def wait_for_exit(agent: subprocess.Popen[bytes]) -> int:
    """The Agent's return code once it exits, waited for in short steps.

    Python runs signal handlers in the main thread only, between two steps of its own; the
    kernel may hand a signal to any thread, and then a main thread blocked in an untimed
    `wait` (waitpid) is not woken. record's SIGTERM would sit unhandled for as long as the
    Agent ran, and an Agent that ignores SIGTERM runs for ever (seen: 1 run in 4 with three
    signals sent at once). Waiting in steps lets the handler run within a step."""
    while True:
        try:
            return agent.wait(timeout=WAIT_STEP_S)
        except subprocess.TimeoutExpired:
            continue


def exit_status(returncode: int) -> int:
    """The status a shell reports: the exit code, or 128 + N when signal N killed the process."""
    return 128 - returncode if returncode < 0 else returncode


def signal_name(number: int | None) -> str | None:
    """`SIGTERM` for 15; None for None."""
    if number is None:
        return None
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"SIG{number}"


class SignalForwarder:
    """While active, SIGINT/SIGTERM/SIGHUP go to the Agent's process group, not to acptrace;
    the group is killed when it still runs a grace after the first (`AgentGroup.stop`).

    Only works in the main thread (where Python runs signal handlers), and only with
    `install`; otherwise it does nothing. Signals that arrive before the Agent is attached
    are passed on once it is.
    """

    def __init__(self, on_signal: Callable[[int], None], *, install: bool = True) -> None:
        self._on_signal = on_signal
        self._install = install
        self._agent: AgentGroup | None = None
        self._early: list[int] = []
        self._previous: dict[int, object] = {}
        self.received: int | None = None
        """The first signal received."""
        self.received_at: float | None = None
        """When it was received (monotonic seconds)."""

    def __enter__(self) -> SignalForwarder:
        if self._install and threading.current_thread() is threading.main_thread():
            for number in FORWARDED_SIGNALS:
                self._previous[number] = signal.signal(number, self._handle)
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        for number, handler in self._previous.items():
            signal.signal(number, handler)  # type: ignore[arg-type]
        self._previous.clear()

    def attach(self, agent: AgentGroup) -> None:
        """From now on, signals go to this Agent (and any that came before, now)."""
        self._agent = agent
        for number in self._early:
            self._send(number)
        self._early.clear()

    def _handle(self, number: int, frame: FrameType | None) -> None:  # noqa: ARG002 (a signal handler)
        if self.received is None:
            self.received = number
            self.received_at = time.monotonic()
        self._on_signal(number)
        if self._agent is None:
            self._early.append(number)
        else:
            self._send(number)

    def _send(self, number: int) -> None:
        if self._agent is not None:
            self._agent.stop(number)
