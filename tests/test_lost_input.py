"""rules.md §9: findings that rest on something not seen drop a level where input was lost."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from acptrace.judge.lost import LostInput, demote_for_lost_input
from acptrace.model.domain import Finding, Issue, IssueKind, Severity
from acptrace.pipeline import analysis as pipeline
from tests.transcript import Transcript, findings


def lost(*events: tuple[str, int]) -> str | None:
    """The reason a tracker gives after these events: ("lost", line), the decoder saying a
    cut message could not be read, or (issue kind, line)."""
    tracker = LostInput()
    for kind, line in events:
        if kind == "lost":
            tracker.on_lost(line)
        else:
            tracker.on_issue(Issue(line, IssueKind(kind), "…"))
    return tracker.reason()


def test_dropped_frames_lose_messages() -> None:
    assert lost(("frames_dropped", 1), ("lost", 3)) == "the input dropped frames (line 1)"


def test_a_message_the_decoder_could_not_read_is_lost_and_a_cut_alone_is_not() -> None:
    # (whether what is left of a cut payload is a message is the decoder's to say:
    # tests/test_cut_payloads.py)
    assert lost(("truncated_payload", 4), ("lost", 4), ("lost", 9)) == (
        "a cut payload at line 4 could not be read"
    )
    assert lost(("truncated_payload", 4)) is None


def test_other_issues_lose_nothing() -> None:
    assert lost(("not_json", 2), ("time_went_back", 3)) is None


def finding(rule: str, severity: Severity) -> Finding:
    return Finding(rule, severity, 7, "what happened")


def test_only_findings_that_rest_on_an_absence_are_demoted() -> None:
    kept = demote_for_lost_input(
        (
            finding("RC-MISSING", Severity.ERROR),
            finding("JR-UNANSWERED", Severity.WARNING),
            finding("RC-DUPLICATE", Severity.ERROR),
            finding("LC-PROMPT-INACTIVE", Severity.NOTE),
        ),
        "the input dropped frames (line 1)",
    )
    assert [(f.rule, f.severity) for f in kept] == [
        ("RC-MISSING", Severity.WARNING),
        ("JR-UNANSWERED", Severity.NOTE),
        ("RC-DUPLICATE", Severity.ERROR),
        ("LC-PROMPT-INACTIVE", Severity.NOTE),
    ]
    assert kept[0].message.endswith("(demoted to warning: the input dropped frames (line 1))")
    assert kept[3].message == "what happened"


def test_nothing_is_demoted_when_no_input_was_lost() -> None:
    found = (finding("RC-MISSING", Severity.ERROR),)
    assert demote_for_lost_input(found, None) == found


def missing_marker() -> tuple[Transcript, int, int]:
    """A resume that succeeds without its marker, then a duplicate request id."""
    t = Transcript()
    t.initialize()
    t.resume(id=3)
    t.update("state_update")
    response = t.result(3)
    t.request("session/prompt", {"sessionId": "sess_1", "prompt": []}, id=9)
    duplicate = t.request("session/prompt", {"sessionId": "sess_1", "prompt": []}, id=9)
    return t, response, duplicate


def test_the_analysis_demotes_where_the_reader_reports_dropped_frames(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    t, response, duplicate = missing_marker()
    assert findings(t.analyze()) == [
        ("RC-MISSING", "error", response),
        ("JR-DUPLICATE-ID", "error", duplicate),
    ]
    records = pipeline._records

    def with_dropped_frames(*args: Any) -> Iterator[Any]:
        yield Issue(1, IssueKind.FRAMES_DROPPED, "the header says 3 frames were dropped")
        yield from records(*args)

    monkeypatch.setattr(pipeline, "_records", with_dropped_frames)
    assert findings(t.analyze()) == [
        ("RC-MISSING", "warning", response),
        ("JR-DUPLICATE-ID", "error", duplicate),
    ]
