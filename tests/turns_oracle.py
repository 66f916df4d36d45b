"""Turns, tool calls and permission requests recomputed from a canonical transcript's messages
as docs/turns.md defines them, written plainly and on its own (it imports nothing of acptrace):
what the tests hold `analyze` to on real recordings.

One message at a time, in file order: a `session/prompt` opens a turn of its session; the
updates for the session from the Agent while it is open count in it (the first is its first
update, the first `agent_message`/`agent_thought` one or chunk its first output); it ends at
the prompt's error response, at its success response on v1, at the first `state_update` `idle`
for the session on v2, or with the transcript. A tool call is first seen (by `toolCallId`) in
a `tool_call`/`tool_call_update` or a permission request while a turn of its session is open,
and followed until it reaches `completed`, `failed` or `cancelled`; tool updates while a load or
a v2 `session/resume` with `replayFrom` of the session is pending are history, not followed.
"""

from __future__ import annotations

import json
from collections import defaultdict
from datetime import datetime
from pathlib import Path
from typing import Any

OUTPUT = {"agent_message", "agent_message_chunk", "agent_thought", "agent_thought_chunk"}
FINAL = {"completed", "failed", "cancelled"}

Stamp = tuple[int, int | None, int | None]
"""(line, wall ns, monotonic ns)."""
Json = dict[str, Any]


def wall_ns(text: Any) -> int | None:
    if not isinstance(text, str):
        return None
    moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    whole = int(moment.timestamp()) * 10**9
    fraction = text.split(".")[1].rstrip("Z") if "." in text else "0"
    return whole + int(fraction.ljust(9, "0")[:9])


def ms(start: Stamp | None, end: Stamp | None) -> float | None:
    """Milliseconds from start to end: monotonic when both have it and it does not go back,
    else wall, else none."""
    if start is None or end is None:
        return None
    for a, b in ((start[2], end[2]), (start[1], end[1])):
        if a is not None and b is not None and b - a >= 0:
            return round((b - a) / 1e6, 3)
    return None


def text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


class Oracle:
    def __init__(self) -> None:
        self.version: int | None = None
        self.client_version: int | None = None
        self.requests: dict[tuple[str, Any], tuple[str, dict[str, Any], Stamp]] = {}
        self.open: dict[str, list[dict[str, Any]]] = defaultdict(list)
        self.replays: dict[str, int] = defaultdict(int)
        self.replay_requests: dict[tuple[str, Any], str] = {}
        self.calls: dict[tuple[str, str], dict[str, Any]] = {}
        self.done: dict[str, set[str]] = defaultdict(set)
        self.asked: dict[Any, dict[str, Any]] = {}
        self.turns: list[dict[str, Any]] = []
        self.tool_calls: list[dict[str, Any]] = []
        self.permissions: list[dict[str, Any]] = []

    def v(self) -> int:
        for known in (self.version, self.client_version):
            if known is not None:
                return known
        return 2

    def message(self, direction: str, m: dict[str, Any], at: Stamp) -> None:
        params: Json = m["params"] if isinstance(m.get("params"), dict) else {}
        method, session = m.get("method"), text(params.get("sessionId"))
        if method is not None and "id" in m:
            self.request(direction, m, params, session, at)
        elif method == "session/update" and session is not None and direction == "a2c":
            self.update(session, params.get("update") or {}, at)
        elif method is None and "id" in m:
            self.response(direction, m, at)

    def request(
        self, direction: str, m: Json, params: Json, session: str | None, at: Stamp
    ) -> None:
        method = m["method"]
        self.requests[(direction, m["id"])] = (method, params, at)
        if method == "initialize" and isinstance(params.get("protocolVersion"), int):
            self.client_version = params["protocolVersion"]
        if session is None or direction != ("a2c" if "permission" in method else "c2a"):
            return
        replaying = method == "session/load" or (
            method == "session/resume" and params.get("replayFrom") is not None and self.v() >= 2
        )
        if replaying:
            self.replays[session] += 1
            self.replay_requests[(direction, m["id"])] = session
            for turn in self.open[session]:
                turn["during_replay"] = True
        elif method == "session/prompt":
            turn = {"session_id": session, "request_id": m["id"], "request_line": at[0],
                    "start": at, "first_update": None, "first_output": None, "updates": 0,
                    "tool_calls": 0, "permission_requests": 0, "waits": [],
                    "during_replay": self.replays[session] > 0}  # fmt: skip
            self.open[session].append(turn)
        elif method == "session/request_permission":
            self.permission(m, params, session, at)

    def permission(self, m: Json, params: Json, session: str, at: Stamp) -> None:
        turns = list(self.open[session])
        for turn in turns:
            turn["permission_requests"] += 1
        subject = params.get("subject")
        call = params.get("toolCall")
        if isinstance(subject, dict):
            call = subject.get("toolCall") if subject.get("type") == "tool_call" else subject
        call_id = text(call.get("toolCallId")) if isinstance(call, dict) else None
        options = {o["optionId"]: text(o.get("kind")) for o in params.get("options") or []
                   if isinstance(o, dict) and isinstance(o.get("optionId"), str)}  # fmt: skip
        followed = None
        if call_id is not None and not self.replays[session]:
            followed = self.tool(session, call_id, {}, at, turns, counted=False)
        if followed is not None:
            followed["permission_line"] = at[0]
        self.asked[m["id"]] = {"session": session, "id": m["id"], "at": at, "call_id": call_id,
                               "turns": turns, "call": followed, "options": options}  # fmt: skip

    def response(self, direction: str, m: dict[str, Any], at: Stamp) -> None:
        other = "c2a" if direction == "a2c" else "a2c"
        replayed = self.replay_requests.pop((other, m["id"]), None)
        if replayed is not None:
            self.replays[replayed] -= 1
        found = self.requests.pop((other, m["id"]), None)  # (only a request's own answer)
        if found is None:
            return
        method, params, start = found
        session = text(params.get("sessionId"))
        result: Json = m["result"] if isinstance(m.get("result"), dict) else {}
        version = result.get("protocolVersion")
        if method == "initialize" and "error" not in m and isinstance(version, int):
            self.version = version
        if session is None:
            return
        if method == "session/prompt":
            turn = next((t for t in self.open[session] if t["start"] == start), None)
            if turn is None:
                return
            if "error" in m:
                self.end(session, [turn], "error", at, None)
            elif self.v() < 2:
                self.end(session, [turn], "response", at, text(result.get("stopReason")))
        elif method == "session/request_permission" and m["id"] in self.asked:
            self.answered(self.asked.pop(m["id"]), m, at)

    def update(self, session: str, update: dict[str, Any], at: Stamp) -> None:
        tag = update.get("sessionUpdate")
        turns = self.open[session]
        for turn in turns:
            turn["updates"] += 1
            turn["first_update"] = turn["first_update"] or at
            if tag in OUTPUT:
                turn["first_output"] = turn["first_output"] or at
        call_id = update.get("toolCallId")
        tool = tag in ("tool_call", "tool_call_update") and isinstance(call_id, str)
        if tag == "state_update" and update.get("state") == "idle" and turns and self.v() >= 2:
            self.end(session, list(turns), "idle", at, text(update.get("stopReason")))
        elif tool and not self.replays[session]:  # (while a replay is pending: history)
            self.tool(session, str(call_id), update, at, turns)

    def tool(self, session: str, call_id: str, update: Json, at: Stamp, turns: list[Json],
             counted: bool = True) -> Json | None:  # fmt: skip
        call = self.calls.get((session, call_id))
        if call is None:
            if not turns or call_id in self.done[session]:
                return None
            call = {"session_id": session, "tool_call_id": call_id,
                    "turn_request_id": turns[-1]["request_id"], "first": at, "end": None,
                    "kind": None, "title": None, "first_status": None, "last_status": None,
                    "updates": 0, "permission_line": None, "permission_wait_ms": None}  # fmt: skip
            self.calls[(session, call_id)] = call
            for turn in turns:
                turn["tool_calls"] += 1
        call["kind"] = text(update.get("kind")) or call["kind"]
        call["title"] = text(update.get("title")) or call["title"]
        if not counted:
            return call
        call["updates"] += 1
        status = text(update.get("status"))
        if status is not None:
            call["first_status"] = call["first_status"] or status
            call["last_status"] = status
            if status in FINAL:
                call["end"] = at
                del self.calls[(session, call_id)]
                self.tool_calls.append(call)
                if turns:
                    self.done[session].add(call_id)
        return call

    def answered(self, asked: dict[str, Any], m: dict[str, Any], at: Stamp) -> None:
        wait = ms(asked["at"], at)
        for turn in asked["turns"]:
            turn["waits"].append(wait)
        if asked["call"] is not None:
            asked["call"]["permission_wait_ms"] = added([asked["call"]["permission_wait_ms"], wait])
        result: Json = m["result"] if isinstance(m.get("result"), dict) else {}
        outcome: Json = result["outcome"] if isinstance(result.get("outcome"), dict) else {}
        chosen = "error" if "error" in m else text(outcome.get("outcome"))
        option = None if "error" in m else text(outcome.get("optionId"))
        self.permissions.append(self.permission_row(asked, at, wait, chosen, option))

    def permission_row(
        self, asked: Json, at: Stamp | None, wait: float | None, outcome: Any, option: Any
    ) -> Json:
        return {"session_id": asked["session"], "request_id": asked["id"],
                "request_line": asked["at"][0], "tool_call_id": asked["call_id"],
                "turn_request_id": asked["turns"][-1]["request_id"] if asked["turns"] else None,
                "response_line": None if at is None else at[0], "wait_ms": wait,
                "outcome": outcome, "option_id": option,
                "option_kind": asked["options"].get(option) if option else None}  # fmt: skip

    def end(
        self, session: str, turns: list[Json], end: str, at: Stamp | None, stop: str | None
    ) -> None:
        for turn in turns:
            self.open[session].remove(turn)
            start = turn["start"]
            self.turns.append({
                "session_id": session, "request_id": turn["request_id"],
                "request_line": turn["request_line"], "protocol_version": self.v(), "end": end,
                "end_line": None if at is None else at[0], "stop_reason": stop,
                "first_update_ms": ms(start, turn["first_update"]),
                "first_output_ms": ms(start, turn["first_output"]),
                "first_output_line": turn["first_output"][0] if turn["first_output"] else None,
                "duration_ms": ms(start, at),
                "updates": turn["updates"], "tool_calls": turn["tool_calls"],
                "permission_requests": turn["permission_requests"],
                "permission_wait_ms": added(turn["waits"]), "during_replay": turn["during_replay"],
            })  # fmt: skip
        if not self.open[session]:
            self.done[session].clear()

    def finish(self, closed: bool) -> dict[str, list[dict[str, Any]]]:
        for session, turns in list(self.open.items()):
            if turns:
                self.end(session, list(turns), "disconnect" if closed else "trace_end", None, None)
        self.tool_calls.extend(self.calls.values())
        for asked in self.asked.values():
            self.permissions.append(self.permission_row(asked, None, None, None, None))
        calls = [{**{k: v for k, v in c.items() if k not in ("first", "end")},
                  "first_line": c["first"][0], "end_line": c["end"][0] if c["end"] else None,
                  "duration_ms": ms(c["first"], c["end"])} for c in self.tool_calls]  # fmt: skip
        return {
            "turns": sorted(self.turns, key=lambda t: t["request_line"]),
            "tool_calls": sorted(calls, key=lambda c: c["first_line"]),
            "permissions": sorted(self.permissions, key=lambda p: p["request_line"]),
        }


def added(waits: list[float | None]) -> float | None:
    timed = [w for w in waits if w is not None]
    return round(sum(timed), 3) if timed else None


def recompute(path: Path) -> dict[str, list[dict[str, Any]]]:
    """The turns, tool calls and permission requests of a canonical transcript."""
    oracle = Oracle()
    closed = False
    for number, line in enumerate(path.read_text(encoding="utf-8").split("\n"), start=1):
        if not line.strip():
            continue
        record = json.loads(line)
        if record.get("dir") == "meta" and record.get("event") == "close":
            closed = True
            break
        message = record.get("msg")
        if record.get("dir") not in ("c2a", "a2c") or message is None:
            continue
        mono = record.get("mono_ns")
        at = (number, wall_ns(record.get("ts")), mono if isinstance(mono, int) else None)
        for member in message if isinstance(message, list) else [message]:
            if isinstance(member, dict):
                oracle.message(record["dir"], member, at)
    return oracle.finish(closed)
