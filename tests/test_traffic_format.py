"""The `.traffic` format end to end: agent-shell / acp.el's saved traffic read by `analyze`,
through the hook of a format that owns its bytes (`read/formats/traffic.py`).

The S-expression reader and the Lisp-to-JSON mapping have their own tests (test_sexp.py,
test_lispjson.py, test_traffic.py); these check what a user of `analyze` sees.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import orjson
import pytest
from typer.testing import CliRunner

import acptrace
from acptrace.cli import app
from acptrace.model.domain import Analysis, ConnectionEnd, Direction, IssueKind
from acptrace.model.options import Execution, Options
from tests.traffic import write_traffic

ROOT = Path(__file__).resolve().parent.parent
CANONICAL = sorted((ROOT / "sample_traces").glob("*.jsonl"))
FILES = ROOT / "tests" / "traffic_files"


def canonical_records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def as_traffic(records: list[dict[str, Any]], **style: Any) -> bytes:
    """A canonical recording's messages as acp.el would save them (meta and stderr records
    have no place in a `.traffic` file)."""
    messages = [(Direction(r["dir"]), r["msg"]) for r in records if r["dir"] in ("c2a", "a2c")]
    return write_traffic(messages, **style).encode()


def verdicts(analysis: Analysis) -> dict[str, Any]:
    """What analysing a transcript concluded, line numbers and times aside."""
    return {
        "protocol": analysis.connection.protocol_version,
        "resumes": [
            (
                r.request_id,
                r.session_id,
                r.role,
                r.method,
                r.outcome,
                r.end,
                r.error_code,
                r.cancelled,
                r.marker_count,
                r.replayed_updates,
                r.held_updates,
            )
            for r in analysis.resumes
        ],
        "findings": sorted(
            (f.rule, f.severity, f.session_id, str(f.request_id)) for f in analysis.findings
        ),
    }


@pytest.mark.parametrize("path", CANONICAL, ids=lambda p: p.stem)
def test_a_canonical_recording_saved_as_traffic_gives_the_same_verdicts(path: Path) -> None:
    records = canonical_records(path)
    closed = any(r.get("event") == "close" for r in records)
    original = acptrace.analyze(path)
    # A .traffic file records no end: the canonical file's recorded close is assumed.
    traffic = acptrace.analyze(io.BytesIO(as_traffic(records)), Options(assume_closed=closed))
    assert traffic.source.format == "traffic"
    assert traffic.issues == ()
    assert verdicts(traffic) == verdicts(original)
    assert original.resumes or original.findings or path.stem in ("clean", "mixed-session")
    assert all(r.request_to_response_ms is None for r in traffic.resumes)  # (no times)


def test_layouts_acp_el_writes_read_alike() -> None:
    records = canonical_records(ROOT / "sample_traces" / "rules-lifecycle.jsonl")
    layouts: list[dict[str, Any]] = [
        {},
        {"width": None},
        {"tabs": False, "share": False},
        {"escape_newlines": False, "width": 40},
    ]
    found = [verdicts(acptrace.analyze(io.BytesIO(as_traffic(records, **s)))) for s in layouts]
    assert all(v == found[0] for v in found)
    assert found[0]["findings"]


def test_without_a_recorded_end_the_end_is_unknown() -> None:
    records = canonical_records(ROOT / "sample_traces" / "outcome-truncated-disconnect.jsonl")
    analysis = acptrace.analyze(io.BytesIO(as_traffic(records)))
    assert analysis.source.connection_end is ConnectionEnd.UNKNOWN
    assert [r.outcome.value for r in analysis.resumes] == ["unknown"]


def test_a_file_shaped_like_agent_shells_starts_mid_session_and_is_judged_so() -> None:
    analysis = acptrace.analyze(FILES / "ask-user-question.traffic")
    assert analysis.source.format == "traffic"
    assert analysis.issues == ()
    assert [f.rule for f in analysis.findings] == ["LC-UNKNOWN-SESSION"]
    agent = analysis.connection.agent
    assert agent is not None
    assert agent.name == "example-agent"


def test_the_cli_reads_a_traffic_file_and_a_directory_of_them(tmp_path: Path) -> None:
    records = canonical_records(ROOT / "sample_traces" / "rules-marker.jsonl")
    (tmp_path / "bug.traffic").write_bytes(as_traffic(records))
    result = CliRunner().invoke(app, ["analyze", str(tmp_path), "--format", "json"])
    document = orjson.loads(result.stdout)
    (analysis,) = document if isinstance(document, list) else [document]
    assert analysis["source"]["format"] == "traffic"
    assert {f["rule"] for f in analysis["findings"]} >= {"RC-DUPLICATE", "RC-UNKNOWN-CURSOR"}


# -- hostile files: every one is issues with lines, never a traceback ---------------------------

NEW = (
    "((:direction . outgoing) (:kind . request)\n"
    ' (:object (jsonrpc . "2.0") (id . 1) (method . "session/new") (params (cwd . "/"))))\n'
)


def analysed(text: str | bytes, execution: Execution | None = None) -> Analysis:
    data = text.encode() if isinstance(text, str) else text
    return acptrace.analyze(io.BytesIO(data), execution=execution)


def issue_lines(analysis: Analysis) -> list[tuple[int, IssueKind]]:
    return [(issue.line, issue.kind) for issue in analysis.issues]


def test_unbalanced_parentheses_keep_the_entries_before_them() -> None:
    analysis = analysed(f"({NEW} ((:direction . incoming) (:object (id . 1) (result\n")
    assert issue_lines(analysis) == [(3, IssueKind.NOT_JSON)]  # (where the text ends)
    assert analysis.source.messages == 1


def test_a_closing_parenthesis_too_many_is_data_after_the_end() -> None:
    analysis = analysed(f"({NEW}))\n")
    assert [kind for _, kind in issue_lines(analysis)] == [IssueKind.NOT_JSON]
    assert analysis.source.messages == 1


def test_a_bad_escape_is_an_issue_at_its_line() -> None:
    bad = NEW.replace('"/"', '"/\\C-"')
    analysis = analysed(f"({NEW}{bad})\n")
    assert issue_lines(analysis) == [(4, IssueKind.NOT_JSON)]
    assert analysis.source.messages == 1


def test_a_string_longer_than_a_line_may_be_is_reported_not_held() -> None:
    huge = NEW.replace('"/"', '"' + "x" * 5000 + '"')
    analysis = analysed(f"({NEW}{huge})\n", Execution(max_line_bytes=1024))
    assert (4, IssueKind.LINE_TOO_LONG) in issue_lines(analysis)
    assert (3, IssueKind.UNKNOWN_ENVELOPE) in issue_lines(analysis)  # (its :object was on it)
    assert analysis.source.messages == 1


def test_a_huge_string_within_the_limit_reads() -> None:
    huge = NEW.replace('"/"', '"' + "é" * 200_000 + '"')
    analysis = analysed(f"({huge})\n")
    assert analysis.issues == ()
    assert analysis.source.messages == 1


def test_nesting_deeper_than_json_may_be_is_too_deep() -> None:
    deep = "[" * 5000 + "]" * 5000
    analysis = analysed(f"({NEW}((:direction . incoming) (:object (result . {deep}))))\n")
    assert [kind for _, kind in issue_lines(analysis)] == [IssueKind.TOO_DEEP]
    assert analysis.source.messages == 1


@pytest.mark.parametrize(
    "labels",
    [
        "(:object . #1=(x . #1#))",  # a cycle
        "(:object (a . #2#) (b . #2=1))",  # a reference before its label
        "(:object (a . #7#))",  # a label never defined
    ],
)
def test_labels_that_do_not_stand_for_data_are_issues(labels: str) -> None:
    analysis = analysed(f"({NEW}((:direction . incoming) {labels}))\n")
    assert [kind for _, kind in issue_lines(analysis)] == [IssueKind.NOT_JSON]
    assert analysis.source.messages == 1


def test_labels_that_stand_for_exponentially_much_are_refused_in_bounded_work() -> None:
    levels = ['#0="ha"'] + [f"#{n}=[#{n - 1}# #{n - 1}#]" for n in range(1, 60)]
    analysis = analysed(f"(((:direction . incoming) (:object (result . [{' '.join(levels)}]))))\n")
    assert [kind for _, kind in issue_lines(analysis)] == [IssueKind.NOT_JSON]


def test_shared_labels_as_acp_el_writes_them_read() -> None:
    text = (
        "(((:direction . outgoing) (:kind . request)\n"
        '  (:object (jsonrpc . #1="2.0") (id . 1) (method . "session/new") (params (cwd . "/"))))\n'
        " ((:direction . incoming) (:kind . response)\n"
        '  (:object (jsonrpc . #1#) (id . 1) (result (sessionId . #2="s1")))))\n'
    )
    analysis = analysed(text)
    assert analysis.issues == ()
    assert [s.session_id for s in analysis.sessions] == ["s1"]


def test_blank_lines_and_comments_keep_line_numbers() -> None:
    text = f";; saved by agent-shell\n\n\n(\n\n{NEW}\n bogus)\n"
    analysis = analysed(text)
    assert issue_lines(analysis) == [(9, IssueKind.UNKNOWN_ENVELOPE)]
    assert analysis.source.messages == 1


def test_bytes_that_are_not_utf8_are_an_issue_and_the_rest_reads() -> None:
    analysis = analysed(f"({NEW})\n".encode().replace(b'"/"', b'"/\xff"'))
    assert issue_lines(analysis) == [(2, IssueKind.NOT_UTF8)]
    assert analysis.source.messages == 1
