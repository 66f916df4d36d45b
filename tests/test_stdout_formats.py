"""Formats for scripts on stdout, in one shape (#37 item 6): `report --format json|markdown`
writes what `-o report.json` / `-o report.md` would, for `| jq` and `>> $GITHUB_STEP_SUMMARY`;
`analyze --format json` is an object or an array by the command line alone, never by what a
directory happens to hold (docs/json-output.md)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from acptrace.cli import app
from tests.golden import ROOT

SAMPLES = ROOT / "sample_traces"
ONE = SAMPLES / "outcome-complete.jsonl"


@pytest.mark.parametrize(("output_format", "suffix"), [("json", ".json"), ("markdown", ".md")])
def test_report_writes_a_files_kind_to_stdout(
    tmp_path: Path, output_format: str, suffix: str
) -> None:
    written = tmp_path / f"report{suffix}"
    args = ["report", str(SAMPLES), "--format", output_format, "-o", str(written)]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.stderr
    assert result.stdout == written.read_text()
    assert "Resumes by group" not in result.stdout  # (not the terminal summary)


def test_report_json_on_stdout_is_the_document() -> None:
    result = CliRunner().invoke(app, ["report", "-f", "json", str(SAMPLES)])
    document = json.loads(result.stdout)
    assert (document["kind"], document["files"]["analysed"]) == ("acptrace-report", 20)


def test_report_still_prints_its_summary_by_default() -> None:
    result = CliRunner().invoke(app, ["report", str(SAMPLES)])
    assert result.stdout.startswith("20 transcripts · ")


def _json(*args: str) -> object:
    result = CliRunner().invoke(app, ["analyze", "--format", "json", *args])
    assert result.exit_code in (0, 1), result.stderr
    return json.loads(result.stdout)


def test_analyze_json_is_an_array_for_a_directory_even_of_one_file(tmp_path: Path) -> None:
    folder = tmp_path / "runs"
    folder.mkdir()
    shutil.copy(ONE, folder / ONE.name)
    one = _json(str(folder / ONE.name))
    assert isinstance(one, dict)
    for args in ([str(folder)], [str(folder / "*.jsonl")], [str(ONE), str(ONE)]):
        documents = _json(*args)
        assert isinstance(documents, list), args
        assert documents[0] == one | {"source": documents[0]["source"]}


def test_the_docs_say_which_shape_comes_when() -> None:
    text = (ROOT / "docs" / "json-output.md").read_text()
    section = text.split("### One document or an array", 1)[1].split("\n\n", 3)
    assert "a directory, a glob, or several arguments" in section[2]
    assert "even when it matched one file" in section[2]
