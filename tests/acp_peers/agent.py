"""A small ACP agent on the `agent-client-protocol` SDK, run as a script over stdio.

    python tests/acp_peers/agent.py [--capture DIR]

With `--capture`, every byte it reads from stdin goes to DIR/agent-in.bin and every byte it
writes to stdout to DIR/agent-out.bin. It logs one line per request on stderr, streams a few
updates per prompt (one very long one for a prompt saying "big"), asks for permission once
per prompt, and replays a session's history on `session/load`. It exits when stdin closes.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path
from typing import Any, BinaryIO

from acp import (
    PROTOCOL_VERSION,
    Agent,
    AuthenticateResponse,
    Client,
    InitializeResponse,
    LoadSessionResponse,
    NewSessionResponse,
    PromptResponse,
    run_agent,
    start_tool_call,
    text_block,
    update_agent_message_text,
    update_tool_call,
    update_user_message,
)
from acp.schema import (
    AgentCapabilities,
    AuthMethodAgent,
    Implementation,
    PermissionOption,
    ToolCallUpdate,
)

BIG_CHUNK_BYTES = 300_000
"""Size of the text streamed for a prompt that says "big" (spans many pipe reads)."""


class TestAgent(Agent):
    """Answers every request the test client sends; remembers history per session."""

    def __init__(self) -> None:
        self._client: Client | None = None
        self._sessions: dict[str, list[Any]] = {}

    def on_connect(self, conn: Client) -> None:
        self._client = conn

    @property
    def client(self) -> Client:
        assert self._client is not None
        return self._client

    async def initialize(
        self,
        protocol_version: int,
        client_capabilities: Any = None,
        client_info: Any = None,
        **kwargs: Any,
    ) -> InitializeResponse:
        log("initialize")
        return InitializeResponse(
            protocol_version=PROTOCOL_VERSION,
            agent_capabilities=AgentCapabilities(load_session=True),
            auth_methods=[AuthMethodAgent(id="api-key", name="API key")],
            agent_info=Implementation(name="acptrace-test-agent", version="1.0"),
        )

    async def authenticate(self, method_id: str, **kwargs: Any) -> AuthenticateResponse:
        log(f"authenticate {method_id}")
        return AuthenticateResponse()

    async def new_session(
        self, cwd: str, mcp_servers: Any = None, **kwargs: Any
    ) -> NewSessionResponse:
        session_id = f"sess_{len(self._sessions) + 1}"
        self._sessions[session_id] = []
        log(f"new session {session_id} with {len(mcp_servers or [])} MCP servers")
        return NewSessionResponse(session_id=session_id)

    async def load_session(
        self, cwd: str, session_id: str, mcp_servers: Any = None, **kwargs: Any
    ) -> LoadSessionResponse:
        log(f"load session {session_id}")
        for update in self._sessions.get(session_id, []):
            await self.client.session_update(session_id, update)
        return LoadSessionResponse()

    async def prompt(self, prompt: list[Any], session_id: str, **kwargs: Any) -> PromptResponse:
        text = " ".join(getattr(block, "text", "") for block in prompt)
        log(f"prompt {session_id}: {text[:40]}")
        history = self._sessions.setdefault(session_id, [])
        history.append(update_user_message(text_block(text)))
        replies = [update_agent_message_text(f"echo {i}: {text} — ünïcødé ✓") for i in range(3)]
        if "big" in text:
            replies.append(update_agent_message_text("x" * BIG_CHUNK_BYTES))
        for update in replies:
            history.append(update)
            await self.client.session_update(session_id, update)
        call_id = f"call_{len(history)}"
        await self.client.session_update(
            session_id, start_tool_call(call_id, "Edit file", kind="edit")
        )
        await self.client.request_permission(
            session_id=session_id,
            tool_call=ToolCallUpdate(tool_call_id=call_id, title="Edit file"),
            options=[PermissionOption(option_id="allow", name="Allow", kind="allow_once")],
        )
        await self.client.session_update(session_id, update_tool_call(call_id, status="completed"))
        return PromptResponse(stop_reason="end_turn")

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        log(f"cancel {session_id}")


def log(message: str) -> None:
    sys.stderr.write(f"test-agent: {message}\n")
    sys.stderr.flush()


def tee_writes(writer: asyncio.StreamWriter, copy: BinaryIO) -> asyncio.StreamWriter:
    """The same writer, keeping a copy of every byte written (the SDK wants a real one)."""
    write = writer.write

    def tee(data: bytes | bytearray | memoryview) -> None:
        copy.write(data)
        copy.flush()
        write(data)

    writer.write = tee  # type: ignore[method-assign]
    return writer


async def tee_reader(source: asyncio.StreamReader, copy: BinaryIO) -> asyncio.StreamReader:
    """A StreamReader fed from `source`, keeping a copy of every byte."""
    reader = asyncio.StreamReader(limit=64 * 1024 * 1024)

    async def pump() -> None:
        while chunk := await source.read(65536):
            copy.write(chunk)
            copy.flush()
            reader.feed_data(chunk)
        reader.feed_eof()

    asyncio.get_running_loop().create_task(pump())
    return reader


async def main(capture: Path | None) -> None:
    loop = asyncio.get_running_loop()
    stdin = asyncio.StreamReader(limit=64 * 1024 * 1024)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(stdin), sys.stdin)
    transport, protocol = await loop.connect_write_pipe(
        asyncio.streams.FlowControlMixin, sys.stdout
    )
    stdout = asyncio.StreamWriter(transport, protocol, None, loop)
    reader = stdin
    if capture is not None:
        reader = await tee_reader(stdin, (capture / "agent-in.bin").open("wb"))
        tee_writes(stdout, (capture / "agent-out.bin").open("wb"))
    await run_agent(TestAgent(), stdout, reader)
    log("stdin closed, exiting")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--capture", type=Path, help="Keep copies of the bytes in and out here.")
    asyncio.run(main(parser.parse_args().capture))
