"""The canonical acptrace format: `{"ts", "mono_ns", "dir", "msg" | "raw" | "event" | "text"}`."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from acptrace.excerpt import excerpt
from acptrace.model import Direction, Issue
from acptrace.records import Envelope, Record, RecorderEvent
from acptrace.timestamps import integer_ns, wall_ns

_TRAFFIC = {"c2a": Direction.C2A, "a2c": Direction.A2C}
_RECORDER = ("meta", "stderr")


@dataclass(frozen=True, slots=True)
class Canonical:
    """What `acptrace record` writes: wall and monotonic time, direction, message or raw text."""

    name: str = "acptrace"
    summary: str = "acptrace's own JSON Lines envelope (ts, mono_ns, dir, msg/raw, meta events)"
    example: str = (
        '{"ts": "2026-12-02T10:00:00.124001Z", "mono_ns": 81235102000, "dir": "c2a", '
        '"msg": {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {}}}'
    )

    def detect(self, record: Any) -> bool:
        """An object whose `dir` is one of the canonical directions."""
        return isinstance(record, dict) and record.get("dir") in ("c2a", "a2c", *_RECORDER)

    def decode(self, record: Any, line: int) -> Iterator[Record]:
        """Traffic becomes an envelope, `meta`/`stderr` a recorder event, `raw` an issue."""
        ts_ns = wall_ns(record.get("ts"))
        mono_ns = integer_ns(record.get("mono_ns"))
        if "ts" in record and ts_ns is None:
            yield Issue(line, "bad_timestamp", f"unusable ts {excerpt(record['ts'])}")
        direction = record.get("dir")
        if direction in _RECORDER:
            yield _recorder_event(record, line, ts_ns, mono_ns)
        elif "msg" in record:
            yield Envelope(line, _TRAFFIC[direction], record["msg"], ts_ns, mono_ns)
        elif "raw" in record:
            who = "Client" if direction == "c2a" else "Agent"
            text = excerpt(record["raw"])
            yield Issue(line, "not_json", f"the {who} wrote a line that is not JSON: {text}")
        else:
            yield Issue(line, "unknown_envelope", "record has neither msg nor raw")


def _recorder_event(
    record: dict[str, Any], line: int, ts_ns: int | None, mono_ns: int | None
) -> RecorderEvent:
    """A `meta` event (open, close, …) or a line of the Agent's stderr."""
    kind = "stderr" if record["dir"] == "stderr" else str(record.get("event", "meta"))
    detail = {k: v for k, v in record.items() if k not in ("ts", "mono_ns", "dir", "event")}
    return RecorderEvent(line, kind, ts_ns, mono_ns, detail)


FORMAT = Canonical()
