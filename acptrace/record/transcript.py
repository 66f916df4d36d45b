"""The canonical transcript format, written: one JSON record per captured item.

- traffic (`c2a`, `a2c`): `msg` holds the parsed JSON value of the line (the analyzer reads
  it; whitespace, escapes and duplicate members are not kept, the forwarded bytes are);
  a line that is not JSON is kept as `raw` text, or, when it is not UTF-8,
  as `raw` base64 with `"encoding": "base64"` (lossless either way);
- `stderr`: `text`, with the same base64 rule;
- parts of an over-long line: `raw` (text or base64) with `part` (1, 2, …) and `more`;
  joining the bytes of the parts in order gives the line back;
- a final line without a newline carries `"eol": false`;
- a JSON line the writer cannot re-encode (nested deeper than orjson writes, or deeper
  than redaction walks) is kept as `raw` too, its exact bytes, with a `note`
  (`{"kind", "message"}`) saying why: nothing is ever left out;
- `meta`: `open`, `close` and `gap` events.

docs/recorder-format.md lists every field and what a reader should do with it.

Redaction (when a policy is given) applies to `msg`, `raw`, `text` and the open event's
`argv`; it never changes anything that is forwarded.
"""

from __future__ import annotations

import base64
import time
from typing import Any

import orjson

from acptrace.record.events import Captured, Closed, Gap, Item, Opened, Stream
from acptrace.record.redact import (
    RedactionPolicy,
    redact_argv,
    redact_bytes,
    redact_message,
    redact_text,
)

_NOT_JSON = object()


def encode(item: Item, policy: RedactionPolicy | None) -> bytes:
    """One transcript line (with its newline) for a captured item."""
    match item:
        case Captured():
            return _encode_traffic(item, policy)
        case Gap():
            record = _gap(item)
        case Opened():
            record = _opened(item, policy)
        case Closed():
            record = _closed(item)
    return orjson.dumps(record, option=orjson.OPT_APPEND_NEWLINE)


def encode_redacted(item: Captured, message: Any) -> bytes:
    """The record of a whole traffic line whose message was parsed and redacted already (a
    chunk of a streamed message, redacted with the others: `acptrace.record.chunks`)."""
    record = _head(item.ts_ns, item.mono_ns, item.stream.value)
    record["msg"] = message
    if not item.line.ended:
        record["eol"] = False
    return orjson.dumps(record, option=orjson.OPT_APPEND_NEWLINE)


def _encode_traffic(item: Captured, policy: RedactionPolicy | None) -> bytes:
    """The line as `msg` when it can be; as its exact bytes (`raw`, with a note) otherwise."""
    try:
        return orjson.dumps(_traffic(item, policy), option=orjson.OPT_APPEND_NEWLINE)
    except (orjson.JSONEncodeError, RecursionError) as error:
        record = _kept_raw(item, policy, error)
        return orjson.dumps(record, option=orjson.OPT_APPEND_NEWLINE)


def rfc3339(ts_ns: int) -> str:
    """`2026-12-02T10:00:00.123456Z` for nanoseconds since the Unix epoch."""
    seconds, rest = divmod(ts_ns, 1_000_000_000)
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds)) + f".{rest // 1000:06d}Z"


def _head(ts_ns: int, mono_ns: int, direction: str) -> dict[str, Any]:
    return {"ts": rfc3339(ts_ns), "mono_ns": mono_ns, "dir": direction}


def _traffic(item: Captured, policy: RedactionPolicy | None) -> dict[str, Any]:
    record = _head(item.ts_ns, item.mono_ns, item.stream.value)
    line = item.line
    if item.stream is Stream.STDERR:
        record.update(_text("text", line.data, policy))
    elif line.part == 0 and (message := _parse(line.data)) is not _NOT_JSON:
        record["msg"] = redact_message(message, policy)[0] if policy else message
    else:
        record.update(_text("raw", line.data, policy))
    if line.part:
        record["part"] = line.part
        record["more"] = line.more
    if not line.ended and not line.more:
        record["eol"] = False
    return record


def _kept_raw(item: Captured, policy: RedactionPolicy | None, error: Exception) -> dict[str, Any]:
    """A whole line that parsed as JSON but could not be written as `msg`."""
    record = _head(item.ts_ns, item.mono_ns, item.stream.value)
    record.update(_text("raw", item.line.data, policy))
    if not item.line.ended:
        record["eol"] = False
    message = f"kept as raw bytes: the JSON could not be re-encoded ({error})"
    record["note"] = {"kind": NOTE_NOT_REENCODED, "message": message}
    return record


NOTE_NOT_REENCODED = "not_reencoded"
"""The `note` kind of a JSON line recorded as `raw` because it could not be re-encoded."""


def _parse(data: bytes) -> Any:
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError:
        return _NOT_JSON


def _text(field: str, data: bytes, policy: RedactionPolicy | None) -> dict[str, Any]:
    """UTF-8 as text; anything else as base64 with `"encoding": "base64"`."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        if policy:
            data = redact_bytes(data, policy)[0]
        return {field: base64.b64encode(data).decode("ascii"), "encoding": "base64"}
    return {field: redact_text(text, policy)[0] if policy else text}


def _gap(item: Gap) -> dict[str, Any]:
    record = _head(item.ts_ns, item.mono_ns, "meta")
    record.update(event="gap", stream=item.stream.value, lines=item.lines, bytes=item.size)
    return record


def _opened(item: Opened, policy: RedactionPolicy | None) -> dict[str, Any]:
    argv = redact_argv(item.argv, policy)[0] if policy else list(item.argv)
    record = _head(item.ts_ns, item.mono_ns, "meta")
    record.update(
        event="open",
        argv=argv,
        cwd=item.cwd,
        pid=item.pid,
        acptrace_version=item.version,
        redacted=item.redacting,
    )
    return record


def _closed(item: Closed) -> dict[str, Any]:
    record = _head(item.ts_ns, item.mono_ns, "meta")
    record.update(
        event="close",
        reason=item.reason.value,
        exit_code=item.exit_code,
        signal=item.signal,
        agent_signal=item.agent_signal,
        bytes=item.sizes,
        dropped_lines=item.dropped,
    )
    return record
