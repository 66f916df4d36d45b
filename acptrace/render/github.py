"""`--format github`: GitHub Actions workflow commands, one annotation per finding.

`::error file=run.jsonl,line=9,title=RC-MISSING (error)::message`. Notes become `::notice`.
Input issues are notices too (`title=input issue KIND`). Values are escaped as the runner
expects, so transcript text can neither end a command early nor start another.
"""

from __future__ import annotations

from collections.abc import Sequence

from acptrace.model.domain import Analysis, Severity
from acptrace.render.text import printable

COMMAND = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.NOTE: "notice"}
"""The workflow command for each finding level."""


def github_annotations(analyses: Sequence[Analysis]) -> bytes:
    """One workflow command line per finding and input issue."""
    lines = []
    for analysis in analyses:
        path = analysis.source.path
        where = "" if analysis.source.connection is None else f" in {analysis.source.connection}"
        for finding in analysis.findings:
            title = f"{finding.rule} ({finding.severity.value}){where}"
            command = COMMAND[finding.severity]
            lines.append(_command(command, path, finding.line, title, finding.message))
        for issue in analysis.issues:
            title = f"input issue {issue.kind}{where}"
            lines.append(_command("notice", path, issue.line, title, issue.message))
    return "".join(line + "\n" for line in lines).encode()


def _command(name: str, path: str, line: int, title: str, message: str) -> str:
    properties = ",".join(
        f"{key}={_property(value)}"
        for key, value in (("file", path), ("line", str(line)), ("title", title))
    )
    return f"::{name} {properties}::{_data(message)}"


def _data(value: str) -> str:
    """Escape a command's message: control characters (newlines too) shown as `\\x0a`, then `%`."""
    return printable(value).replace("%", "%25")


def _property(value: str) -> str:
    """Escape a property value (GitHub's `escapeProperty`)."""
    return _data(value).replace(":", "%3A").replace(",", "%2C")
