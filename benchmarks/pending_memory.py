"""Memory the analysis holds per request left unanswered, per session and per distinct id
(issue #39 item 9).

Writes a transcript of `--requests N` items after an `initialize` exchange, analyses it in
this process under `tracemalloc`, and prints the peak and what is still held at the end of
the read (before the analysis is built), in bytes per item. `--shape` says what an item is:

- ``pending`` (the default): a request never answered, each with a distinct id, a method and
  a session id (the Agent's `fs/read_text_file` and the Client's `session/prompt` in turn);
- ``sessions``: a session made (`session/new` and its answer) and never used;
- ``turns``: a session made, one prompt, one streamed chunk, its answer (what a session
  holds to the end: its record and its turn's row);
- ``ids``: a request answered, each with a distinct id (nothing is held once answered).

`PYTHONPATH=DIR` measures another checkout's package (main's, for a before/after).

    .venv/bin/python benchmarks/pending_memory.py --requests 200000
    .venv/bin/python benchmarks/pending_memory.py --requests 50000 --shape turns
"""

from __future__ import annotations

import argparse
import gc
import tempfile
import tracemalloc
from pathlib import Path
from typing import Any

import orjson

_INITIALIZE = [
    {"dir": "meta", "event": "open"},
    {"dir": "c2a", "msg": {"jsonrpc": "2.0", "id": 0, "method": "initialize",
                            "params": {"protocolVersion": 2}}},
    {"dir": "a2c", "msg": {"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": 2}}},
]  # fmt: skip
"""The `initialize` exchange every transcript here starts with."""


def write_transcript(path: Path, requests: int) -> None:
    """An initialize exchange, then `requests` requests that no response answers: the Agent's
    `fs/read_text_file` and the Client's `session/prompt` in turn, in seven sessions."""
    with path.open("wb") as out:
        for line in _INITIALIZE:
            out.write(orjson.dumps(line) + b"\n")
        for n in range(1, requests + 1):
            params: dict[str, Any] = {"sessionId": f"sess_{n % 7}"}
            if n % 2:
                params["path"] = f"/work/src/file{n}.py"
                method, direction = "fs/read_text_file", "a2c"
            else:
                params["prompt"] = [{"type": "text", "text": "go on"}]
                method, direction = "session/prompt", "c2a"
            message = {"jsonrpc": "2.0", "id": n, "method": method, "params": params}
            out.write(orjson.dumps({"dir": direction, "msg": message}) + b"\n")


def write_items(path: Path, count: int, shape: str) -> None:
    """An initialize exchange, then `count` items of the shape (see the module's doc)."""
    if shape == "pending":
        write_transcript(path, count)
        return
    with path.open("wb") as out:
        for line in _INITIALIZE:
            out.write(orjson.dumps(line) + b"\n")
        for n in range(1, count + 1):
            for line in _item(n, shape):
                out.write(orjson.dumps(line) + b"\n")


def _item(n: int, shape: str) -> list[dict[str, Any]]:
    def message(direction: str, **fields: Any) -> dict[str, Any]:
        return {"dir": direction, "msg": {"jsonrpc": "2.0", **fields}}

    if shape == "ids":
        read = {"sessionId": "sess_1", "path": "/a"}
        return [message("a2c", id=n, method="fs/read_text_file", params=read),
                message("c2a", id=n, result={"content": "x"})]  # fmt: skip
    session = f"sess_{n:08d}"
    made = [message("c2a", id=n, method="session/new", params={"cwd": "/w", "mcpServers": []}),
            message("a2c", id=n, result={"sessionId": session})]  # fmt: skip
    if shape == "sessions":
        return made
    update = {"sessionUpdate": "agent_message_chunk", "messageId": f"m{n}",
              "content": {"type": "text", "text": "ok"}}  # fmt: skip
    chunk = {"sessionId": session, "update": update}
    prompt = {"sessionId": session, "prompt": [{"type": "text", "text": "hi"}]}
    return [*made, message("c2a", id=f"p{n}", method="session/prompt", params=prompt),
            message("a2c", method="session/update", params=chunk),
            message("a2c", id=f"p{n}", result={"stopReason": "end_turn"})]  # fmt: skip


def measure(path: Path) -> tuple[int, int, int]:
    """Peak and final traced memory (bytes) of walking the transcript, the walk kept alive,
    and how many requests it left pending."""
    from acptrace.model.options import Execution, Options
    from acptrace.pipeline.transcripts import open_walk

    gc.collect()
    tracemalloc.start()
    with open_walk(str(path), Options(), each_message=False, execution=Execution()) as walk:
        for _ in walk:
            pass
        held, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        return peak, held, len(walk.unanswered)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=200_000)
    parser.add_argument("--shape", choices=SHAPES, default="pending")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "items.jsonl"
        write_items(path, args.requests, args.shape)
        peak, held, _ = measure(path)
    n = args.requests
    print(f"{n:,} {SHAPES[args.shape]}: peak {peak / 2**20:.1f} MB ({peak / n:,.0f} B each), "
          f"held at the end {held / 2**20:.1f} MB ({held / n:,.0f} B each)")  # fmt: skip


SHAPES = {
    "pending": "unanswered requests",
    "sessions": "sessions never used",
    "turns": "sessions of one turn",
    "ids": "answered requests",
}


if __name__ == "__main__":
    main()
