"""The faults `acptrace mock` injects, each a change to a recorded window: the replay's, or
each prompt turn's (`TURN_FAULTS`).

A fault is named once (`FaultName`), parsed from `NAME[:ARG]`, and applied to the window's
steps in the order given. docs/mock-and-drive.md says what `acptrace analyze` reports for
each replay fault, and what `acptrace drive --prompt` does with each turn fault;
tests/test_drive.py checks every row of those tables.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any

from acptrace.mock.recording import Recording, Step, StepRole, Window
from acptrace.model.errors import UsageError

CURSOR_REJECTED_CODE = -32602
"""What `reject-cursor` answers with (the RFD: "replays nothing and sends no marker")."""
FAILED_CODE = -32603
"""What `error-after-marker` answers with."""


class FaultName(StrEnum):
    """Every fault the mock knows."""

    TRUNCATE = "truncate"
    """`truncate:N`: stop after N replayed updates and exit (no marker, no response)."""
    NO_MARKER = "no-marker"
    """Leave out the marker of the requested session."""
    DOUBLE_MARKER = "double-marker"
    """Send the marker twice."""
    MARKER_AFTER_RESPONSE = "marker-after-response"
    """Send the marker after the response instead of before it."""
    DELAY_MARKER = "delay-marker"
    """`delay-marker:MS`: wait MS milliseconds more before the marker."""
    DELAY_RESPONSE = "delay-response"
    """`delay-response:MS`: wait MS milliseconds more before the response."""
    REJECT_CURSOR = "reject-cursor"
    """Answer the replaying request with `-32602` and replay nothing."""
    STATE_BEFORE_MARKER = "state-before-marker"
    """Send a `state_update` before the marker (live state inside the history)."""
    DROP_CHILD_MARKER = "drop-child-marker"
    """Leave out the markers of the child sessions."""
    ERROR_AFTER_MARKER = "error-after-marker"
    """After a complete replay (the marker), answer with an error instead of the rest."""
    SLOW_TURN = "slow-turn"
    """`slow-turn:MS`: in each prompt turn, spread MS milliseconds more over the messages
    after the prompt's response (a v2 turn that runs on after its acknowledgement)."""
    NO_IDLE = "no-idle"
    """In each prompt turn, leave out the `state_update` `idle` of the prompt's session (a v2
    turn that never ends)."""


TURN_FAULTS = frozenset({FaultName.SLOW_TURN, FaultName.NO_IDLE})
"""The faults that change each prompt turn; the others change the replay."""


_WITH_ARGUMENT = {
    FaultName.TRUNCATE: "N",
    FaultName.DELAY_MARKER: "MS",
    FaultName.DELAY_RESPONSE: "MS",
    FaultName.SLOW_TURN: "MS",
}
"""The faults that take an argument, and what it is called."""
_NEEDS_MARKER = {
    FaultName.NO_MARKER,
    FaultName.DOUBLE_MARKER,
    FaultName.MARKER_AFTER_RESPONSE,
    FaultName.DELAY_MARKER,
    FaultName.STATE_BEFORE_MARKER,
    FaultName.ERROR_AFTER_MARKER,
}
_NEEDS_RESPONSE = {FaultName.MARKER_AFTER_RESPONSE, FaultName.DELAY_RESPONSE}


def fault_usage() -> str:
    """Every fault as written on the command line: `truncate:N, no-marker, …`."""
    return ", ".join(
        f"{fault}:{_WITH_ARGUMENT[fault]}" if fault in _WITH_ARGUMENT else fault.value
        for fault in FaultName
    )


@dataclass(frozen=True, slots=True)
class Fault:
    """One fault to inject, with its argument."""

    name: FaultName
    """Which fault."""
    argument: int = 0
    """N for `truncate`, milliseconds for the `delay-*` faults and `slow-turn`; 0 for the
    others."""


@dataclass(frozen=True, slots=True)
class Plan:
    """What the mock sends for a replaying request, faults applied."""

    steps: tuple[Step, ...]
    """The messages to send, in order (the response among them unless the mock exits)."""
    exit_after: bool
    """Exit once they are sent, with the request unanswered (the connection ends)."""


def parse_fault(text: str) -> Fault:
    """`NAME` or `NAME:ARG` as a Fault; UsageError naming what is wrong."""
    name, colon, argument = text.partition(":")
    try:
        fault = FaultName(name)
    except ValueError:
        known = ", ".join(f.value for f in FaultName)
        raise UsageError(f"--fault {text}: unknown fault (known: {known})") from None
    if fault not in _WITH_ARGUMENT:
        if colon:
            raise UsageError(f"--fault {text}: {name} takes no argument")
        return Fault(fault)
    if not argument.isdigit():
        raise UsageError(f"--fault {text}: {name} needs a whole number, as in {name}:3")
    return Fault(fault, int(argument))


def check_faults(faults: Sequence[Fault], recording: Recording) -> None:
    """UsageError when a fault has nothing to change in the recorded replay (or, for a turn
    fault, in any recorded prompt turn), as the faults before it left it (`no-marker` then
    `double-marker`: no marker to double)."""
    _check_replay_faults([f for f in faults if f.name not in TURN_FAULTS], recording.replay)
    _check_turn_faults([f for f in faults if f.name in TURN_FAULTS], recording.turns)


def _check_replay_faults(faults: Sequence[Fault], window: Window | None) -> None:
    if not faults:
        return
    if window is None:
        raise UsageError("the recording has no replay window to inject faults into")
    steps = list(window.steps)
    for fault in faults:
        roles = {step.role for step in steps}
        missing = None
        if fault.name in _NEEDS_MARKER and StepRole.MARKER not in roles:
            missing = "marker"
        elif fault.name is FaultName.DROP_CHILD_MARKER and StepRole.CHILD_MARKER not in roles:
            missing = "child marker"
        elif fault.name in _NEEDS_RESPONSE and StepRole.RESPONSE not in roles:
            missing = "response"
        if missing is not None:
            raise UsageError(f"--fault {fault.name}: the replay has no {missing} to change")
        steps = _apply(fault, steps, None)[0]


def _check_turn_faults(faults: Sequence[Fault], turns: Sequence[Window]) -> None:
    if not faults:
        return
    if not turns:
        raise UsageError(f"--fault {faults[0].name}: the recording has no prompt turn to change")
    sessions = [turn.session_id for turn in turns]
    steps = [list(turn.steps) for turn in turns]
    for fault in faults:
        if not any(_turn_takes(fault, *turn) for turn in zip(steps, sessions, strict=True)):
            needed = (
                "a message after the prompt's response"
                if fault.name is FaultName.SLOW_TURN
                else "a state_update idle of its session"
            )
            raise UsageError(f"--fault {fault.name}: no prompt turn of the recording has {needed}")
        steps = [_apply_to_turn(fault, *turn) for turn in zip(steps, sessions, strict=True)]


def _turn_takes(fault: Fault, steps: list[Step], session_id: str | None) -> bool:
    """Whether the turn fault has something to change in these steps of a turn."""
    if fault.name is FaultName.SLOW_TURN:
        return bool(_after_response(steps))
    return any(_ends_turn(step, session_id) for step in steps)


def plan_turn(window: Window, faults: Sequence[Fault]) -> tuple[Step, ...]:
    """The steps to send for a prompt turn, the turn faults applied in order."""
    steps = list(window.steps)
    for fault in faults:
        if fault.name in TURN_FAULTS:
            steps = _apply_to_turn(fault, steps, window.session_id)
    return tuple(steps)


def _apply_to_turn(fault: Fault, steps: list[Step], session_id: str | None) -> list[Step]:
    """The steps of a turn with one turn fault applied."""
    if fault.name is FaultName.NO_IDLE:
        return [step for step in steps if not _ends_turn(step, session_id)]
    after = _after_response(steps)
    if not after:
        return steps
    share_ms = fault.argument / len(after)
    start = len(steps) - len(after)
    later = [replace(step, extra_ms=step.extra_ms + share_ms) for step in after]
    return [*steps[:start], *later]


def _after_response(steps: list[Step]) -> list[Step]:
    """The steps after the (first) response; none when there is no response."""
    at = next((i for i, s in enumerate(steps) if s.role is StepRole.RESPONSE), len(steps))
    return steps[at + 1 :]


def _ends_turn(step: Step, session_id: str | None) -> bool:
    """Whether the step is a `state_update` `idle` of this session."""
    update = _update(step.message)
    return (
        _session(step.message) == session_id
        and update.get("sessionUpdate") == "state_update"
        and update.get("state") == "idle"
    )


def plan(window: Window, faults: Sequence[Fault], request_id: Any) -> Plan:
    """The steps to send for a replaying request with this id, faults applied in order (the
    turn faults leave it as it is)."""
    steps = list(window.steps)
    exit_after = not window.answered
    for fault in faults:
        steps, exits = _apply(fault, steps, request_id)
        exit_after = exit_after or exits
    return Plan(tuple(steps), exit_after)


def _apply(fault: Fault, steps: list[Step], request_id: Any) -> tuple[list[Step], bool]:
    """The steps with one fault applied, and whether the mock exits after them."""
    match fault.name:
        case FaultName.TRUNCATE:
            return _truncated(steps, fault.argument), True
        case FaultName.NO_MARKER:
            return [s for s in steps if s.role is not StepRole.MARKER], False
        case FaultName.DOUBLE_MARKER:
            return _around_marker(steps, lambda m: [m, replace(m, gap_ns=0)]), False
        case FaultName.MARKER_AFTER_RESPONSE:
            return _marker_after_response(steps), False
        case FaultName.DELAY_MARKER:
            delay = float(fault.argument)
            return _around_marker(steps, lambda m: [replace(m, extra_ms=m.extra_ms + delay)]), False
        case FaultName.DELAY_RESPONSE:
            return [_delayed_response(s, float(fault.argument)) for s in steps], False
        case FaultName.REJECT_CURSOR:
            error = {"code": CURSOR_REJECTED_CODE, "message": "acptrace mock: cursor rejected"}
            return [_error_step(request_id, error)], False
        case FaultName.STATE_BEFORE_MARKER:
            state = _state_update(steps)
            return _around_marker(steps, lambda m: [Step(state, StepRole.UPDATE, 0), m]), False
        case FaultName.DROP_CHILD_MARKER:
            return [s for s in steps if s.role is not StepRole.CHILD_MARKER], False
        case FaultName.ERROR_AFTER_MARKER:
            error = {"code": FAILED_CODE, "message": "acptrace mock: failed after the replay"}
            return [*_through_marker(steps), _error_step(request_id, error)], False
        case FaultName.SLOW_TURN | FaultName.NO_IDLE:
            return steps, False


def _truncated(steps: list[Step], updates: int) -> list[Step]:
    """The steps up to the Nth update, never the marker or the response."""
    kept: list[Step] = []
    sent = 0
    for step in steps:
        if step.role in (StepRole.MARKER, StepRole.RESPONSE) or sent >= updates:
            break
        kept.append(step)
        sent += step.role is StepRole.UPDATE
    return kept


def _around_marker(steps: list[Step], change: Any) -> list[Step]:
    """Each marker of the requested session replaced by what `change` makes of it."""
    out: list[Step] = []
    for step in steps:
        out.extend(change(step) if step.role is StepRole.MARKER else [step])
    return out


def _marker_after_response(steps: list[Step]) -> list[Step]:
    markers = [s for s in steps if s.role is StepRole.MARKER]
    out: list[Step] = []
    for step in steps:
        if step.role is StepRole.MARKER:
            continue
        out.append(step)
        if step.role is StepRole.RESPONSE:
            out.extend(replace(m, gap_ns=0) for m in markers)
    return out


def _delayed_response(step: Step, delay_ms: float) -> Step:
    if step.role is not StepRole.RESPONSE:
        return step
    return replace(step, extra_ms=step.extra_ms + delay_ms)


def _through_marker(steps: list[Step]) -> list[Step]:
    """The steps up to and including the (last) marker of the requested session."""
    last = max(i for i, s in enumerate(steps) if s.role is StepRole.MARKER)
    return steps[: last + 1]


def _state_update(steps: list[Step]) -> dict[str, Any]:
    """A `session/update` carrying `state_update`: the recorded one after the marker, if any."""
    at = next(i for i, s in enumerate(steps) if s.role is StepRole.MARKER)
    marker = steps[at].message
    for step in steps[at:]:
        if _update(step.message).get("sessionUpdate") == "state_update" and _session(
            step.message
        ) == _session(marker):
            return copy.deepcopy(step.message)
    message = copy.deepcopy(marker)
    message["params"]["update"] = {"sessionUpdate": "state_update", "state": "idle"}
    return message


def _update(message: dict[str, Any]) -> dict[str, Any]:
    params = message.get("params")
    update = params.get("update") if isinstance(params, dict) else None
    return update if isinstance(update, dict) else {}


def _session(message: dict[str, Any]) -> Any:
    params = message.get("params")
    return params.get("sessionId") if isinstance(params, dict) else None


def _error_step(request_id: Any, error: dict[str, Any]) -> Step:
    message = {"jsonrpc": "2.0", "id": request_id, "error": error}
    return Step(message, StepRole.RESPONSE, 0)
