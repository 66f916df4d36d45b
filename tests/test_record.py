"""`acptrace record`: a transparent proxy in front of real agents, and the transcript it writes.

The end-to-end tests run `python -m acptrace record` as a subprocess between a client and an
agent (the SDK peers in tests/acp_peers, or fake_agent.py for the stress cases) and compare
the bytes on both sides; no test asserts a timing.
"""

from __future__ import annotations

import asyncio
import base64
import errno
import hashlib
import io
import itertools
import os
import re
import resource
import select
import signal
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

import acptrace
from acptrace.cli import app
from acptrace.model.domain import ConnectionEnd, Outcome
from acptrace.read.timestamps import wall_ns
from acptrace.record import (
    CloseReason,
    RecordResult,
    RecordSettings,
    Stdio,
    default_transcript_path,
    fill_placeholders,
    make_folder,
    record,
)
from acptrace.record.capture import CaptureQueue
from acptrace.record.events import Captured, Gap, Line, Opened, Stream
from acptrace.record.lines import LineSplitter, utf8_boundary
from acptrace.record.process import exit_status
from acptrace.record.redact import RedactionPolicy, redact_message
from acptrace.record.transcript import NOTE_NOT_REENCODED, encode, rfc3339
from acptrace.record.writer import HOLD_S
from tests.acp_peers import traffic
from tests.acp_peers.client import SECRETS, run_session
from tests.outputs import REFUSED, refused_outputs
from tests.processes import gone, pids_in

PEERS = Path(__file__).resolve().parent / "acp_peers"
RECORD = [sys.executable, "-m", "acptrace", "record"]
FAKE = [sys.executable, str(PEERS / "fake_agent.py")]
SDK_AGENT = [sys.executable, str(PEERS / "agent.py")]
TIMEOUT_S = 60.0
"""Generous bound for any one proxy run: only reached when something deadlocks."""


# -- helpers ---------------------------------------------------------------------------------


def records_of(path: Path) -> list[dict[str, Any]]:
    """Every record of a transcript (each line must be whole JSON)."""
    return [orjson.loads(line) for line in path.read_bytes().splitlines()]


def stream_bytes(records: list[dict[str, Any]], direction: str) -> bytes:
    """The bytes of one direction, rebuilt from its records (exact for compact JSON)."""
    out = bytearray()
    for item in records:
        if item["dir"] != direction:
            continue
        if "msg" in item:
            out += orjson.dumps(item["msg"])
        else:
            value = item["text" if direction == "stderr" else "raw"]
            out += base64.b64decode(value) if item.get("encoding") == "base64" else value.encode()
        if not item.get("more", False) and item.get("eol", True):
            out += b"\n"
    return bytes(out)


def meta(records: list[dict[str, Any]], event: str) -> dict[str, Any]:
    found = [r for r in records if r["dir"] == "meta" and r.get("event") == event]
    assert len(found) == 1, found
    return found[0]


def start(args: list[str], *, env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        args,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )


def read_exactly(proc: subprocess.Popen[bytes], size: int, timeout: float = TIMEOUT_S) -> bytes:
    """Read `size` bytes of the proxy's stdout (less only at EOF), failing after `timeout`."""
    assert proc.stdout is not None
    fd = proc.stdout.fileno()
    out = bytearray()
    deadline = time.monotonic() + timeout
    while len(out) < size:
        remaining = deadline - time.monotonic()
        ready, _, _ = select.select([fd], [], [], max(0.0, remaining))
        if not ready:
            pytest.fail(f"no output after {timeout}s (got {bytes(out)!r})")
        chunk = os.read(fd, size - len(out))
        if not chunk:
            break
        out += chunk
    return bytes(out)


def wait_for(condition: Any, what: str, timeout: float = TIMEOUT_S) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"timed out waiting for {what}")
        time.sleep(0.01)


def opened_pid(path: Path) -> int:
    """The agent's pid from the transcript's open record (written before any traffic)."""
    wait_for(lambda: path.exists() and path.read_bytes().endswith(b"\n"), "the open record")
    return int(orjson.loads(path.read_bytes().splitlines()[0])["pid"])


def finish(proc: subprocess.Popen[bytes], *, hold_stdin: bool = False) -> tuple[bytes, bytes, int]:
    """Close the proxy's stdin (unless `hold_stdin`: wait for its exit first), collect output."""
    if hold_stdin:
        proc.wait(TIMEOUT_S)
    out, err = proc.communicate(timeout=TIMEOUT_S)
    return out, err, proc.returncode


@pytest.fixture
def transcript(tmp_path: Path) -> Path:
    return tmp_path / "t.jsonl"


# -- end to end with the published ACP SDK -----------------------------------------------------


def test_sdk_session_passes_unchanged_and_analyses_clean(transcript: Path, tmp_path: Path) -> None:
    capture = tmp_path / "capture"
    capture.mkdir()
    command = [*RECORD, "-o", str(transcript), "--", *SDK_AGENT, "--capture", str(capture)]
    run = asyncio.run(run_session(command))

    assert run.exit_code == 0, run.stderr
    assert (capture / "agent-in.bin").read_bytes() == bytes(run.sent)
    assert (capture / "agent-out.bin").read_bytes() == bytes(run.received)
    assert len(run.received) > 2 * 300_000  # the long updates crossed many pipe reads
    assert b"test-agent: initialize" in run.stderr

    analysis = acptrace.analyze(transcript)
    assert analysis.issues == ()
    assert analysis.findings == ()
    assert analysis.source.connection_end is ConnectionEnd.RECORDED
    assert [row.outcome for row in analysis.resumes] == [Outcome.LOADED]

    records = records_of(transcript)
    policy = RedactionPolicy.build()
    sent = [redact_message(orjson.loads(line), policy)[0] for line in run.sent.splitlines()]
    received = [orjson.loads(line) for line in run.received.splitlines()]
    assert [r["msg"] for r in records if r["dir"] == "c2a"] == sent
    assert [r["msg"] for r in records if r["dir"] == "a2c"] == received
    stderr_lines = [r["text"] for r in records if r["dir"] == "stderr"]
    assert stderr_lines == run.stderr.decode().splitlines()
    close = meta(records, "close")
    assert (close["reason"], close["exit_code"]) == ("client_closed", 0)
    assert close["bytes"] == {
        "c2a": len(run.sent),
        "a2c": len(run.received),
        "stderr": len(run.stderr),
    }


def test_sdk_session_secrets_reach_the_agent_but_not_the_transcript(
    transcript: Path, tmp_path: Path
) -> None:
    capture = tmp_path / "capture"
    capture.mkdir()
    command = [*RECORD, "-o", str(transcript), "--", *SDK_AGENT, "--capture", str(capture)]
    run = asyncio.run(run_session(command, prompts=1, big=False))

    forwarded = (capture / "agent-in.bin").read_bytes()
    recorded = transcript.read_bytes()
    assert forwarded == bytes(run.sent)
    for secret in SECRETS.values():
        assert secret.encode() in forwarded
        assert secret.encode() not in recorded
    assert b"[REDACTED]" in recorded


def test_no_redact_records_messages_exactly(transcript: Path) -> None:
    command = [*RECORD, "--no-redact", "-o", str(transcript), "--", *SDK_AGENT]
    run = asyncio.run(run_session(command, prompts=1, big=False))

    records = records_of(transcript)
    assert [r["msg"] for r in records if r["dir"] == "c2a"] == [
        orjson.loads(line) for line in run.sent.splitlines()
    ]
    assert SECRETS["env"].encode() in transcript.read_bytes()
    assert meta(records, "open")["redacted"] is False


# -- faithful under stress ------------------------------------------------------------------


STRESS_BYTES = 100_000_000


def test_100_mb_each_way_at_once_without_loss_or_deadlock(transcript: Path) -> None:
    proc = start(
        [
            *RECORD,
            "-o",
            str(transcript),
            "--max-line-bytes",
            str(1024 * 1024),
            "--queue-bytes",
            str(512 * 1024 * 1024),
            "--",
            *FAKE,
            "stress",
            "--out-bytes",
            str(STRESS_BYTES),
            "--seed",
            "7",
        ]
    )
    assert proc.stdin is not None
    assert proc.stdout is not None
    assert proc.stderr is not None
    sent, received = hashlib.sha256(), hashlib.sha256()
    sizes = {"sent": 0, "received": 0}
    errors: list[bytes] = []

    def write() -> None:
        assert proc.stdin is not None
        batch: list[bytes] = []
        for line in traffic.lines(STRESS_BYTES, 3):
            sent.update(line)
            sizes["sent"] += len(line)
            batch.append(line)
            if len(batch) >= 64:
                proc.stdin.write(b"".join(batch))
                batch = []
        proc.stdin.write(b"".join(batch))
        proc.stdin.close()

    def read() -> None:
        assert isinstance(proc.stdout, io.BufferedReader)
        while chunk := proc.stdout.read1(1 << 20):
            received.update(chunk)
            sizes["received"] += len(chunk)

    def read_errors() -> None:
        assert proc.stderr is not None
        errors.append(proc.stderr.read())

    threads = [threading.Thread(target=f, daemon=True) for f in (write, read, read_errors)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(240)
        assert not thread.is_alive(), "deadlock: the proxy stopped moving bytes"
    assert proc.wait(TIMEOUT_S) == 0, errors
    proc.stdout.close()
    proc.stderr.close()

    expected = hashlib.sha256()
    for line in traffic.lines(STRESS_BYTES, 7):
        expected.update(line)
    assert received.hexdigest() == expected.hexdigest()
    assert f"received {sent.hexdigest()} {sizes['sent']}".encode() in errors[0]

    records = records_of(transcript)
    assert hashlib.sha256(stream_bytes(records, "c2a")).hexdigest() == sent.hexdigest()
    assert hashlib.sha256(stream_bytes(records, "a2c")).hexdigest() == expected.hexdigest()
    assert any(r.get("part") for r in records)  # the 3 MB lines went in parts
    close = meta(records, "close")
    assert close["dropped_lines"] == 0
    assert close["bytes"]["c2a"] == sizes["sent"]
    assert close["bytes"]["a2c"] == sizes["received"]
    monotonic = [r["mono_ns"] for r in records]
    assert monotonic == sorted(monotonic)


def test_a_line_split_across_reads_is_one_record(transcript: Path) -> None:
    proc = start([*RECORD, "-o", str(transcript), "--", *FAKE, "echo"])
    assert proc.stdin is not None
    message = b'{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/tmp"}}\n'
    for piece in (message[:10], message[10:40], message[40:]):
        proc.stdin.write(piece)
        proc.stdin.flush()
        assert read_exactly(proc, len(piece)) == piece  # forwarded before the line is whole
    out, _, code = finish(proc)
    assert (out, code) == (b"", 0)
    records = records_of(transcript)
    c2a = [r for r in records if r["dir"] == "c2a"]
    assert [r["msg"]["method"] for r in c2a] == ["session/new"]
    assert stream_bytes(records, "a2c") == message


def test_long_lines_are_recorded_in_parts_that_join_back(transcript: Path) -> None:
    payload = ("é" * 2_501 + "x").encode()  # multi-byte characters across every cut
    long_json = orjson.dumps({"jsonrpc": "2.0", "method": "_x", "params": {"d": payload.decode()}})
    binary = b"\xff" + b"y" * 2_500
    data = long_json + b"\n" + binary + b"\n" + b'{"short":1}\n'
    args = [*RECORD, "-o", str(transcript), "--max-line-bytes", "1000", "--", *FAKE, "echo"]
    result = subprocess.run(args, input=data, capture_output=True, timeout=TIMEOUT_S, check=False)

    assert (result.stdout, result.returncode) == (data, 0)
    records = records_of(transcript)
    assert stream_bytes(records, "c2a") == data
    assert stream_bytes(records, "a2c") == data
    parts = [r for r in records if r["dir"] == "c2a" and "part" in r]
    assert [r["part"] for r in parts][:3] == [1, 2, 3]
    assert all(len(r["raw"].encode()) <= 1000 for r in parts if "encoding" not in r)
    assert [r["more"] for r in parts].count(False) == 2  # each long line ends with one part


def test_final_line_without_newline_is_kept(transcript: Path) -> None:
    data = b'{"jsonrpc":"2.0","id":1,"result":{}}\n{"jsonrpc":"2.0","id":2'
    args = [*RECORD, "-o", str(transcript), "--", *FAKE, "echo"]
    result = subprocess.run(args, input=data, capture_output=True, timeout=TIMEOUT_S, check=False)

    assert result.stdout == data
    records = records_of(transcript)
    last = [r for r in records if r["dir"] == "c2a"][-1]
    assert last == {**last, "raw": '{"jsonrpc":"2.0","id":2', "eol": False}
    assert stream_bytes(records, "c2a") == data
    assert stream_bytes(records, "a2c") == data


def test_client_closing_stdin_ends_the_session(transcript: Path) -> None:
    args = [*RECORD, "-o", str(transcript), "--", *FAKE, "echo", "--exit", "0"]
    result = subprocess.run(args, input=b"", capture_output=True, timeout=TIMEOUT_S, check=False)

    assert (result.stdout, result.returncode) == (b"", 0)
    close = meta(records_of(transcript), "close")
    assert (close["reason"], close["exit_code"], close["signal"]) == ("client_closed", 0, None)


def test_agent_exit_code_is_acptraces(transcript: Path) -> None:
    args = [*RECORD, "-o", str(transcript), "--", *FAKE, "echo", "--exit", "42"]
    result = subprocess.run(args, input=b"x\n", capture_output=True, timeout=TIMEOUT_S, check=False)

    assert (result.stdout, result.returncode) == (b"x\n", 42)
    assert meta(records_of(transcript), "close")["exit_code"] == 42


def test_agent_crashing_mid_line(transcript: Path) -> None:
    proc = start([*RECORD, "-o", str(transcript), "--", *FAKE, "crash"])
    out, _, code = finish(proc, hold_stdin=True)

    assert out == b'{"jsonrpc":"2.0","id":1,"result":{"half'
    assert code == 3
    records = records_of(transcript)
    last = [r for r in records if r["dir"] == "a2c"][-1]
    assert (last["raw"], last["eol"]) == (out.decode(), False)
    close = meta(records, "close")
    assert (close["reason"], close["exit_code"], close["agent_signal"]) == ("agent_exit", 3, None)
    assert acptrace.analyze(transcript).source.connection_end is ConnectionEnd.RECORDED


def test_agent_killed_by_a_signal(transcript: Path) -> None:
    proc = start([*RECORD, "-o", str(transcript), "--", *FAKE, "signals"])
    assert read_exactly(proc, 6) == b"ready\n"
    os.kill(opened_pid(transcript), signal.SIGKILL)
    _, _, code = finish(proc, hold_stdin=True)

    assert code == 128 + signal.SIGKILL
    close = meta(records_of(transcript), "close")
    assert (close["reason"], close["agent_signal"]) == ("agent_exit", "SIGKILL")
    assert close["exit_code"] == 137


@pytest.mark.parametrize("number", [signal.SIGTERM, signal.SIGINT])
def test_signals_are_forwarded_to_the_agent(transcript: Path, number: signal.Signals) -> None:
    proc = start([*RECORD, "-o", str(transcript), "--", *FAKE, "signals"])
    assert read_exactly(proc, 6) == b"ready\n"
    opened_pid(transcript)  # acptrace is past its start-up: its handlers are installed
    proc.send_signal(number)
    out, _, code = finish(proc, hold_stdin=True)

    assert out == f"signal {int(number)}\n".encode()
    assert code == 128 + number
    close = meta(records_of(transcript), "close")
    assert (close["reason"], close["signal"], close["agent_signal"]) == (
        "signal",
        number.name,
        number.name,
    )


STUBBORN = [sys.executable, str(PEERS / "stubborn_agent.py")]


@pytest.mark.parametrize(
    "numbers",
    [
        (signal.SIGTERM,),
        (signal.SIGINT,),
        (signal.SIGHUP,),
        (signal.SIGTERM, signal.SIGTERM, signal.SIGINT),
    ],
    ids=["SIGTERM", "SIGINT", "SIGHUP", "SIGTERM-SIGTERM-SIGINT"],
)
def test_an_agent_that_ignores_the_signal_is_killed_after_a_grace(
    transcript: Path, tmp_path: Path, numbers: tuple[signal.Signals, ...]
) -> None:
    child = tmp_path / "child.pid"
    args = [*RECORD, "-o", str(transcript), "--", *STUBBORN, "--stubborn", "--child", str(child)]
    proc = start(args)
    opened_pid(transcript)  # acptrace is past its start-up: its handlers are installed
    [child_pid] = pids_in(child)
    for number in numbers:
        proc.send_signal(number)
    _, _, code = finish(proc, hold_stdin=True)  # (stdin open: only the signals stop it)

    assert code == 128 + signal.SIGKILL
    records = records_of(transcript)  # (whole lines only)
    close = records[-1]
    assert (close["event"], close["reason"], close["agent_signal"]) == (
        "close",
        "signal",
        "SIGKILL",
    )
    assert close["signal"] in {number.name for number in numbers}  # (pending: lowest first)
    assert gone(child_pid)  # it ignored SIGTERM too: the group's SIGKILL took it


@pytest.mark.parametrize("own_group", [False, True], ids=["in-its-group", "setpgid"])
def test_what_an_agent_leaves_in_its_group_does_not_outlive_acptrace(
    transcript: Path, tmp_path: Path, own_group: bool
) -> None:
    child = tmp_path / "child.pid"
    args = [*RECORD, "-o", str(transcript), "--", *STUBBORN, "--child", str(child)]
    args += ["--own-group"] * own_group  # (a group of its own, in the Agent's session)
    result = subprocess.run(args, input=b"", capture_output=True, timeout=TIMEOUT_S, check=False)

    assert result.returncode == 0  # the Agent exited at EOF; its child ignores SIGTERM
    assert all(gone(pid) for pid in pids_in(child))
    close = meta(records_of(transcript), "close")
    assert (close["reason"], close["exit_code"]) == ("client_closed", 0)


def test_a_client_that_stops_reading_is_passed_on_to_the_agent(transcript: Path) -> None:
    args = [*RECORD, "-o", str(transcript), "--", *FAKE, "stress", "--out-bytes", "50000000"]
    proc = start(args)
    assert proc.stdout is not None
    assert read_exactly(proc, 1000)
    proc.stdout.close()  # the client is gone: the agent's next writes fail as without acptrace
    _, err, code = finish(proc)

    assert code == 1
    assert b"BrokenPipeError" in err
    close = meta(records_of(transcript), "close")
    assert close["reason"] == "client_closed"
    assert close["bytes"]["a2c"] < 50_000_000


def test_killing_acptrace_leaves_a_valid_prefix_and_frees_the_agent(transcript: Path) -> None:
    proc = start([*RECORD, "-o", str(transcript), "--", *FAKE, "echo"])
    assert proc.stdin is not None
    agent = opened_pid(transcript)
    lines = b"".join(b'{"jsonrpc":"2.0","method":"_n","params":{"i":%d}}\n' % i for i in range(50))
    proc.stdin.write(lines)
    proc.stdin.flush()
    assert read_exactly(proc, len(lines)) == lines
    wait_for(lambda: transcript.read_bytes().count(b'"dir":"a2c"') == 50, "the records")
    proc.kill()
    finish(proc)

    records = records_of(transcript)  # every line is whole JSON
    assert stream_bytes(records, "c2a") == lines
    assert acptrace.analyze(transcript).source.connection_end is ConnectionEnd.UNKNOWN
    wait_for(lambda: not _alive(agent), "the agent to exit once its stdin closed")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return (
        Path(f"/proc/{pid}/stat").exists() and ") Z " not in Path(f"/proc/{pid}/stat").read_text()
    )


def test_a_stuck_disk_never_stalls_the_protocol(tmp_path: Path) -> None:
    fifo = tmp_path / "stuck.jsonl"
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)  # opened, never read: a stuck disk
    args = [*RECORD, "-o", str(fifo), "--queue-bytes", "1000000", "--", *FAKE, "echo"]
    proc = start(args)
    assert proc.stdin is not None
    line = b'{"jsonrpc":"2.0","method":"_fill","params":{"d":"' + b"z" * 10_000 + b'"}}\n'
    for _ in range(600):  # 6 MB: far more than the pipe to the "disk" and the queue hold
        proc.stdin.write(line)
        proc.stdin.flush()
        assert read_exactly(proc, len(line)) == line

    drained = bytearray()
    os.set_blocking(reader, True)
    drainer = threading.Thread(target=lambda: _drain(reader, drained), daemon=True)
    drainer.start()
    _, _, code = finish(proc)
    drainer.join(TIMEOUT_S)
    assert code == 2  # the Agent's 0, but lines are missing: a script can tell
    records = [orjson.loads(x) for x in bytes(drained).splitlines()]
    gaps = [r for r in records if r.get("event") == "gap"]
    close = meta(records, "close")
    assert close["dropped_lines"] > 0
    assert sum(g["lines"] for g in gaps) == close["dropped_lines"]
    assert {g["stream"] for g in gaps} <= {"c2a", "a2c"}
    kept = sum(1 for r in records if r["dir"] in ("c2a", "a2c"))
    assert kept + close["dropped_lines"] == 1200


def _drain(fd: int, into: bytearray) -> None:
    while chunk := os.read(fd, 1 << 16):
        into.extend(chunk)
    os.close(fd)


def test_stderr_is_forwarded_and_recorded(transcript: Path) -> None:
    args = [*RECORD, "-o", str(transcript), "--", *FAKE, "stderr", "--out-bytes", "200000"]
    result = subprocess.run(
        args, input=b"hi\n", capture_output=True, timeout=TIMEOUT_S, check=False
    )

    assert result.stdout == b"hi\n"
    assert result.stderr == (b"log line " + b"z" * 90 + b"\n") * 2000
    assert stream_bytes(records_of(transcript), "stderr") == result.stderr


def test_agent_closing_stdout_closes_the_clients(transcript: Path) -> None:
    proc = start([*RECORD, "-o", str(transcript), "--", *FAKE, "close-stdout"])
    assert read_exactly(proc, 1) == b""  # EOF while the client still holds stdin open
    assert proc.poll() is None
    out, _, code = finish(proc)
    assert (out, code) == (b"", 0)
    assert meta(records_of(transcript), "close")["reason"] == "agent_exit"


def test_non_json_and_non_utf8_lines_are_kept_losslessly(transcript: Path) -> None:
    data = b"plain text\n\n\xff\xfe\x00binary\r\n" + '{"emoji":"✓"}\n'.encode()
    args = [*RECORD, "-o", str(transcript), "--", *FAKE, "echo"]
    result = subprocess.run(args, input=data, capture_output=True, timeout=TIMEOUT_S, check=False)

    assert result.stdout == data
    records = records_of(transcript)
    c2a = [r for r in records if r["dir"] == "c2a"]
    assert c2a[0]["raw"] == "plain text"
    assert c2a[1]["raw"] == ""
    assert (c2a[2]["encoding"], base64.b64decode(c2a[2]["raw"])) == (
        "base64",
        b"\xff\xfe\x00binary\r",
    )
    assert c2a[3]["msg"] == {"emoji": "✓"}
    assert stream_bytes(records, "c2a") == data


def test_fixture_secrets_never_reach_the_recording(transcript: Path) -> None:
    data = (PEERS / "secrets.jsonl").read_bytes()
    args = [*RECORD, "-o", str(transcript), "--", *FAKE, "echo"]
    result = subprocess.run(args, input=data, capture_output=True, timeout=TIMEOUT_S, check=False)

    assert result.stdout == data  # forwarded untouched, both ways
    recorded = transcript.read_bytes()
    assert b"S3CR3T" not in recorded
    assert recorded.count(b"[REDACTED]") > 20
    records = records_of(transcript)
    assert len([r for r in records if r["dir"] == "c2a"]) == data.count(b"\n")
    usage = next(r["msg"]["result"]["usage"] for r in records if "usage" in str(r.get("msg")))
    assert usage == {"inputTokens": 120, "outputTokens": 40, "totalTokens": 160}


HOSTILE_SECRETS = [
    {"jsonrpc": "2.0", "id": 1, "method": "session/new", "params": {"cwd": "/", "mcpServers": [
        {"type": "http", "name": "db", "url": "https://admin:S3CR3T@mcp:8080/x", "headers": []}]}},
    {"jsonrpc": "2.0", "id": 2, "method": "session/prompt", "params": {"prompt": [
        {"type": "text", "text": "use postgres://admin:S3CR3T@db:5432/prod and "
         "curl -H 'Authorization: Bearer S3CR3T' 'https://x/?api_key=S3CR3T&token=S3CR3T'"}]}},
    {"jsonrpc": "2.0", "id": 2, "result": {"env": {"DATABASE_URL": "mysql://u:S3CR3T@h/d"},
     "json": '{"conn": "redis://:S3CR3T@cache", "pwd": "S3CR3T"}', "signature": "S3CR3T"}},
]  # fmt: skip


def test_hostile_secrets_never_reach_the_recording(transcript: Path) -> None:
    data = b"".join(orjson.dumps(m) + b"\n" for m in HOSTILE_SECRETS)
    data += b"raw line: https://root:S3CR3T@host/ bearer S3CR3T9 hf_" + b"S3CR3T" * 6 + b"\n"
    args = [*RECORD, "-o", str(transcript), "--", *FAKE, "echo"]
    result = subprocess.run(args, input=data, capture_output=True, timeout=TIMEOUT_S, check=False)

    assert (result.stdout, result.returncode) == (data, 0)  # forwarded untouched
    recorded = transcript.read_bytes()
    assert b"S3CR3T" not in recorded
    assert recorded.count(b"[REDACTED]") == 2 * 12  # each secret, both ways
    assert meta(records_of(transcript), "open")["redacted"] is True


def test_custom_redaction_keys_and_patterns(transcript: Path) -> None:
    data = (
        b'{"jsonrpc":"2.0","method":"_x","params":{"tenant":"acme-42","note":"ticket INC-9981"}}\n'
    )
    args = [
        *RECORD,
        "-o",
        str(transcript),
        "--redact-key",
        "Tenant",
        "--redact-pattern",
        r"INC-(\d+)",
        "--",
        *FAKE,
        "echo",
    ]
    result = subprocess.run(args, input=data, capture_output=True, timeout=TIMEOUT_S, check=False)

    assert result.stdout == data
    message = next(r["msg"] for r in records_of(transcript) if r["dir"] == "c2a")
    assert message["params"] == {"tenant": "[REDACTED]", "note": "ticket INC-[REDACTED]"}


def test_secret_arguments_of_the_agent_command_are_redacted(transcript: Path) -> None:
    args = [*RECORD, "-o", str(transcript), "--", *FAKE, "echo", "--api-key=S3CR3T", "--exit", "0"]
    result = subprocess.run(args, input=b"", capture_output=True, timeout=TIMEOUT_S, check=False)

    assert result.returncode == 2  # fake_agent rejects the flag: the agent really got it
    assert meta(records_of(transcript), "open")["argv"][-3] == "--api-key=[REDACTED]"


# -- command line ------------------------------------------------------------------------------


def test_default_transcript_goes_to_acptrace_dir(tmp_path: Path) -> None:
    folder = tmp_path / "recordings"
    env = {**os.environ, "ACPTRACE_DIR": str(folder)}
    args = [*RECORD, "--", *FAKE, "echo"]
    result = subprocess.run(
        args, input=b"{}\n", capture_output=True, env=env, timeout=TIMEOUT_S, check=False
    )

    assert (result.stdout, result.returncode) == (b"{}\n", 0)
    [made] = folder.iterdir()
    assert made.name.startswith("acptrace-")
    assert made.suffix == ".jsonl"
    assert f"acptrace: recording to {made}".encode() in result.stderr


def test_a_recording_that_never_starts_is_never_announced(tmp_path: Path) -> None:
    """`recording to FILE` is said once the Agent runs: a command that cannot start makes no
    file, and naming one would send the user looking for it (#37 item 12)."""
    folder = tmp_path / "recordings"
    env = {**os.environ, "ACPTRACE_DIR": str(folder)}
    args = [*RECORD, "--", "/nonexistent/agent"]
    result = subprocess.run(
        args, input=b"", capture_output=True, env=env, timeout=TIMEOUT_S, check=False
    )
    assert result.returncode == 127
    assert result.stderr == b"acptrace: error: /nonexistent/agent: command not found\n"
    assert list(folder.iterdir()) == []


def test_an_agent_that_cannot_start_exits_127_and_leaves_no_file(transcript: Path) -> None:
    args = [*RECORD, "-o", str(transcript), "--", "/nonexistent/agent", "--acp"]
    result = subprocess.run(args, input=b"", capture_output=True, timeout=TIMEOUT_S, check=False)

    assert (result.stdout, result.returncode) == (b"", 127)
    assert b"/nonexistent/agent: command not found" in result.stderr
    assert not transcript.exists()


def test_an_agent_that_cannot_start_leaves_an_existing_file_alone(transcript: Path) -> None:
    transcript.write_bytes(b"earlier recording\n")
    args = [*RECORD, "-o", str(transcript), "--force", "--", "/nonexistent/agent"]
    result = subprocess.run(args, input=b"", capture_output=True, timeout=TIMEOUT_S, check=False)

    assert result.returncode == 127
    assert transcript.read_bytes() == b"earlier recording\n"


def test_an_existing_recording_is_kept_and_the_agent_not_started(
    transcript: Path, tmp_path: Path
) -> None:
    transcript.write_bytes(b"x" * 10_000)
    started = tmp_path / "started"
    agent = [sys.executable, "-c", f"open({str(started)!r}, 'w')"]
    result = CliRunner().invoke(app, ["record", "-o", str(transcript), "--", *agent])

    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr == (
        f"acptrace: error: cannot write the transcript {transcript}: it exists and holds "
        "10000 bytes: --force replaces it, {time} in the name makes a new file each run\n"
    )
    assert transcript.read_bytes() == b"x" * 10_000
    assert not started.exists()


def test_force_replaces_an_existing_transcript(transcript: Path) -> None:
    transcript.write_bytes(b"x" * 10_000)
    args = [*RECORD, "-o", str(transcript), "--force", "--", *FAKE, "echo"]
    subprocess.run(args, input=b"{}\n", capture_output=True, timeout=TIMEOUT_S, check=True)

    assert [r["dir"] for r in records_of(transcript)] == ["meta", "c2a", "a2c", "meta"]


def test_an_empty_file_or_a_fifo_is_written_into_without_force(tmp_path: Path) -> None:
    empty, fifo = tmp_path / "empty.jsonl", tmp_path / "fifo"
    empty.touch()  # as `mktemp` leaves it
    os.mkfifo(fifo)
    got = bytearray()
    reader = threading.Thread(target=lambda: got.extend(fifo.read_bytes()))
    reader.start()
    for path in (empty, fifo):
        args = [*RECORD, "-o", str(path), "--", *FAKE, "echo"]
        subprocess.run(args, input=b"{}\n", capture_output=True, timeout=TIMEOUT_S, check=True)
    reader.join(TIMEOUT_S)
    assert [r["dir"] for r in records_of(empty)] == ["meta", "c2a", "a2c", "meta"]
    assert got.count(b"\n") == 4


def test_time_and_pid_placeholders_give_each_run_its_own_file(tmp_path: Path) -> None:
    args = [*RECORD, "-o", str(tmp_path / "agent-{time}-{pid}.jsonl"), "--", *FAKE, "echo"]
    said = []
    for _ in range(2):
        run = subprocess.run(
            args, input=b"{}\n", capture_output=True, timeout=TIMEOUT_S, check=True
        )
        said.append(run.stderr.decode())
    made = sorted(p.name for p in tmp_path.iterdir())
    assert len(made) == 2
    for name in made:
        assert re.fullmatch(r"agent-\d{8}T\d{6}\.\d{3}Z-\d+\.jsonl", name), name
        assert meta(records_of(tmp_path / name), "close")
    # the filled-in name is said, as the default one is: the user did not write it
    assert sorted(said) == [f"acptrace: recording to {tmp_path / name}\n" for name in made]


def test_an_o_without_placeholders_is_not_repeated_on_stderr(transcript: Path) -> None:
    args = [*RECORD, "-o", str(transcript), "--", *FAKE, "echo"]
    run = subprocess.run(args, input=b"{}\n", capture_output=True, timeout=TIMEOUT_S, check=True)
    assert run.stderr == b""


def test_fill_placeholders() -> None:
    now = 1_764_669_600_123_000_000
    assert fill_placeholders("/r/a-{time}-{pid}.jsonl", now, 7) == (
        "/r/a-20251202T100000.123Z-7.jsonl"
    )
    assert fill_placeholders("/r/{other}/a.jsonl", now, 7) == "/r/{other}/a.jsonl"


def test_an_unwritable_transcript_is_a_usage_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    result = CliRunner().invoke(app, ["record", "-o", str(blocker / "t.jsonl"), "--", "true"])
    assert result.exit_code == 2
    assert "cannot write the transcript" in result.output


def test_the_transcript_cannot_go_to_stdout() -> None:
    result = CliRunner().invoke(app, ["record", "-o", "-", "--", "true"])
    assert result.exit_code == 2
    assert "stdout carries the agent's output" in result.output


def test_an_empty_transcript_path_is_refused_not_read_as_the_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("ACPTRACE_DIR", raising=False)
    result = CliRunner().invoke(app, ["record", "-o", "", "--", "true"])
    assert result.exit_code == 2
    assert "-o: an empty path" in result.output
    assert list(tmp_path.iterdir()) == []  # (no transcript under the default name)


def test_a_bad_redact_pattern_is_a_usage_error(transcript: Path) -> None:
    args = ["record", "-o", str(transcript), "--redact-pattern", "(", "--", "true"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2
    assert "not a valid regex" in result.output
    assert not transcript.exists()


DEPTHS = [250, 251, 254, 255, 487, 488, 999, 1000, 1023, 1024, 1025, 5000, 100_000]


def nested(depth: int, core: bytes = b'"x"') -> bytes:
    return b"[" * depth + core + b"]" * depth


def test_lines_nested_at_any_depth_are_all_recorded(transcript: Path) -> None:
    sent = b"".join(nested(depth) + b"\n" for depth in DEPTHS) + b'{"after":1}\n'
    args = [*RECORD, "-o", str(transcript), "--", *FAKE, "echo"]
    result = subprocess.run(args, input=sent, capture_output=True, timeout=TIMEOUT_S, check=False)

    assert (result.stdout, result.returncode) == (sent, 0), result.stderr
    assert b"error" not in result.stderr
    records = records_of(transcript)
    assert stream_bytes(records, "c2a") == sent
    assert stream_bytes(records, "a2c") == sent
    assert meta(records, "close")["reason"] == "client_closed"
    c2a = [r for r in records if r["dir"] == "c2a"]
    assert len(c2a) == len(DEPTHS) + 1
    for depth, item in zip(DEPTHS, c2a, strict=False):
        if "msg" in item:  # orjson re-encodes up to 254 levels
            assert depth < 254, depth
        elif depth <= 1024:  # parsed, but too deep to write back or to redact: kept raw
            assert item["note"]["kind"] == "not_reencoded", depth
            assert "could not be re-encoded" in item["note"]["message"]
        else:  # not parsed at all: raw, as any line that is not JSON
            assert "note" not in item
    assert c2a[-1]["msg"] == {"after": 1}


@pytest.mark.parametrize("depth", [300, 600])
def test_a_deep_line_is_redacted_as_text_when_kept_raw(depth: int) -> None:
    line = nested(depth, b'{"api_key":"S3CR3T-deep"}')
    record = orjson.loads(encode(Captured(Stream.A2C, Line(line), 1, 2), RedactionPolicy.build()))
    assert record["note"]["kind"] == "not_reencoded"
    assert "S3CR3T" not in record["raw"]
    assert record["raw"].startswith("[" * depth + '{"api_key":"[REDACTED]"}')
    plain = orjson.loads(encode(Captured(Stream.A2C, Line(line, ended=False), 1, 2), None))
    assert (plain["raw"].encode(), plain["eol"]) == (line, False)


def test_a_100_mb_deep_line_is_recorded_whole_and_exact(transcript: Path) -> None:
    line = nested(300, b'"' + b"x" * (100 * 1024 * 1024) + b'"') + b"\n"
    args = [*RECORD, "-o", str(transcript), "--max-line-bytes", str(len(line) + 1), "--"]
    sent = line + b'{"after":1}\n'
    proc = start([*args, *FAKE, "stress"])
    out, err = proc.communicate(sent, timeout=TIMEOUT_S)
    assert (out, proc.returncode) == (b"", 0), err
    assert f"received {hashlib.sha256(sent).hexdigest()} {len(sent)}".encode() in err
    with transcript.open("rb") as lines:
        kept = [r for r in map(orjson.loads, lines) if r["dir"] != "stderr"]
    opened, first, after, closed = kept
    assert (opened["event"], closed["event"], after["msg"]) == ("open", "close", {"after": 1})
    assert first["note"]["kind"] == "not_reencoded"
    assert first["raw"].encode() + b"\n" == line
    assert closed["bytes"]["c2a"] == len(sent)


# -- the library, in process ------------------------------------------------------------------


def test_record_in_process_on_pipes(transcript: Path) -> None:
    message = b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}\n'
    stdin_r, stdin_w = os.pipe()  # Client -> proxy
    stdout_r, stdout_w = os.pipe()  # proxy -> Client
    os.write(stdin_w, message)
    os.close(stdin_w)
    settings = RecordSettings(forward_signals=False)
    result = record([*FAKE, "echo", "--exit", "5"], transcript, settings, Stdio(stdin_r, stdout_w))
    os.close(stdout_w)  # the proxy already let go of the pipe (the Agent closed its stdout)
    with os.fdopen(stdout_r, "rb") as echoed:
        assert echoed.read() == message
    os.close(stdin_r)

    assert (result.exit_code, result.reason.value, result.dropped) == (5, "client_closed", 0)
    assert result.records == 4  # open, c2a, a2c, close
    assert result.transcript_error is None


def run_in_process(transcript: Path, sent: bytes) -> tuple[bytes, RecordResult]:
    """Record the echo agent in this process (so a test can break the writer); what came back."""
    stdin_r, stdin_w = os.pipe()
    stdout_r, stdout_w = os.pipe()
    os.write(stdin_w, sent)
    os.close(stdin_w)
    settings = RecordSettings(forward_signals=False)
    result = record([*FAKE, "echo"], transcript, settings, Stdio(stdin_r, stdout_w))
    os.close(stdout_w)
    with os.fdopen(stdout_r, "rb") as echoed:
        out = echoed.read()
    os.close(stdin_r)
    return out, result


def chunk_line(text: str, session: str = "s") -> bytes:
    update = {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": text}}
    params = {"sessionId": session, "update": update}
    return orjson.dumps({"jsonrpc": "2.0", "method": "session/update", "params": params}) + b"\n"


def chunk_texts(records: list[dict[str, Any]], direction: str) -> list[str]:
    return [
        r["msg"]["params"]["update"]["content"]["text"]
        for r in records
        if r["dir"] == direction and r.get("msg", {}).get("method") == "session/update"
    ]


def test_a_secret_split_across_streamed_chunks_is_redacted_in_each(transcript: Path) -> None:
    """Issue #39.1: a model writes a key out over several chunks; no chunk alone holds enough
    of it for a shape. Each keeps its place and its part is replaced, both ways (the echo
    agent sends the chunks back)."""
    token = "ghp_" + "S3CR3T" + "x" * 30
    pieces = ["the token is ", token[:7], token[7:20], token[20:], " - rotate it"]
    sent = b"".join(chunk_line(piece) for piece in pieces)
    sent += b'{"jsonrpc":"2.0","id":1,"result":{"stopReason":"end_turn"}}\n'
    out, result = run_in_process(transcript, sent)
    assert out == sent
    assert result.transcript_error is None
    records = records_of(transcript)
    assert b"S3CR3T" not in transcript.read_bytes()
    expected = ["the token is ", "[REDACTED]", "[REDACTED]", "[REDACTED]", " - rotate it"]
    assert chunk_texts(records, "c2a") == chunk_texts(records, "a2c") == expected
    times = [r["mono_ns"] for r in records]
    assert times == sorted(times)  # (held chunks are written in their place)


def test_chunks_of_a_message_that_does_not_end_are_written_after_a_hold(transcript: Path) -> None:
    proc = start([*RECORD, "-o", str(transcript), "--", *FAKE, "echo"])
    assert proc.stdin is not None
    line = chunk_line("half a mess")
    proc.stdin.write(line)
    proc.stdin.flush()
    assert read_exactly(proc, len(line)) == line  # forwarded at once
    begun = time.monotonic()
    wait_for(lambda: transcript.read_bytes().count(b"half a mess") == 2, "the held chunks")
    assert time.monotonic() - begun < HOLD_S + 2.0
    finish(proc)


def test_a_record_that_cannot_be_encoded_is_reported_and_the_rest_kept(
    transcript: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def fussy(item: Any, policy: Any) -> bytes:
        if isinstance(item, Captured) and item.line.data == b'"bad"':
            raise MemoryError
        return encode(item, policy)

    monkeypatch.setattr("acptrace.record.writer.encode", fussy)
    sent = b'{"a":1}\n"bad"\n{"b":2}\n'
    out, result = run_in_process(transcript, sent)
    assert out == sent
    assert result.transcript_error == "a line could not be recorded (MemoryError)"
    kept = [r.get("msg") for r in records_of(transcript) if r["dir"] == "c2a"]
    assert kept == [{"a": 1}, {"b": 2}]
    assert meta(records_of(transcript), "close")["event"] == "close"


@pytest.mark.parametrize(
    ("target", "error", "expected"),
    [
        ("acptrace.record.writer.write_prefix", OSError(28, "No space left on device"), "No space"),
        ("acptrace.record.writer.TranscriptWriter._write", RuntimeError("boom"), "failed: Runtime"),
    ],
)
def test_a_writer_that_stops_still_forwards_and_says_why(
    transcript: Path, monkeypatch: pytest.MonkeyPatch, target: str, error: Exception, expected: str
) -> None:
    def broken(*_args: Any) -> None:
        raise error

    monkeypatch.setattr(target, broken)
    sent = b"".join(b'{"n":%d}\n' % n for n in range(100))
    out, result = run_in_process(transcript, sent)
    assert out == sent
    assert result.transcript_error is not None
    assert expected in result.transcript_error
    assert result.records == 0


def whole_lines(path: Path) -> list[dict[str, Any]]:
    """The transcript's records, checking that it ends on a whole line (or is empty)."""
    data = path.read_bytes()
    assert data == b"" or data.endswith(b"\n"), data[-200:]
    return [orjson.loads(line) for line in data.splitlines()]


@pytest.mark.parametrize("budget", [0, 1, 150, 700, 5_000, 9_000])
def test_a_disk_that_fills_mid_write_leaves_whole_lines_and_counts_the_rest(
    transcript: Path, monkeypatch: pytest.MonkeyPatch, budget: int
) -> None:
    """The disk takes `budget` bytes of the transcript, the last write in part (as a kernel
    does), then fails with ENOSPC; the Client and the Agent never notice."""
    real_write = os.write
    taken = 0

    def filling(fd: int, data: Any) -> int:
        nonlocal taken
        if not stat.S_ISREG(os.fstat(fd).st_mode):  # the pumps' pipes
            return real_write(fd, data)
        if taken >= budget:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        written = real_write(fd, bytes(data[: budget - taken]))
        taken += written
        return written

    monkeypatch.setattr(os, "write", filling)
    sent = b"".join(b'{"jsonrpc":"2.0","method":"n","params":{"n":%d}}\n' % n for n in range(100))
    out, result = run_in_process(transcript, sent)
    monkeypatch.undo()

    assert out == sent  # everything forwarded
    kept = whole_lines(transcript)
    assert len(transcript.read_bytes()) <= budget
    assert result.records == len(kept)
    assert result.records + result.unwritten == 1 + 100 + 100 + 1  # open, both ways, close
    assert result.transcript_error == "No space left on device"
    kept_sent = [r["msg"] for r in kept if r["dir"] == "c2a"]
    assert kept_sent == [orjson.loads(line) for line in sent.splitlines()][: len(kept_sent)]


def test_a_file_size_limit_mid_recording_leaves_whole_lines_and_says_so(transcript: Path) -> None:
    """The kernel's own part-way write: RLIMIT_FSIZE makes a write past the limit short, then
    EFBIG (Python ignores SIGXFSZ)."""
    limit = 4_000
    sent = b"".join(b'{"jsonrpc":"2.0","method":"n","params":{"n":%d}}\n' % n for n in range(300))
    args = [*RECORD, "-o", str(transcript), "--", *FAKE, "echo"]
    result = subprocess.run(
        args,
        input=sent,
        capture_output=True,
        timeout=TIMEOUT_S,
        preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit)),
        check=False,
    )
    assert result.stdout == sent
    assert result.returncode == 2  # the agent's 0, but the transcript is incomplete
    kept = whole_lines(transcript)
    assert 0 < len(transcript.read_bytes()) <= limit
    assert kept[0]["event"] == "open"
    [line] = [line for line in result.stderr.decode().splitlines() if "incomplete" in line]
    unwritten = 1 + 300 + 300 + 1 - len(kept)
    assert line == (
        f"acptrace: error: the transcript {transcript} is incomplete: File too large; "
        f"{unwritten} records were not written"
    )


def test_a_device_that_takes_nothing_still_forwards_everything() -> None:
    sent = b'{"jsonrpc":"2.0","method":"n"}\n' * 50
    args = [*RECORD, "-o", "/dev/full", "--", *FAKE, "echo"]
    result = subprocess.run(args, input=sent, capture_output=True, timeout=TIMEOUT_S, check=False)
    assert (result.stdout, result.returncode) == (sent, 2)
    assert b"is incomplete: No space left on device; 102 records were not written" in result.stderr


@pytest.mark.parametrize(
    ("agent_exit", "dropped", "error", "expected", "says"),
    [
        (0, 0, "disk full", 2, ["disk full"]),
        (5, 0, "disk full", 5, ["disk full"]),
        (0, 498_000, None, 2, ["498000 lines were left out (the disk could not keep up)"]),
        (143, 7, None, 143, ["7 lines were left out (the disk could not keep up)"]),
        (0, 1, None, 2, ["1 line was left out (the disk could not keep up)"]),
        (0, 7, "disk full", 2, ["7 lines were left out (the disk could not keep up)", "disk full"]),
        (0, 0, None, 0, []),
        (3, 0, None, 3, []),
    ],
)
def test_an_incomplete_transcript_fails_the_command(
    transcript: Path,
    monkeypatch: pytest.MonkeyPatch,
    agent_exit: int,
    dropped: int,
    error: str | None,
    expected: int,
    says: list[str],
) -> None:
    def incomplete(*_args: Any, **_kwargs: Any) -> RecordResult:
        return RecordResult(agent_exit, CloseReason.AGENT_EXIT, 3, dropped, error)

    monkeypatch.setattr("acptrace.cli.record_command.record", incomplete)
    result = CliRunner().invoke(app, ["record", "-o", str(transcript), "--", "agent"])
    assert result.exit_code == expected
    assert result.stderr.splitlines() == [
        f"acptrace: error: the transcript {transcript} is incomplete: {problem}" for problem in says
    ]


# -- units ---------------------------------------------------------------------------------------


@given(
    data=st.binary(max_size=400).map(lambda b: b.replace(b"\x00", b"\n")),
    cuts=st.lists(st.integers(min_value=0, max_value=400), max_size=12),
    limit=st.integers(min_value=1, max_value=60),
)
def test_splitter_accounts_for_every_byte_in_any_chunking(
    data: bytes, cuts: list[int], limit: int
) -> None:
    splitter = LineSplitter(limit)
    lines: list[Line] = []
    edges = sorted({0, len(data), *(c for c in cuts if c < len(data))})
    for begin, end in itertools.pairwise(edges):
        lines += splitter.feed(data[begin:end])
    lines += splitter.finish()
    rebuilt = b"".join(
        line.data + (b"\n" if line.ended and not line.more else b"") for line in lines
    )
    assert rebuilt == data
    assert all(len(line.data) <= limit for line in lines)
    assert all(not line.ended for line in lines[:-1] if line.more)


def test_splitter_whole_lines_and_parts() -> None:
    splitter = LineSplitter(4)
    assert splitter.feed(b"ab\ncd") == [Line(b"ab")]
    assert splitter.feed(b"efghij\nk") == [
        Line(b"cdef", ended=False, part=1, more=True),
        Line(b"ghij", ended=True, part=2),
    ]
    assert splitter.finish() == [Line(b"k", ended=False)]
    assert splitter.finish() == []


def test_utf8_boundary_never_splits_a_character() -> None:
    data = "aé€😀".encode()
    for limit in range(1, len(data)):
        cut = utf8_boundary(data, limit)
        assert cut <= limit
        data[:cut].decode()
        data[cut:].decode()


def test_queue_never_blocks_and_notes_gaps() -> None:
    queue = CaptureQueue(max_bytes=10)
    queue.put_lines(Stream.C2A, [Line(b"12345678")])
    queue.put_lines(Stream.C2A, [Line(b"too much")])  # does not fit: left out, not waited for
    queue.put_lines(Stream.A2C, [Line(b"no room")])
    taken = queue.take(1 << 20)
    queue.release(taken)
    queue.put_lines(Stream.C2A, [Line(b"fits")])
    queue.close()
    rest = queue.take(1 << 20)
    assert [type(i) for i in taken] == [Captured]
    assert [(type(i).__name__, getattr(i, "stream", None)) for i in rest] == [
        ("Gap", Stream.C2A),
        ("Captured", Stream.C2A),
    ]
    assert isinstance(rest[0], Gap)
    assert (rest[0].lines, rest[0].size) == (1, 8)
    assert queue.dropped == 2
    assert queue.take(1) == []


def test_a_queue_that_holds_back_waits_for_room_and_drops_nothing() -> None:
    queue = CaptureQueue(max_bytes=10, hold_back=True)
    queue.put_lines(Stream.A2C, [Line(b"12345678")])
    second = threading.Thread(target=queue.put_lines, args=(Stream.A2C, [Line(b"waits!!!")]))
    second.start()
    first = queue.take(1 << 20)
    assert [i.line.data for i in first if isinstance(i, Captured)] == [b"12345678"]
    assert second.is_alive()  # (no room until the writer is done with the first)
    queue.release(first)
    second.join(TIMEOUT_S)
    queue.close()
    rest = queue.take(1 << 20)
    assert [i.line.data for i in rest if isinstance(i, Captured)] == [b"waits!!!"]
    assert queue.dropped == 0
    assert [i.mono_ns for i in first + rest] == sorted(i.mono_ns for i in first + rest)


def test_closing_a_queue_releases_a_put_waiting_for_room() -> None:
    queue = CaptureQueue(max_bytes=10, hold_back=True)
    queue.put_lines(Stream.A2C, [Line(b"12345678")])
    waiting = threading.Thread(target=queue.put_lines, args=(Stream.A2C, [Line(b"waits!!!")]))
    waiting.start()
    queue.close()
    waiting.join(TIMEOUT_S)
    assert not waiting.is_alive()


def test_queue_events_flush_pending_gaps_first() -> None:
    queue = CaptureQueue(max_bytes=4)
    queue.put_lines(Stream.A2C, [Line(b"1234"), Line(b"5")])
    queue.put_event(lambda ts, mono: Opened((), "/", 1, "v", True, ts, mono))
    items = queue.take(1 << 20)
    assert [type(i).__name__ for i in items] == ["Captured", "Gap", "Opened"]
    assert [i.mono_ns for i in items] == sorted(i.mono_ns for i in items)


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        (Line(b'{"a":1}'), {"msg": {"a": 1}}),
        (Line(b"[1, 2]"), {"msg": [1, 2]}),
        (Line(b"text"), {"raw": "text"}),
        (Line(b"\xc3"), {"raw": "ww==", "encoding": "base64"}),
        (Line(b'{"a":1}', ended=False), {"msg": {"a": 1}, "eol": False}),
        (Line(b'{"a"', ended=False, part=1, more=True), {"raw": '{"a"', "part": 1, "more": True}),
        (Line(b":1}", part=2), {"raw": ":1}", "part": 2, "more": False}),
    ],
)
def test_encode_traffic(line: Line, expected: dict[str, Any]) -> None:
    record = orjson.loads(encode(Captured(Stream.C2A, line, 1_000_000_000, 7), None))
    assert record == {"ts": "1970-01-01T00:00:01.000000Z", "mono_ns": 7, "dir": "c2a", **expected}


def test_encode_stderr_and_timestamps() -> None:
    now = time.time_ns()
    record = orjson.loads(encode(Captured(Stream.STDERR, Line(b"warn"), now, 1), None))
    assert record["text"] == "warn"
    assert wall_ns(record["ts"]) == now // 1000 * 1000
    assert rfc3339(1_764_669_600_123_456_789) == "2025-12-02T10:00:00.123456Z"


def test_exit_status_is_what_a_shell_reports() -> None:
    assert [exit_status(code) for code in (0, 3, -9, -15)] == [0, 3, 137, 143]


def test_default_transcript_path() -> None:
    path = default_transcript_path(
        {"ACPTRACE_DIR": "/rec"}, now_ns=1_764_669_600_123_000_000, pid=7
    )
    assert str(path) == "/rec/acptrace-20251202T100000.123Z-7.jsonl"
    assert default_transcript_path({}, pid=1).parent == Path(".")


def test_acptrace_dir_is_taken_as_written_braces_and_all() -> None:
    # {time} and {pid} are -o's placeholders; $ACPTRACE_DIR names a folder as it is
    path = default_transcript_path({"ACPTRACE_DIR": "/rec/{pid}"}, now_ns=0, pid=7)
    assert path == Path("/rec/{pid}/acptrace-19700101T000000.000Z-7.jsonl")


# -- where -o may write (the same rule for `record` and `redact`) ---------------------------------


@pytest.mark.parametrize("command", ["record", "redact"])
@pytest.mark.parametrize("case", REFUSED)
def test_an_output_that_cannot_be_written_is_one_line_and_exit_2(
    tmp_path: Path, command: str, case: str
) -> None:
    source = tmp_path / "in.jsonl"
    source.write_bytes(b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}\n')
    target, says = refused_outputs(tmp_path, ".jsonl")[case]
    before = sorted(p.name for p in tmp_path.rglob("*"))
    args = ["--", *FAKE, "echo"] if command == "record" else [str(source)]
    result = CliRunner().invoke(app, [command, "-o", str(target), *args])

    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    [line] = result.stderr.splitlines()
    assert line.startswith("acptrace: error: cannot write the ")
    assert says in line
    assert f"the {'redacted ' if command == 'redact' else ''}transcript {target}: " in line
    assert sorted(p.name for p in tmp_path.rglob("*")) == before  # nothing made
    assert (tmp_path / "read-only.jsonl").read_text() == "keep me"


def test_recordings_are_owner_only_whether_or_not_the_file_existed(tmp_path: Path) -> None:
    fresh, existing = tmp_path / "fresh.jsonl", tmp_path / "existing.jsonl"
    existing.write_text("old")
    existing.chmod(0o644)
    for path in (fresh, existing):
        args = [*RECORD, "-o", str(path), "--force", "--", *FAKE, "echo"]
        subprocess.run(args, input=b"{}\n", capture_output=True, timeout=TIMEOUT_S, check=True)
        assert path.stat().st_mode & 0o777 == 0o600, path
        assert meta(records_of(path), "close")


def test_redacted_files_are_owner_only_whether_or_not_the_file_existed(tmp_path: Path) -> None:
    source = tmp_path / "in.jsonl"
    source.write_bytes(b'{"token":"S3CR3T"}\n')
    fresh, existing = tmp_path / "fresh.jsonl", tmp_path / "existing.jsonl"
    existing.write_text("old")
    existing.chmod(0o644)
    for path in (fresh, existing):
        result = CliRunner().invoke(app, ["redact", str(source), "-o", str(path)])
        assert result.exit_code == 0, result.output
        assert path.stat().st_mode & 0o777 == 0o600, path
        assert b"S3CR3T" not in path.read_bytes()


def test_the_default_folder_is_created_but_an_output_folder_never_is(tmp_path: Path) -> None:
    env = {**os.environ, "ACPTRACE_DIR": str(tmp_path / "made" / "here")}
    args = [*RECORD, "--", *FAKE, "echo"]
    result = subprocess.run(args, input=b"", capture_output=True, env=env, timeout=TIMEOUT_S)
    assert result.returncode == 0, result.stderr
    assert len(list((tmp_path / "made" / "here").iterdir())) == 1
    args = [*RECORD, "-o", str(tmp_path / "not" / "made.jsonl"), "--", *FAKE, "echo"]
    result = subprocess.run(args, input=b"", capture_output=True, timeout=TIMEOUT_S)
    assert result.returncode == 2
    assert not (tmp_path / "not").exists()


@pytest.mark.parametrize("umask", [0o000, 0o022, 0o077, 0o277])
def test_default_folders_are_0700_and_recordings_0600_whatever_the_umask(
    tmp_path: Path, umask: int
) -> None:
    env = {**os.environ, "ACPTRACE_DIR": str(tmp_path / "made" / "here")}
    args = [*RECORD, "--", *FAKE, "echo"]
    result = subprocess.run(
        args,
        input=b"{}\n",
        capture_output=True,
        env=env,
        timeout=TIMEOUT_S,
        preexec_fn=lambda: os.umask(umask),
        check=False,
    )
    assert result.returncode == 0, result.stderr
    for folder in (tmp_path / "made", tmp_path / "made" / "here"):
        assert folder.stat().st_mode & 0o777 == 0o700, folder
    [recording] = (tmp_path / "made" / "here").iterdir()
    assert recording.stat().st_mode & 0o777 == 0o600


def test_make_folder_leaves_existing_folders_and_refuses_a_file_on_the_way(tmp_path: Path) -> None:
    tmp_path.chmod(0o755)
    make_folder(tmp_path / "a" / "t.jsonl")
    assert (tmp_path.stat().st_mode & 0o777, (tmp_path / "a").stat().st_mode & 0o777) == (
        0o755,
        0o700,
    )
    (tmp_path / "file").write_text("")
    with pytest.raises(FileExistsError):
        make_folder(tmp_path / "file" / "b" / "t.jsonl")


# -- docs/recorder-format.md -----------------------------------------------------------------

RECORDER_DOC = Path(__file__).resolve().parents[1] / "docs" / "recorder-format.md"


def written_field_names() -> set[str]:
    """Every field name acptrace/record/transcript.py writes into a record: dict literal keys,
    `record[...] = ...`, `record.update(name=...)` and the field handed to `_text`."""
    import ast

    from acptrace.record import transcript as module

    tree = ast.parse(Path(module.__file__).read_text())
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Dict):
            names |= {
                k.value
                for k in node.keys
                if isinstance(k, ast.Constant) and isinstance(k.value, str)
            }
        elif isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store):
            if isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str):
                names.add(node.slice.value)
        elif not isinstance(node, ast.Call):
            continue
        elif isinstance(node.func, ast.Attribute) and node.func.attr == "update":
            names |= {k.arg for k in node.keywords if k.arg}
        elif isinstance(node.func, ast.Name) and node.func.id == "_text":
            field = node.args[0]
            assert isinstance(field, ast.Constant)
            assert isinstance(field.value, str)
            names.add(field.value)
    return names


def test_every_field_the_recorder_writes_is_documented() -> None:
    names = written_field_names()
    assert {"ts", "dir", "msg", "raw", "text", "encoding", "note", "eol", "dropped_lines"} <= names
    assert len(names) > 25
    documented = RECORDER_DOC.read_text()
    missing = sorted(name for name in names if f"| `{name}` |" not in documented)
    assert missing == []
    values = [*(r.value for r in CloseReason), *(s.value for s in Stream), NOTE_NOT_REENCODED]
    assert [v for v in values if f"`{v}`" not in documented] == []


def test_the_documented_fields_are_the_ones_written() -> None:
    """The doc's tables hold no field the recorder does not write (so they cannot go stale)."""
    documented = {
        line.split("`")[1]
        for line in RECORDER_DOC.read_text().splitlines()
        if line.startswith("| `")
    }
    assert documented == written_field_names()
