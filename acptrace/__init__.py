"""acptrace: a forensic analyzer for recorded Agent Client Protocol (ACP) traffic.

>>> import acptrace
>>> result = acptrace.analyze("session.jsonl")
>>> [row.outcome for row in result.resumes]
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from acptrace.model.version import __version__

if TYPE_CHECKING:
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
    from acptrace.model.errors import (
        AcptraceError,
        SeveralConnections,
        UnreadableInput,
        UsageError,
    )
    from acptrace.model.options import Execution, Options
    from acptrace.pipeline.analysis import Walk, analyze_stream
    from acptrace.pipeline.transcripts import analyze, analyze_file, open_walk, open_walks

_WHERE = {
    "Step": "acptrace.correlate.correlator",
    "Analysis": "acptrace.model.domain",
    "Connection": "acptrace.model.domain",
    "ConnectionEnd": "acptrace.model.domain",
    "Direction": "acptrace.model.domain",
    "Finding": "acptrace.model.domain",
    "Issue": "acptrace.model.domain",
    "Message": "acptrace.model.domain",
    "MessageKind": "acptrace.model.domain",
    "Outcome": "acptrace.model.domain",
    "ProtocolSource": "acptrace.model.domain",
    "ResumeRow": "acptrace.model.domain",
    "Role": "acptrace.model.domain",
    "SessionInfo": "acptrace.model.domain",
    "Severity": "acptrace.model.domain",
    "Source": "acptrace.model.domain",
    "WindowEnd": "acptrace.model.domain",
    "AcptraceError": "acptrace.model.errors",
    "SeveralConnections": "acptrace.model.errors",
    "UnreadableInput": "acptrace.model.errors",
    "UsageError": "acptrace.model.errors",
    "Execution": "acptrace.model.options",
    "Options": "acptrace.model.options",
    "Walk": "acptrace.pipeline.analysis",
    "analyze_stream": "acptrace.pipeline.analysis",
    "analyze": "acptrace.pipeline.transcripts",
    "analyze_file": "acptrace.pipeline.transcripts",
    "open_walk": "acptrace.pipeline.transcripts",
    "open_walks": "acptrace.pipeline.transcripts",
}
"""Where each name of the library lives: imported on first use, so that `import acptrace`
(which every run of the command does) costs nothing a run does not use."""


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)


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
