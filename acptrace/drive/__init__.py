"""`acptrace drive`: a scripted ACP Client that measures an Agent's replay, connection by
connection, each recorded by the same recorder as `acptrace record`.

>>> from pathlib import Path
>>> from acptrace.drive import DriveSettings, drive
>>> result = drive(["my-agent"], Path("runs"), DriveSettings(replays=5), notify=print)
>>> result.transcripts  # then: acptrace.report.build_report(result.transcripts)
"""

from acptrace.drive.connection import Connection, ConnectionFailed
from acptrace.drive.messages import Permission
from acptrace.drive.runner import (
    DEFAULT_EXIT_GRACE_S,
    DEFAULT_LINGER_MS,
    DEFAULT_TIMEOUT_S,
    ConnectionResult,
    DriveProgress,
    DriveRefused,
    DriveResult,
    DriveSettings,
    Step,
    drive,
)

__all__ = [
    "DEFAULT_EXIT_GRACE_S",
    "DEFAULT_LINGER_MS",
    "DEFAULT_TIMEOUT_S",
    "Connection",
    "ConnectionFailed",
    "ConnectionResult",
    "DriveProgress",
    "DriveRefused",
    "DriveResult",
    "DriveSettings",
    "Permission",
    "Step",
    "drive",
]
