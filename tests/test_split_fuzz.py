"""Seeded random transcripts split across processes give the analysis one process gives, byte
for byte: turns with tool calls in several interleaved sessions, replays, permissions, times
in milliseconds or without a monotonic time, broken and non-UTF-8 lines, joined recordings.

A split file's runs are read ahead of the analysis (`Watch.AHEAD`) and settled as the walk
reaches them (`decode.stream.settled_runs`): what decides whether their activity is read is
the state of every turn before them, which these transcripts vary."""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson
import pytest

import acptrace
from acptrace.pipeline import pieces as split
from acptrace.render.json_report import dumps
from tests.test_fastpath import padded
from tests.test_split import _lost_worker
from tests.transcript import Transcript, options_and_execution

SEEDS = range(30)
PIECE_BYTES = (1, 300, 2000, 8000)
"""Pieces of at most a line (no run crosses one), of a line or two, and of a few runs."""


def analyzed(path: Path, split: int = 1, piece_bytes: int = 0, **options: Any) -> bytes:
    """The JSON report of every connection the file holds (`split`: across that many
    processes, in pieces of `piece_bytes`, whatever the file's size)."""
    judged, run = options_and_execution(
        split=split, split_min_bytes=0, split_piece_bytes=piece_bytes, **options
    )
    return dumps(acptrace.analyze_file(path, judged, execution=run))


@dataclass
class _Sessions:
    """What the generator knows of each session: the prompt it waits on, its tool calls."""

    v1: bool
    """An ACP v1 connection: tool calls begin with `tool_call`, turns end at the response."""
    open_prompts: dict[str, int] = field(default_factory=dict)
    calls: dict[str, list[str]] = field(default_factory=dict)
    replaying: dict[str, int] = field(default_factory=dict)
    """Sessions whose resume (its request id) replays history until its marker."""


def _turn_step(t: Transcript, rng: random.Random, known: _Sessions, session: str) -> None:
    """One step of a session: a prompt, a tool call's updates, a state, text, or the end."""
    calls = known.calls.setdefault(session, [])
    if session not in known.open_prompts:
        if calls and rng.random() < 0.25:  # (a late update of a call of an ended turn)
            t.tool(rng.choice(calls), session, status="completed")
            return
        known.open_prompts[session] = t.next_id
        t.prompt(session)
        if rng.random() < 0.7:
            t.update("user_message_chunk", session)
        return
    roll = rng.random()
    if roll < 0.3 or not calls:
        call = f"call_{len(t.lines)}"
        calls.append(call)
        tag = "tool_call" if known.v1 or rng.random() < 0.5 else "tool_call_update"
        t.tool(call, session, tag=tag, status="pending", kind="read", title="Read it")
    elif roll < 0.55:
        status = rng.choice(("in_progress", "completed", "failed", None))
        fields: dict[str, Any] = {} if status is None else {"status": status}
        if rng.random() < 0.3:
            fields["title"] = "Read it"
        t.tool(rng.choice(calls), session, **fields)
    elif roll < 0.62 and not known.v1:
        t.state(rng.choice(("running", "waiting")), session)
    elif roll < 0.67:
        request = t.next_id
        t.permission(rng.choice(calls), session)
        t.choose(request, rng.choice(("allow", "reject", None)))
    elif roll < 0.85:
        t.update(rng.choice(("agent_message_chunk", "agent_thought_chunk")), session)
    elif roll < 0.86:  # (a time that goes back: the clock reports it, a run ends there)
        t.update("agent_message_chunk", session, at_ms=t.now_ms - 25)
    elif roll < 0.9:
        t.update("usage_update", session, used=rng.randrange(1000), size=200_000)
    else:
        prompt = known.open_prompts.pop(session)
        if not known.v1 and rng.random() < 0.8:
            t.state("idle", session, stop_reason="end_turn")
        t.result(prompt, {"stopReason": "end_turn"})
        del calls[:-2]


def _replay_step(t: Transcript, rng: random.Random, known: _Sessions, session: str) -> None:
    """One step of a replay: replayed history with tool calls, or its marker and response."""
    if rng.random() < 0.85:
        tag = rng.choice(("user_message", "agent_message", "tool_call", "tool_call_update"))
        if tag.startswith("tool"):
            t.tool(f"old_{rng.randrange(5)}", session, tag=tag, status="completed")
        else:
            t.update(tag, session)
        return
    t.marker(session)
    t.result(known.replaying.pop(session))


def _connection(t: Transcript, rng: random.Random, steps: int) -> None:
    """One recorded connection (ACP v2, or some v1): sessions made, then their steps
    interleaved."""
    v1 = rng.random() < 0.25
    t.initialize(1 if v1 else 2)
    sessions = [f"sess_{n}" for n in range(rng.randint(1, 3))]
    for session in sessions:
        t.new_session(session)
    known = _Sessions(v1)
    for _ in range(steps):
        session = rng.choice(sessions) if rng.random() < 0.3 else sessions[0]
        for _ in range(rng.randint(1, 6)):  # (a stretch of one session: runs of its updates)
            if session in known.replaying:
                _replay_step(t, rng, known, session)
            elif session not in known.open_prompts and rng.random() < 0.15:
                known.replaying[session] = t.next_id
                t.resume(session)
            elif rng.random() < 0.03:
                t.raw(b'{"dir":"a2c","msg":{"jsonrpc":"2.0","method":"session/upd')
            else:
                _turn_step(t, rng, known, session)


def _roughened(lines: list[bytes], rng: random.Random, first: int) -> list[bytes]:
    """The lines from `first` with some times in milliseconds, some without a monotonic time,
    some not UTF-8 (the hot path leaves each to the general path, or ends a run there), and
    some titles that are no string (a number out of range among them: the plain shape skips
    it unchecked, the detailed one refuses it)."""
    out = lines[:first]
    for line in lines[first:]:
        roll = rng.random()
        if roll < 0.06:
            line = re.sub(rb'("ts":"[^"]*\.\d{3})\d{3}Z"', rb'\1Z"', line)
        elif roll < 0.14:
            line = re.sub(rb'"mono_ns":-?\d+,?', b"", line)
        elif roll < 0.16 and b'"title":"' in line:
            line = line.replace(b'"title":"', b'"title":"\xff', 1)
        elif roll < 0.22 and b'"title":"Read it"' in line:
            title = rng.choice((b"1e400", b"-7", b"null", b'["Read it"]'))
            line = line.replace(b'"Read it"', title, 1)
        out.append(line)
    return out


def transcript(seed: int) -> bytes:
    """A random canonical transcript: one connection, or (some seeds) two joined."""
    rng = random.Random(seed)
    t = padded()
    first = len(t.lines)
    _connection(t, rng, rng.randint(20, 60))
    if rng.random() < 0.25:  # (a second recording joined: its watch is its own)
        t.open()
        t.next_id = 100
        _connection(t, rng, rng.randint(10, 30))
    t.lines = _roughened(t.lines, rng, first)
    return t.text()


@pytest.fixture(scope="module")
def transcripts(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    folder = tmp_path_factory.mktemp("split-fuzz")
    paths = []
    for seed in SEEDS:
        path = folder / f"random-{seed}.jsonl"
        path.write_bytes(transcript(seed))
        paths.append(path)
    return paths


def test_random_transcripts_split_into_the_same_analysis_whatever_the_pieces(
    transcripts: list[Path],
) -> None:
    with_tool_calls = 0
    for path in transcripts:
        expected = analyzed(path)
        report = orjson.loads(expected)
        last = report[-1] if isinstance(report, list) else report  # (joined: one a connection)
        calls = [c for c in last["tool_calls"] if c["turn_request_id"] is not None]
        with_tool_calls += bool(calls and last["turns"])
        for piece_bytes in PIECE_BYTES:
            split = analyzed(path, 2, piece_bytes)
            assert split == expected, (path.name, piece_bytes)
    assert with_tool_calls >= len(transcripts) * 0.8  # (the settling of runs is exercised)


@pytest.mark.parametrize(
    "options",
    [{"schema": "full"}, {"ignore": ("SCHEMA-",)}],
    ids=["every-update-sampled", "no-schema-check"],
)
def test_random_transcripts_split_alike_whatever_the_schema_check_samples(
    transcripts: list[Path], options: dict[str, Any]
) -> None:
    # (by default each tag's first update on a connection is sampled: a tool update then
    # goes through `Run._note`; with every one sampled, or none, it does not, and a joined
    # file is read alike)
    for path in transcripts[::3]:
        expected = analyzed(path, **options)
        assert analyzed(path, 3, 2000, **options) == expected, path.name


def test_random_transcripts_split_alike_when_a_worker_dies(
    transcripts: list[Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    expected = {path: analyzed(path) for path in transcripts[::3]}
    monkeypatch.setattr(split, "_work", _lost_worker)  # (its pieces decoded again, in order)
    for path, report in expected.items():
        assert analyzed(path, 3, 2000) == report, path.name
