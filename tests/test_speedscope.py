"""`export --format speedscope` (#37 item 12): speedscope named each frame of the trace-event
file by its name and its arguments as JSON; its own format names frames by what they are (the
method, a replay phase), one profile per session's track, events that open and close in order."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from acptrace.cli import app
from acptrace.export.speedscope import SCHEMA
from tests.golden import ROOT
from tests.shared import REAL_WORLD

SAMPLE = ROOT / "sample_traces" / "mixed-session.jsonl"


def exported(tmp_path: Path, *paths: Path) -> dict[str, Any]:
    out = tmp_path / "run.speedscope.json"
    args = ["export", *map(str, paths), "--format", "speedscope", "-o", str(out)]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    document: dict[str, Any] = json.loads(out.read_text())
    return document


def nested(profile: dict[str, Any]) -> bool:
    """Every frame closes after it opens, innermost first, and time never goes back."""
    stack: list[int] = []
    last = profile["startValue"]
    for event in profile["events"]:
        if event["at"] < last:
            return False
        last = event["at"]
        if event["type"] == "O":
            stack.append(event["frame"])
        elif not stack or stack.pop() != event["frame"]:
            return False
    return not stack and last <= profile["endValue"]


def test_frames_are_named_by_what_they_are(tmp_path: Path) -> None:
    document = exported(tmp_path, SAMPLE)
    assert document["$schema"] == SCHEMA
    names = [frame["name"] for frame in document["shared"]["frames"]]
    assert {"initialize", "session/resume", "replay", "held", "setup", "session/prompt"} <= set(
        names
    )
    assert not any("{" in name for name in names)  # (no arguments as JSON)
    assert len(names) == len(set(names))  # (one frame a method: they add up in the views)


def test_a_profile_per_session_track_with_nested_events(tmp_path: Path) -> None:
    document = exported(tmp_path, SAMPLE)
    profiles = document["profiles"]
    assert f"{SAMPLE} · 742b1dac-c6f1-4253-a95e-572599f42f96" in [p["name"] for p in profiles]
    assert f"{SAMPLE} · connection" in [p["name"] for p in profiles]
    assert all(profile["type"] == "evented" and nested(profile) for profile in profiles)


@pytest.mark.shared
def test_every_real_recording_converts(tmp_path: Path) -> None:
    paths = sorted((REAL_WORLD / "agents-2026-12b").glob("*.jsonl"))
    document = exported(tmp_path, *paths)
    assert all(nested(profile) for profile in document["profiles"])
    assert not any("{" in frame["name"] for frame in document["shared"]["frames"])
