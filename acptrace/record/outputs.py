"""Where `record` and `redact` may write: the rule of every command (`acptrace.model.outputs`).

An output path is refused (one sentence saying what and where) when its folder does not exist
(it is never created: a typo should not grow a folder tree), when something on the way is a
file, when the path is a folder, or when it is a read-only file (it is not silently replaced,
not even by root). What is written is readable by its owner only (0600), whether or not the
file existed.
"""

from __future__ import annotations

from acptrace.model.outputs import OutputRefused, check_output

OWNER_ONLY = 0o600
"""The mode of every recording and redacted file."""

__all__ = ["OWNER_ONLY", "OutputRefused", "check_output"]
