"""The terminal summary at 80, 100 and 120 columns: no line is wider than the terminal, and no
number or outcome is ever cut (text columns go first, then the least read numbers)."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest
from rich.console import Console
from typer.testing import CliRunner

import acptrace
from acptrace.cli import app
from acptrace.model.columns import meaning
from acptrace.render.summary import RESUME_COLUMNS, summaries
from acptrace.render.text import short_id
from tests.golden import ROOT

SAMPLES = sorted((ROOT / "sample_traces").glob("*.jsonl"))
HEADING = ["line", "session"]


def rendered(path: Path, width: int) -> str:
    buffer = io.StringIO()
    console = Console(file=buffer, width=width, color_system=None, highlight=False)
    for renderable in summaries([acptrace.analyze(path)]):
        console.print(renderable)
    return buffer.getvalue()


def ms(value: float | None) -> str | None:
    """A latency as the summary writes it (`_ms`)."""
    if value is None:
        return None
    return f"{value / 1000:.2f} s" if value >= 1000 else f"{value:.1f} ms"


def left_out(text: str) -> list[str]:
    """The headings the note under the resumes table names as left out (none: all shown)."""
    note = " ".join(" ".join(text.split()).split("Left out at ", 1)[1:]).split(" (COLUMNS=")[0]
    return note.split(" columns: ", 1)[1].split(", ") if note else []


@pytest.mark.parametrize("width", [60, 70, 80, 120, 200])
@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.name)
def test_no_number_or_outcome_is_cut_at_any_width(path: Path, width: int) -> None:
    text = rendered(path, width)
    lines = text.splitlines()
    assert max(len(line.rstrip()) for line in lines) <= width
    titles = [index for index, line in enumerate(lines) if line.strip() == "Resumes"]
    start = titles[0] if titles else len(lines)
    if titles:
        heading = lines[start + 2]
        for column in RESUME_COLUMNS():
            shown = f" {column.heading} " in f" {heading} "
            assert shown != (column.heading in left_out(text)), column.heading  # (one or other)
    table = []
    for line in lines[start + 4 :]:  # (past the title, a blank line, the heading and its rule)
        if not line.strip():
            break
        table.append(line)
    for resume in acptrace.analyze(path).resumes:
        session = short_id(resume.session_id)
        (row,) = [
            line
            for line in table
            if line.split()[0] == str(resume.request_line) and f" {session} " in f"{line} "
        ]
        assert f" {resume.outcome.value} " in row
        latencies = {
            "marker→resp": resume.marker_to_response_ms,
            "→marker": resume.request_to_marker_ms,
        }
        for heading, value in latencies.items():
            if value is not None and heading not in left_out(text):
                assert f" {ms(value)}" in row, (ms(value), row)
    shortened = {short_id(r.session_id) for r in acptrace.analyze(path).resumes}
    cells = " ".join(table)
    for session in shortened:
        cells = cells.replace(session, "")
    assert "…" not in cells  # (rich marks a cut cell so)


def test_columns_go_text_first_and_all_stay_when_there_is_room() -> None:
    path = ROOT / "sample_traces" / "mixed-session.jsonl"
    header = {
        width: next(
            line for line in rendered(path, width).splitlines() if line.split()[:2] == HEADING
        )
        for width in (80, 160)
    }
    assert header[160].split() == [
        "line", "session", "kind", "outcome", "end", "mk", "repl", "held", "→marker",
        "marker→resp", "total", "max", "gap",
    ]  # fmt: skip
    narrow = header[80].split()
    assert "kind" not in narrow
    assert "end" not in narrow
    assert {"line", "session", "outcome", "marker→resp"} <= set(narrow)


@pytest.mark.parametrize("width", [60, 70, 80, 120, 200])
@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.name)
def test_fidelity_keeps_each_row_named_and_its_numbers_whole(path: Path, width: int) -> None:
    from acptrace.fidelity import fidelity
    from acptrace.render.fidelity_view import fidelity_view

    report = fidelity(path)
    buffer = io.StringIO()
    Console(file=buffer, width=width, color_system=None).print(fidelity_view(report))
    text = buffer.getvalue()
    assert all(len(line.rstrip()) <= width for line in text.splitlines())
    hidden = left_out(text)
    for entry in report.sessions:
        (row,) = [
            line
            for line in text.splitlines()
            if line.split()[:1] == [str(entry.request_line)] and short_id(entry.session_id) in line
        ]
        if "fidelity" not in hidden:
            ratio = entry.comparison.fidelity
            assert row.split()[-1] == ("—" if ratio is None else f"{ratio:.2f}")


def test_the_idle_timer_table_says_what_of_n_counts() -> None:
    """`of 2` in a file with one requested session and its child: the child's replay counts."""
    path = ROOT / "sample_traces" / "mixed-session.jsonl"
    text = rendered(path, 100)
    assert " of 2 " in text
    cut_short = meaning("idle", "cut short")
    assert cut_short is not None
    assert cut_short.legend is not None
    assert f"cut short: {cut_short.legend}" in " ".join(text.split())


def test_an_inferred_protocol_says_why_and_how_to_choose_the_other(tmp_path: Path) -> None:
    """A v1 file without `initialize` is judged as v2 (rules.md §7): the header says so."""
    path = tmp_path / "no-initialize.jsonl"
    prompt = {"jsonrpc": "2.0", "id": 2, "method": "session/prompt"}
    path.write_text(json.dumps({**prompt, "params": {"sessionId": "s", "prompt": []}}) + "\n")
    text = rendered(path, 100)
    assert "ACP v2 (inferred: no initialize seen; --protocol 1 for v1)" in text
    assert "ACP v2 (initialize)" in rendered(ROOT / "sample_traces" / "mixed-session.jsonl", 100)


UNIT_PARTED = re.compile(r"\d+\.\d+$|^[\s│├└┌]*(ms|s)(\s|$)")
"""A wrapped line that ends with a latency's number, or starts with its unit (a unit is a word
of its own: the file's path wrapped before `s.jsonl`, in a clone whose folder has another
length, is no unit)."""


LABEL_PARTED = re.compile(r"(→marker|marker→response) ?~?$")
"""A wrapped line that ends with a latency's label, its value on the next."""


@pytest.mark.parametrize("width", [60, 70, 80, 100, 120])
@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.name)
def test_timeline_never_parts_a_number_from_its_unit(path: Path, width: int) -> None:
    result = CliRunner().invoke(app, ["timeline", str(path)], env={"COLUMNS": str(width)})
    for line in result.stdout.splitlines():
        assert not UNIT_PARTED.search(line.rstrip()), line
        assert not LABEL_PARTED.search(line.rstrip()), line


@pytest.mark.parametrize("width", [40, 50, 60, 70, 80])
@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.name)
def test_the_header_breaks_between_facts_never_inside_one(path: Path, width: int) -> None:
    """`18 messages` and `client zed 0.214.3` stay on one line when the header wraps."""
    analysis = acptrace.analyze(path)
    source, connection = analysis.source, analysis.connection
    facts = [f"{source.lines} line", f"{source.messages} message", f"{len(analysis.issues)} issue"]
    facts += [f"end {source.connection_end}", f"ACP v{connection.protocol_version} ("]
    for peer, role in ((connection.agent, "agent"), (connection.client, "client")):
        facts.append(f"{role} {peer.name} {peer.version or ''}".strip() if peer else role)
    lines = rendered(path, width).splitlines()
    header = lines[: next(i for i, line in enumerate(lines) if line.startswith(("Resumes", "No ")))]
    assert max(len(line.rstrip()) for line in header) <= width
    for fact in facts:
        assert any(fact in line for line in header), (fact, header)


@pytest.mark.parametrize("width", [40, 60, 80])
def test_a_path_wider_than_the_line_breaks_after_a_slash(tmp_path: Path, width: int) -> None:
    """A long path breaks between its directories (`…/agents-2026-12/` then the name), never
    mid-name, where each piece fits; a name wider than the line is folded alone."""
    folder = tmp_path / "real-world" / "agents-2026-12"
    folder.mkdir(parents=True)
    path = folder / "codex_acp_prompt_without_load.jsonl"
    path.write_bytes((ROOT / "sample_traces" / "outcome-complete.jsonl").read_bytes())
    header = rendered(path, width).split("ACP v")[0]
    lines = header.splitlines()
    named = next(i for i, line in enumerate(lines) if ".jsonl" in line)
    assert named > 0  # (the path is wider than the line)
    assert "/codex_acp_prompt_without_load.jsonl" in "/" + lines[named]  # (whole)
    assert all(line.endswith("/") for line in lines[:named])
    assert "".join(lines[: named + 1]).startswith(str(path))
    assert max(len(line) for line in lines) <= width


LINE_PARTED = re.compile(r"\b(line|#)$|^\s*\d+[),]")
"""A wrapped line that ends with `line` (its number on the next), or starts with the number."""


@pytest.mark.parametrize("width", [40, 50, 60, 70])
def test_fidelity_details_never_part_a_line_number_from_line(width: int) -> None:
    """`(live.jsonl:7, replay.jsonl:6)` wraps after the comma; the excerpt and the diff wrap
    under their item, not at the margin."""
    folder = ROOT / "sample_traces" / "fidelity"
    result = CliRunner().invoke(
        app,
        ["fidelity", str(folder / "live.jsonl"), str(folder / "replay.jsonl")],
        env={"COLUMNS": str(width)},
    )
    details = result.stdout.split("sess_1  (", 1)[1].splitlines()
    assert "replay.jsonl:6)" in result.stdout
    for line in details:
        assert len(line) <= width
        assert not LINE_PARTED.search(line), line
        assert not line or line.startswith("  ") or line.endswith(("complete)", "at", ",")), line


@pytest.mark.parametrize("width", [60, 80])
def test_a_long_session_id_in_a_finding_wraps_and_is_never_cut(tmp_path: Path, width: int) -> None:
    """A finding's message names the session whole, wrapped if need be, not `0123…ab…`."""
    session = "0123456789abcdef-0123456789abcdef-0123456789"
    update = {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "hi"}}
    lines = [
        {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": 1}},
        {"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": 1}},
        {
            "jsonrpc": "2.0",
            "method": "session/update",
            "params": {"sessionId": session, "update": update},
        },
    ]
    path = tmp_path / "unknown-session.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    text = rendered(path, width)
    assert "LC-UNKNOWN-SESSION" in text
    findings = text.split("LC-UNKNOWN-SESSION", 1)[1]
    assert "…" not in findings
    assert session in "".join(line.strip() for line in findings.splitlines())


def test_resumes_without_a_marker_keep_the_error_code_at_80_columns() -> None:
    """On a connection whose resumes expect no marker, the marker latencies say nothing: they
    go first, and the row's end (the error code that tells a refused request from a cut
    replay) stays."""
    path = str(ROOT / "sample_traces" / "outcome-truncated-error.jsonl")
    shown = CliRunner().invoke(app, ["analyze", path], env={"COLUMNS": "80"})
    lines = shown.stdout.splitlines()
    heading = next(line for line in lines if line.split()[:2] == ["line", "session"])
    assert "end" in heading.split()
    assert "→marker" not in heading
    assert any("truncated" in line and "error -32603" in line for line in lines)
    assert any(line.startswith("Left out at 80 columns:") and "→marker" in line for line in lines)
    v2_path = str(ROOT / "sample_traces" / "rules-history.jsonl")
    v2 = CliRunner().invoke(app, ["analyze", v2_path], env={"COLUMNS": "80"})
    v2_heading = next(line for line in v2.stdout.splitlines() if line.startswith(" line "))
    assert "→marker" in v2_heading  # (a v2 replay's marker latencies are what is read first)
