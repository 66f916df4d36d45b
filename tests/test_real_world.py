"""ACP traffic written by other projects (../shared/real-world): analysed, never a crash."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

import acptrace
from acptrace import Outcome
from acptrace.cli import app
from tests.shared import REAL_WORLD

pytestmark = pytest.mark.shared

FILES = sorted(REAL_WORLD.glob("*.jsonl"))


def test_the_real_world_corpus_is_there() -> None:
    assert len(FILES) >= 20, f"expected the shared corpus at {REAL_WORLD}"


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_cli_analyses_every_file_with_exit_0_or_1(path: Path) -> None:
    result = CliRunner().invoke(app, ["analyze", str(path), "--format", "json"])
    assert result.exit_code in (0, 1), result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert "Traceback" not in result.output


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_source_lines_count_every_line(path: Path) -> None:
    data = path.read_bytes()
    expected = data.count(b"\n") + (0 if data.endswith(b"\n") or not data else 1)
    assert acptrace.analyze(path).source.lines == expected


def test_v2_replay_from_spec_example_is_unmarked_success_with_rc_missing() -> None:
    analysis = acptrace.analyze(REAL_WORLD / "acp-spec-docs__v2-resume-replayFrom-transcript.jsonl")
    (row,) = analysis.resumes
    assert (row.outcome, row.session_id, row.request_line, row.response_line) == (
        Outcome.UNMARKED_SUCCESS,
        "sess_789xyz",
        5,
        8,
    )
    assert row.replayed_updates == 2
    assert ("RC-MISSING", 8) in [(f.rule, f.line) for f in analysis.findings]
    assert analysis.connection.protocol_version == 2


def test_v1_load_spec_example_is_loaded_without_marker_rules() -> None:
    analysis = acptrace.analyze(REAL_WORLD / "acp-spec-docs__v1-load-replay-transcript.jsonl")
    (row,) = analysis.resumes
    assert (row.outcome, row.method, row.replayed_updates) == (Outcome.LOADED, "session/load", 2)
    assert analysis.connection.protocol_version == 1
    # the docs' example answers session/load with `null`, where the v1 schema wants an object
    assert [(f.rule, f.line) for f in analysis.findings] == [("SCHEMA-INVALID", 6)]
    assert "result breaks the ACP v1 schema: it wants type object, and null came" in (
        analysis.findings[0].message
    )
    assert analysis.connection.client is not None
    assert analysis.connection.client.name == "my-client"


def test_doc_example_with_repeated_ids_reports_its_oddities() -> None:
    analysis = acptrace.analyze(REAL_WORLD / "acp-spec-docs__v2-session-setup.jsonl")
    rules = {f.rule for f in analysis.findings}
    assert {"JR-DUPLICATE-ID", "JR-ORPHAN-RESPONSE"} <= rules
    assert [r.outcome for r in analysis.resumes][:2] == [
        Outcome.NO_REPLAY,
        Outcome.UNMARKED_SUCCESS,
    ]
