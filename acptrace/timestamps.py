"""Turning the time fields of transcript formats into integer nanoseconds."""

from __future__ import annotations

from datetime import datetime
from typing import Any

_NS = 1_000_000_000


def wall_ns(value: Any) -> int | None:
    """Nanoseconds since the epoch from an RFC 3339 string or Unix seconds; None if unusable."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return seconds_ns(value)
    if not isinstance(value, str) or not value:
        return None
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        return None
    if moment.tzinfo is None:
        return None
    whole = int(moment.timestamp())
    return whole * _NS + moment.microsecond * 1000


def seconds_ns(value: Any) -> int | None:
    """Nanoseconds from a number of seconds (monotonic or Unix); None if it is not a number."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if value != value or value in (float("inf"), float("-inf")):
        return None
    return round(value * _NS)


def integer_ns(value: Any) -> int | None:
    """An integer nanosecond field as it is; None for anything else."""
    if isinstance(value, bool) or not isinstance(value, int):
        return None
    return value
