"""What `acptrace record` costs: latency per message and throughput, direct vs. recorded.

Each measurement runs the same agent once directly and once behind
``python -m acptrace record -o <tmp> -- <agent>`` (redaction on, as by default):

- ``ping``: the client sends one JSON-RPC request line, waits for the echoed line, pauses
  ``--gap-ms`` and repeats. Direct and recorded runs alternate in rounds so that machine
  noise hits both alike. A round trip crosses the proxy twice, so the overhead per message
  is half the difference of the median round trips.
- ``ping under load``: the same, answered on the agent's stderr while the agent streams
  ``--mb`` megabytes of updates on stdout that the client drains: what a message waits for
  while the recorder is busiest.
- ``bulk``: ``--mb`` megabytes of JSON-RPC lines through an echo agent and back.
- ``sdk``: ``session/prompt`` round trips of the ACP SDK peers in tests/acp_peers (each
  prompt streams a few updates and asks for permission once).

Command line::

    python benchmarks/record_overhead.py                 # all, default sizes (~30 s)
    python benchmarks/record_overhead.py --messages 5000 --mb 200 --json

Figures depend on the machine (those in docs/record.md come from a 2-core VM); nothing here
asserts a timing.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import select
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
PEERS = ROOT / "tests" / "acp_peers"
ECHO = [sys.executable, str(PEERS / "fake_agent.py"), "echo"]
RECORD = [sys.executable, "-m", "acptrace", "record"]
UPDATE = b'{"jsonrpc":"2.0","method":"session/update","params":{"d":"' + b"x" * 4000 + b'"}}\n'
REQUEST = b'{"jsonrpc":"2.0","id":%d,"method":"session/prompt","params":{"sessionId":"s"}}\n'
# An agent that streams `count` updates on stdout and answers every stdin line on stderr.
LOADED_AGENT = r"""
import os, sys, threading
line, count = sys.argv[1].encode(), int(sys.argv[2])
threading.Thread(target=lambda: [os.write(1, line) for _ in range(count)], daemon=True).start()
pending = b""
while chunk := os.read(0, 65536):
    pending += chunk
    while b"\n" in pending:
        answer, pending = pending.split(b"\n", 1)
        os.write(2, answer + b"\n")
"""


def recorded(command: list[str], folder: Path, name: str) -> list[str]:
    """The same command behind `acptrace record`, writing to folder/name."""
    return [*RECORD, "-o", str(folder / name), "--force", "--", *command]


def ping(
    command: list[str], messages: int, gap_s: float, *, via_stderr: bool = False
) -> list[float]:
    """Round trips in microseconds of one request line answered, one at a time."""
    proc = subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, bufsize=0
    )
    assert proc.stdin is not None
    assert proc.stdout is not None
    assert proc.stderr is not None
    answers = proc.stderr if via_stderr else proc.stdout
    drain = _drain_in_background(proc.stdout if via_stderr else proc.stderr)
    out, back = proc.stdin.fileno(), answers.fileno()
    times: list[float] = []
    warmup = 50
    for number in range(warmup + messages):
        started = time.perf_counter_ns()
        os.write(out, REQUEST % number)
        received = b""
        while not received.endswith(b"\n"):
            select.select([back], [], [])
            received += os.read(back, 65536)
        if number >= warmup:
            times.append((time.perf_counter_ns() - started) / 1000)
        time.sleep(gap_s)
    proc.stdin.close()
    if via_stderr:
        proc.kill()
    proc.wait()
    drain.join()
    answers.close()
    return times


def _drain_in_background(stream: Any) -> threading.Thread:
    def drain() -> None:
        while os.read(stream.fileno(), 1 << 20):
            pass
        stream.close()

    thread = threading.Thread(target=drain, daemon=True)
    thread.start()
    return thread


def bulk(command: list[str], megabytes: int) -> float:
    """Seconds to push `megabytes` of lines through the echo agent and read them back."""
    count = megabytes * 1_000_000 // len(UPDATE)
    proc = subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, bufsize=0
    )
    assert proc.stdin is not None
    assert proc.stdout is not None
    started = time.perf_counter()
    out, back = proc.stdin.fileno(), proc.stdout.fileno()
    os.set_blocking(out, False)
    pending = memoryview(UPDATE * count)
    received = 0
    while received < len(UPDATE) * count:
        writable = [out] if pending else []
        ready_in, ready_out, _ = select.select([back], writable, [])
        if ready_out:
            with contextlib.suppress(BlockingIOError):
                pending = pending[os.write(out, pending[: 1 << 16]) :]
            if not pending:
                proc.stdin.close()
        if ready_in:
            received += len(os.read(back, 1 << 20))
    elapsed = time.perf_counter() - started
    if not proc.stdin.closed:
        proc.stdin.close()
    proc.wait()
    proc.stdout.close()
    return elapsed


def sdk(command: list[str], prompts: int) -> list[float]:
    """session/prompt round trips in milliseconds with the ACP SDK peers."""
    sys.path.insert(0, str(ROOT))
    from tests.acp_peers.client import run_session

    run = asyncio.run(run_session(command, prompts=prompts, big=False))
    return run.prompt_latencies_ms


def summary(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    return {
        "median": statistics.median(ordered),
        "p90": ordered[int(len(ordered) * 0.9)],
        "p99": ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))],
    }


def measure(args: argparse.Namespace) -> dict[str, Any]:
    results: dict[str, Any] = {}
    gap_s = args.gap_ms / 1000
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        direct: list[float] = []
        proxied: list[float] = []
        rounds = 5
        for _ in range(rounds):
            direct += ping(ECHO, args.messages // rounds, gap_s)
            proxied += ping(recorded(ECHO, folder, "p.jsonl"), args.messages // rounds, gap_s)
        d, p = summary(direct), summary(proxied)
        results["ping_round_trip_us"] = {"direct": d, "recorded": p}
        results["overhead_per_message_us"] = (p["median"] - d["median"]) / 2

        count = str(args.mb * 1_000_000 // len(UPDATE))
        loaded = [sys.executable, "-c", LOADED_AGENT, UPDATE.decode(), count]
        messages = min(args.messages, 1000)
        results["ping_under_load_us"] = {
            "direct": summary(ping(loaded, messages, gap_s, via_stderr=True)),
            "recorded": summary(
                ping(recorded(loaded, folder, "l.jsonl"), messages, gap_s, via_stderr=True)
            ),
        }

        seconds_direct = bulk(ECHO, args.mb)
        seconds_recorded = bulk(recorded(ECHO, folder, "b.jsonl"), args.mb)
        results["bulk_mb_per_s"] = {
            "direct": 2 * args.mb / seconds_direct,
            "recorded": 2 * args.mb / seconds_recorded,
        }
        close = json.loads((folder / "b.jsonl").read_bytes().splitlines()[-1])
        results["bulk_lines_left_out"] = close["dropped_lines"]
        if args.prompts:
            agent = [sys.executable, str(PEERS / "agent.py")]
            results["sdk_prompt_ms"] = {
                "direct": summary(sdk(agent, args.prompts)),
                "recorded": summary(sdk(recorded(agent, folder, "s.jsonl"), args.prompts)),
            }
    return results


def report(results: dict[str, Any], emit: Callable[[str], None]) -> None:
    for key, title in (
        ("ping_round_trip_us", "round trip of one JSON-RPC line (µs)"),
        ("ping_under_load_us", "the same while the agent streams bulk updates (µs)"),
    ):
        emit(f"{title:<52}median      p90      p99")
        for name in ("direct", "recorded"):
            row = results[key][name]
            emit(f"  {name:<48}{row['median']:>8.0f} {row['p90']:>8.0f} {row['p99']:>8.0f}")
    emit(
        f"overhead per message (one crossing, median): {results['overhead_per_message_us']:.0f} µs"
    )
    mb = results["bulk_mb_per_s"]
    emit(
        f"bulk echo throughput: direct {mb['direct']:.0f} MB/s, recorded {mb['recorded']:.0f} MB/s"
        f" ({results['bulk_lines_left_out']} lines left out of the transcript: queue full)"
    )
    if "sdk_prompt_ms" in results:
        sdk_ms = results["sdk_prompt_ms"]
        emit(
            f"ACP SDK session/prompt median: direct {sdk_ms['direct']['median']:.2f} ms, "
            f"recorded {sdk_ms['recorded']['median']:.2f} ms"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--messages", type=int, default=2000, help="Ping round trips.")
    parser.add_argument("--gap-ms", type=float, default=1.0, help="Pause between pings.")
    parser.add_argument("--mb", type=int, default=100, help="Megabytes for bulk and load.")
    parser.add_argument("--prompts", type=int, default=50, help="SDK prompts (0 to skip).")
    parser.add_argument("--json", action="store_true", help="Print the figures as JSON.")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    from benchmarks.bytecode import use_installed_bytecode

    use_installed_bytecode()
    results = measure(args)
    if args.json:
        print(json.dumps(results, indent=2))
    else:
        report(results, print)
    return 0


if __name__ == "__main__":
    sys.exit(main())
