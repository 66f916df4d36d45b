"""Which way an ACP method travels (input-formats.md: "Inferring direction when the format …").

The schemas' `x-side` annotations decide: `agent` (the Agent handles it) travels Client -> Agent,
`client` travels Agent -> Client. `mcp/message` goes by kind (requests Agent -> Client,
notifications Client -> Agent); `proxy/*` and `$/cancel_request` go either way. A method with one
known direction is judged against it (LC-WRONG-DIRECTION); the others never are.
"""

from __future__ import annotations

from acptrace.model.domain import A2C, C2A, NOTIFICATION, UNKNOWN_DIRECTION, Direction, MessageKind

CLIENT_TO_AGENT = frozenset(
    {
        "initialize",
        "authenticate",
        "auth/login",
        "auth/logout",
        "auth/status",
        "providers/list",
        "providers/set",
        "providers/disable",
        "session/new",
        "session/list",
        "session/resume",
        "session/load",
        "session/fork",
        "session/close",
        "session/delete",
        "session/archive",
        "session/unarchive",
        "session/set_title",
        "session/status",
        "session/prompt",
        "session/set_config_option",
        "session/set_mode",
        "terminal/cancel",
        "tool_call/cancel",
        "session/cancel",
    }
)
"""Methods the Agent handles (`x-side: agent`)."""

AGENT_TO_CLIENT = frozenset(
    {
        "session/request_permission",
        "elicitation/create",
        "fs/read_text_file",
        "fs/write_text_file",
        "terminal/create",
        "terminal/output",
        "terminal/release",
        "terminal/wait_for_exit",
        "terminal/kill",
        "session/update",
        "elicitation/complete",
        "auth/status_update",
    }
)
"""Methods the Client handles (`x-side: client`)."""

NOTIFICATIONS = frozenset(
    {
        "session/cancel",
        "session/update",
        "elicitation/complete",
        "auth/status_update",
        "$/cancel_request",
    }
)
"""Methods sent only as notifications (input-formats.md)."""

MCP_MESSAGE = "mcp/message"
"""MCP over ACP: requests Agent -> Client, notifications Client -> Agent, never judged."""

CANCEL_REQUEST = "$/cancel_request"
"""Travels the way the request it names travelled (its sender issued that request)."""

PROXY_PREFIX = "proxy/"
"""Conductor chains: either way."""

TRAFFIC = {"c2a": Direction.C2A, "a2c": Direction.A2C}
"""The directions of traffic as the canonical format writes them."""


def known_direction(method: str) -> Direction | None:
    """The one direction a request or notification of this method travels; None when it has
    none (`mcp/message`, `proxy/*`, `$/cancel_request`, `_` extensions, unknown methods)."""
    if method in CLIENT_TO_AGENT:
        return C2A
    if method in AGENT_TO_CLIENT:
        return A2C
    return None


def infer_direction(method: str, kind: MessageKind | None = None) -> Direction:
    """The direction a request or notification of this method travels; UNKNOWN when it varies.

    `mcp/message` goes by `kind`; without one it is taken for a request (Agent -> Client).
    """
    known = known_direction(method)
    if known is not None:
        return known
    if method == MCP_MESSAGE:
        return C2A if kind is NOTIFICATION else A2C
    return UNKNOWN_DIRECTION


def wrong_direction(method: str | None, direction: Direction) -> Direction | None:
    """The direction a message should have travelled, when it was recorded going the other
    way (LC-WRONG-DIRECTION); None when it went the right way or the method is not judged."""
    if method is None or direction is UNKNOWN_DIRECTION:
        return None
    expected = known_direction(method)
    return expected if expected is not None and expected is not direction else None
