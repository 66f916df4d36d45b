"""sacp-conductor `--trace` files (`.jsons`): every hop of a proxy chain, one event per line.

Requests and notifications are `{"type", "ts", "protocol", "from", "to", "id", "method",
"params"}`, responses `{"type": "response", "from", "to", "id", "is_error", "payload"}`.
Endpoints are `Client`, `Proxy(0)`, `Proxy(1)`, …, `Agent` (`proxy:N` is seen too). One link
is analysed: by default the hop that reaches the Agent (or, when no endpoint is called Agent,
the deepest hop seen); `--link client|agent|A,B` picks another. Events on other hops and MCP
traffic (`protocol: "mcp"`, MCP-over-ACP) become recorder events, outside the ACP rules.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from typing import Any

import msgspec

from acptrace.model.domain import Direction
from acptrace.model.errors import UsageError
from acptrace.read.envelopes import Envelope, Record, RecorderEvent
from acptrace.read.formats.base import Decoder, ReadSettings
from acptrace.read.timestamps import seconds_ns

_TYPES = ("request", "response", "notification")
_PROXY = re.compile(r"proxy\s*[(:]\s*(\d+)\s*\)?", re.IGNORECASE)
_AGENT_RANK = 1_000_000

Hop = tuple[str, str]
"""A link as (endpoint nearer the Client, endpoint nearer the Agent), names normalised."""


def endpoint(name: Any) -> tuple[int, str] | None:
    """(rank, normalised name) of an endpoint: Client 0, Proxy(N) N+1, Agent last."""
    if not isinstance(name, str):
        return None
    text = name.strip()
    if text.lower() == "client":
        return 0, "Client"
    if text.lower() == "agent":
        return _AGENT_RANK, "Agent"
    match = _PROXY.fullmatch(text)
    if match is None:
        return None
    number = int(match.group(1))
    return number + 1, f"Proxy({number})"


def hop_of(record: dict[str, Any]) -> tuple[Hop, bool] | None:
    """The hop an event travels and whether it goes towards the Agent; None if unreadable."""
    source, target = endpoint(record.get("from")), endpoint(record.get("to"))
    if source is None or target is None or source[0] == target[0]:
        return None
    if source[0] < target[0]:
        return (source[1], target[1]), True
    return (target[1], source[1]), False


def choose_link(sample: Sequence[Any], wanted: str | None) -> Hop | None:
    """The link to analyse among the hops the sample shows (None when the sample has none)."""
    hops = {hop for record in sample if isinstance(record, dict) for hop in _hops(record)}
    if wanted is not None:
        return _named_link(wanted, hops)
    if not hops:
        return None
    return max(hops, key=lambda hop: (_rank(hop[1]), _rank(hop[0])))


def _hops(record: dict[str, Any]) -> Iterator[Hop]:
    found = hop_of(record)
    if found is not None:
        yield found[0]


def _rank(name: str) -> int:
    ranked = endpoint(name)
    return ranked[0] if ranked else -1


def _named_link(wanted: str, hops: set[Hop]) -> Hop:
    """`client`, `agent`, or two endpoints `A,B` (any order, any case)."""
    key = wanted.strip().lower()
    if key in ("client", "agent"):
        side = "Client" if key == "client" else "Agent"
        for hop in sorted(hops):
            if side in hop:
                return hop
        raise UsageError(f"--link {wanted}: no hop touches the {side} in the first records")
    names = [endpoint(part) for part in re.split(r"\s*(?:,|<->|-)\s*(?=[a-zA-Z])", wanted)]
    if len(names) != 2 or None in names:
        raise UsageError(f"--link {wanted!r}: expected client, agent or two endpoints 'A,B'")
    first, second = sorted(n for n in names if n is not None)
    return first[1], second[1]


class Conductor(msgspec.Struct, frozen=True):
    """The sacp-conductor trace format."""

    name: str = "conductor"
    summary: str = "sacp-conductor --trace events (.jsons): every hop of a proxy chain"
    producers: str = "sacp-conductor --trace (agentclientprotocol/rust-sdk)"
    example: str = (
        '{"type": "request", "ts": 0.01, "protocol": "acp", "from": "Client", '
        '"to": "Proxy(0)", "id": 1, "method": "session/new", "params": {}}'
    )

    def detect(self, record: Any) -> bool:
        """A trace event: a known `type` with `from` and `to` endpoints."""
        return (
            isinstance(record, dict)
            and record.get("type") in _TYPES
            and "from" in record
            and "to" in record
        )

    def decoder(self, sample: Sequence[Any], settings: ReadSettings) -> Decoder:
        """A decoder for the chosen link."""
        return LinkDecoder(choose_link(sample, settings.link))


class LinkDecoder(msgspec.Struct):
    """Decodes the events of one link; everything else becomes a recorder event."""

    link: Hop | None
    """The link analysed (None: the first hop seen is taken)."""
    mcp_pending: set[tuple[bool, Any]] = msgspec.field(default_factory=set)
    """(towards the Agent, id) of MCP requests on the link, so their responses stay out too."""

    @property
    def note(self) -> str | None:
        """Which link was analysed."""
        return f"{self.link[0]}<->{self.link[1]}" if self.link else None

    def decode(self, record: Any, line: int) -> Iterator[Record]:
        """An envelope for ACP traffic on the link, a recorder event for anything else."""
        mono_ns = seconds_ns(record.get("ts"))
        found = hop_of(record)
        if found is not None and self.link is None:
            self.link = found[0]
        if found is None or found[0] != self.link:
            yield RecorderEvent(line, "other_link", None, mono_ns, {"from": record.get("from")})
            return
        towards_agent = found[1]
        kind = record.get("type")
        if self._is_mcp(record, kind, towards_agent):
            yield RecorderEvent(line, "mcp", None, mono_ns, {"method": record.get("method")})
            return
        direction = Direction.C2A if towards_agent else Direction.A2C
        yield Envelope(line, direction, _jsonrpc(record, kind), None, mono_ns)

    def _is_mcp(self, record: dict[str, Any], kind: Any, towards_agent: bool) -> bool:
        """MCP-over-ACP traffic: MCP requests, notifications, and the responses to them."""
        if kind == "response":
            key = (not towards_agent, _hashable(record.get("id")))
            if key in self.mcp_pending:
                self.mcp_pending.discard(key)
                return True
            return False
        if record.get("protocol") != "mcp":
            return False
        if kind == "request":
            self.mcp_pending.add((towards_agent, _hashable(record.get("id"))))
        return True


def _hashable(value: Any) -> Any:
    return value if isinstance(value, str | int | float | type(None)) else repr(value)


def _jsonrpc(record: dict[str, Any], kind: Any) -> dict[str, Any]:
    """The JSON-RPC message a trace event stands for."""
    message: dict[str, Any] = {"jsonrpc": "2.0"}
    if kind == "response":
        message["id"] = record.get("id")
        message["error" if record.get("is_error") else "result"] = record.get("payload")
        return message
    if kind == "request":
        message["id"] = record.get("id")
    message["method"] = record.get("method")
    if "params" in record:
        message["params"] = record["params"]
    return message


FORMAT = Conductor()
