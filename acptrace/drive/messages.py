"""What the scripted Client says: its requests for each protocol version, its answers to the
Agent's requests."""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from acptrace.model.version import __version__

CLIENT_INFO = {"name": "acptrace-drive", "version": __version__}
"""Who the scripted Client says it is."""
METHOD_NOT_FOUND = -32601


class Permission(StrEnum):
    """How the scripted Client answers `session/request_permission`."""

    ALLOW = "allow"
    DENY = "deny"


def initialize_params(protocol: int) -> dict[str, Any]:
    """`initialize` params in the shape of that version (v1: `clientInfo`, v2: `info`)."""
    if protocol == 1:
        fs = {"readTextFile": False, "writeTextFile": False}
        return {
            "protocolVersion": 1,
            "clientCapabilities": {"fs": fs, "terminal": False},
            "clientInfo": CLIENT_INFO,
        }
    return {"protocolVersion": protocol, "info": CLIENT_INFO, "capabilities": {}}


def negotiated_version(result: Any, asked: int) -> int:
    """The version the Agent answered with (what the rest of the connection follows)."""
    version = result.get("protocolVersion") if isinstance(result, dict) else None
    return version if isinstance(version, int) and not isinstance(version, bool) else asked


def can_load(result: Any) -> bool:
    """Whether a v1 `initialize` result advertises `loadSession`."""
    capabilities = result.get("agentCapabilities") if isinstance(result, dict) else None
    return isinstance(capabilities, dict) and capabilities.get("loadSession") is True


def missing_capability(version: int, method: str, result: Any) -> str | None:
    """The capability `method` needs that the `initialize` result does not advertise, or None
    (the map of rule CAP-UNADVERTISED: v2 `capabilities.session` for every `session/` method
    drive sends, v1 `agentCapabilities.loadSession` for `session/load`)."""
    if version == 1:
        if method == "session/load" and not can_load(result):
            return "agentCapabilities.loadSession"
        return None
    capabilities = result.get("capabilities") if isinstance(result, dict) else None
    session = capabilities.get("session") if isinstance(capabilities, dict) else None
    if method.startswith("session/") and not isinstance(session, dict):
        return "capabilities.session"
    return None


def new_session_params(cwd: str) -> dict[str, Any]:
    return {"cwd": cwd, "mcpServers": []}


def replay_method(protocol: int) -> str:
    """The replaying request's method: v2 `session/resume`, v1 `session/load`."""
    return "session/load" if protocol == 1 else "session/resume"


def replay_request(protocol: int, session_id: str, cwd: str) -> tuple[str, dict[str, Any]]:
    """The replaying request: v2 `session/resume` from the start, v1 `session/load`."""
    params: dict[str, Any] = {"sessionId": session_id, "cwd": cwd, "mcpServers": []}
    if protocol == 1:
        return replay_method(protocol), params
    return replay_method(protocol), {**params, "replayFrom": {"type": "start"}}


def prompt_params(session_id: str, text: str) -> dict[str, Any]:
    return {"sessionId": session_id, "prompt": [{"type": "text", "text": text}]}


def turn_ends_with_idle(protocol: int) -> bool:
    """Whether a prompt's turn ends with a `state_update` `idle` (v2: the prompt's response
    only acknowledges the user message) rather than with the prompt's response (v1)."""
    return protocol >= 2


IDLE = "idle"
"""The state that ends a v2 turn."""
BUSY = ("running", "requires_action")
"""The states of foreground work: a v2 turn has begun."""


def session_state(message: dict[str, Any], session_id: str) -> str | None:
    """The `state` of a v2 `state_update` of this session (`running`, `requires_action`,
    `idle`, …), or None for any other message, another session's `state_update` included
    (rules.md §11: the turn of a session ends with its own `idle`)."""
    params = message.get("params")
    if message.get("method") != "session/update" or not isinstance(params, dict):
        return None
    update = params.get("update")
    if params.get("sessionId") != session_id or not isinstance(update, dict):
        return None
    state = update.get("state")
    is_state = update.get("sessionUpdate") == "state_update" and isinstance(state, str)
    return state if is_state else None


def is_response_to(message: dict[str, Any], request_id: int) -> bool:
    """Whether `message` is the response to the request with this id."""
    is_response = "method" not in message and ("result" in message or "error" in message)
    return is_response and message.get("id") == request_id


def answer(method: str, params: Any, permission: Permission) -> dict[str, Any]:
    """The result or error member answering an Agent request: `{"result": …}`/`{"error": …}`."""
    if method != "session/request_permission":
        text = f"acptrace drive does not handle {method}"
        return {"error": {"code": METHOD_NOT_FOUND, "message": text}}
    options = params.get("options") if isinstance(params, dict) else None
    wanted = "allow" if permission is Permission.ALLOW else "reject"
    for option in options if isinstance(options, list) else []:
        kind = option.get("kind") if isinstance(option, dict) else None
        if isinstance(kind, str) and kind.startswith(wanted) and "optionId" in option:
            return {"result": {"outcome": {"outcome": "selected", "optionId": option["optionId"]}}}
    return {"result": {"outcome": {"outcome": "cancelled"}}}
