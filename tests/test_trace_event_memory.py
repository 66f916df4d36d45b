"""`acptrace export --format trace-event` streams: its peak memory stays flat on a transcript of
many messages (issue #25 item 1: it held about 1.2 KB a message, 378 MB at 300,000). No timing:
only the peak RSS of a subprocess."""

from __future__ import annotations

import gzip
import sys
from pathlib import Path

import pytest

from tests.test_timeline_memory import peak_rss_mb

UPDATES = 150_000
"""Updates in the transcript: the export that held every event took about 180 MB for them."""
BOUND_MB = 100
"""The peak allowed: the interpreter, the imports and a batch of events being sorted (45 MB at
300,000 updates and 70 MB at 3.4 million, measured), with room."""

OPENING = b"""\
{"ts": "2026-12-02T10:00:00.000000Z", "mono_ns": 1000000000, "dir": "meta", "event": "open"}
{"mono_ns": 1010000000, "dir": "c2a", "msg": {"jsonrpc": "2.0", "id": 1, "method": "session/new", "params": {"cwd": "/", "mcpServers": []}}}
{"mono_ns": 1020000000, "dir": "a2c", "msg": {"jsonrpc": "2.0", "id": 1, "result": {"sessionId": "s1"}}}
{"mono_ns": 1030000000, "dir": "c2a", "msg": {"jsonrpc": "2.0", "id": 2, "method": "session/prompt", "params": {"sessionId": "s1", "prompt": []}}}
"""  # noqa: E501
UPDATE = (
    b'{"mono_ns": %d, "dir": "a2c", "msg": {"jsonrpc": "2.0", "method": "session/update", '
    b'"params": {"sessionId": "s1", "update": {"sessionUpdate": "agent_message_chunk", '
    b'"content": {"type": "text", "text": "hi"}}}}}\n'
)
ANSWER = b'{"mono_ns": %d, "dir": "a2c", "msg": {"jsonrpc": "2.0", "id": 2, "result": {}}}\n'


@pytest.fixture(scope="module")
def long_turn(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One prompt turn of `UPDATES` streamed updates, gzipped."""
    path = tmp_path_factory.mktemp("trace") / "long.jsonl.gz"
    with gzip.open(path, "wb", compresslevel=1) as out:
        out.write(OPENING)
        out.writelines(UPDATE % (1_040_000_000 + i * 1000) for i in range(UPDATES))
        out.write(ANSWER % (1_040_000_000 + UPDATES * 1000))
    return path


def test_peak_memory_does_not_grow_with_the_messages(long_turn: Path, tmp_path: Path) -> None:
    out = tmp_path / "trace.json"
    command = [sys.executable, "-m", "acptrace", "export", "-f", "trace-event", str(long_turn)]
    peak = peak_rss_mb([*command, "--no-config", "-o", str(out)])
    assert out.read_bytes().count(b'"name":"agent_message_chunk"') == UPDATES
    assert peak < BOUND_MB, f"peak RSS {peak:.0f} MB"
