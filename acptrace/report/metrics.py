"""The numbers whose distributions a report gives per group: of replaying resumes, and of
turns, tool calls and permission requests."""

from __future__ import annotations

from enum import StrEnum


class Metric(StrEnum):
    """A number whose distribution a group reports: of each replaying resume
    (`REPLAY_METRICS`), or of each turn, tool call or permission request (`TURN_METRICS`)."""

    MARKER_TO_RESPONSE = "marker_to_response_ms"
    REQUEST_TO_MARKER = "request_to_marker_ms"
    REQUEST_TO_RESPONSE = "request_to_response_ms"
    THROUGHPUT = "replay_updates_per_s"
    FIRST_OUTPUT = "first_output_ms"
    TURN_DURATION = "turn_duration_ms"
    TOOL_CALL_DURATION = "tool_call_duration_ms"
    PERMISSION_WAIT = "permission_wait_ms"

    @property
    def label(self) -> str:
        """A short human name."""
        match self:
            case Metric.MARKER_TO_RESPONSE:
                return "marker → response"
            case Metric.REQUEST_TO_MARKER:
                return "request → marker"
            case Metric.REQUEST_TO_RESPONSE:
                return "request → response"
            case Metric.THROUGHPUT:
                return "replay throughput"
            case Metric.FIRST_OUTPUT:
                return "first output"
            case Metric.TURN_DURATION:
                return "turn duration"
            case Metric.TOOL_CALL_DURATION:
                return "tool call duration"
            case Metric.PERMISSION_WAIT:
                return "permission wait"

    @property
    def row(self) -> str:
        """What one value is of (`replay`, `turn`, `tool call`, `permission request`)."""
        match self:
            case Metric.FIRST_OUTPUT | Metric.TURN_DURATION:
                return "turn"
            case Metric.TOOL_CALL_DURATION:
                return "tool call"
            case Metric.PERMISSION_WAIT:
                return "permission request"
            case _:
                return "replay"

    @property
    def unit(self) -> str:
        """`ms` or `updates/s`."""
        return "updates/s" if self is Metric.THROUGHPUT else "ms"

    @property
    def higher_is_worse(self) -> bool:
        """Latencies regress upwards, throughput downwards."""
        return self is not Metric.THROUGHPUT


REPLAY_METRICS = (
    Metric.MARKER_TO_RESPONSE,
    Metric.REQUEST_TO_MARKER,
    Metric.REQUEST_TO_RESPONSE,
    Metric.THROUGHPUT,
)
"""The metrics of replaying resumes (the replay tables, charts and headline)."""
TURN_METRICS = (
    Metric.FIRST_OUTPUT,
    Metric.TURN_DURATION,
    Metric.TOOL_CALL_DURATION,
    Metric.PERMISSION_WAIT,
)
"""The latencies of turns, tool calls and permission requests (docs/turns.md): first output
and duration of each turn, duration of each tool call, wait of each permission request."""
