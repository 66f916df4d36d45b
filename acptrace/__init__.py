"""acptrace: a forensic analyzer for recorded Agent Client Protocol (ACP) traffic.

>>> import acptrace
>>> result = acptrace.analyze("session.jsonl")
>>> [row.outcome for row in result.resumes]
"""

from acptrace.analysis import Walk, analyze, analyze_stream, open_walk
from acptrace.correlate import Step
from acptrace.errors import AcptraceError, UnreadableInput, UsageError
from acptrace.model import (
    Analysis,
    Connection,
    ConnectionEnd,
    Direction,
    Finding,
    Issue,
    Message,
    MessageKind,
    Outcome,
    ProtocolSource,
    ResumeRow,
    Role,
    SessionInfo,
    Severity,
    Source,
    WindowEnd,
)
from acptrace.options import Options

__version__ = "0.1.0"

__all__ = [
    "AcptraceError",
    "Analysis",
    "Connection",
    "ConnectionEnd",
    "Direction",
    "Finding",
    "Issue",
    "Message",
    "MessageKind",
    "Options",
    "Outcome",
    "ProtocolSource",
    "ResumeRow",
    "Role",
    "SessionInfo",
    "Severity",
    "Source",
    "Step",
    "UnreadableInput",
    "UsageError",
    "Walk",
    "WindowEnd",
    "__version__",
    "analyze",
    "analyze_stream",
    "open_walk",
]
