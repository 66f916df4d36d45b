"""Findings parked on disk (`acptrace.pipeline.parked`, issue #25) give back exactly the findings
an analysis holds: in line order, filtered by protocol version, demoted for lost input."""

from __future__ import annotations

import io
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import acptrace
from acptrace.model import spill
from acptrace.model.domain import Analysis, Issue, IssueKind
from acptrace.model.options import Options
from acptrace.pipeline import analysis as pipeline
from acptrace.pipeline.parked import ParkedFindings, analyze_parked
from tests.transcript import Transcript

SAMPLES = sorted(Path(__file__).resolve().parent.parent.glob("sample_traces/**/*.jsonl"))


def parked(text: bytes, folder: Path) -> tuple[Analysis, ParkedFindings]:
    ((analysis, found),) = analyze_parked(io.BytesIO(text), Options(), folder)
    return analysis, found


def assert_same_findings(text: bytes, folder: Path) -> Analysis:
    """The findings parked are the analysis's, in its order, counted by level; the analysis
    made with them parked holds none and is otherwise the same."""
    held = acptrace.analyze(io.BytesIO(text))
    without, found = parked(text, folder)
    assert list(found.in_line_order()) == list(held.findings)
    assert found.levels() == Counter(f.severity for f in held.findings)
    assert found.count == len(held.findings)
    assert without.findings == ()
    assert without.sessions == held.sessions
    assert without.resumes == held.resumes
    return held


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.name)
def test_the_samples_findings_come_back_as_held(path: Path, tmp_path: Path) -> None:
    assert_same_findings(path.read_bytes(), tmp_path)


def test_runs_on_disk_merge_in_line_order(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Batches of 2: every finding of a sample with many goes through a run file."""
    monkeypatch.setattr(spill, "BATCH", 2)
    most = max(SAMPLES, key=lambda p: len(acptrace.analyze(p).findings))
    held = assert_same_findings(most.read_bytes(), tmp_path)
    assert len(held.findings) > 2 * spill.BATCH
    assert any((tmp_path / "connection-0").iterdir())  # (runs were written)


def missing_marker(version: int) -> bytes:
    """A resume that succeeds without its marker (RC-MISSING, on ACP v2 only), a duplicate id."""
    t = Transcript()
    t.initialize(version)
    t.resume(id=3)
    t.update("state_update")
    t.result(3)
    t.request("session/prompt", {"sessionId": "sess_1", "prompt": []}, id=9)
    t.request("session/prompt", {"sessionId": "sess_1", "prompt": []}, id=9)
    return t.text()


def test_the_marker_rules_are_left_out_on_v1_as_held(tmp_path: Path) -> None:
    on_v2 = assert_same_findings(missing_marker(2), tmp_path / "v2")
    on_v1 = assert_same_findings(missing_marker(1), tmp_path / "v1")
    assert "RC-MISSING" in {f.rule for f in on_v2.findings}
    assert "RC-MISSING" not in {f.rule for f in on_v1.findings}


def test_findings_are_demoted_for_lost_input_as_held(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    records = pipeline._records

    def with_dropped_frames(*args: Any) -> Iterator[Any]:
        yield Issue(1, IssueKind.FRAMES_DROPPED, "the header says 3 frames were dropped")
        yield from records(*args)

    monkeypatch.setattr(pipeline, "_records", with_dropped_frames)
    held = assert_same_findings(missing_marker(2), tmp_path)
    assert any("(demoted to warning" in f.message for f in held.findings)
