"""The trace-event timeline in speedscope's own file format (`export --format speedscope`).

speedscope reads trace-event JSON too, but names each frame by the event's name followed by its
arguments as JSON (`session/prompt {"file":"run.jsonl","line":12,"id":3,…}`), every request a
frame of its own, and its flame and sandwich views unreadable. Here the same slices are frames
named by what they are (the method, a replay phase, a turn), one profile per track (a
connection's session: `PATH · SESSION`), so that the frames of one method add up across a
session. The details of each slice (file, line, id) stay in the trace-event export, for Perfetto.

https://www.speedscope.app/file-format-schema.json describes the format.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator, Sequence
from typing import Any

SCHEMA = "https://www.speedscope.app/file-format-schema.json"


def speedscope(document: dict[str, Any]) -> dict[str, Any]:
    """The speedscope file of a trace-event document (`trace_event.trace_events`)."""
    events = document["traceEvents"]
    processes = {e["pid"]: e["args"]["name"] for e in events if e["name"] == "process_name"}
    tracks = {(e["pid"], e["tid"]): e["args"]["name"] for e in events if e["name"] == "thread_name"}
    slices: dict[tuple[int, int], list[dict[str, Any]]] = defaultdict(list)
    for event in events:
        if event["ph"] == "X":
            slices[event["pid"], event["tid"]].append(event)
    frames: dict[str, int] = {}
    profiles = []
    for key in sorted(slices):
        name = f"{processes.get(key[0], key[0])} · {tracks.get(key, key[1])}"
        profiles.append(_profile(name, slices[key], frames))
    return {
        "$schema": SCHEMA,
        "name": ", ".join(processes.values()),
        "exporter": "acptrace",
        "activeProfileIndex": 0,
        "shared": {"frames": [{"name": name} for name in frames]},
        "profiles": profiles,
    }


def _profile(name: str, slices: Sequence[dict[str, Any]], frames: dict[str, int]) -> dict[str, Any]:
    """One track's slices (they nest: `trace_event` gives overlapping ones a track of their
    own) as an evented profile: a frame opened at each start, closed at each end."""
    opened = sorted(slices, key=lambda s: (s["ts"], -s.get("dur", 0)))
    events = list(_opens_and_closes(opened, frames))
    start = min((e["at"] for e in events), default=0)
    end = max((e["at"] for e in events), default=0)
    return {
        "type": "evented",
        "name": name,
        "unit": "microseconds",
        "startValue": start,
        "endValue": end,
        "events": events,
    }


def _opens_and_closes(
    slices: Sequence[dict[str, Any]], frames: dict[str, int]
) -> Iterator[dict[str, Any]]:
    stack: list[tuple[int, float]] = []  # (frame, end) of the slices open, innermost last
    for piece in slices:
        start = piece["ts"]
        while stack and stack[-1][1] <= start:
            frame, end = stack.pop()
            yield {"type": "C", "frame": frame, "at": end}
        frame = frames.setdefault(piece["name"], len(frames))
        end = start + piece.get("dur", 0)
        if stack:  # (a slice that would outlast its parent ends with it)
            end = min(end, stack[-1][1])
        yield {"type": "O", "frame": frame, "at": start}
        stack.append((frame, end))
    while stack:
        frame, end = stack.pop()
        yield {"type": "C", "frame": frame, "at": end}
