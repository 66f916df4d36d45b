"""Seeded generator of realistic ACP v2 transcripts in the canonical acptrace format.

The output is one recorded connection as JSON Lines: a ``meta`` open record, an
``initialize`` exchange, many sessions (``session/new``, replaying and non-replaying
``session/resume``, prompt turns with streamed ``session/update`` notifications,
permission requests, subagent child sessions, ``session/close``), agent ``stderr``
lines, and a ``meta`` close record. Every record carries ``ts`` (RFC 3339 UTC with
microseconds) and a strictly increasing ``mono_ns``; ``ts`` is derived from it.

Without ``--faults`` the transcript is clean: every replaying resume gets exactly one
``replay_complete`` for its session (and one per announced child) after the replayed
history, then a ``state_update`` snapshot, then its success response. With
``--faults RATE`` each replaying resume gets, with probability RATE, one violation:
a missing marker, a duplicate marker, a never-history update (``state_update`` or
``notice``) before the marker, a permission request before the marker, or a
truncated replay (error ``-32603`` and no marker).

Two corpora (``--corpus``). ``realistic`` (the default) draws the kind of each streamed and
replayed update, and the size of its line, from ``real_mix.json``: a table derived from real
recordings (``../shared/real-world``, the nine agents of ``agents-2026-12/`` among them) by
``derive_mix.py`` and committed, so the generator needs no recordings to run. ``large`` is the
earlier mix: the updates the generator makes itself, with a long tail of large payloads
(mean ~730 bytes a line).

Command line::

    python benchmarks/generate.py --mb 100 --seed 1 -o out.jsonl
    python benchmarks/generate.py --sessions 5 --seed 7 -o -          # small sample
    python benchmarks/generate.py --mb 50 --faults 0.2 -o faulty.jsonl
    python benchmarks/generate.py --mb 100 --corpus large -o large.jsonl

``--mb`` keeps adding top-level sessions until at least that many megabytes
(10**6 bytes) are written, then closes the connection; ``--sessions N`` writes exactly
N top-level sessions (child sessions not counted). The same arguments give the same
bytes. From Python::

    from benchmarks.generate import generate
    with open("out.jsonl", "wb") as fh:
        generate(fh, mb=10, sessions=None, seed=1)

Only the standard library and orjson are used.
"""

from __future__ import annotations

import argparse
import calendar
import json
import math
import os
import random
import sys
import time
import uuid
from dataclasses import dataclass, field
from typing import Any, BinaryIO

import orjson

MB = 1_000_000
"""Bytes per ``--mb`` unit."""

CORPORA = ("realistic", "large")
"""What ``--corpus`` takes (the first is the default)."""
REVISIONS = {"realistic": 2, "large": 1}
"""Each corpus's revision: it moves when the same seed gives other bytes (benchmark files are
named by it, so that none generated before is measured as today's). Realistic 2: its updates
have the v2 shapes real v2 Agents send (before, v1 shapes in a v2 connection, which the schema
check reported on every kind)."""
REAL_MIX = os.path.join(os.path.dirname(os.path.abspath(__file__)), "real_mix.json")
"""The table of update kinds and line sizes of real recordings (``derive_mix.py``)."""
STRUCTURAL_TAGS = frozenset({"replay_complete", "state_update", "subagent_update"})
"""Update kinds the generator places itself (markers, snapshots, children), never drawn."""
LIVE_ONLY_TAGS = frozenset(
    {
        "available_commands_update",
        "config_option_update",
        "notice",
        "prompt_suggestions_update",
        "session_info_update",
        "usage_update",
    }
)
"""Update kinds never replayed as history (acptrace's default live tags)."""

FAULT_KINDS = (
    "missing_marker",
    "duplicate_marker",
    "not_history",
    "request_before_marker",
    "truncated",
)
"""Violations that ``--faults`` injects, one per faulted replaying resume."""

_S = 1_000_000_000
_FLUSH_BYTES = 8 << 20
_BASE_WALL_US = calendar.timegm((2026, 12, 2, 9, 0, 0)) * 1_000_000  # seeds add up to 8 h
_MAX_DEPTH = 2  # parent -> child -> grandchild

_Json = dict[str, Any]

# --------------------------------------------------------------------------- text


_VOCABULARY = """the a an of to in for with and or not this that it is are was be by on as at
    session agent client replay marker history update tool call file path function
    return value config parser module test build error warning result output input
    stream buffer request response cursor resume prompt message chunk plan step check
    fix refactor rename import export type interface struct method field index cache
    queue lock retry timeout handler schema version migrate deploy review commit branch
    diff patch merge conflict log trace span metric latency throughput benchmark"""
_WORDS = tuple(_VOCABULARY.split())
_EXOTIC = (
    "café",
    "naïve",
    "résumé",
    "Zürich",
    "中文",
    "测试用例",
    "日本語",
    "한국어",
    "Ελληνικά",
    "русский",
    "🚀",
    "✅",
    "🔥",
    "👩\u200d💻",
    "🇫🇷",
    "→",
    "≤",
    "—",
    "“smart quotes”",
    "…",
)
_SNIPPETS = (
    "def load(path):\n    with open(path) as fh:\n        return json.load(fh)\n",
    'print("hello, \\"world\\"")',
    "const re = /\\d+\\.\\d*/g;\nconsole.log(`total: ${n}`);",
    '{"key": "value", "nested": {"list": [1, 2, 3], "ok": true}}',
    "C:\\Users\\dev\\project\\src\\main.rs",
    "\tcol_a\tcol_b\tcol_c\n\t1\t2\t3",
    "SELECT * FROM users WHERE name = 'O''Brien' AND note LIKE '%\\_%';",
    "\x1b[32mPASS\x1b[0m tests/test_replay.py::test_marker_once (0.12s)",
    "\x1b[31mFAIL\x1b[0m tests/test_resume.py::test_truncated - AssertionError",
    "--- a/src/app.py\n+++ b/src/app.py\n@@ -10,7 +10,7 @@\n-    return None\n+    return result\n",
    'fn main() {\n    println!("{}", "done");\n}\n',
    "error[E0308]: mismatched types\n  --> src/lib.rs:42:9\n   |\n42 |     x\n",
)
_PATHS = (
    "src/main.rs",
    "src/lib.rs",
    "src/replay/marker.ts",
    "acp/session.py",
    "tests/test_resume.py",
    "docs/protocol/v2/session-setup.mdx",
    "package.json",
    "README.md",
    "crates/agent/src/transport.rs",
    "web/src/components/Transcript.tsx",
)
_COMMANDS = (
    "cargo test --workspace",
    "npm run build",
    "pytest -q tests/",
    "git status --short",
    "rg -n replay_complete src",
    "ls -la",
    "make lint",
    "go test ./...",
)
_PLAN_STEPS = (
    "Read the session setup code",
    "Find where replay ends",
    "Add the replay_complete update",
    "Buffer live updates during replay",
    "Write tests for child sessions",
    "Run the test suite",
    "Update the documentation",
    "Check error handling for truncated replays",
)
_SUBAGENT_TITLES = (
    "Explore codebase",
    "Review changes",
    "Run test suite",
    "Investigate failing build",
    "Search documentation",
)
_AVAILABLE_COMMANDS: tuple[_Json, ...] = (
    {"type": "command", "name": "compact", "description": "Summarize and clear context"},
    {"type": "command", "name": "init", "description": "Create a CLAUDE.md file"},
    {"type": "command", "name": "review", "description": "Review a pull request"},
    {"type": "command", "name": "pr-comments", "description": "Get PR comments"},
)
_PERMISSION_OPTIONS: tuple[_Json, ...] = (
    {"optionId": "allow-once", "name": "Allow once", "kind": "allow_once"},
    {"optionId": "allow-always", "name": "Always allow", "kind": "allow_always"},
    {"optionId": "reject-once", "name": "Reject", "kind": "reject_once"},
)
_RUNNING: _Json = {"sessionUpdate": "state_update", "state": "running"}
_IDLE_END: _Json = {"sessionUpdate": "state_update", "state": "idle", "stopReason": "end_turn"}
_IDLE: _Json = {"sessionUpdate": "state_update", "state": "idle"}
_MARKER: _Json = {"sessionUpdate": "replay_complete"}


def _make_text(rng: random.Random, length: int) -> str:
    """Return prose of at least ``length`` characters with code, escapes and non-ASCII."""
    parts: list[str] = []
    size = 0
    while size < length:
        r = rng.random()
        if r < 0.04:
            piece = "\n```\n" + rng.choice(_SNIPPETS) + "\n```\n"
        elif r < 0.10:
            piece = rng.choice(_EXOTIC)
        elif r < 0.14:
            piece = rng.choice(("\n\n", "\n- ", '"', "'", "\\", "\t"))
        else:
            piece = rng.choice(_WORDS)
        parts.append(piece)
        size += len(piece) + 1
    return " ".join(parts)


def _fragment(rng: random.Random, text: str) -> orjson.Fragment:
    """Encode ``text`` once as a JSON string: raw UTF-8 or, sometimes, \\u-escaped ASCII."""
    if rng.random() < 0.25:
        return orjson.Fragment(json.dumps(text, ensure_ascii=True).encode())
    return orjson.Fragment(orjson.dumps(text))


def _pool(rng: random.Random, count: int, lo: int, hi: int) -> tuple[orjson.Fragment, ...]:
    """Pre-encode ``count`` texts with lengths log-uniform in [lo, hi]."""
    span = math.log(hi) - math.log(lo)
    return tuple(
        _fragment(rng, _make_text(rng, int(lo * math.exp(span * rng.random()))))
        for _ in range(count)
    )


@dataclass(frozen=True)
class _TextPool:
    """Pre-encoded text payloads; the hot path only picks from them."""

    chunks: tuple[orjson.Fragment, ...]
    prompts: tuple[orjson.Fragment, ...]
    bodies: tuple[orjson.Fragment, ...]
    large: tuple[orjson.Fragment, ...]

    @classmethod
    def build(cls, rng: random.Random) -> _TextPool:
        return cls(
            chunks=_pool(rng, 384, 2, 120),
            prompts=_pool(rng, 128, 12, 600),
            bodies=_pool(rng, 256, 60, 2_400),
            large=_pool(rng, 32, 3_000, 64_000),
        )

    def chunk(self, rng: random.Random) -> orjson.Fragment:
        r = rng.random()
        if r < 0.002:
            return rng.choice(self.large)
        if r < 0.02:
            return rng.choice(self.bodies)
        return rng.choice(self.chunks)

    def prompt(self, rng: random.Random) -> orjson.Fragment:
        return rng.choice(self.large if rng.random() < 0.01 else self.prompts)

    def body(self, rng: random.Random) -> orjson.Fragment:
        return rng.choice(self.large if rng.random() < 0.04 else self.bodies)


class _RealMix:
    """Update kinds and line sizes drawn from ``real_mix.json`` (the ``realistic`` corpus)."""

    def __init__(self, rng: random.Random, path: str = REAL_MIX) -> None:
        with open(path, "rb") as fh:
            table = orjson.loads(fh.read())
        kinds = {
            kind: entry
            for kind, entry in table["update_kinds"].items()
            if kind not in STRUCTURAL_TAGS
        }
        self.sizes = {kind: entry["sizes"] for kind, entry in kinds.items()}
        self.live = (list(kinds), [entry["lines"] for entry in kinds.values()])
        history = [kind for kind in kinds if kind not in LIVE_ONLY_TAGS]
        self.history = (history, [kinds[kind]["lines"] for kind in history])
        self.non_ascii: float = table["non_ascii_share"]
        """The share of lines with bytes other than ASCII."""
        self.text = _make_text(rng, 200_000)
        """Prose (with code, escapes, non-ASCII) that those lines' payloads are cut from."""
        self.ascii = self.text.encode("ascii", "ignore").decode()
        """The same prose without its non-ASCII characters, for the other lines."""

    def kind(self, rng: random.Random, *, history: bool) -> str:
        kinds, weights = self.history if history else self.live
        kind: str = rng.choices(kinds, weights)[0]
        return kind

    def size(self, rng: random.Random, kind: str) -> int:
        """A line size for ``kind``: between two neighbouring quantiles, uniformly."""
        sizes = self.sizes[kind]
        at = rng.random() * (len(sizes) - 1)
        low = int(at)
        high = min(low + 1, len(sizes) - 1)
        return int(sizes[low] + (sizes[high] - sizes[low]) * (at - low))

    def payload(self, rng: random.Random, length: int) -> str:
        text = self.text if rng.random() < self.non_ascii else self.ascii
        length = max(1, length)
        start = rng.randrange(len(text) - length) if length < len(text) else 0
        return text[start : start + length]


# --------------------------------------------------------------------------- output

_MSG_LINE = b'{"ts":"%b.%06dZ","mono_ns":%d,"dir":"%b","msg":%b}\n'
_UPDATE_LINE = (
    b'{"ts":"%b.%06dZ","mono_ns":%d,"dir":"a2c","msg":{"jsonrpc":"2.0",'
    b'"method":"session/update","params":{"sessionId":"%b","update":%b}}}\n'
)


class _Sink:
    """Buffered writer of canonical records, driven by a simulated monotonic clock."""

    def __init__(self, out: BinaryIO, rng: random.Random) -> None:
        self._out = out
        self._parts: list[bytes] = []
        self._pending = 0
        self.total = 0
        self.mono = rng.randrange(50 * _S, 5_000 * _S)
        self._mono0 = self.mono
        self._last = self.mono - 1
        self._wall0_us = _BASE_WALL_US + rng.randrange(8 * 3_600_000_000)
        self._second = -1
        self._prefix = b""

    def _stamp(self) -> tuple[bytes, int, int]:
        """Return (``ts`` up to the second, microseconds, ``mono_ns``) for a new record."""
        if self.mono <= self._last:
            self.mono = self._last + 1_000
        self._last = mono = self.mono
        second, micros = divmod(self._wall0_us + (mono - self._mono0) // 1_000, 1_000_000)
        if second != self._second:
            self._second = second
            self._prefix = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(second)).encode()
        return self._prefix, micros, mono

    def _write(self, line: bytes) -> None:
        self._parts.append(line)
        self._pending += len(line)
        self.total += len(line)
        if self._pending >= _FLUSH_BYTES:
            self.flush()

    def flush(self) -> None:
        if self._parts:
            self._out.write(b"".join(self._parts))
            self._parts.clear()
            self._pending = 0

    def message(self, direction: bytes, msg: _Json) -> None:
        prefix, micros, mono = self._stamp()
        self._write(_MSG_LINE % (prefix, micros, mono, direction, orjson.dumps(msg)))

    def update(self, session_id: str, update: _Json) -> None:
        prefix, micros, mono = self._stamp()
        body = orjson.dumps(update)
        self._write(_UPDATE_LINE % (prefix, micros, mono, session_id.encode(), body))

    def record(self, direction: str, fields: _Json) -> None:
        """Write a non-message record (``meta`` or ``stderr``)."""
        prefix, micros, mono = self._stamp()
        ts = f"{prefix.decode()}.{micros:06d}Z"
        head = {"ts": ts, "mono_ns": mono, "dir": direction}
        self._write(orjson.dumps(head | fields, option=orjson.OPT_APPEND_NEWLINE))


# --------------------------------------------------------------------------- generator


class _Truncated(Exception):
    """Raised inside a replay to cut it short (the ``truncated`` fault)."""


@dataclass
class Stats:
    """What one generated transcript contains."""

    sessions: int = 0
    prompts: int = 0
    resumes: int = 0
    replaying_resumes: int = 0
    child_sessions: int = 0
    replayed_updates: int = 0
    faults: dict[str, int] = field(default_factory=dict)
    bytes: int = 0


class _Generator:
    """Builds one connection; each method writes one protocol episode."""

    def __init__(
        self,
        sink: _Sink,
        rng: random.Random,
        *,
        faults: float,
        agent: str,
        agent_version: str,
        corpus: str = CORPORA[0],
    ) -> None:
        self.sink = sink
        self.rng = rng
        self.rand = rng.random
        self.pool = _TextPool.build(rng)
        self.mix = _RealMix(rng) if corpus == "realistic" else None
        self.faults = faults
        self.agent = agent
        self.agent_version = agent_version
        self.stats = Stats()
        self.cwd = "/home/dev/src/" + rng.choice(("acme-api", "webapp", "acp-rs", "tools"))
        self._salt = f"{rng.getrandbits(32):08x}"
        self._counter = 0
        self._client_id = 0
        self._agent_id = 0
        # replay bookkeeping
        self._replayed = 0
        self._fault: str | None = None
        self._fault_at = -1
        self._fault_session = ""
        self._deferred_markers: list[str] = []

    # ----------------------------------------------------------------- primitives

    def _wait(self, lo: float, hi: float) -> None:
        """Advance the clock by a uniform delay in [lo, hi] seconds."""
        self.sink.mono += int((lo + (hi - lo) * self.rand()) * _S)

    def _id(self, prefix: str) -> str:
        self._counter += 1
        return f"{prefix}_01{self._salt}{self._counter:08x}"

    def _session_id(self) -> str:
        return str(uuid.UUID(int=self.rng.getrandbits(128), version=4))

    def _send(self, session_id: str, update: _Json, lo: float = 0.0005, hi: float = 0.02) -> None:
        """A live ``session/update`` from the agent after a short delay."""
        self._wait(lo, hi)
        self.sink.update(session_id, update)

    def _client_request(self, method: str, params: _Json) -> int:
        rid = self._client_id
        self._client_id += 1
        self.sink.message(b"c2a", {"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        return rid

    def _agent_request(self, method: str, params: _Json) -> int:
        rid = self._agent_id
        self._agent_id += 1
        self.sink.message(b"a2c", {"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        return rid

    def _agent_result(self, rid: int, result: _Json) -> None:
        self.sink.message(b"a2c", {"jsonrpc": "2.0", "id": rid, "result": result})

    def _agent_error(self, rid: int, code: int, message: str) -> None:
        error = {"code": code, "message": message}
        self.sink.message(b"a2c", {"jsonrpc": "2.0", "id": rid, "error": error})

    def _client_result(self, rid: int, result: _Json) -> None:
        self.sink.message(b"c2a", {"jsonrpc": "2.0", "id": rid, "result": result})

    def _stderr(self, text: str) -> None:
        self._wait(0.0001, 0.01)
        self.sink.record("stderr", {"text": text})

    # ----------------------------------------------------------------- connection

    def run(self, *, mb: float | None, sessions: int | None) -> Stats:
        target = None if mb is None else mb * MB
        self._open()
        count = 0
        while (sessions is None or count < sessions) and (
            target is None or self.sink.total < target
        ):
            self._top_level_session(count)
            count += 1
        self._close()
        self.stats.sessions = count
        self.stats.bytes = self.sink.total
        return self.stats

    def _open(self) -> None:
        self.sink.record("meta", {"event": "open", "argv": [self.agent]})
        self._stderr(f"[{self.agent}] starting v{self.agent_version} (protocol 2)")
        self._wait(0.05, 0.4)
        client = {"name": "zed", "title": "Zed", "version": "0.214.3"}
        params = {"protocolVersion": 2, "info": client, "capabilities": {}}
        rid = self._client_request("initialize", params)
        self._wait(0.01, 0.3)
        self._agent_result(rid, self._initialize_result())

    def _initialize_result(self) -> _Json:
        info: _Json = {"name": self.agent, "version": self.agent_version}
        if self.agent == "claude-agent-acp":
            info["title"] = "Claude Agent"
        session: _Json = {
            "prompt": {"image": {}, "embeddedContext": {}},
            "mcp": {"stdio": {}, "http": {}},
            "additionalDirectories": {},
        }
        return {
            "protocolVersion": 2,
            "info": info,
            "capabilities": {"session": session},
            "authMethods": [],
        }

    def _close(self) -> None:
        self._wait(1.0, 30.0)
        self._stderr(f"[{self.agent}] stdin closed, shutting down")
        self._wait(0.01, 0.2)
        self.sink.record("meta", {"event": "close", "reason": "client_closed", "exit_code": 0})
        self.sink.flush()

    def _top_level_session(self, index: int) -> None:
        """One top-level session: create or resume it, prompt it, maybe close it."""
        if index == 0:
            self._wait(0.5, 5.0)
        else:
            self._wait(2.0, 120.0)
        kinds = ("replay", "new", "plain")
        kind = kinds[index] if index < len(kinds) else self._pick_kind()
        if kind == "new":
            session_id = self._new_session()
            prompts = 1 + min(int(self.rng.expovariate(0.35)), 11)
        else:
            session_id = self._session_id()
            if not self._resume(session_id, replay=kind == "replay"):
                return
            prompts = min(int(self.rng.expovariate(0.7)), 6)
        for _ in range(prompts):
            self._prompt_turn(session_id)
        if self.rand() < 0.3:
            self._close_session(session_id)

    def _pick_kind(self) -> str:
        r = self.rand()
        return "new" if r < 0.45 else "replay" if r < 0.9 else "plain"

    def _new_session(self) -> str:
        params: _Json = {"cwd": self.cwd, "mcpServers": self._mcp_servers()}
        rid = self._client_request("session/new", params)
        self._wait(0.2, 1.5)
        session_id = self._session_id()
        self._agent_result(rid, {"sessionId": session_id})
        if self.rand() < 0.6:
            self._send(session_id, self._commands_update())
        return session_id

    def _close_session(self, session_id: str) -> None:
        self._wait(1.0, 60.0)
        rid = self._client_request("session/close", {"sessionId": session_id})
        self._wait(0.001, 0.05)
        self._agent_result(rid, {})

    def _mcp_servers(self) -> list[_Json]:
        if self.rand() < 0.7:
            return []
        server = {
            "type": "stdio",
            "name": "workspace-tools",
            "command": "/usr/local/bin/mcp-workspace",
            "args": ["--stdio"],
            "env": [],
        }
        return [server]

    def _commands_update(self) -> _Json:
        return {
            "sessionUpdate": "available_commands_update",
            "availableCommands": list(_AVAILABLE_COMMANDS),
        }

    # ----------------------------------------------------------------- live prompt turns

    def _prompt_turn(self, session_id: str) -> None:
        """``session/prompt``: echo, running, acknowledgement, work, usage, idle."""
        self._wait(2.0, 90.0)
        self.stats.prompts += 1
        message_id = self._id("msg")
        block = {"type": "text", "text": self.pool.prompt(self.rng)}
        params = {"sessionId": session_id, "prompt": [block]}
        rid = self._client_request("session/prompt", params)
        self._send(
            session_id,
            {"sessionUpdate": "user_message", "messageId": message_id, "content": [block]},
        )
        self._send(session_id, _RUNNING)
        self._wait(0.0005, 0.01)
        self._agent_result(rid, {"messageId": message_id})
        self._live_work(session_id, depth=0)
        self._send(session_id, self._usage_update())
        self._send(session_id, _IDLE_END)
        if self.rand() < 0.1:
            self._send(
                session_id, {"sessionUpdate": "session_info_update", "title": "Fix replay marker"}
            )

    def _live_work(self, session_id: str, depth: int) -> None:
        """The agent's foreground work: thoughts, plan, tool calls, subagents, answer."""
        if self.mix is not None:
            self._real_live_work(session_id, depth)
            return
        if self.rand() < 0.6:
            self._stream(session_id, "agent_thought_chunk", 1, 12)
        plan_id = self._id("plan") if self.rand() < 0.3 else None
        if plan_id:
            self._send(session_id, self._plan_update(plan_id, done=0))
        steps = 1 + min(int(self.rng.expovariate(0.4)), 9)
        for step in range(steps):
            r = self.rand()
            if r < 0.05 and depth < _MAX_DEPTH:
                self._live_subagent(session_id, depth)
            elif r < 0.75:
                self._live_tool_call(session_id)
            else:
                self._stream(session_id, "agent_message_chunk", 1, 8)
            if plan_id and self.rand() < 0.5:
                self._send(session_id, self._plan_update(plan_id, done=step + 1))
        self._stream(session_id, "agent_message_chunk", 2, 40)

    def _stream(self, session_id: str, tag: str, lo: int, hi: int) -> None:
        """A streamed message: ``lo``..``hi`` chunks sharing one ``messageId``."""
        message_id = self._id("msg")
        for _ in range(self.rng.randint(lo, hi)):
            text = self.pool.chunk(self.rng)
            update = {
                "sessionUpdate": tag,
                "messageId": message_id,
                "content": {"type": "text", "text": text},
            }
            self._send(session_id, update, 0.005, 0.08)

    def _tool(self) -> tuple[str, str, str, _Json]:
        """A random tool: (kind, name, title, rawInput)."""
        r = self.rand()
        path = self.rng.choice(_PATHS)
        if r < 0.35:
            return "read", "Read", f"Read {path}", {"file_path": f"{self.cwd}/{path}"}
        if r < 0.55:
            return "edit", "Edit", f"Edit {path}", {"file_path": f"{self.cwd}/{path}"}
        if r < 0.75:
            command = self.rng.choice(_COMMANDS)
            return "execute", "Bash", f"`{command}`", {"command": command}
        if r < 0.9:
            word = self.rng.choice(_WORDS)
            return "search", "Grep", f'grep "{word}"', {"pattern": word, "path": self.cwd}
        if r < 0.95:
            return (
                "fetch",
                "WebFetch",
                "Fetch ACP docs",
                {"url": "https://agentclientprotocol.com/llms.txt"},
            )
        return "think", "TodoWrite", "Update todos", {"todos": list(_PLAN_STEPS[:3])}

    def _live_tool_call(self, session_id: str) -> None:
        tool_id = self._id("toolu")
        kind, name, title, raw_input = self._tool()
        pending = {
            "sessionUpdate": "tool_call_update",
            "toolCallId": tool_id,
            "name": name,
            "title": title,
            "kind": kind,
            "status": "pending",
            "rawInput": raw_input,
        }
        self._send(session_id, pending, 0.01, 0.5)
        if (
            kind in ("edit", "execute")
            and self.rand() < 0.4
            and not self._ask_permission(session_id, tool_id, title)
        ):
            self._send(
                session_id, self._tool_done(tool_id, "failed", "The user rejected this tool call.")
            )
            return
        self._send(
            session_id,
            {"sessionUpdate": "tool_call_update", "toolCallId": tool_id, "status": "in_progress"},
        )
        if kind == "execute":
            for _ in range(self.rng.randint(0, 6)):
                chunk = {
                    "type": "content",
                    "content": {"type": "text", "text": self.pool.chunk(self.rng)},
                }
                self._send(
                    session_id,
                    {
                        "sessionUpdate": "tool_call_content_chunk",
                        "toolCallId": tool_id,
                        "content": chunk,
                    },
                    0.01,
                    1.0,
                )
        self._wait(0.01, 3.0)
        self._send(session_id, self._tool_done(tool_id, "completed", self.pool.body(self.rng)))

    def _tool_done(self, tool_id: str, status: str, text: str | orjson.Fragment) -> _Json:
        content = [{"type": "content", "content": {"type": "text", "text": text}}]
        return {
            "sessionUpdate": "tool_call_update",
            "toolCallId": tool_id,
            "status": status,
            "content": content,
        }

    def _ask_permission(self, session_id: str, tool_id: str, title: str) -> bool:
        """Agent asks, client answers after a human delay; True when allowed."""
        self._send(session_id, {"sessionUpdate": "state_update", "state": "requires_action"})
        rid = self._request_permission(session_id, tool_id, title)
        self._wait(0.4, 15.0)
        option = self.rng.choices(_PERMISSION_OPTIONS, weights=(70, 15, 15))[0]["optionId"]
        self._client_result(rid, {"outcome": {"outcome": "selected", "optionId": option}})
        allowed = not option.startswith("reject")
        if allowed:
            self._send(session_id, _RUNNING)
        return allowed

    def _request_permission(self, session_id: str, tool_id: str, title: str) -> int:
        self._wait(0.0005, 0.01)
        params = {
            "sessionId": session_id,
            "title": f"Allow {title}?",
            "subject": {"type": "tool_call", "toolCall": {"toolCallId": tool_id}},
            "options": list(_PERMISSION_OPTIONS),
        }
        return self._agent_request("session/request_permission", params)

    def _live_subagent(self, session_id: str, depth: int) -> None:
        """A Task tool call that announces a child session and runs it to idle."""
        self.stats.child_sessions += 1
        tool_id = self._id("toolu")
        title = self.rng.choice(_SUBAGENT_TITLES)
        start = {
            "sessionUpdate": "tool_call_update",
            "toolCallId": tool_id,
            "name": "Task",
            "title": title,
            "kind": "other",
            "status": "in_progress",
        }
        self._send(session_id, start)
        child = self._session_id()
        announce = {
            "sessionUpdate": "subagent_update",
            "sessionId": child,
            "title": title,
            "state": {"state": "running"},
        }
        self._send(session_id, announce)
        self._send(child, _RUNNING)
        task = {"type": "text", "text": self.pool.prompt(self.rng)}
        self._send(
            child,
            {"sessionUpdate": "user_message", "messageId": self._id("msg"), "content": [task]},
        )
        self._live_work(child, depth + 1)
        self._send(child, _IDLE_END)
        finished = {
            "sessionUpdate": "subagent_update",
            "sessionId": child,
            "state": {"state": "idle", "stopReason": "end_turn"},
        }
        self._send(session_id, finished)
        self._send(session_id, self._tool_done(tool_id, "completed", self.pool.body(self.rng)))

    def _plan_update(self, plan_id: str, done: int) -> _Json:
        steps = _PLAN_STEPS[: 3 + int(plan_id[-1], 16) % 4]
        entries = [
            {
                "content": content,
                "priority": ("high", "medium", "low")[min(i, 2)],
                "status": "completed" if i < done else "in_progress" if i == done else "pending",
            }
            for i, content in enumerate(steps)
        ]
        return {
            "sessionUpdate": "plan_update",
            "plan": {"type": "items", "planId": plan_id, "entries": entries},
        }

    def _usage_update(self) -> _Json:
        used = self.rng.randrange(8_000, 190_000)
        cost = {"amount": round(used * 0.0000031, 4), "currency": "USD"}
        return {"sessionUpdate": "usage_update", "used": used, "size": 200_000, "cost": cost}

    # ----------------------------------------------------------------- resume

    def _resume(self, session_id: str, *, replay: bool) -> bool:
        """``session/resume``; returns whether the session is active afterwards."""
        self.stats.resumes += 1
        params: _Json = {
            "sessionId": session_id,
            "cwd": self.cwd,
            "mcpServers": self._mcp_servers(),
        }
        if replay:
            params["replayFrom"] = {"type": "start"}
        rid = self._client_request("session/resume", params)
        if not replay:
            self._finish_resume(rid, session_id, snapshot=_IDLE)
            return True
        self.stats.replaying_resumes += 1
        return self._replaying_resume(rid, session_id)

    def _replaying_resume(self, rid: int, session_id: str) -> bool:
        target = self._replay_length()
        self._arm_fault(session_id, target)
        inflight = target > 0 and self.rand() < 0.04
        if self.rand() < 0.8:
            self._wait(0.001, 0.03)
        else:
            self._wait(0.1, 0.8)  # cold transcript read
        try:
            self._replay_history(session_id, target, depth=0)
            inflight_id = self._replay_partial_message(session_id) if inflight else None
            if self._fault_at >= 0:  # history shorter than the fault position
                self._fire_fault()
        except _Truncated:
            self._deferred_markers.clear()
            self._wait(0.001, 0.2)
            self._stderr(f"[{self.agent}] failed to read transcript for {session_id}")
            self._agent_error(rid, -32603, "Internal error: failed to read session transcript")
            return False
        for child in self._deferred_markers:
            self._replay_marker(child)
        self._deferred_markers.clear()
        if self._fault != "missing_marker":
            self._replay_marker(session_id)
        if self._fault == "duplicate_marker":
            self._replay_marker(session_id)
        if inflight_id:
            self._stream_into(session_id, inflight_id, 1, 5)
        if self.rand() < 0.02:
            gap = {
                "sessionUpdate": "notice",
                "severity": "warning",
                "title": "Some earlier history was not retained",
            }
            self._send(session_id, gap)
        self._finish_resume(rid, session_id, snapshot=_RUNNING if inflight_id else _IDLE_END)
        if inflight_id:
            self._stream_into(session_id, inflight_id, 2, 20)
            self._send(session_id, self._usage_update())
            self._send(session_id, _IDLE_END)
        return True

    def _finish_resume(self, rid: int, session_id: str, snapshot: _Json) -> None:
        """The agent's slow setup, held updates, the state snapshot, then ``{}``."""
        if self.rand() < 0.85:
            self._wait(0.7, 1.9)
        else:
            self._wait(4.0, 9.0)
        if self.rand() < 0.3:
            self._stderr(f"[{self.agent}] session {session_id} ready")
        if self.rand() < 0.5:
            self._send(session_id, self._commands_update(), 0.0001, 0.002)
        self._send(session_id, snapshot, 0.0001, 0.002)
        self._wait(0.0001, 0.003)
        self._agent_result(rid, {})

    def _replay_length(self) -> int:
        """Target number of replayed updates: some empty, mostly hundreds, a long tail."""
        r = self.rand()
        if r < 0.03:
            return 0
        if r < 0.2:
            return self.rng.randint(1, 60)
        if r < 0.8:
            return self.rng.randint(100, 800)
        return int(800 * math.exp(math.log(6) * self.rand()))

    def _arm_fault(self, session_id: str, target: int) -> None:
        self._fault = None
        self._fault_at = -1
        if self.faults > 0 and self.rand() < self.faults:
            self._fault = self.rng.choice(FAULT_KINDS)
            self._fault_at = self._replayed + self.rng.randrange(max(target, 1))
            self._fault_session = session_id
            self.stats.faults[self._fault] = self.stats.faults.get(self._fault, 0) + 1

    def _fire_fault(self) -> None:
        """Inject the armed fault at the current point of the replay."""
        self._fault_at = -1
        session_id = self._fault_session
        if self._fault == "truncated":
            raise _Truncated
        if self._fault == "not_history":
            if self.rand() < 0.5:
                self._send(session_id, _RUNNING, 0.00002, 0.0003)
            else:
                notice = {
                    "sessionUpdate": "notice",
                    "severity": "info",
                    "title": "Reconnected to Claude CLI",
                }
                self._send(session_id, notice, 0.00002, 0.0003)
        elif self._fault == "request_before_marker":
            rid = self._request_permission(
                session_id, self._id("toolu"), "`cargo test --workspace`"
            )
            self._wait(0.2, 3.0)
            self._client_result(rid, {"outcome": {"outcome": "selected", "optionId": "allow-once"}})

    def _replay_marker(self, session_id: str) -> None:
        self._send(session_id, _MARKER, 0.00002, 0.0003)

    # ----------------------------------------------------------------- replayed history

    def _replayed_update(self, session_id: str, update: _Json) -> None:
        """One history update: fast, with an occasional page-fetch pause."""
        if self._replayed == self._fault_at:
            self._fire_fault()
        self._replayed += 1
        self.stats.replayed_updates += 1
        if self._replayed % 200 == 0 and self.rand() < 0.5:
            self._wait(0.005, 0.05)
        else:
            self._wait(0.00002, 0.0004)
        self.sink.update(session_id, update)

    def _replay_history(self, session_id: str, target: int, depth: int) -> None:
        start = self._replayed
        while self._replayed - start < target:
            self._replay_turn(session_id, depth)

    def _replay_turn(self, session_id: str, depth: int) -> None:
        """One past turn as history-capable updates."""
        if self.mix is not None:
            self._real_replay_turn(session_id, depth)
            return
        prompt = [{"type": "text", "text": self.pool.prompt(self.rng)}]
        self._replayed_update(
            session_id,
            {"sessionUpdate": "user_message", "messageId": self._id("msg"), "content": prompt},
        )
        if self.rand() < 0.5:
            self._replay_message(session_id, "agent_thought")
        if self.rand() < 0.15:
            plan = self._plan_update(self._id("plan"), done=99)
            self._replayed_update(session_id, plan)
        for _ in range(min(int(self.rng.expovariate(0.4)), 12)):
            self._replay_tool_call(session_id)
        if depth < _MAX_DEPTH and self.rand() < 0.04:
            self._replay_child(session_id, depth)
        self._replay_message(session_id, "agent_message")

    def _replay_message(self, session_id: str, tag: str) -> None:
        """A past message, whole (``agent_message``) or as its chunks."""
        message_id = self._id("msg")
        if self.rand() < 0.6:
            content = [{"type": "text", "text": self.pool.body(self.rng)}]
            self._replayed_update(
                session_id, {"sessionUpdate": tag, "messageId": message_id, "content": content}
            )
            return
        for _ in range(self.rng.randint(1, 25)):
            chunk = {"type": "text", "text": self.pool.chunk(self.rng)}
            self._replayed_update(
                session_id,
                {"sessionUpdate": f"{tag}_chunk", "messageId": message_id, "content": chunk},
            )

    def _replay_tool_call(self, session_id: str) -> None:
        tool_id = self._id("toolu")
        kind, name, title, raw_input = self._tool()
        if self.rand() < 0.3:
            start = {
                "sessionUpdate": "tool_call_update",
                "toolCallId": tool_id,
                "name": name,
                "title": title,
                "kind": kind,
                "status": "pending",
                "rawInput": raw_input,
            }
            self._replayed_update(session_id, start)
            self._replayed_update(
                session_id, self._tool_done(tool_id, "completed", self.pool.body(self.rng))
            )
            return
        update = self._tool_done(
            tool_id, "completed" if self.rand() < 0.95 else "failed", self.pool.body(self.rng)
        )
        update |= {"name": name, "title": title, "kind": kind, "rawInput": raw_input}
        self._replayed_update(session_id, update)

    def _replay_child(self, session_id: str, depth: int) -> None:
        """Announce a past child, replay its history, and mark it (now or before the parent)."""
        self.stats.child_sessions += 1
        child = self._session_id()
        title = self.rng.choice(_SUBAGENT_TITLES)
        state = {"state": "idle", "stopReason": "end_turn"}
        self._replayed_update(
            session_id,
            {
                "sessionUpdate": "subagent_update",
                "sessionId": child,
                "title": title,
                "state": state,
            },
        )
        self._replay_history(child, self.rng.randint(0, 80), depth + 1)
        if self.rand() < 0.3:
            self._deferred_markers.append(child)
            return
        self._replay_marker(child)
        if self.rand() < 0.5:
            self._send(child, _IDLE_END, 0.00002, 0.0003)

    def _replay_partial_message(self, session_id: str) -> str:
        """Foreground work still running at the resume: replay the message so far."""
        prompt = [{"type": "text", "text": self.pool.prompt(self.rng)}]
        self._replayed_update(
            session_id,
            {"sessionUpdate": "user_message", "messageId": self._id("msg"), "content": prompt},
        )
        message_id = self._id("msg")
        for _ in range(self.rng.randint(1, 10)):
            chunk = {"type": "text", "text": self.pool.chunk(self.rng)}
            self._replayed_update(
                session_id,
                {"sessionUpdate": "agent_message_chunk", "messageId": message_id, "content": chunk},
            )
        return message_id

    def _stream_into(self, session_id: str, message_id: str, lo: int, hi: int) -> None:
        """Live chunks appended to a message replayed before the marker (the cut point)."""
        for _ in range(self.rng.randint(lo, hi)):
            chunk = {"type": "text", "text": self.pool.chunk(self.rng)}
            self._send(
                session_id,
                {"sessionUpdate": "agent_message_chunk", "messageId": message_id, "content": chunk},
                0.005,
                0.08,
            )

    # ----------------------------------------------------------------- the realistic corpus

    def _real_update(self, session_id: str, kind: str) -> _Json:
        """An update of ``kind`` in the shape real v2 Agents send it (``_v2_shape``), whose
        line is about a size real recordings have for it."""
        assert self.mix is not None
        update, holder, key = _v2_shape(kind)
        if kind.startswith("tool_call"):
            update["toolCallId"] = self._id("toolu")
        elif kind.endswith("_chunk") or kind in ("agent_message", "agent_thought", "user_message"):
            update["messageId"] = self._id("msg")
        # the line around the text: the stamp, the envelope, the session and the update
        around = 150 + len(session_id) + len(orjson.dumps(update))
        text = self.mix.payload(self.rng, self.mix.size(self.rng, kind) - around)
        if kind == "available_commands_update":  # (a list of commands, as Agents send it)
            holder[key] = _commands(text)
        else:
            holder[key] = text
        return update

    def _real_live_work(self, session_id: str, depth: int) -> None:
        """Live updates of the kinds and sizes of real recordings; a tool call sometimes asks
        for permission, a turn sometimes runs a subagent."""
        assert self.mix is not None
        for _ in range(1 + min(int(self.rng.expovariate(0.05)), 200)):
            kind = self.mix.kind(self.rng, history=False)
            if kind == "tool_call" and self.rand() < 0.15:
                allowed = self._ask_permission(session_id, self._id("toolu"), "`make test`")
                if not allowed:
                    continue
            self._send(session_id, self._real_update(session_id, kind), 0.005, 0.08)
        if depth < _MAX_DEPTH and self.rand() < 0.05:
            self._live_subagent(session_id, depth)

    def _real_replay_turn(self, session_id: str, depth: int) -> None:
        """One past turn: history updates of the kinds and sizes of real recordings."""
        assert self.mix is not None
        for _ in range(1 + min(int(self.rng.expovariate(0.05)), 200)):
            kind = self.mix.kind(self.rng, history=True)
            self._replayed_update(session_id, self._real_update(session_id, kind))
        if depth < _MAX_DEPTH and self.rand() < 0.04:
            self._replay_child(session_id, depth)


_COMMAND_TEXT = 160
"""The length of a command's description in a generated ``available_commands_update``."""


def _commands(text: str) -> list[_Json]:
    """``availableCommands`` whose line is as long as ``text`` would make it: the text cut
    into descriptions, less what each command's own members take."""
    count = max(1, -(-len(text) // (_COMMAND_TEXT + _COMMAND_AROUND)))
    text = text[: max(count, len(text) - count * _COMMAND_AROUND)]
    size = max(1, -(-len(text) // count))
    return [
        {"type": "command", "name": f"command-{index}", "description": text[at : at + size]}
        for index, at in enumerate(range(0, len(text), size))
    ]


_COMMAND_AROUND = len(b'{"type":"command","name":"command-00","description":""},')
"""What a command takes in a line besides its description."""


def _v2_shape(kind: str) -> tuple[_Json, _Json, str]:
    """An update of ``kind`` as the real v2 Agents of ``agents-2026-12b`` write it, and where
    its text goes (the object and the member the line's size is made up in). The v2 shapes: a
    whole message's ``content`` is an array, a tool call's an array of ``content`` items, a
    tool call begins with a pending ``tool_call_update`` (v2 has no ``tool_call``),
    ``usage_update`` has ``used`` and ``size``. Updates without a text of their own carry it
    in ``_meta``, where Agents put what is theirs."""
    update: _Json = {"sessionUpdate": "tool_call_update" if kind == "tool_call" else kind}
    block: _Json = {"type": "text", "text": ""}
    if kind.endswith("_chunk"):
        update["content"] = block
    elif kind in ("agent_message", "agent_thought", "user_message"):
        update["content"] = [block]
    elif kind.startswith("tool_call"):
        update["status"] = "pending" if kind == "tool_call" else "completed"
        update["content"] = [{"type": "content", "content": block}]
    elif kind == "notice":
        update.update(severity="info", title="Notice")
        return update, update, "description"
    elif kind == "available_commands_update":
        return update, update, "availableCommands"
    elif kind == "terminal_update":
        update.update(terminalId="term-1", cwd="/home/dev/work")
        return update, update, "command"
    elif kind == "session_info_update":
        return update, update, "title"
    else:  # (usage_update, and any kind of the table not known here)
        if kind == "usage_update":
            update.update(used=30_000, size=200_000)
        meta: _Json = {}
        update["_meta"] = meta
        return update, meta, "_bench/text"
    return update, block, "text"


# --------------------------------------------------------------------------- API


def _check_options(
    *, mb: float | None, sessions: int | None, faults: float, corpus: str = CORPORA[0]
) -> None:
    """Raise ValueError for options that cannot make a transcript."""
    if corpus not in CORPORA:
        raise ValueError(f"corpus must be one of {', '.join(CORPORA)}")
    if mb is None and sessions is None:
        raise ValueError("give mb or sessions")
    if mb is not None and not (0 < mb < math.inf):
        raise ValueError("mb must be a positive number")
    if sessions is not None and sessions < 0:
        raise ValueError("sessions must not be negative")
    if not 0.0 <= faults <= 1.0:
        raise ValueError("faults must be a probability in [0, 1]")


def _run(
    out: BinaryIO,
    *,
    mb: float | None,
    sessions: int | None,
    seed: int,
    faults: float,
    agent: str,
    agent_version: str,
    corpus: str = CORPORA[0],
) -> Stats:
    _check_options(mb=mb, sessions=sessions, faults=faults, corpus=corpus)
    rng = random.Random(seed)
    sink = _Sink(out, rng)
    generator = _Generator(
        sink, rng, faults=faults, agent=agent, agent_version=agent_version, corpus=corpus
    )
    return generator.run(mb=mb, sessions=sessions)


def generate(
    out: BinaryIO,
    *,
    mb: float | None = None,
    sessions: int | None = None,
    seed: int,
    faults: float = 0.0,
    agent: str = "claude-agent-acp",
    agent_version: str = "1.2.0",
    corpus: str = CORPORA[0],
) -> None:
    """Write one seeded ACP v2 connection transcript to ``out``.

    Stops after ``sessions`` top-level sessions, or at the first session boundary at
    or above ``mb`` megabytes (10**6 bytes), whichever comes first. ``faults`` is the
    probability that a replaying resume carries one injected violation; ``corpus`` one
    of ``CORPORA``.
    """
    _run(
        out,
        mb=mb,
        sessions=sessions,
        seed=seed,
        faults=faults,
        agent=agent,
        agent_version=agent_version,
        corpus=corpus,
    )


def _parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    size = parser.add_mutually_exclusive_group(required=True)
    size.add_argument("--mb", type=float, help="write about this many MB (10**6 bytes)")
    size.add_argument(
        "--sessions", type=int, metavar="N", help="write exactly N top-level sessions"
    )
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    parser.add_argument(
        "--faults",
        type=float,
        default=0.0,
        metavar="RATE",
        help="probability of one injected violation per replaying resume (default 0)",
    )
    parser.add_argument(
        "--corpus",
        choices=CORPORA,
        default=CORPORA[0],
        help="realistic: update kinds and line sizes of real recordings (real_mix.json); "
        "large: the generator's own mix with a long tail of large payloads",
    )
    parser.add_argument("--agent", default="claude-agent-acp", help="agent name")
    parser.add_argument("--agent-version", default="1.2.0", help="agent version")
    parser.add_argument("-o", "--output", default="-", help="output path, '-' for stdout")
    parser.add_argument("-q", "--quiet", action="store_true", help="no summary on stderr")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = _parse_args(argv)
    options: _Json = {
        "mb": args.mb,
        "sessions": args.sessions,
        "seed": args.seed,
        "faults": args.faults,
        "agent": args.agent,
        "agent_version": args.agent_version,
        "corpus": args.corpus,
    }
    started = time.perf_counter()
    try:
        _check_options(mb=args.mb, sessions=args.sessions, faults=args.faults, corpus=args.corpus)
        if args.output == "-":
            stats = _run(sys.stdout.buffer, **options)
            sys.stdout.buffer.flush()
        else:
            with open(args.output, "wb") as out:
                stats = _run(out, **options)
    except ValueError as exc:
        print(f"generate.py: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # e.g. piped into `head`
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    if not args.quiet:
        elapsed = time.perf_counter() - started
        print(
            f"{stats.bytes / MB:.1f} MB in {elapsed:.1f} s: {stats.sessions} sessions, "
            f"{stats.resumes} resumes ({stats.replaying_resumes} replaying), "
            f"{stats.prompts} prompts, {stats.child_sessions} child sessions, "
            f"{stats.replayed_updates} replayed updates, faults {stats.faults}",
            file=sys.stderr,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
