"""Turning the time fields of transcript formats into integer nanoseconds."""

from __future__ import annotations

from datetime import UTC, datetime
from functools import lru_cache
from typing import Any

from acptrace.model.domain import INT64

_NS = 1_000_000_000
_LARGEST_SECONDS = 1e12
"""Larger numbers of seconds (tens of thousands of years) are not a time."""


def wall_ns(value: Any) -> int | None:
    """Nanoseconds since the epoch from an RFC 3339 string or Unix seconds; None if unusable."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return seconds_ns(value)
    if not isinstance(value, str) or not value:
        return None
    quick = utc_microseconds_ns(value)
    if quick is not None:
        return quick
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        return None
    if moment.tzinfo is None:
        return None
    whole = int(moment.timestamp())
    return whole * _NS + moment.microsecond * 1000


_SECONDS: dict[str, int] = {}
_SECONDS_KEPT = 1024
"""Seconds kept in the cache: transcripts go forward in time, so only recent ones come back
(a larger cache grew the memory of a 1 GB analysis by ~8 MB without saving time)."""


def utc_microseconds_ns(value: str) -> int | None:
    """The common `YYYY-MM-DDTHH:MM:SS.ffffffZ`, each second's start cached (a hot path);
    None for any other string."""
    if len(value) != 27 or value[26] != "Z" or value[19] != ".":
        return None
    fraction = value[20:26]
    if not (fraction.isdigit() and fraction.isascii()):
        return None
    base = second_start_ns(value[:19])
    return None if base is None else base + int(fraction) * 1000


def checked_usual_ns(value: str) -> int:
    """`utc_microseconds_ns` of a text already checked to be a usual time (as the run loop
    checks each line it takes): its second's start (cached) and its fraction, not checked
    again."""
    base = second_start_ns(value[:19])
    assert base is not None, "a usual time's second"
    return base + int(value[20:26]) * 1000


def second_start_ns(second: str) -> int | None:
    """`YYYY-MM-DDTHH:MM:SS` as nanoseconds since the epoch (UTC), cached; None if it is not
    one."""
    base = _SECONDS.get(second)
    if base is None:
        base = _second_ns(second)
        if base is None:
            return None
        if len(_SECONDS) >= _SECONDS_KEPT:
            _SECONDS.clear()
        _SECONDS[second] = base
    return base


def usual_text(ts_ns: int) -> str | None:
    """The time as `YYYY-MM-DDTHH:MM:SS.ffffffZ` (which `utc_microseconds_ns` reads back to
    the same value); None when that cannot be (a finer fraction, a year beyond four digits).
    Each second's text is cached (a hot path: once per run of updates)."""
    seconds, rest = divmod(ts_ns, _NS)
    if rest % 1000:
        return None
    second = _SECOND_TEXTS.get(seconds)
    if second is None:
        second = _second_text(seconds)
        if len(_SECOND_TEXTS) >= _SECONDS_KEPT:
            _SECOND_TEXTS.clear()
        _SECOND_TEXTS[seconds] = second
    return f"{second}.{rest // 1000:06d}Z" if second else None


_SECOND_TEXTS: dict[int, str] = {}
"""`_second_text` of recent seconds since the epoch."""


def _second_text(seconds: int) -> str:
    """`YYYY-MM-DDTHH:MM:SS` of a second since the epoch (UTC); "" when it has no such text."""
    try:
        moment = datetime.fromtimestamp(seconds, UTC)
    except (OverflowError, OSError, ValueError):
        return ""
    if not 1000 <= moment.year <= 9999:
        return ""
    return f"{moment:%Y-%m-%dT%H:%M:%S}"


def _second_ns(second: str) -> int | None:
    """`YYYY-MM-DDTHH:MM:SS` as nanoseconds since the epoch (UTC), or None if it is not one."""
    seconds = second[17:19]
    if not (second.isascii() and seconds.isdigit()) or seconds > "59":
        return None
    minute = _minute_ns(second[:17])
    return None if minute is None else minute + int(seconds) * _NS


@lru_cache(maxsize=4096)
def _minute_ns(minute: str) -> int | None:
    """`YYYY-MM-DDTHH:MM:` as nanoseconds since the epoch (UTC), or None if it is not one.

    Only this layout: `fromisoformat` also reads ISO week dates (`2025-W01-1`), whose text
    does not sort as their time, and usual times are compared as text."""
    if minute[4] != "-" or minute[7] != "-" or minute[10] != "T":
        return None
    if minute[13] != ":" or minute[16] != ":":
        return None
    if not (minute[:4] + minute[5:7] + minute[8:10] + minute[11:13] + minute[14:16]).isdigit():
        return None
    try:
        moment = datetime.fromisoformat(minute[:16] + ":00+00:00")
    except ValueError:
        return None
    return int(moment.timestamp()) * _NS


def seconds_ns(value: Any) -> int | None:
    """Nanoseconds from a number of seconds (monotonic or Unix); None if it is not a number."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if value != value or abs(value) > _LARGEST_SECONDS:
        return None
    return round(value * _NS)


def integer_ns(value: Any) -> int | None:
    """An integer nanosecond field as it is; None for anything else (a boolean, a number with a
    fraction or exponent, an integer beyond int64: read as no time on every path)."""
    if isinstance(value, bool) or not isinstance(value, int) or value not in INT64:
        return None
    return value
