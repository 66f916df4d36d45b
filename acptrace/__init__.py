"""acptrace: a forensic analyzer for recorded Agent Client Protocol (ACP) traffic.

>>> import acptrace
>>> result = acptrace.analyze("session.jsonl")
>>> [row.outcome for row in result.resumes]
"""

from acptrace.correlate.correlator import Step
from acptrace.model.domain import (
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
from acptrace.model.errors import AcptraceError, SeveralConnections, UnreadableInput, UsageError
from acptrace.model.options import Execution, Options
from acptrace.model.version import __version__
from acptrace.pipeline.analysis import Walk, analyze_stream
from acptrace.pipeline.transcripts import analyze, analyze_file, open_walk, open_walks

__all__ = [
    "AcptraceError",
    "Analysis",
    "Connection",
    "ConnectionEnd",
    "Direction",
    "Execution",
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
    "SeveralConnections",
    "Severity",
    "Source",
    "Step",
    "UnreadableInput",
    "UsageError",
    "Walk",
    "WindowEnd",
    "__version__",
    "analyze",
    "analyze_file",
    "analyze_stream",
    "open_walk",
    "open_walks",
]
