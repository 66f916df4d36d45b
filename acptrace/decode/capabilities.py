"""What an `initialize` result advertises, and what a `subagent_update` permits its child, as
names (rules.md §4b): "advertised" means the member is a JSON object (v1's `loadSession`:
`true`); a non-empty `authMethods` list advertises the login methods.

v2 names are the paths under `capabilities` (`session`, `session.fork`, `providers`,
`auth.status`); v1 names the paths under `agentCapabilities` (`loadSession`,
`sessionCapabilities.resume`); both `authMethods`. A child's are `cancel` (the only per-child
capability the schema has).
"""

from __future__ import annotations

from typing import Any

from acptrace.decode.shapes import UNSET, WireResult, WireUpdate

AUTH_METHODS = "authMethods"
"""A non-empty `authMethods` list in the result."""
_V2_SESSION_MEMBERS = ("delete", "fork", "archive", "status", "title")
_V1_SESSION_MEMBERS = ("resume", "list", "close", "fork", "delete")


def advertised(result: WireResult) -> frozenset[str]:
    """The capabilities an `initialize` result advertises."""
    names: list[str] = []
    v2 = result.capabilities
    if isinstance(v2, dict):
        session = v2.get("session")
        if isinstance(session, dict):
            names.append("session")
            names.extend(f"session.{m}" for m in _V2_SESSION_MEMBERS if _object(session, m))
        if _object(v2, "providers"):
            names.append("providers")
        auth = v2.get("auth")
        if isinstance(auth, dict) and _object(auth, "status"):
            names.append("auth.status")
    v1 = result.agentCapabilities
    if isinstance(v1, dict):
        if v1.get("loadSession") is True:
            names.append("loadSession")
        session = v1.get("sessionCapabilities")
        if isinstance(session, dict):
            names.extend(
                f"sessionCapabilities.{m}" for m in _V1_SESSION_MEMBERS if _object(session, m)
            )
    methods = result.authMethods
    if isinstance(methods, list) and methods:
        names.append(AUTH_METHODS)
    return frozenset(names)


def child_permits(update: WireUpdate) -> frozenset[str] | None:
    """What a `subagent_update` sets its child's capabilities to: None when it leaves them as
    they are (omitted), empty when it clears them (`null`) or grants nothing."""
    given = update.capabilities
    if given is UNSET:
        return None
    if not isinstance(given, dict):
        return frozenset()
    return frozenset({"cancel"}) if _object(given, "cancel") else frozenset()


def _object(container: dict[str, Any], member: str) -> bool:
    return isinstance(container.get(member), dict)
