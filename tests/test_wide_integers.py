"""Values no output can write, where the analysis keeps them: integers beyond int64 (an
error's code, a protocol version: read as no such number; orjson and the tables hold 64-bit
integers), and a `replayFrom` with one, or nested deeper than orjson writes (kept as the start
of its JSON text). Found by fuzzing: `analyze --format json` stopped on an internal error."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from typer.testing import CliRunner

import acptrace
from acptrace.cli import app
from acptrace.render.json_report import dumps
from tests.transcript import Transcript

WIDE = b"-" + b"9" * 400
"""Beyond a double's range too: orjson refuses it, the standard library reads it exactly."""


def transcript() -> bytes:
    """A resume refused with an error code, and an Agent whose protocol version are `WIDE`."""
    t = Transcript()
    t.open()
    t.initialize()
    agent_result = len(t.lines)
    t.resume(id=3)
    refusal = t.error(3, -32002)
    t.close()
    t.lines[agent_result - 1] = t.lines[agent_result - 1].replace(
        b'"protocolVersion":2', b'"protocolVersion":' + WIDE
    )
    t.lines[refusal - 1] = t.lines[refusal - 1].replace(b"-32002", WIDE)
    data = t.text()
    assert data.count(WIDE) == 2
    return data


def test_a_wide_error_code_and_protocol_version_are_no_numbers() -> None:
    (analysis,) = acptrace.analyze_file(io.BytesIO(transcript()))
    agent = analysis.connection.agent
    assert agent is not None
    assert agent.protocol_version is None
    (row,) = analysis.resumes
    assert row.error_code is None
    assert dumps([analysis])  # (orjson writes 64-bit integers only)


@pytest.mark.parametrize(
    "command",
    [["analyze", "--format", "json"], ["export", "--format", "parquet", "-o", "{tmp}/tables"]],
    ids=["json", "parquet"],
)
def test_every_output_writes_them(tmp_path: Path, command: list[str]) -> None:
    path = tmp_path / "wide.jsonl"
    path.write_bytes(transcript())
    args = [arg.replace("{tmp}", str(tmp_path)) for arg in command]
    result = CliRunner().invoke(app, [*args, str(path), "--no-config"])
    assert "internal error" not in result.output
    assert result.exit_code in (0, 1), result.output


@pytest.mark.parametrize(
    "value", [WIDE, b'{"type":' + WIDE + b"}", b"[" * 300 + b"]" * 300], ids=["wide", "in", "deep"]
)
def test_a_replay_from_no_output_can_write_is_kept_as_json_text(
    tmp_path: Path, value: bytes
) -> None:
    t = Transcript()
    t.open()
    t.initialize()
    t.resume(id=3, replay="PLACEHOLDER")
    t.result(3)
    t.close()
    path = tmp_path / "replay-from.jsonl"
    path.write_bytes(t.text().replace(b'"PLACEHOLDER"', value))
    (analysis,) = acptrace.analyze_file(path)
    (row,) = analysis.resumes
    assert isinstance(row.replay_from, str)
    assert row.replay_from.startswith(value[:8].decode())
    assert dumps([analysis])
    for command in (["analyze", "--format", "json"], ["export", "-o", str(tmp_path / "t")]):
        result = CliRunner().invoke(app, [*command, str(path), "--no-config"])
        assert result.exit_code in (0, 1), result.output
