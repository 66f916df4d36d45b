"""`acptrace drive`: measure an Agent's replay in one command (connect, replay N times, report)."""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Annotated

import typer

from acptrace.cli.common import EXIT_FINDINGS, EXIT_OK, fail, print_note, rich_bytes
from acptrace.cli.output import check_output_folder, write_output
from acptrace.cli.progress import Meter, progress
from acptrace.cli.root import app
from acptrace.cli.settings import AnalysisFlags
from acptrace.cli.typer_options import QuietOption, RedactOption, output_option
from acptrace.drive import (
    DEFAULT_LINGER_MS,
    DEFAULT_TIMEOUT_S,
    DriveProgress,
    DriveRefused,
    DriveSettings,
    Permission,
    drive,
)
from acptrace.model.excerpt import printable
from acptrace.record import default_transcript_path
from acptrace.report import build_report
from acptrace.report.terminal import terminal_report


@app.command(
    "drive",
    context_settings={"allow_interspersed_args": False},
)
def drive_command(
    agent: Annotated[
        list[str],
        typer.Argument(
            metavar="AGENT_CMD...",
            help="The agent command and its arguments, after `--`.",
            show_default=False,
        ),
    ],
    replays: Annotated[
        int, typer.Option("--replays", "-n", min=0, metavar="N", help="Replaying connections.")
    ] = 5,
    output: Annotated[
        str | None,
        output_option(
            "Record the connections into this directory (default: a new one, named on stderr).",
            metavar="DIR",
        ),
    ] = None,
    client_protocol: Annotated[
        int,
        typer.Option(
            "--protocol",
            metavar="1|2",
            min=1,
            max=2,
            help="Ask for ACP v1 (replay with session/load) or v2 (session/resume); the "
            "Agent's answer decides.",
        ),
    ] = 2,
    prompt: Annotated[
        str | None,
        typer.Option(
            metavar="TEXT",
            help="Send one session/prompt on the first connection and wait for its turn to "
            "end (v1: the response; v2: the session's state_update idle).",
        ),
    ] = None,
    timeout: Annotated[
        float,
        typer.Option(
            min=0.001,
            metavar="SECONDS",
            help="Seconds to wait for each response, and for the --prompt turn to end, "
            "counted from the request.",
        ),
    ] = DEFAULT_TIMEOUT_S,
    linger: Annotated[
        float,
        typer.Option(
            min=0.0,
            metavar="MS",
            help="Milliseconds to keep listening after the replay's response and after the "
            "--prompt turn.",
        ),
    ] = DEFAULT_LINGER_MS,
    session: Annotated[
        str | None,
        typer.Option(
            metavar="ID",
            help="Replay this session, which the Agent already keeps, instead of making one "
            "first (no 00-new.jsonl; --prompt does not apply).",
        ),
    ] = None,
    permission: Annotated[
        Permission,
        typer.Option(help="How to answer the Agent's session/request_permission."),
    ] = Permission.DENY,
    ignore_capabilities: Annotated[
        bool,
        typer.Option(
            "--ignore-capabilities",
            help="Send session/new, session/resume or session/load even when the Agent does "
            "not advertise them (said on stderr; the recordings then break CAP-UNADVERTISED).",
        ),
    ] = False,
    force: Annotated[
        bool,
        typer.Option(
            "--force",
            help="Record into an -o folder that already holds files (files of the same names "
            "are replaced, the others stay).",
        ),
    ] = False,
    quiet: QuietOption = False,
    redact: RedactOption = True,
) -> None:
    """Measure an Agent's replay: connect, replay N times.

    One connection makes a session, N more replay it.

    Every connection starts the Agent afresh behind the recorder of `acptrace record` and
    is recorded into the folder -o names (made when missing, its parent must exist; one that
    holds files is refused unless --force; default: acptrace-<UTC time>-<pid> in $ACPTRACE_DIR
    or the current directory, named on stderr); at the end the latency report over them is
    printed, as `acptrace report DIR` prints it. A
    connection whose Agent dies, hangs past --timeout or sends garbage is named on stderr and
    the run goes on; acptrace then exits 1. The same goes for a v2 --prompt turn that does not
    end (no state_update idle) within --timeout: its recording so far is kept. An Agent that
    does not advertise what a step needs (v2 capabilities.session, v1 loadSession) is a usage
    error (2), before the replays, unless --ignore-capabilities. An Agent still running 2 s
    after its stdin closed is stopped (SIGTERM, then SIGKILL, to its process group): not a
    failure.
    """
    if session is not None and prompt is not None:
        fail("--prompt needs the first connection, which --session leaves out")
    directory = Path(output) if output else default_transcript_path().with_suffix("")
    if output is not None:
        check_output_folder(output)  # (made when missing; its parent not: the rule of -o)
        if not force:
            _refuse_earlier_recordings(directory)
    elif not quiet:
        print_note(f"recording to {directory}/")
    if directory.exists() and not directory.is_dir():
        fail(f"{directory}: exists and is not a directory")
    settings = DriveSettings(
        replays=replays,
        protocol=client_protocol,
        prompt=prompt,
        timeout_s=timeout,
        linger_ms=linger,
        permission=permission,
        session_id=session,
        redact=redact,
        check_capabilities=not ignore_capabilities,
    )
    options = AnalysisFlags().policy(quiet=quiet, judged=False).options  # (the config file's)
    connections = settings.replays + (session is None)
    try:
        with _signals_interrupt(), progress("", connections, quiet, "connections") as meter:
            settings = replace(settings, progress=_Shown(meter))
            notify = _noted(meter)  # (failures: never quiet)
            result = drive(agent, directory, settings, notify)
    except OSError as error:
        fail(f"{directory}: cannot write the recordings ({error.strerror or error})")
    except DriveRefused as error:
        fail(str(error))
    if not result.transcripts:
        fail("no connection was recorded; nothing to report")
    report = build_report(result.transcripts, options)
    write_output(rich_bytes(*terminal_report(report)), None)
    raise typer.Exit(EXIT_FINDINGS if result.failures or report.errors else EXIT_OK)


def _refuse_earlier_recordings(directory: Path) -> None:
    """Refuse (exit 2) a folder that holds anything: an earlier run's 02 and 03 would stay
    beside this run's 00 and 01, and `acptrace report DIR` would mix the two runs."""
    if not directory.is_dir():
        return
    held = sorted(entry.name for entry in directory.iterdir())
    if held:
        shown = ", ".join(held[:3]) + (f", … ({len(held)} in all)" if len(held) > 3 else "")
        fail(
            f"-o {directory}: the folder is not empty ({shown}); name a new one, or --force "
            "to record into it anyway"
        )


class _Shown(DriveProgress):
    """The run's progress on a bar: connections done, and the request the one under way
    waits on."""

    def __init__(self, meter: Meter) -> None:
        self.meter, self.under_way = meter, ""

    def connection(self, number: int, total: int) -> None:
        if number > 1:
            self.meter.advance()
        self.under_way = f"connection {number} of {total}"
        self.meter.describe(self.under_way)

    def request(self, method: str) -> None:
        self.meter.describe(f"{self.under_way}: {method}")


def _noted(meter: Meter) -> Callable[[str], None]:
    """`print_note`, above the bar while one is shown."""
    return lambda message: meter.note(printable(f"acptrace: {message}"))


@contextlib.contextmanager
def _signals_interrupt() -> Iterator[None]:
    """SIGTERM and SIGHUP interrupt the run as Ctrl-C does, so that the Agent of the
    connection under way is stopped before acptrace exits (never left running)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {n: signal.signal(n, signal.default_int_handler) for n in _INTERRUPTING}
    try:
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)


_INTERRUPTING = (signal.SIGTERM, signal.SIGHUP)
