"""A small ACP client on the `agent-client-protocol` SDK that runs one scripted session.

    python tests/acp_peers/client.py [--prompts N] -- AGENT_CMD [ARGS...]

It starts the agent command (which may be `acptrace record ... -- agent`), initializes,
authenticates, opens a session with MCP servers that carry secrets, prompts, answers the
permission request, loads the session (a v1 replay) and closes stdin. `run_session` returns
every byte it wrote and read, for comparison with what the agent saw.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from dataclasses import dataclass, field
from typing import Any

from acp import PROTOCOL_VERSION, Client, RequestPermissionResponse, connect_to_agent, text_block
from acp.schema import (
    AllowedOutcome,
    ClientCapabilities,
    EnvVariable,
    HttpHeader,
    HttpMcpServer,
    Implementation,
    McpServerStdio,
)

SECRETS = {
    "env": "env-secret-5f1b9c2e7a",
    "header": "header-secret-0d4c8e1f3b",
    "arg": "arg-secret-9a7e2c4b6d",
    "auth": "auth-secret-3e8f1a5c7b",
    "token": "ghp_" + "Z" * 36,
}
"""Secrets the session sends, in every place redaction must cover."""

STREAM_LIMIT = 64 * 1024 * 1024


@dataclass
class SessionRun:
    """What one scripted session saw."""

    sent: bytearray = field(default_factory=bytearray)
    """Every byte written to the agent's stdin."""
    received: bytearray = field(default_factory=bytearray)
    """Every byte read from the agent's stdout."""
    stderr: bytes = b""
    """The agent's stderr."""
    exit_code: int | None = None
    """The agent's exit code."""
    updates: list[Any] = field(default_factory=list)
    """session/update notifications, in order."""
    prompt_latencies_ms: list[float] = field(default_factory=list)
    """Round trip of each session/prompt."""


class TestClient(Client):
    """Accepts every permission request and collects updates."""

    def __init__(self, run: SessionRun) -> None:
        self._run = run

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        self._run.updates.append(update)

    async def request_permission(
        self, session_id: str, tool_call: Any, options: list[Any], **kwargs: Any
    ) -> RequestPermissionResponse:
        return RequestPermissionResponse(
            outcome=AllowedOutcome(outcome="selected", option_id=options[0].option_id)
        )


def tee_writes(writer: asyncio.StreamWriter, copy: bytearray) -> asyncio.StreamWriter:
    """The same writer, keeping a copy of every byte written (the SDK wants a real one)."""
    write = writer.write

    def tee(data: bytes | bytearray | memoryview) -> None:
        copy.extend(data)
        write(data)

    writer.write = tee  # type: ignore[method-assign]
    return writer


async def _tee(source: asyncio.StreamReader, copy: bytearray, sink: asyncio.StreamReader) -> None:
    while chunk := await source.read(65536):
        copy.extend(chunk)
        sink.feed_data(chunk)
    sink.feed_eof()


async def run_session(command: list[str], *, prompts: int = 2, big: bool = True) -> SessionRun:
    """Run the scripted session against `command`; return what was sent and received."""
    run = SessionRun()
    process = await asyncio.create_subprocess_exec(
        *command,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        limit=STREAM_LIMIT,
    )
    assert process.stdin is not None
    assert process.stdout is not None
    assert process.stderr is not None
    reader = asyncio.StreamReader(limit=STREAM_LIMIT)
    tee = asyncio.create_task(_tee(process.stdout, run.received, reader))
    stderr = asyncio.create_task(process.stderr.read())
    conn = connect_to_agent(TestClient(run), tee_writes(process.stdin, run.sent), reader)
    await conn.initialize(
        protocol_version=PROTOCOL_VERSION,
        client_capabilities=ClientCapabilities(),
        client_info=Implementation(name="acptrace-test-client", version="1.0"),
    )
    await conn.authenticate(method_id="api-key", apiKey=SECRETS["auth"])
    session = await conn.new_session(cwd="/tmp", mcp_servers=_mcp_servers())
    for number in range(prompts):
        words = f"prompt {number} {'big' if big and number == 0 else 'small'}"
        started = time.perf_counter()
        await conn.prompt(session_id=session.session_id, prompt=[text_block(words)])
        run.prompt_latencies_ms.append((time.perf_counter() - started) * 1000)
    await conn.load_session(cwd="/tmp", session_id=session.session_id, mcp_servers=[])
    await conn.close()
    process.stdin.close()
    run.exit_code = await process.wait()
    await tee
    run.stderr = await stderr
    return run


def _mcp_servers() -> list[Any]:
    return [
        McpServerStdio(
            name="files",
            command="/usr/bin/mcp-files",
            args=["--api-key", SECRETS["arg"], "--verbose"],
            env=[
                EnvVariable(name="FILES_ROOT", value=SECRETS["env"]),
                EnvVariable(name="GITHUB_TOKEN", value=SECRETS["token"]),
            ],
        ),
        HttpMcpServer(
            type="http",
            name="search",
            url="https://mcp.example.invalid/search",
            headers=[
                HttpHeader(name="Authorization", value="Bearer " + SECRETS["header"]),
                HttpHeader(name="X-Team", value=SECRETS["header"] + "-team"),
            ],
        ),
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--prompts", type=int, default=2, help="How many prompts to send.")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="-- AGENT_CMD [ARGS...]")
    args = parser.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    run = asyncio.run(run_session(command, prompts=args.prompts))
    sys.stderr.write(run.stderr.decode(errors="replace"))
    print(
        f"sent {len(run.sent)} bytes, received {len(run.received)} bytes, "
        f"{len(run.updates)} updates, agent exit code {run.exit_code}"
    )
    return 0 if run.exit_code == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
