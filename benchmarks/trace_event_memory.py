"""Peak memory and time of `acptrace export --format trace-event` on long transcripts (issue #25
item 1: it held about 1.2 KB a message).

For each size, writes one prompt turn of N streamed updates (gzipped, cached in
`benchmarks/out/`) and exports it in a fresh process, the document written to a file; with
`--findings N`, also the transcript of N responses to no request of `findings.py`.

    .venv/bin/python benchmarks/trace_event_memory.py --updates 300000 3400000
    .venv/bin/python benchmarks/trace_event_memory.py --updates 300000 --findings 300000
"""

from __future__ import annotations

import argparse
import gzip
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from benchmarks.bytecode import use_installed_bytecode  # noqa: E402
from benchmarks.findings import orphans  # noqa: E402
from benchmarks.run import OUT, PYTHON, Contender, measure  # noqa: E402

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


def write_long_turn(path: Path, updates: int) -> None:
    """One prompt turn of `updates` streamed updates, gzipped (fast: compression level 1)."""
    with gzip.open(path, "wb", compresslevel=1) as out:
        out.write(OPENING)
        out.writelines(UPDATE % (1_040_000_000 + i * 1000) for i in range(updates))
        out.write(ANSWER % (1_040_000_000 + updates * 1000))


def long_turn(updates: int) -> Path:
    """The transcript of `updates` updates (made once, in `benchmarks/out/`)."""
    OUT.mkdir(exist_ok=True)
    path = OUT / f"long-turn-{updates}.jsonl.gz"
    if not path.exists():
        write_long_turn(path, updates)
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--updates", type=int, nargs="+", default=[300_000])
    parser.add_argument("--findings", type=int, nargs="*", default=[])
    args = parser.parse_args()
    use_installed_bytecode()
    inputs = [(f"{n:,} updates", long_turn(n)) for n in args.updates]
    inputs += [(f"{n:,} findings", orphans(n)) for n in args.findings]
    print("| transcript | MB | seconds | peak RSS MB |")
    print("|---|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as out:
        for name, path in inputs:
            command = [PYTHON, "-m", "acptrace", "export", "-f", "trace-event", str(path)]
            command += ["--no-config", "-o", str(Path(out) / "trace.json")]
            seconds, peak = measure(Contender(name, command))
            size = path.stat().st_size / 1e6
            print(f"| {name} | {size:,.1f} | {seconds:,.1f} | {peak:,.0f} |", flush=True)


if __name__ == "__main__":
    main()
