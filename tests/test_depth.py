"""Deeply nested JSON: no traceback at any depth, in any command; beyond what can be read, an
issue `too_deep` (it is JSON, so not `not_json`), the line accounted for."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pytest

import acptrace
from acptrace.model.options import Execution
from acptrace.read.jsontext import MAX_DEPTH
from tests.transcript import SESSION, Transcript

DEPTHS = [200, 260, 990, MAX_DEPTH - 4, MAX_DEPTH - 3, MAX_DEPTH + 10, 5_000, 100_000]


def deep(depth: int) -> bytes:
    return b"[" * depth + b"]" * depth


def transcript(depth: int) -> Transcript:
    """A transcript long enough for the hot path, with deep payloads in its updates (canonical
    lines the hot path meets) and in a request's params."""
    t = Transcript()
    t.open()
    t.initialize()
    t.new_session()
    t.resume(id=3)
    t.history(count=20)
    line = t.update("agent_message_chunk", content="PLACEHOLDER")
    t.lines[-1] = t.lines[-1].replace(b'"PLACEHOLDER"', deep(depth))
    t.history(count=3)
    t.marker()
    t.request("session/prompt", {"sessionId": SESSION, "prompt": "PLACEHOLDER"}, id=9)
    t.lines[-1] = t.lines[-1].replace(b'"PLACEHOLDER"', deep(depth))
    t.result(9)
    t.result(3)
    t.close()
    assert line
    return t


@pytest.mark.parametrize("depth", DEPTHS)
def test_deep_json_is_read_or_too_deep_the_same_on_both_paths(depth: int) -> None:
    data = transcript(depth).text()
    fast = acptrace.analyze(io.BytesIO(data))
    general = acptrace.analyze(io.BytesIO(data), execution=Execution(fast=False))
    assert fast == general
    # The update's payload sits 4 levels down (record, msg, params, update), the prompt's 3.
    too_deep = [depth + levels > MAX_DEPTH for levels in (4, 3)]
    assert [issue.kind for issue in fast.issues] == ["too_deep"] * sum(too_deep)
    assert fast.source.lines == len(transcript(depth).lines)


@pytest.mark.parametrize("depth", [900, 990, MAX_DEPTH - 4])
def test_deep_json_with_a_number_beyond_a_double_is_too_deep_not_a_crash(depth: int) -> None:
    # (found by fuzzing: orjson refuses 1e400 before its depth limit, and the standard
    # library, which reads such numbers, ran out of stack: RecursionError)
    data = transcript(depth).text().replace(b"[]", b"[1e400]")
    fast = acptrace.analyze(io.BytesIO(data))
    assert fast == acptrace.analyze(io.BytesIO(data), execution=Execution(fast=False))
    assert {issue.kind for issue in fast.issues} <= {"too_deep"}
    assert fast.source.lines == len(transcript(depth).lines)


@pytest.mark.parametrize("depth", [990, 5_000, 100_000])
@pytest.mark.parametrize(
    "command",
    [
        ["analyze"],
        ["analyze", "--format", "json"],
        ["analyze", "--format", "sarif"],
        ["timeline"],
        ["timeline", "--full"],
        ["export", "--format", "csv", "-o", "{tmp}/export"],
        ["export", "--format", "ndjson", "-o", "{tmp}/export"],
        ["report", "-o", "{tmp}/report.json"],
        ["redact"],
    ],
    ids=lambda c: "-".join(c).replace("{tmp}/", "") if isinstance(c, list) else None,
)
def test_no_command_gives_a_traceback_at_any_depth(
    depth: int, command: list[str], tmp_path: Path
) -> None:
    path = tmp_path / "deep.jsonl"
    path.write_bytes(transcript(depth).text())
    args = [arg.replace("{tmp}", str(tmp_path)) for arg in command]
    result = subprocess.run(
        [sys.executable, "-m", "acptrace", *args, str(path)], capture_output=True, timeout=120
    )
    assert b"Traceback" not in result.stderr
    assert result.returncode in (0, 1)
