"""Turns, tool calls and permission requests as the transcript unfolds (docs/turns.md).

A turn opens at a `session/prompt` and ends at its response on ACP v1, at the first
`state_update` `idle` for its session on v2 (rules.md §11), at an error response on either, or
with the connection. Updates for the session while it is open are its own (several turns of a
session may be open at once on v2: each counts them); tool calls first seen while it is open
are followed to their final status, even after it ended (work in the background); tool updates
while a replay of the session is pending are history, never a tool call's; a turn a replay
overlapped is marked (`during_replay`). Only what is open is held: rows are made as things end.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from acptrace.model.domain import (
    C2A,
    ConnectionEnd,
    Message,
    Stamp,
    UpdateRun,
)
from acptrace.model.turns import (
    FINAL_STATUSES,
    IDLE,
    OUTPUT_TAGS,
    Activity,
    PermissionRow,
    ToolCallRow,
    TurnEnd,
    TurnRow,
    Watch,
)


class _Turn:
    """A turn while it is open."""

    __slots__ = (
        "first_output", "first_update", "permissions", "replay", "request", "start",
        "tool_calls", "updates", "waits",
    )  # fmt: skip

    def __init__(self, request: Message, replay: bool) -> None:
        self.request = request
        self.start = Stamp.of(request)
        self.first_update: Stamp | None = None
        self.first_output: Stamp | None = None
        self.updates = self.tool_calls = self.permissions = 0
        self.waits: list[float | None] = []
        """The wait of each of its permission requests answered so far."""
        self.replay = replay

    def row(self, end: TurnEnd, at: Stamp | None, version: int, stop: str | None) -> TurnRow:
        """Its row, ended so (`at`: the stamp of what ended it, if the recording has it)."""
        start, request, first_update, first_output = (
            self.start, self.request, self.first_update, self.first_output
        )  # fmt: skip
        assert request.session_id is not None  # (a prompt opens a turn only for its session)
        approximate = (
            start.approximate
            or (first_update is not None and first_update.approximate)
            or (first_output is not None and first_output.approximate)
            or (at is not None and at.approximate)
        )
        return TurnRow(  # (by position, in the fields' order: keywords cost four times more)
            request.session_id,
            request.id,
            request.line,
            version,
            end,
            None if at is None else at.line,
            stop,
            start.ms_until(first_update),
            start.ms_until(first_output),
            None if first_output is None else first_output.line,
            start.ms_until(at),
            self.updates,
            self.tool_calls,
            self.permissions,
            summed(self.waits) if self.waits else None,
            self.replay,
            approximate,
        )


class _ToolCall:
    """A tool call from its first update to its final status."""

    __slots__ = (
        "end", "first", "first_status", "kind", "last_status", "permission", "session_id",
        "title", "tool_call_id", "turn_request_id", "updates", "wait",
    )  # fmt: skip

    def __init__(self, session_id: str, tool_call_id: str, turn: _Turn | None, at: Stamp):
        self.session_id, self.tool_call_id = session_id, tool_call_id
        self.turn_request_id = None if turn is None else turn.request.id
        self.first = at
        self.end: Stamp | None = None
        self.kind: str | None = None
        self.title: str | None = None
        self.first_status: str | None = None
        self.last_status: str | None = None
        self.updates = 0
        self.permission: int | None = None
        """Its permission request's line."""
        self.wait: float | None = None

    def patch(self, activity: Activity, at: Stamp) -> bool:
        """Take one update (patch semantics: a member it has replaces the one before); True
        when it brought the tool call to a final status."""
        self.updates += 1
        self.kind = activity.kind or self.kind
        self.title = activity.title or self.title
        status = activity.status
        if status is None:
            return False
        self.first_status = self.first_status or status
        self.last_status = status
        if status in FINAL_STATUSES and self.end is None:
            self.end = at
            return True
        return False

    def row(self) -> ToolCallRow:
        first, end = self.first, self.end
        return ToolCallRow(  # (by position, in the fields' order: keywords cost four times more)
            self.session_id,
            self.tool_call_id,
            self.turn_request_id,
            first.line,
            self.kind,
            self.title,
            self.first_status,
            self.last_status,
            None if end is None else end.line,
            first.ms_until(end),
            self.updates,
            self.permission,
            self.wait,
            first.approximate or (end is not None and end.approximate),
        )


class _Permission:
    """A permission request waiting for its answer."""

    __slots__ = ("call", "request", "turns")

    def __init__(self, request: Message, turns: list[_Turn], call: _ToolCall | None) -> None:
        self.request, self.turns, self.call = request, turns, call


class TurnBook:
    """The open turns, tool calls and permission requests of one connection, and the rows of
    those that ended."""

    __slots__ = (
        "_calls", "_done_calls", "_permissions", "_replaying", "_turns", "_version",
        "permission_rows", "tool_call_rows", "turn_rows",
    )  # fmt: skip

    def __init__(self, replaying: Callable[[str], bool], version: Callable[[], int]) -> None:
        """`replaying(session)`: a replay of the session is pending; `version()`: the protocol
        version the rules apply for so far."""
        self._replaying = replaying
        self._version = version
        self._turns: dict[str, list[_Turn]] = {}
        """The open turns of each session, oldest first."""
        self._calls: dict[str, dict[str, _ToolCall]] = {}
        """Tool calls not yet at a final status, by session and `toolCallId`."""
        self._done_calls: dict[str, set[str]] = {}
        """The tool calls of each session with a turn open that reached a final status (a later
        update of one is not a new tool call): forgotten when no turn of the session is open."""
        self._permissions: dict[int, _Permission] = {}
        """Permission requests waiting for their answer, by the request's identity."""
        self.turn_rows: list[TurnRow] = []
        self.tool_call_rows: list[ToolCallRow] = []
        self.permission_rows: list[PermissionRow] = []

    def watch(self, session_id: str) -> int:
        """What the next updates of the session must tell (`Watch`): their activity while a
        turn of it is open (or, outside a replay, a tool call of it), and a first output
        while a turn waits for one."""
        turns = self._turns.get(session_id)
        if turns:
            for turn in turns:  # (asked as each run begins: no generator)
                if turn.first_output is None:
                    return Watch.ACTIVITY | Watch.FIRST_OUTPUT
            return Watch.ACTIVITY
        if self._calls.get(session_id) and not self._replaying(session_id):
            return Watch.ACTIVITY
        return Watch.COUNTS

    def prompt(self, request: Message) -> None:
        """A `session/prompt` opens a turn."""
        session_id = request.session_id
        assert session_id is not None
        turn = _Turn(request, self._replaying(session_id))
        self._turns.setdefault(session_id, []).append(turn)

    def replay_opened(self, session_id: str) -> None:
        """A replay of the session was requested: the turns open now overlap it."""
        for turn in self._turns.get(session_id, ()):
            turn.replay = True

    def on_updates(self, run: UpdateRun) -> None:
        """Updates for one session (a run of them, or one): counted in its open turns, their
        first update and output noted, their activity followed in order."""
        first = run.first
        session_id = first.session_id
        assert session_id is not None
        turns = self._turns.get(session_id)
        if not turns and (not self._calls or (first.activity is None and not run.activity)):
            return  # (most runs: no turn, no tool call to follow)
        if first.direction is C2A:
            return  # (the Client's updates say nothing of the Agent's turn)
        if turns:
            self._begin(turns, run, self._ending_line(run))
        counted_from = first.line
        replay: bool | None = None
        for at, activity in self._activity(run):
            if activity.state is not None:
                if activity.state == IDLE and turns and self._version() >= 2:
                    for turn in turns:
                        turn.updates += at.line - counted_from + 1
                    self._end(session_id, turns, TurnEnd.IDLE, at, activity.stop_reason)
                    turns, counted_from = None, at.line + 1
            elif activity.tool_call_id is not None:
                if replay is None:
                    replay = self._replaying(session_id)
                if not replay:
                    self._tool(session_id, activity, at, turns)
        if turns:
            for turn in turns:
                turn.updates += first.line + run.count - counted_from

    def permission_asked(self, request: Message) -> None:
        """The Agent asks the Client's permission (for a tool call, which it may create)."""
        session_id = request.session_id
        assert session_id is not None
        turns = list(self._turns.get(session_id, ()))
        for turn in turns:
            turn.permissions += 1
        activity = request.activity or Activity()
        call = None
        if activity.tool_call_id is not None and not self._replaying(session_id):
            call = self._tool(session_id, activity, Stamp.of(request), turns or None, count=False)
        if call is not None:
            call.permission = request.line
        self._permissions[id(request)] = _Permission(request, turns, call)

    def answered(self, request: Message, response: Message) -> None:
        """A response to a prompt (which may end its turn) or to a permission request."""
        if request.method == "session/prompt":
            self._prompt_answered(request, response)
        elif (waiting := self._permissions.pop(id(request), None)) is not None:
            self._permission_answered(waiting, response)

    def finish(self, end: ConnectionEnd) -> None:
        """The connection ended: what is still open is unfinished."""
        ended = TurnEnd.TRACE_END if end is ConnectionEnd.UNKNOWN else TurnEnd.DISCONNECT
        for session_id, turns in list(self._turns.items()):
            self._end(session_id, turns, ended, None, None)
        for calls in self._calls.values():
            self.tool_call_rows.extend(call.row() for call in calls.values())
        self._calls.clear()
        for waiting in self._permissions.values():
            self.permission_rows.append(_permission_row(waiting, None, None))
        self._permissions.clear()
        self.turn_rows.sort(key=lambda row: row.request_line)
        self.tool_call_rows.sort(key=lambda row: row.first_line)
        self.permission_rows.sort(key=lambda row: row.request_line)

    def _ending_line(self, run: UpdateRun) -> int | None:
        """The line of the run's first `idle`, which ends the open turns on v2 (None: none)."""
        if self._version() < 2:
            return None
        return next((at.line for at, a in self._activity(run) if a.state == IDLE), None)

    @staticmethod
    def _begin(turns: list[_Turn], run: UpdateRun, ending: int | None) -> None:
        """The first update, and the first output, of the open turns (a turn has its first
        update no later than its first output: one with an output has both); an output after
        the `idle` that ends them (`ending`) is none of theirs."""
        output = run.first_output
        if output is not None and ending is not None and output.line > ending:
            output = None
        for turn in turns:
            if turn.first_output is None:
                first = run.first
                stamp = Stamp.of(first)
                if turn.first_update is None:
                    turn.first_update = stamp
                if first.update_tag in OUTPUT_TAGS:
                    turn.first_output = stamp
                else:
                    turn.first_output = output

    @staticmethod
    def _activity(run: UpdateRun) -> Sequence[tuple[Stamp, Activity]]:
        """What the updates of a run say of a turn's work, in order."""
        first = run.first
        if first.activity is None:
            return run.activity
        return ((Stamp.of(first), first.activity), *run.activity)

    def _tool(
        self,
        session_id: str,
        activity: Activity,
        at: Stamp,
        turns: list[_Turn] | None,
        count: bool = True,
    ) -> _ToolCall | None:
        """A tool call's update (or a permission request about it): a new one while a turn is
        open, a patch of one being followed; None when it is neither."""
        tool_call_id = activity.tool_call_id
        assert tool_call_id is not None
        calls = self._calls.get(session_id)
        call = None if calls is None else calls.get(tool_call_id)
        followed = call is not None
        if call is None:
            if not turns or tool_call_id in self._done_calls.get(session_id, ()):
                return None
            call = _ToolCall(session_id, tool_call_id, turns[-1], at)
            for turn in turns:
                turn.tool_calls += 1
        if not count:
            call.kind = activity.kind or call.kind
            call.title = activity.title or call.title
        elif call.patch(activity, at):  # (most: created at their final status, never followed)
            if followed:
                self._unfollow(session_id, tool_call_id)
            self.tool_call_rows.append(call.row())
            if turns:
                self._done_calls.setdefault(session_id, set()).add(tool_call_id)
            return call
        if not followed:
            self._calls.setdefault(session_id, {})[tool_call_id] = call
        return call

    def _unfollow(self, session_id: str, tool_call_id: str) -> None:
        """A tool call followed until now reached its final status."""
        calls = self._calls[session_id]
        del calls[tool_call_id]
        if not calls:
            del self._calls[session_id]

    def _prompt_answered(self, request: Message, response: Message) -> None:
        session_id = request.session_id
        turns = self._turns.get(session_id or "")
        turn = next((t for t in turns or () if t.request is request), None)
        if turn is None or session_id is None or turns is None:
            return  # (its turn already ended: at `idle`, on v2)
        version = self._version()
        if response.is_error:
            end = TurnEnd.ERROR
        elif version < 2:
            end = TurnEnd.RESPONSE
        else:
            return  # (v2: the response acknowledges the prompt; `idle` ends the turn)
        stop = response.activity.stop_reason if response.activity is not None else None
        turns.remove(turn)
        self.turn_rows.append(turn.row(end, Stamp.of(response), version, stop))
        if not turns:
            self._close(session_id)

    def _end(
        self,
        session_id: str,
        turns: list[_Turn],
        end: TurnEnd,
        at: Stamp | None,
        stop: str | None,
    ) -> None:
        version = self._version()
        self.turn_rows.extend(turn.row(end, at, version, stop) for turn in turns)
        self._close(session_id)

    def _close(self, session_id: str) -> None:
        """No turn of the session is open any more."""
        self._turns.pop(session_id, None)
        self._done_calls.pop(session_id, None)

    def _permission_answered(self, waiting: _Permission, response: Message) -> None:
        wait = Stamp.of(waiting.request).ms_until(Stamp.of(response))
        for turn in waiting.turns:
            turn.waits.append(wait)
        if waiting.call is not None:
            waiting.call.wait = summed([waiting.call.wait, wait])
        self.permission_rows.append(_permission_row(waiting, response, wait))


def _permission_row(
    waiting: _Permission, response: Message | None, wait: float | None
) -> PermissionRow:
    """A permission request's row (`response`: its answer, None when it had none)."""
    request = waiting.request
    asked = request.activity or Activity()
    answer = response.activity if response is not None else None
    outcome = option = kind = None
    if response is not None and response.is_error:
        outcome = "error"
    elif answer is not None:
        outcome, option = answer.outcome, answer.option_id
        kind = next((k for o, k in asked.options if o == option), None)
    assert request.session_id is not None
    return PermissionRow(
        session_id=request.session_id,
        request_id=request.id,
        request_line=request.line,
        tool_call_id=asked.tool_call_id,
        turn_request_id=waiting.turns[-1].request.id if waiting.turns else None,
        response_line=None if response is None else response.line,
        wait_ms=wait,
        outcome=outcome,
        option_id=option,
        option_kind=kind,
        approximate=request.approximate or bool(response and response.approximate),
    )


def summed(waits: list[float | None]) -> float | None:
    """The waits with a time, added up (None when none has one)."""
    timed = [wait for wait in waits if wait is not None]
    return round(sum(timed), 3) if timed else None
