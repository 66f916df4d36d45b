"""`acptrace mock`: an ACP Agent on stdin/stdout that plays a recording back, with faults."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from acptrace.cli.common import fail
from acptrace.cli.root import app
from acptrace.mock import MockAgent, MockSettings, load_recording, parse_fault
from acptrace.mock.faults import TURN_FAULTS, FaultName, fault_usage
from acptrace.model.errors import UnreadableInput, UsageError


@app.command("mock")
def mock_command(
    transcript: Annotated[
        str,
        typer.Argument(metavar="FILE", help="The recording to play back (any format)."),
    ],
    fault: Annotated[
        list[str] | None,
        typer.Option(
            "--fault",
            metavar="NAME[:ARG]",
            help=_unbroken(
                f"Inject this fault into every replay (or, for {_turn_faults()}, every "
                "prompt turn; repeatable; see docs/mock-and-drive.md): "
                f"{fault_usage()}."
            ),
        ),
    ] = None,
    speed: Annotated[
        float,
        typer.Option(
            min=0.0,
            metavar="FACTOR",
            help="Play the recorded gaps this many times faster (0: no waiting).",
        ),
    ] = 1.0,
) -> None:
    """Act as a recorded ACP Agent, with faults on demand.

    Plays the recording back as an Agent on stdin/stdout.

    Answers `initialize` and `session/new` as recorded, a replaying `session/resume` (or
    `session/load`) with the first recorded replay, with the session id the Client asks
    for, and each `session/prompt` with the next recorded turn. Anything else gets a
    JSON-RPC error. Start it as a Client's agent command.
    """
    try:
        faults = tuple(parse_fault(text) for text in fault or ())
        agent = MockAgent(load_recording(transcript), MockSettings(speed=speed, faults=faults))
    except (UsageError, UnreadableInput) as error:
        fail(str(error))
    try:
        status = agent.serve(sys.stdin.buffer, sys.stdout.buffer)
    except BrokenPipeError:
        status = 0  # the Client went away: nothing left to answer
    raise typer.Exit(status)


def _turn_faults() -> str:
    """The faults that change prompt turns, as the help names them: `slow-turn and no-idle`."""
    return " and ".join(fault.value for fault in FaultName if fault in TURN_FAULTS)


FAULT_LINE = 34
"""The longest line of --fault's help: it fits the help column at 60 columns."""


def _unbroken(text: str) -> str:
    """The text on lines of at most `FAULT_LINE` characters, broken at spaces only, and kept
    so by the help (`\\b`): click would break `double-marker` at its hyphen."""
    lines = [""]
    for word in text.split(" "):
        if lines[-1] and len(lines[-1]) + 1 + len(word) > FAULT_LINE:
            lines.append("")
        lines[-1] = f"{lines[-1]} {word}".lstrip()
    return "\n".join(["\b", *lines])
