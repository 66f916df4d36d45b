"""Idle-timer verdicts: what a Client that guesses the end of a replay from silence would cut.

A Client without `replay_complete` may take the history as complete once no update came for
some time (the RFD's "quiet-period timer"). For each such timeout, a replay is cut short when a
silence at least that long came before its last replayed update, and the updates after that
silence are lost. The silences come from the outcome rows (`ResumeRow.replay_pauses`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

import msgspec

from acptrace.model.domain import ResumeRow

DEFAULT_IDLE_TIMEOUTS_MS: tuple[float, ...] = (50.0, 100.0, 250.0, 1000.0, 5000.0, 30000.0)
"""The timeouts judged unless told otherwise (from 50 ms in one Client to 30 s in another)."""

_TIMEOUT = re.compile(r"\s*(\d+(?:\.\d+)?)\s*(ms|s)?\s*")


class IdleVerdict(msgspec.Struct, frozen=True, gc=False):
    """What one idle timeout would have done to a set of replays (a JSON object as it stands:
    `verdict_fields`)."""

    timeout_ms: float
    """The silence the Client waits for."""
    replays: int
    """Replays with times (the ones that could be judged)."""
    cut_short: int
    """Replays the timer would have ended before their last replayed update."""
    updates_lost: int
    """Replayed updates that came after the timer fired, over those replays."""


def verdict_fields(verdict: IdleVerdict) -> dict[str, float | int]:
    """The verdict's fields by name, in order (what JSON documents write for it)."""
    return msgspec.structs.asdict(verdict)


def updates_lost(row: ResumeRow, timeout_ms: float) -> int | None:
    """Updates a timer of `timeout_ms` would have lost in this row's replay (0: none); None
    when the replay has no measured silence (no replay, or no times)."""
    if not row.replay_pauses:
        return None
    for pause in row.replay_pauses:  # widening silences: the first that is long enough fires
        if pause.gap_ms >= timeout_ms:
            return pause.updates_after
    return 0


def idle_verdicts(
    rows: Iterable[ResumeRow], timeouts_ms: Sequence[float] = DEFAULT_IDLE_TIMEOUTS_MS
) -> tuple[IdleVerdict, ...]:
    """One verdict per timeout over these rows (requested sessions and children alike)."""
    replays = 0
    cut = [0] * len(timeouts_ms)
    lost = [0] * len(timeouts_ms)
    for row in rows:  # (one pass over the rows: a big file's JSON has thousands)
        if not row.replay_pauses:
            continue
        replays += 1
        for index, timeout in enumerate(timeouts_ms):
            count = updates_lost(row, timeout)
            if count:
                cut[index] += 1
                lost[index] += count
    return tuple(
        IdleVerdict(timeout, replays, cut[index], lost[index])
        for index, timeout in enumerate(timeouts_ms)
    )


def parse_idle_timeouts(text: str) -> tuple[float, ...]:
    """`50ms,1s,2.5s` (a bare number is milliseconds) as milliseconds, in the order given,
    each once (`1s,1000ms` is one timer: a row per spelling would judge it twice); ValueError
    for anything else."""
    timeouts: list[float] = []
    for part in text.split(","):
        match = _TIMEOUT.fullmatch(part)
        if match is None:
            raise ValueError(f"{part.strip()!r} is not a timeout (write 50ms, 1s, 2.5s)")
        value = float(match[1]) * (1000.0 if match[2] == "s" else 1.0)
        if value <= 0:
            raise ValueError(f"{part.strip()!r}: a timeout must be longer than 0")
        if value not in timeouts:
            timeouts.append(value)
    return tuple(timeouts)


def timeout_text(timeout_ms: float) -> str:
    """`50 ms`, `1 s`, `2.5 s`."""
    if timeout_ms >= 1000:
        return f"{timeout_ms / 1000:g} s"
    return f"{timeout_ms:g} ms"
