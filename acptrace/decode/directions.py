"""Which way an ACP method travels, for formats that record no direction (input-formats.md)."""

from __future__ import annotations

from acptrace.model.domain import Direction

_CLIENT_TO_AGENT = frozenset(
    {
        "initialize",
        "auth/login",
        "auth/logout",
        "authenticate",
        "session/new",
        "session/list",
        "session/resume",
        "session/load",
        "session/close",
        "session/delete",
        "session/prompt",
        "session/set_config_option",
        "session/set_mode",
        "session/set_model",
        "session/cancel",
    }
)
_AGENT_TO_CLIENT = frozenset(
    {"session/request_permission", "elicitation/create", "session/update", "elicitation/complete"}
)
_AGENT_TO_CLIENT_PREFIXES = ("mcp/", "fs/", "terminal/")


TRAFFIC = {"c2a": Direction.C2A, "a2c": Direction.A2C}
"""The directions of traffic as the canonical format writes them."""


def infer_direction(method: str) -> Direction:
    """The direction a request or notification of this method travels; UNKNOWN when it varies."""
    if method in _CLIENT_TO_AGENT:
        return Direction.C2A
    if method in _AGENT_TO_CLIENT or method.startswith(_AGENT_TO_CLIENT_PREFIXES):
        return Direction.A2C
    return Direction.UNKNOWN
