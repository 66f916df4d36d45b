"""`analyze` over many files ends with a summary across them, and `--summary` prints it alone
(#37 item 4): 35 recordings printed 579 lines that ended with the last file's own verdict."""

from __future__ import annotations

import json
from collections import Counter

import pytest
from typer.testing import CliRunner

from acptrace.cli import app
from tests.golden import ROOT
from tests.terminal import in_terminal, plain

SAMPLES = ROOT / "sample_traces"
FILES = sorted(SAMPLES.glob("*.jsonl"))


def analyze(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, ["analyze", *args], env={"COLUMNS": "160"})
    return result.exit_code, result.stdout


def documents() -> list[dict[str, object]]:
    code, text = analyze("--format", "json", *map(str, FILES))
    assert code in (0, 1)
    parsed = json.loads(text)
    assert isinstance(parsed, list)  # (the JSON shape stays: no summary in it)
    return parsed


def test_many_files_end_with_the_summary_across_them() -> None:
    docs = documents()
    findings = [f for d in docs for f in d["findings"]]  # type: ignore[attr-defined]
    levels = Counter(f["severity"] for f in findings)
    by_rule = Counter((f["rule"], f["severity"]) for f in findings)
    outcomes = Counter(r["outcome"] for d in docs for r in d["resumes"])  # type: ignore[attr-defined]
    code, text = analyze(*map(str, FILES))
    assert code == 1
    tail = text.split("\nAcross all files\n", 1)[1]
    assert tail.startswith(f"{len(FILES)} files in {SAMPLES}/ · {len(docs)} connections · ")
    assert "outcomes: complete " + str(outcomes["complete"]) in tail
    rows = {tuple(line.split()[:3]) for line in tail.splitlines() if line.startswith(" ")}
    for (rule, level), count in by_rule.items():
        assert (rule, level, str(count)) in rows
    with_findings = len({d["source"]["path"] for d in docs if d["findings"]})  # type: ignore[index]
    verdict = f"Findings: {levels['error']} errors, {levels['warning']} warnings, "
    assert verdict in tail
    assert tail.rstrip().endswith(f"in {with_findings} files of {len(FILES)}.")


def test_the_files_with_most_findings_come_most_severe_first() -> None:
    _, text = analyze("--summary", str(SAMPLES))
    table = text.split("Files with most findings", 1)[1].split("\n\n", 2)[1]
    rows = [line.split() for line in table.splitlines()[2:] if line.strip()]
    counts = [tuple(-int(cell) for cell in row[1:4]) for row in rows]
    assert counts == sorted(counts)
    assert len(rows) == 5
    assert rows[0][0] == "rules-marker.jsonl"  # (named within the folder said above)


def test_summary_prints_the_summary_alone_with_the_same_exit_code() -> None:
    every_code, every = analyze(str(SAMPLES))
    code, alone = analyze("--summary", str(SAMPLES))
    assert code == every_code == 1
    assert alone.startswith("Across all files\n")
    assert every.endswith(alone)
    assert "Resumes" not in alone
    assert len(alone.splitlines()) < len(every.splitlines()) / 5


def test_one_file_has_no_summary_unless_asked() -> None:
    _, text = analyze(str(SAMPLES / "outcome-complete.jsonl"))
    assert "Across all files" not in text
    _, alone = analyze("--summary", str(SAMPLES / "outcome-complete.jsonl"))
    assert alone.splitlines()[:4] == [
        "Across all files",
        "1 file · 1 connection · 1 resume · 0 input issues",
        "outcomes: complete 1",
        "No findings in any file.",
    ]


@pytest.mark.parametrize("output_format", ["json", "sarif", "markdown"])
def test_summary_is_a_terminal_view(output_format: str) -> None:
    result = CliRunner().invoke(app, ["analyze", "--summary", "--format", output_format, "x"])
    assert result.exit_code == 2
    assert result.stderr == (
        f"acptrace: error: --summary is a terminal view: --format {output_format} lists "
        "everything\n"
    )


@pytest.mark.parametrize("columns", [60, 80, 120])
def test_the_summary_fits_a_terminal(columns: int) -> None:
    shown = plain(in_terminal(["analyze", "-q", "--summary", str(SAMPLES)], columns, ROOT))
    lines = shown.splitlines()
    assert lines[0] == "Across all files"
    assert max(len(line.rstrip()) for line in lines) <= columns
    assert any(line.startswith(" rules-marker.jsonl") for line in lines)
