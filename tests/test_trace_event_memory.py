"""`acptrace export --format trace-event` streams: its peak memory stays flat on a transcript of
many messages (issue #25 item 1: it held about 1.2 KB a message, 378 MB at 300,000). No timing:
only the peak RSS of a subprocess."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.test_timeline_memory import peak_rss_mb

UPDATES = 150_000
"""Updates in the transcript (`benchmarks/trace_event_memory.py` writes it): the export that
held every event took about 200 MB for them."""
BOUND_MB = 100
"""The peak allowed: the interpreter, the imports and a batch of events being sorted (49 MB at
300,000 updates and 68 MB at 3.4 million, measured), with room."""


@pytest.fixture(scope="module")
def long_turn(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One prompt turn of `UPDATES` streamed updates, gzipped."""
    from benchmarks.trace_event_memory import write_long_turn

    path = tmp_path_factory.mktemp("trace") / "long.jsonl.gz"
    write_long_turn(path, UPDATES)
    return path


def test_peak_memory_does_not_grow_with_the_messages(long_turn: Path, tmp_path: Path) -> None:
    out = tmp_path / "trace.json"
    command = [sys.executable, "-m", "acptrace", "export", "-f", "trace-event", str(long_turn)]
    peak = peak_rss_mb([*command, "--no-config", "-o", str(out)])
    assert out.read_bytes().count(b'"name":"agent_message_chunk"') == UPDATES
    assert peak < BOUND_MB, f"peak RSS {peak:.0f} MB"
