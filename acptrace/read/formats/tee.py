"""Simple tees: `{"ts": <Unix seconds>, "dir": "client->agent" | "agent->client", "msg"}`.

Some also write `t_rel`, monotonic seconds since the start, which latencies then use.
"""

from __future__ import annotations

from acptrace.read.formats.envelope_fields import EnvelopeFormat

FORMAT = EnvelopeFormat(
    name="tee",
    summary="simple tee: Unix-seconds ts (t_rel monotonic), client->agent / agent->client",
    example='{"ts": 1764669600.124, "t_rel": 0.124, "dir": "client->agent", "msg": {...}}',
    producers="simple tee scripts between a client and an agent",
    directions={"client->agent": "c2a", "agent->client": "a2c"},
    monotonic_key="t_rel",
)
