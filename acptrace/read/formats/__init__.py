"""The registry of transcript formats: each one detects itself and decodes its records.

Adding a format is one module with a `FORMAT` object that satisfies `TranscriptFormat`, listed
in `FORMATS` below.
"""

from __future__ import annotations

from acptrace.model.errors import UsageError
from acptrace.read.formats import (
    acp_tck,
    bare,
    canonical,
    conductor,
    inspector,
    inspector_trace,
    mcpsnoop,
    openhands,
    tee,
    traffic,
    zed,
)
from acptrace.read.formats.base import Decoder, ReadSettings, TranscriptFormat

FORMATS: tuple[TranscriptFormat, ...] = (
    zed.FORMAT,  # (first: its stderr elements also fit the envelope synonyms of `acptrace`)
    canonical.FORMAT,
    openhands.FORMAT,
    inspector.FORMAT,
    mcpsnoop.FORMAT,
    tee.FORMAT,
    conductor.FORMAT,
    inspector_trace.FORMAT,
    acp_tck.FORMAT,
    traffic.FORMAT,  # (claims an input that opens a Lisp list; never detected from JSON)
    bare.FORMAT,
)
"""Every format acptrace reads, in detection priority order (bare JSON-RPC last)."""

DEFAULT_FORMAT = bare.FORMAT
"""What an input with nothing recognisable is read as."""


def format_named(name: str) -> TranscriptFormat:
    """The format with this name; UsageError for an unknown name."""
    for candidate in FORMATS:
        if candidate.name == name:
            return candidate
    known = ", ".join(f.name for f in FORMATS)
    raise UsageError(f"unknown input format {name!r} (known: {known})")


__all__ = [
    "DEFAULT_FORMAT",
    "FORMATS",
    "Decoder",
    "ReadSettings",
    "TranscriptFormat",
    "format_named",
]
