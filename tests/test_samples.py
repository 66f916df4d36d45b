"""End-to-end checks of the hand-written transcripts in `sample_traces/`.

Every expectation below was written by hand from the spec (`rules.md`, `outcomes.md`), not
copied from acptrace's output: the outcome rows, the exact set of (rule, severity, line)
findings, and, for `outcome-complete.jsonl`, the latencies computed from the timestamps.
`sample_traces/README.md` says in one line what each file shows.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import acptrace
from acptrace import Analysis, ResumeRow

SAMPLES = Path(__file__).resolve().parent.parent / "sample_traces"

START = {"type": "start"}

# Sessions of the generated transcript (benchmarks/generate.py --sessions 3 --seed 20).
MIXED_PARENT = "742b1dac-c6f1-4253-a95e-572599f42f96"
MIXED_CHILD = "893e56e1-a3c7-4f0b-a986-3811ba3035e2"
MIXED_NO_REPLAY = "9b5d12ea-673b-4a2d-a77e-315a15eaa5bd"


def row(request_id: int, session_id: str, **fields: Any) -> dict[str, Any]:
    """An expected outcome row: only the fields given are compared."""
    return {"request_id": request_id, "session_id": session_id, **fields}


def requested(request_id: int, session_id: str, **fields: Any) -> dict[str, Any]:
    return row(request_id, session_id, role="requested", parent_session_id=None, **fields)


def child(request_id: int, session_id: str, parent: str, **fields: Any) -> dict[str, Any]:
    return row(request_id, session_id, role="child", parent_session_id=parent, **fields)


# file -> expected rows, findings {(rule, severity, line)}, and facts about the connection.
CASES: dict[str, dict[str, Any]] = {
    # R (line 4), five replayed updates, marker at 10, state_update + commands held, response 13.
    # mono_ns: R 2_000_000_000, first update 2_012_500_000, marker 2_045_750_000,
    # response 2_852_250_000.
    "outcome-complete.jsonl": {
        "rows": [
            requested(
                1,
                "sess_complete",
                method="session/resume",
                replay_from=START,
                outcome="complete",
                end="success",
                error_code=None,
                cancelled=False,
                marker_count=1,
                replayed_updates=5,
                held_updates=2,
                request_line=4,
                marker_line=10,
                response_line=13,
                request_to_first_update_ms=12.5,
                request_to_marker_ms=45.75,
                marker_to_response_ms=806.5,
                request_to_response_ms=852.25,
            ),
        ],
        "findings": set(),
    },
    # Marker, then error -32603: the history is complete, the resume failed.
    # No RC-NO-SNAPSHOT: that rule needs a success response.
    "outcome-complete-failed.jsonl": {
        "rows": [
            requested(
                1,
                "sess_failed",
                outcome="complete_failed",
                end="error",
                error_code=-32603,
                marker_count=1,
                replayed_updates=3,
                held_updates=0,
                request_line=4,
                marker_line=8,
                response_line=9,
                request_to_first_update_ms=10.0,
                request_to_marker_ms=30.0,
                marker_to_response_ms=1870.0,
                request_to_response_ms=1900.0,
            ),
        ],
        "findings": set(),
    },
    "outcome-truncated-error.jsonl": {
        "rows": [
            requested(
                1,
                "sess_trunc",
                outcome="truncated",
                end="error",
                error_code=-32603,
                marker_count=0,
                replayed_updates=4,
                held_updates=0,
                request_line=4,
                marker_line=None,
                response_line=9,
                request_to_marker_ms=None,
                marker_to_response_ms=None,
            ),
        ],
        "findings": set(),
    },
    # An error before any update: nothing was replayed (-32002: the Agent does not know the
    # session).
    "outcome-refused.jsonl": {
        "rows": [
            requested(
                1,
                "sess_gone",
                outcome="refused",
                end="error",
                error_code=-32002,
                marker_count=0,
                replayed_updates=0,
                held_updates=0,
                request_line=4,
                response_line=5,
                request_to_response_ms=12.0,
                max_replay_gap_ms=None,
            ),
        ],
        "findings": set(),
    },
    # No marker, no response, recorded close: truncated. The resume itself is a request
    # with no response by a recorded connection end (JR-UNANSWERED).
    "outcome-truncated-disconnect.jsonl": {
        "rows": [
            requested(
                1,
                "sess_cut",
                outcome="truncated",
                end="disconnect",
                error_code=None,
                marker_count=0,
                replayed_updates=4,
                held_updates=0,
                request_line=4,
                marker_line=None,
                response_line=None,
                request_to_response_ms=None,
            ),
        ],
        "findings": {("JR-UNANSWERED", "warning", 4)},
    },
    # No marker, then success: RC-MISSING. The state_update after R satisfies RC-NO-SNAPSHOT
    # ("after R, when the window has no marker"); every update counts as replayed.
    "outcome-unmarked-success.jsonl": {
        "rows": [
            requested(
                1,
                "sess_unmarked",
                outcome="unmarked_success",
                end="success",
                marker_count=0,
                replayed_updates=4,
                held_updates=0,
                request_line=4,
                marker_line=None,
                response_line=9,
            ),
        ],
        "findings": {("RC-MISSING", "error", 9)},
    },
    # Resume without replayFrom: every update counts as held.
    "outcome-no-replay.jsonl": {
        "rows": [
            requested(
                1,
                "sess_noreplay",
                method="session/resume",
                replay_from=None,
                outcome="no_replay",
                end="success",
                marker_count=0,
                replayed_updates=0,
                held_updates=2,
                request_line=4,
                marker_line=None,
                response_line=7,
            ),
        ],
        "findings": set(),
    },
    # v1: session/load is the replaying request, no marker, RC-* skipped.
    "outcome-loaded-v1.jsonl": {
        "protocol_version": 1,
        "rows": [
            requested(
                1,
                "sess_v1",
                method="session/load",
                replay_from=None,
                outcome="loaded",
                end="success",
                marker_count=0,
                replayed_updates=5,
                held_updates=0,
                request_line=4,
                marker_line=None,
                response_line=10,
            ),
        ],
        "findings": set(),
    },
    # Two replaying resumes of sess_twice overlap (lines 4 and 6); both windows see both
    # markers (lines 8 and 11). RC-DUPLICATE is not judged for them.
    "outcome-ambiguous.jsonl": {
        "rows": [
            # rules.md §11: what came while both were pending (lines 7-12, both markers among
            # them) counts in neither row; line 5 is the first's, line 14 the second's.
            requested(
                1,
                "sess_twice",
                outcome="ambiguous",
                end="success",
                marker_count=0,
                replayed_updates=1,
                request_line=4,
                response_line=13,
            ),
            requested(
                2,
                "sess_twice",
                outcome="ambiguous",
                end="success",
                marker_count=0,
                replayed_updates=1,
                request_line=6,
                response_line=15,
            ),
        ],
        "findings": {("RC-CONCURRENT", "warning", 6)},
    },
    # The file stops with the resume pending: unknown, and JR-UNANSWERED is never judged
    # at an unknown end.
    "outcome-unknown.jsonl": {
        "connection_end": "unknown",
        "rows": [
            requested(
                1,
                "sess_pending",
                outcome="unknown",
                end="trace_end",
                marker_count=0,
                replayed_updates=6,
                held_updates=0,
                request_line=4,
                marker_line=None,
                response_line=None,
            ),
        ],
        "findings": set(),
    },
    # Parent: user_message, subagent_update and agent_message replayed (3), marker 12,
    # state_update held. Child announced at 6: two replayed updates, marker 9, state_update held.
    "outcome-child-complete.jsonl": {
        "rows": [
            requested(
                1,
                "sess_parent",
                outcome="complete",
                end="success",
                marker_count=1,
                replayed_updates=3,
                held_updates=1,
                request_line=4,
                marker_line=12,
                response_line=14,
            ),
            child(
                1,
                "sess_child",
                "sess_parent",
                method="session/resume",
                replay_from=START,
                outcome="complete",
                end="success",
                marker_count=1,
                replayed_updates=2,
                held_updates=1,
                request_line=4,
                marker_line=9,
                response_line=14,
                announce_line=6,
            ),
        ],
        "findings": set(),
    },
    "rules-marker.jsonl": {
        "rows": [
            requested(
                1,
                "sess_dup",
                outcome="complete",
                end="success",
                marker_count=2,
                replayed_updates=1,
                request_line=4,
                marker_line=6,
                response_line=9,
            ),
            requested(
                2,
                "sess_live",
                outcome="no_replay",
                end="success",
                replay_from=None,
                marker_count=1,
                replayed_updates=0,
                request_line=11,
                response_line=14,
            ),
            requested(
                4,
                "sess_rejected",
                outcome="complete_failed",
                end="error",
                error_code=-32602,
                marker_count=1,
                replayed_updates=1,
                request_line=18,
                marker_line=20,
                response_line=21,
            ),
            requested(
                5,
                "sess_cursor",
                outcome="refused",
                end="error",
                error_code=-32602,
                replay_from={"type": "after", "entryId": "entry_0042"},
                marker_count=0,
                replayed_updates=0,
                request_line=22,
                marker_line=None,
                response_line=23,
            ),
            # A resume without replayFrom that replays the conversation all the same.
            requested(
                6,
                "sess_again",
                outcome="no_replay",
                end="success",
                marker_count=0,
                replayed_updates=0,
                held_updates=3,
                request_line=24,
                response_line=28,
            ),
        ],
        "findings": {
            ("RC-DUPLICATE", "error", 7),
            ("RC-AFTER-RESPONSE", "error", 10),
            ("RC-WITHOUT-CURSOR", "error", 12),
            ("RC-UNSOLICITED", "error", 17),
            ("RC-CURSOR-REJECTED", "warning", 21),
            ("RC-REPLAY-WITHOUT-CURSOR", "error", 25),
            ("RC-UNKNOWN-CURSOR", "note", 22),
        },
    },
    "rules-history.jsonl": {
        "rows": [
            requested(
                1,
                "sess_hist",
                outcome="complete",
                marker_count=1,
                replayed_updates=3,
                held_updates=1,
                request_line=4,
                marker_line=10,
                response_line=12,
            ),
            requested(
                2,
                "sess_nosnap",
                outcome="complete",
                marker_count=1,
                replayed_updates=1,
                held_updates=1,
                request_line=13,
                marker_line=15,
                response_line=17,
            ),
            requested(
                4,
                "sess_active",
                outcome="complete",
                marker_count=1,
                replayed_updates=1,
                held_updates=1,
                request_line=20,
                marker_line=22,
                response_line=24,
            ),
        ],
        "findings": {
            ("RC-NOT-HISTORY", "error", 6),
            ("RC-REQUEST-BEFORE-MARKER", "warning", 7),
            ("RC-NO-SNAPSHOT", "warning", 17),
            # sess_active was made active by session/new (line 19) before R: RC-INFLIGHT.
            ("RC-NOT-HISTORY", "warning", 21),
        },
    },
    # kid_a: traffic before announce, non-history update, two markers. kid_b: marker before
    # its announcement (counts in its marker_count). kid_c: announced, never marked.
    "rules-children.jsonl": {
        "rows": [
            requested(
                1,
                "sess_lead",
                outcome="complete",
                end="success",
                marker_count=1,
                replayed_updates=4,
                held_updates=1,
                request_line=4,
                marker_line=17,
                response_line=19,
            ),
            child(
                1,
                "sess_kid_a",
                "sess_lead",
                outcome="complete",
                end="success",
                marker_count=2,
                replayed_updates=2,
                marker_line=11,
                response_line=19,
                announce_line=8,
            ),
            child(
                1,
                "sess_kid_b",
                "sess_lead",
                outcome="complete",
                end="success",
                marker_count=1,
                replayed_updates=0,
                marker_line=13,
                response_line=19,
                announce_line=14,
            ),
            child(
                1,
                "sess_kid_c",
                "sess_lead",
                outcome="unmarked_success",
                end="success",
                marker_count=0,
                replayed_updates=1,
                held_updates=0,
                marker_line=None,
                response_line=19,
                announce_line=15,
            ),
        ],
        "findings": {
            ("RC-CHILD-TRAFFIC-BEFORE-ANNOUNCE", "error", 6),
            ("RC-CHILD-NOT-HISTORY", "error", 10),
            ("RC-CHILD-DUPLICATE", "error", 12),
            ("RC-CHILD-BEFORE-ANNOUNCE", "error", 13),
            ("RC-CHILD-MISSING", "error", 19),
        },
    },
    "rules-lifecycle.jsonl": {
        "rows": [
            # (lines 6-8 came while both were pending: neither row's; the marker at line 10
            # came after the first was answered: the second's)
            requested(
                1,
                "sess_twice",
                outcome="ambiguous",
                end="success",
                marker_count=0,
                request_line=4,
                response_line=9,
            ),
            requested(
                2,
                "sess_twice",
                outcome="ambiguous",
                end="success",
                marker_count=1,
                request_line=5,
                response_line=12,
            ),
            requested(
                3,
                "sess_gone",
                outcome="refused",
                end="error",
                error_code=-32002,
                marker_count=0,
                replayed_updates=0,
                request_line=13,
                response_line=14,
            ),
        ],
        "findings": {
            ("RC-CONCURRENT", "warning", 5),
            ("LC-PROMPT-INACTIVE", "error", 16),
            ("LC-ACTIVE-REJECTED", "error", 18),
            ("LC-UNKNOWN-SESSION", "warning", 19),
            ("CX-WRONG-CODE", "note", 22),
            # Prompt 7 is cancelled (line 24) and never answered before the close.
            ("CX-NO-RESPONSE", "error", 23),
            ("JR-UNANSWERED", "warning", 23),
            # sess_noid's agent message chunks carry no messageId (a v2 connection)
            ("LC-NO-MESSAGE-ID", "error", 29),
        },
    },
    "rules-jsonrpc.jsonl": {
        "rows": [],
        "findings": {
            ("TR-BATCH", "note", 4),
            ("TR-EMPTY-BATCH", "error", 6),
            ("JR-INVALID", "error", 7),
            ("JR-ORPHAN-RESPONSE", "error", 8),
            ("JR-DUPLICATE-ID", "error", 10),
            ("JR-UNANSWERED", "warning", 13),
        },
    },
    "clean.jsonl": {
        "rows": [
            requested(
                4,
                "sess_clean",
                outcome="complete",
                end="success",
                marker_count=1,
                replayed_updates=3,
                held_updates=1,
                request_line=19,
                marker_line=23,
                response_line=25,
            ),
        ],
        "findings": set(),
    },
    "mixed-session.jsonl": {
        "lines": 247,
        "rows": [
            requested(
                1,
                MIXED_PARENT,
                outcome="complete",
                end="success",
                replay_from=START,
                marker_count=1,
                replayed_updates=28,
                held_updates=1,
                request_line=5,
                marker_line=65,
                response_line=67,
            ),
            child(
                1,
                MIXED_CHILD,
                MIXED_PARENT,
                outcome="complete",
                end="success",
                marker_count=1,
                replayed_updates=29,
                held_updates=1,
                request_line=5,
                marker_line=46,
                response_line=67,
                announce_line=16,
            ),
            requested(
                7,
                MIXED_NO_REPLAY,
                outcome="no_replay",
                end="success",
                replay_from=None,
                marker_count=0,
                replayed_updates=0,
                held_updates=1,
                request_line=185,
                marker_line=None,
                response_line=188,
            ),
        ],
        "findings": set(),
    },
}


def _params() -> list[Any]:
    return [pytest.param(name, id=name.removesuffix(".jsonl")) for name in CASES]


def _row_key(r: ResumeRow) -> tuple[Any, str]:
    return (r.request_id, r.session_id)


def _actual_row(r: ResumeRow, fields: dict[str, Any]) -> dict[str, Any]:
    out = {}
    for key in fields:
        value = getattr(r, key)
        out[key] = value.value if hasattr(value, "value") else value
    return out


@pytest.fixture(scope="module")
def analyses() -> dict[str, Analysis]:
    return {}


def _analysis(cache: dict[str, Analysis], name: str) -> Analysis:
    if name not in cache:
        cache[name] = acptrace.analyze(SAMPLES / name)
    return cache[name]


def test_every_sample_is_covered() -> None:
    assert {p.name for p in SAMPLES.glob("*.jsonl")} == set(CASES)


@pytest.mark.parametrize("name", _params())
def test_sample(name: str, analyses: dict[str, Analysis]) -> None:
    case = CASES[name]
    result = _analysis(analyses, name)

    # Every sample is well-formed input.
    assert result.issues == ()
    assert result.source.format == "acptrace"
    assert result.source.connection_end.value == case.get("connection_end", "recorded")
    assert result.connection.protocol_version == case.get("protocol_version", 2)
    assert result.connection.protocol_source.value == "initialize"
    if "lines" in case:
        assert result.source.lines == case["lines"]

    # Outcome rows: exactly these rows, with these field values.
    expected_rows = {(e["request_id"], e["session_id"]): e for e in case["rows"]}
    actual_rows = {_row_key(r): r for r in result.resumes}
    assert sorted(actual_rows, key=repr) == sorted(expected_rows, key=repr)
    for key, expected in expected_rows.items():
        assert _actual_row(actual_rows[key], expected) == expected, key

    # Findings: exactly this set of (rule, severity, line).
    expected = case["findings"]
    findings = {(f.rule, f.severity.value, f.line) for f in result.findings}
    assert findings == expected
    assert len(result.findings) == len(expected), "a finding is reported twice"
