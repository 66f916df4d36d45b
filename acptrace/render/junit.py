"""`--format junit`: one test suite per transcript, one test case per resume and per rule family.

A finding at or above `--fail-on` is one `<failure>` on the test case it concerns (its resume,
else its rule family), so the failure count is exactly the number of failing findings; findings
below the threshold are listed in the test case's `<system-out>`. With `--strict` every input
issue is a failure of the `input` test case as well.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Sequence

from acptrace.judge.policy import Policy
from acptrace.model.domain import Analysis, Finding, ResumeRow, Role
from acptrace.render.ci import attribute, finding_text, judged, row_facts, row_title
from acptrace.render.text import printable, transcript_name


def junit_xml(analyses: Sequence[Analysis], policy: Policy) -> bytes:
    """The JUnit XML document for these analyses."""
    root = ET.Element("testsuites", name="acptrace")
    for analysis in analyses:
        root.append(_suite(analysis, policy))
    _count(root)
    ET.indent(root)
    document: bytes = ET.tostring(root, encoding="utf-8", xml_declaration=True)
    return document + b"\n"


def _suite(analysis: Analysis, policy: Policy) -> ET.Element:
    path = printable(transcript_name(analysis.source))
    suite = ET.Element("testsuite", name=path)
    properties = ET.SubElement(suite, "properties")
    connection = analysis.connection
    for name, value in (
        ("format", analysis.source.format),
        ("protocol_version", connection.protocol_version),
        ("connection_end", analysis.source.connection_end.value),
        ("agent", connection.agent.name if connection.agent else None),
        ("fail_on", policy.fail_on.value),
    ):
        ET.SubElement(properties, "property", name=name, value=printable(value))
    attributed = attribute(analysis)
    for row, findings in attributed.by_row:
        suite.append(_resume_case(path, row, findings, policy))
    for family, findings in attributed.by_family:
        case = _case(path, "rules", family, findings, policy)
        skipped = judged(family, policy.options, connection.protocol_version)
        if skipped is not None and not findings:
            ET.SubElement(case, "skipped", message=skipped)
        suite.append(case)
    suite.append(_input_case(path, analysis, policy))
    _count(suite)
    return suite


def _resume_case(
    path: str, row: ResumeRow, findings: Sequence[Finding], policy: Policy
) -> ET.Element:
    case = _case(path, "resumes", row_title(row), findings, policy, facts=row_facts(row))
    case.set("line", str(row.request_line))
    total_ms = None if row.approximate else row.request_to_response_ms  # (an estimate: no time)
    if row.role is Role.REQUESTED and total_ms is not None:
        case.set("time", f"{total_ms / 1000:.3f}")
    return case


def _case(
    path: str,
    group: str,
    name: str,
    findings: Sequence[Finding],
    policy: Policy,
    facts: str | None = None,
) -> ET.Element:
    case = ET.Element("testcase", classname=f"acptrace.{group}", name=name, file=path, time="0")
    below = []
    for finding in findings:
        if policy.fail_on.fails(finding.severity):
            failure = ET.SubElement(
                case,
                "failure",
                message=printable(f"{finding.rule}: {finding.message}"),
                type=finding.rule,
            )
            failure.text = finding_text(finding)
        else:
            below.append(finding_text(finding))
    out = ([facts] if facts else []) + below
    if out:
        ET.SubElement(case, "system-out").text = "\n".join(out)
    return case


def _input_case(path: str, analysis: Analysis, policy: Policy) -> ET.Element:
    case = ET.Element("testcase", classname="acptrace.input", name="input", file=path, time="0")
    lines = [f"line {i.line}: {i.kind}: {printable(i.message)}" for i in analysis.issues]
    if policy.strict:
        for issue, text in zip(analysis.issues, lines, strict=True):
            failure = ET.SubElement(case, "failure", message=text, type=f"issue:{issue.kind}")
            failure.text = text
    elif lines:
        ET.SubElement(case, "system-out").text = "\n".join(lines)
    return case


def _count(element: ET.Element) -> None:
    """Set tests / failures / errors / skipped / time on a suite (or the root) from its cases."""
    cases = list(element.iter("testcase"))
    element.set("tests", str(len(cases)))
    element.set("failures", str(sum(len(case.findall("failure")) for case in cases)))
    element.set("errors", "0")
    element.set("skipped", str(sum(1 for case in cases if case.find("skipped") is not None)))
    element.set("time", f"{sum(float(case.get('time', '0')) for case in cases):.3f}")
