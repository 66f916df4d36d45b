"""Memory the analysis holds per request left unanswered (issue #39 item 9).

Writes a transcript of `--requests N` requests from the Client that are never answered (each
with a distinct id, a method and a session id, as `fs/read_text_file`-like traffic left
pending looks) after an `initialize` exchange, analyses it in this process under
`tracemalloc`, and prints the peak and what is still held at the end of the read (before
the analysis is built), in bytes per pending request. `PYTHONPATH=DIR` measures another
checkout's package (main's, for a before/after).

    .venv/bin/python benchmarks/pending_memory.py --requests 200000
"""

from __future__ import annotations

import argparse
import gc
import tempfile
import tracemalloc
from pathlib import Path
from typing import Any

import orjson


def write_transcript(path: Path, requests: int) -> None:
    """An initialize exchange, then `requests` requests that no response answers: the Agent's
    `fs/read_text_file` and the Client's `session/prompt` in turn, in seven sessions."""
    lines = [
        {"dir": "meta", "event": "open"},
        {"dir": "c2a", "msg": {"jsonrpc": "2.0", "id": 0, "method": "initialize",
                                "params": {"protocolVersion": 2}}},
        {"dir": "a2c", "msg": {"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": 2}}},
    ]  # fmt: skip
    with path.open("wb") as out:
        for line in lines:
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
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "pending.jsonl"
        write_transcript(path, args.requests)
        peak, held, _ = measure(path)
    n = args.requests
    print(f"{n:,} unanswered requests: peak {peak / 2**20:.1f} MB ({peak / n:,.0f} B each), "
          f"held at the end {held / 2**20:.1f} MB ({held / n:,.0f} B each)")  # fmt: skip


if __name__ == "__main__":
    main()
