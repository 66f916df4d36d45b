"""Capabilities advertised against methods used (rules.md §4b).

Each Client request or notification is held against the latest success response to
`initialize` before it, with the map of the version that response negotiated; a message naming
an announced child needs the child's own capability, as its latest `subagent_update` set it.
What is used without being advertised is reported once per method when the connection ends;
an advertised request answered `-32601` as soon as the answer comes.
"""

from __future__ import annotations

from collections.abc import Callable

import msgspec

from acptrace.correlate.observations import NotHonoured, Observation, UnadvertisedUse
from acptrace.decode.capabilities import AUTH_METHODS
from acptrace.model.domain import C2A, RESPONSE, Direction, Message

METHOD_NOT_FOUND = -32601

_V2_BASELINE = ("session/new", "session/list", "session/resume", "session/close",
                "session/prompt", "session/cancel")  # fmt: skip
V2_NEEDS: dict[str, tuple[str, ...]] = {
    **dict.fromkeys(_V2_BASELINE, ("session",)),
    "session/delete": ("session", "session.delete"),
    "session/fork": ("session", "session.fork"),
    "session/archive": ("session", "session.archive"),
    "session/unarchive": ("session", "session.archive"),
    "session/status": ("session", "session.status"),
    "session/set_title": ("session", "session.title"),
    "auth/login": (AUTH_METHODS,),
    "auth/logout": (AUTH_METHODS,),
    "auth/status": ("auth.status",),
}
"""v2: the capabilities each method needs (`providers/*` below); others are not judged."""
V2_PREFIXES = {"providers/": ("providers",)}
V1_NEEDS: dict[str, tuple[str, ...]] = {
    "session/load": ("loadSession",),
    **{
        f"session/{member}": (f"sessionCapabilities.{member}",)
        for member in ("resume", "list", "close", "fork", "delete")
    },
    "authenticate": (AUTH_METHODS,),
}
"""v1: the capabilities each method needs (under `agentCapabilities`)."""
CHILD_NEEDS = {"session/cancel": "cancel"}
"""What a message naming an announced child needs of the child's own capabilities."""


def path(capability: str, version: int) -> str:
    """A capability as rules.md §4b writes it: v2's under `capabilities` (`capabilities.session`,
    a child's `capabilities.cancel`), v1's under `agentCapabilities` as acp-tck names them
    (`loadSession`, `sessionCapabilities.fork`), `authMethods` as it is."""
    if version < 2 or capability == AUTH_METHODS:
        return capability
    return f"capabilities.{capability}"


def needs(method: str, version: int) -> tuple[str, ...]:
    """The capabilities a Client method needs in this version (empty: not judged)."""
    if version < 2:
        return V1_NEEDS.get(method, ())
    for prefix, capabilities in V2_PREFIXES.items():
        if method.startswith(prefix):
            return capabilities
    return V2_NEEDS.get(method, ())


class _Unadvertised(msgspec.Struct):
    first: Message
    capability: str
    v1_load: bool
    count: int = 0


class CapabilityBook(msgspec.Struct):
    """The advertised capabilities as the transcript unfolds, and their uses."""

    emit: Callable[[Observation], None]
    """Where observations go."""
    fallback_version: Callable[[], int]
    """The version to use when the `initialize` result names none."""
    advertised: frozenset[str] | None = None
    """The latest successful `initialize` result's capabilities (None: none yet)."""
    version: int = 2
    """The version that result negotiated."""
    children: dict[str, frozenset[str]] = msgspec.field(default_factory=dict)
    """Each announced child's capabilities, as its latest `subagent_update` set them."""
    unadvertised: dict[str, _Unadvertised] = msgspec.field(default_factory=dict)
    """Methods used without being advertised, by method, in order of first use."""
    not_honoured: dict[str, NotHonoured] = msgspec.field(default_factory=dict)
    """Advertised methods answered `-32601`, by method: the first, with the count."""

    def initialized(self, response: Message) -> None:
        """A success response to `initialize`: from now on, its capabilities hold."""
        self.advertised = response.capabilities or frozenset()
        peer = response.peer
        version = peer.protocol_version if peer is not None else None
        self.version = version if version is not None else self.fallback_version()

    def announced(self, update: Message) -> None:
        """A `subagent_update`: its capabilities patch the child's (omitted: unchanged)."""
        child = update.update_session_id
        if child is None:
            return
        patch = update.capabilities
        if patch is not None or child not in self.children:
            self.children[child] = patch or frozenset()

    def used(self, message: Message) -> None:
        """A Client request or notification: note it if its method was not advertised."""
        method = message.method
        if (
            self.advertised is None
            or method is None
            or message.direction is not C2A
            or message.kind is RESPONSE
        ):
            return
        missing = self._missing(message, method)
        if missing is None:
            return
        seen = self.unadvertised.get(method)
        if seen is None:
            v1_load = self.version < 2 and method == "session/load"
            shown = path(missing, self.version)
            seen = self.unadvertised[method] = _Unadvertised(message, shown, v1_load)
        seen.count += 1

    def answered(self, request: Message, response: Message) -> None:
        """A response: an advertised method answered `-32601` is not honoured."""
        if response.error_code != METHOD_NOT_FOUND or self.advertised is None:
            return
        method = request.method
        if method is None or request.direction is not Direction.C2A:
            return
        capabilities = self._needed(request, method)
        if capabilities and self._missing(request, method) is None:
            seen = self.not_honoured.get(method)
            if seen is None:
                shown = path(capabilities[-1], self.version)
                self.not_honoured[method] = NotHonoured(request, response, shown)
            else:
                self.not_honoured[method] = msgspec.structs.replace(seen, count=seen.count + 1)

    def finish(self) -> None:
        """The connection ended: report each method used without its capability, and each
        advertised one answered `-32601` (once per method, rules.md §11)."""
        for seen in self.unadvertised.values():
            self.emit(UnadvertisedUse(seen.first, seen.count, seen.capability, seen.v1_load))
        for refused in self.not_honoured.values():
            self.emit(refused)

    def _needed(self, message: Message, method: str) -> tuple[str, ...]:
        if message.session_id in self.children:
            child_needs = CHILD_NEEDS.get(method)
            return (child_needs,) if child_needs is not None else ()
        return needs(method, self.version)

    def _missing(self, message: Message, method: str) -> str | None:
        """The first capability the message needs that is not advertised, if any."""
        held = self.children.get(message.session_id or "", self.advertised or frozenset())
        for capability in self._needed(message, method):
            if capability not in held:
                return capability
        return None
