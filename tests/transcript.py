"""A builder of canonical transcripts for tests: each call appends a line, returns its number."""

from __future__ import annotations

import io
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import orjson

import acptrace
from acptrace.model.domain import Analysis
from acptrace.model.options import Execution, Options
from acptrace.model.tags import MESSAGE_TAGS

NO_SCHEMA = Options(ignore=("SCHEMA-",))
"""The schema rules (rules.md §12) left out, for tests whose hand-made messages carry only the
members the rules under test read."""

START_NS = 1_764_669_600_000_000_000  # 2025-12-02T10:00:00Z
SESSION = "sess_1"


ADVERTISED: dict[bool, dict[str, Any]] = {
    True: {
        "capabilities": {
            "session": {m: {} for m in ("fork", "delete", "archive", "status", "title")}
        }
    },
    False: {"agentCapabilities": {"loadSession": True, "sessionCapabilities": {"resume": {}}}},
}
"""What the `initialize` results of `Transcript.initialize` advertise, v2 (True) and v1."""

VALID_UPDATE: dict[str, dict[str, Any]] = {
    "state_update": {"state": "running"},
    **{tag: {"content": {"type": "text", "text": ""}} for tag in MESSAGE_TAGS if "chunk" in tag},
}
"""What an update of a tag gets unless given, so that the ACP v2 schema takes it (rules.md §12):
a state (`running`, which nothing reads: `idle` ends a turn) and a chunk's content."""


@dataclass
class Transcript:
    """Lines of a canonical transcript; time advances `step_ms` per line unless `at_ms` is given."""

    step_ms: float = 10.0
    timed: bool = True
    lines: list[bytes] = field(default_factory=list)
    now_ms: float = 0.0
    next_id: int = 100
    message_ids: bool = True
    """Message updates get a `messageId` unless given one (as ACP v2 wants: LC-NO-MESSAGE-ID);
    off after `initialize(version=1)`, since v1 Agents send none."""
    _streamed: dict[str, tuple[str, str]] = field(default_factory=dict)
    """Each session's message being streamed: its kind and the `messageId` its chunks share."""

    # -- raw lines ----------------------------------------------------------------------------

    def add(self, record: dict[str, Any], at_ms: float | None = None) -> int:
        """Append one record; returns its line number."""
        self.now_ms = at_ms if at_ms is not None else self.now_ms + self.step_ms
        if self.timed:
            mono = int(self.now_ms * 1_000_000)
            record = {"ts": _rfc3339(START_NS + mono), "mono_ns": 5_000_000_000 + mono, **record}
        self.lines.append(orjson.dumps(record))
        return len(self.lines)

    def raw(self, data: bytes) -> int:
        """Append a line as it is."""
        self.lines.append(data)
        return len(self.lines)

    def c2a(self, msg: Any, at_ms: float | None = None) -> int:
        """A message from the Client."""
        return self.add({"dir": "c2a", "msg": msg}, at_ms)

    def a2c(self, msg: Any, at_ms: float | None = None) -> int:
        """A message from the Agent."""
        return self.add({"dir": "a2c", "msg": msg}, at_ms)

    def open(self) -> int:
        """The recorder's open event."""
        return self.add({"dir": "meta", "event": "open", "argv": ["agent"]})

    def close(self, at_ms: float | None = None) -> int:
        """The recorded connection end."""
        return self.add({"dir": "meta", "event": "close", "reason": "agent_exit"}, at_ms)

    # -- JSON-RPC shapes ----------------------------------------------------------------------

    def request(
        self,
        method: str,
        params: dict[str, Any] | None = None,
        *,
        id: Any = None,
        agent: bool = False,
        at_ms: float | None = None,
    ) -> int:
        """A request (from the Client unless `agent`); ids count up from 100 unless given."""
        if id is None:
            id = self.next_id
            self.next_id += 1
        msg = {"jsonrpc": "2.0", "id": id, "method": method, "params": params or {}}
        return self.a2c(msg, at_ms) if agent else self.c2a(msg, at_ms)

    def notify(
        self, method: str, params: dict[str, Any], *, agent: bool = True, at_ms: float | None = None
    ) -> int:
        """A notification (from the Agent unless told otherwise)."""
        msg = {"jsonrpc": "2.0", "method": method, "params": params}
        return self.a2c(msg, at_ms) if agent else self.c2a(msg, at_ms)

    def result(
        self, id: Any, result: Any = None, *, agent: bool = True, at_ms: float | None = None
    ) -> int:
        """A success response (from the Agent unless told otherwise)."""
        msg = {"jsonrpc": "2.0", "id": id, "result": {} if result is None else result}
        return self.a2c(msg, at_ms) if agent else self.c2a(msg, at_ms)

    def error(self, id: Any, code: int, *, agent: bool = True, at_ms: float | None = None) -> int:
        """An error response."""
        msg = {"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": "failed"}}
        return self.a2c(msg, at_ms) if agent else self.c2a(msg, at_ms)

    # -- ACP shapes ---------------------------------------------------------------------------

    def initialize(self, version: int = 2) -> int:
        """An `initialize` exchange whose result advertises the session methods; returns the
        request's line."""
        self.message_ids = version >= 2
        line = self.request(
            "initialize",
            {"protocolVersion": version, "info": {"name": "zed", "version": "1.0"}},
            id=0,
        )
        self.result(0, {"protocolVersion": version, **ADVERTISED[version >= 2],
                        "info": {"name": "test-agent", "version": "9.9"}})  # fmt: skip
        return line

    def new_session(self, session: str = SESSION) -> int:
        """`session/new` and its response creating `session`; returns the response's line."""
        self.request("session/new", {"cwd": "/"})
        return self.result(self.next_id - 1, {"sessionId": session})

    def resume(
        self,
        session: str = SESSION,
        *,
        replay: Any = True,
        id: Any = None,
        at_ms: float | None = None,
    ) -> int:
        """`session/resume` for `session`; `replay=True` sends `replayFrom: {"type": "start"}`."""
        params: dict[str, Any] = {"sessionId": session, "cwd": "/"}
        if replay is True:
            params["replayFrom"] = {"type": "start"}
        elif replay not in (False, None):
            params["replayFrom"] = replay
        return self.request("session/resume", params, id=id, at_ms=at_ms)

    def update(
        self, tag: str, session: str = SESSION, *, at_ms: float | None = None, **fields: Any
    ) -> int:
        """A `session/update` with this tag (a message update without a `messageId` gets one
        when `message_ids`: the chunks of one kind in a row share it)."""
        if self.message_ids and tag in MESSAGE_TAGS and "messageId" not in fields:
            fields["messageId"] = self._message_id(session, tag)
        fields = {**VALID_UPDATE.get(tag, {}), **fields}
        update = {"sessionUpdate": tag, **fields}
        return self.notify("session/update", {"sessionId": session, "update": update}, at_ms=at_ms)

    def _message_id(self, session: str, tag: str) -> str:
        """The `messageId` of a message update: its stream's, or a new one."""
        kind = tag.removesuffix("_chunk")
        streaming = self._streamed.get(session)
        if streaming is not None and streaming[0] == kind and tag.endswith("_chunk"):
            return streaming[1]
        message_id = f"msg_{len(self.lines) + 1}"
        self._streamed[session] = (kind, message_id)
        return message_id

    def marker(self, session: str = SESSION, at_ms: float | None = None) -> int:
        """A `replay_complete` update."""
        return self.update("replay_complete", session, at_ms=at_ms)

    def history(self, session: str = SESSION, count: int = 2) -> list[int]:
        """Some replayed history (user and agent messages)."""
        tags = ("user_message", "agent_message")
        return [self.update(tags[i % 2], session, messageId=f"m{i}") for i in range(count)]

    def prompt(self, session: str = SESSION, *, id: Any = None, at_ms: float | None = None) -> int:
        """A `session/prompt` for `session` (its id is `next_id` unless given)."""
        params = {"sessionId": session, "prompt": [{"type": "text", "text": "go on"}]}
        return self.request("session/prompt", params, id=id, at_ms=at_ms)

    def state(
        self,
        state: str,
        session: str = SESSION,
        *,
        stop_reason: str | None = None,
        at_ms: float | None = None,
    ) -> int:
        """A v2 `state_update` (`idle` ends a turn)."""
        fields: dict[str, Any] = {"state": state}
        if stop_reason is not None:
            fields["stopReason"] = stop_reason
        return self.update("state_update", session, at_ms=at_ms, **fields)

    def tool(
        self,
        call_id: str,
        session: str = SESSION,
        *,
        tag: str = "tool_call_update",
        at_ms: float | None = None,
        **fields: Any,
    ) -> int:
        """A tool call's update (`tag="tool_call"` as v1 creates one)."""
        return self.update(tag, session, at_ms=at_ms, toolCallId=call_id, **fields)

    def permission(
        self,
        call_id: str | None,
        session: str = SESSION,
        *,
        id: Any = None,
        v1: bool = False,
        at_ms: float | None = None,
    ) -> int:
        """The Agent's `session/request_permission` about a tool call (v2 `subject`, or v1
        `toolCall`), offering `allow` (allow_once) and `reject` (reject_once)."""
        options = [
            {"optionId": "allow", "name": "Allow", "kind": "allow_once"},
            {"optionId": "reject", "name": "Reject", "kind": "reject_once"},
        ]
        params: dict[str, Any] = {"sessionId": session, "options": options}
        call = {"toolCallId": call_id} if call_id is not None else {}
        if v1:
            params["toolCall"] = call
        else:
            params["title"] = "May I?"
            params["subject"] = {"type": "tool_call", "toolCall": call}
        return self.request("session/request_permission", params, id=id, agent=True, at_ms=at_ms)

    def choose(self, id: Any, option: str | None, *, at_ms: float | None = None) -> int:
        """The Client's answer to a permission request: an option chosen, or (None) cancelled."""
        if option is None:
            outcome: dict[str, Any] = {"outcome": "cancelled"}
        else:
            outcome = {"outcome": "selected", "optionId": option}
        return self.result(id, {"outcome": outcome}, agent=False, at_ms=at_ms)

    def announce(self, child: str, parent: str = SESSION) -> int:
        """A `subagent_update` on `parent` announcing `child`."""
        return self.update("subagent_update", parent, sessionId=child)

    # -- running it ---------------------------------------------------------------------------

    def text(self) -> bytes:
        """The transcript as bytes."""
        return b"".join(line + b"\n" for line in self.lines)

    def analyze(self, *, schema_rules: bool = False, **options: Any) -> Analysis:
        """Analyse the transcript with these options. The builder writes the members each rule
        reads, not whole schema-valid messages: the schema rules (rules.md §12) are left out
        unless `schema_rules` (their own tests build valid messages, tests/test_schema.py)."""
        if not schema_rules:
            options.setdefault("ignore", ())
            options["ignore"] = (*options["ignore"], "SCHEMA-")
        judged, run = options_and_execution(**options)
        return acptrace.analyze(io.BytesIO(self.text()), judged, execution=run)


def complete_connection(t: Transcript | None = None) -> Transcript:
    """A whole recorded connection with one good replaying resume: open, initialize, resume,
    history, marker, state, response, close (appended to `t`, or a new transcript)."""
    t = t if t is not None else Transcript()
    t.open()
    t.initialize()
    t.resume(id=3)
    t.history()
    t.marker()
    t.update("state_update")
    t.result(3)
    t.close()
    return t


def _rfc3339(ns: int) -> str:
    seconds, rest = divmod(ns, 1_000_000_000)
    moment = datetime.fromtimestamp(seconds, UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S") + f".{rest // 1000:06d}Z"


def findings(analysis: Analysis) -> list[tuple[str, str, int]]:
    """(rule, severity, line) of every finding."""
    return [(f.rule, f.severity.value, f.line) for f in analysis.findings]


def rule_ids(analysis: Analysis) -> set[str]:
    """The rule IDs found."""
    return {f.rule for f in analysis.findings}


RUN_FIELDS = frozenset(Execution.__struct_fields__)
"""The settings that say how to run (`Execution`), not what to judge (`Options`)."""


def options_and_execution(**given: Any) -> tuple[Options, Execution]:
    """What to judge and how to run, from one set of keyword arguments."""
    judged = {k: v for k, v in given.items() if k not in RUN_FIELDS}
    run = {k: v for k, v in given.items() if k in RUN_FIELDS}
    return Options(**judged), Execution(**run)
