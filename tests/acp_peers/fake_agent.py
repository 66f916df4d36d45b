"""Agents that misbehave on purpose, for the recorder's stress tests (stdlib only).

    python tests/acp_peers/fake_agent.py MODE [options]

Modes:
  echo          copy stdin to stdout until EOF, then exit with --exit
  stress        write --out-bytes of traffic.lines(seed) to stdout while reading all of stdin;
                print "received SHA256 BYTES" on stderr at the end
  crash         write half a JSON-RPC line, then die with exit code 3
  signals       print "ready"; on SIGINT/SIGTERM print "signal N", then die of that signal
  close-stdout  close stdout at once, then wait for stdin to close
  stderr        write --out-bytes to stderr (lines), then echo like `echo`
"""

from __future__ import annotations

import argparse
import hashlib
import os
import signal
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import traffic  # type: ignore[import-not-found]  # run as a script: found through sys.path


def write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def echo() -> None:
    while chunk := os.read(0, 65536):
        write_all(1, chunk)


def stress(out_bytes: int, seed: int) -> None:
    digest = hashlib.sha256()
    count = 0

    def consume() -> None:
        nonlocal count
        while chunk := os.read(0, 1 << 20):
            digest.update(chunk)
            count += len(chunk)

    reader = threading.Thread(target=consume)
    reader.start()
    batch: list[bytes] = []
    size = 0
    for line in traffic.lines(out_bytes, seed):
        batch.append(line)
        size += len(line)
        if size >= 1 << 20:
            write_all(1, b"".join(batch))
            batch, size = [], 0
    write_all(1, b"".join(batch))
    reader.join()
    sys.stderr.write(f"received {digest.hexdigest()} {count}\n")


def crash() -> None:
    write_all(1, b'{"jsonrpc":"2.0","id":1,"result":{"half')
    os._exit(3)


def signals() -> None:
    def handle(number: int, frame: object) -> None:
        write_all(1, f"signal {number}\n".encode())
        signal.signal(number, signal.SIG_DFL)
        os.kill(os.getpid(), number)

    signal.signal(signal.SIGINT, handle)
    signal.signal(signal.SIGTERM, handle)
    write_all(1, b"ready\n")
    while True:
        time.sleep(1)


def close_stdout() -> None:
    os.close(1)
    while os.read(0, 65536):
        pass


def spam_stderr(out_bytes: int) -> None:
    line = b"log line " + b"z" * 90 + b"\n"
    for _ in range(out_bytes // len(line)):
        write_all(2, line)
    echo()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("mode")
    parser.add_argument("--exit", type=int, default=0)
    parser.add_argument("--out-bytes", type=int, default=0)
    parser.add_argument("--seed", type=int, default=2)
    args = parser.parse_args()
    match args.mode:
        case "echo":
            echo()
        case "stress":
            stress(args.out_bytes, args.seed)
        case "crash":
            crash()
        case "signals":
            signals()
        case "close-stdout":
            close_stdout()
        case "stderr":
            spam_stderr(args.out_bytes)
        case _:
            sys.exit(f"unknown mode {args.mode}")
    sys.exit(args.exit)


if __name__ == "__main__":
    main()
