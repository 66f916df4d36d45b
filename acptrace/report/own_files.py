"""The report's own files among its inputs: report.json, report.md and report.html written by an
earlier run (or about to be written by this one) in a folder given as input are not transcripts.

They are recognised by what they hold, whatever their name: report.json by its `kind`, the
page by its generator meta tag, the comment by its first line; an `-o` target by its path.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from pathlib import Path

from acptrace.report.baseline import KIND

HEAD_BYTES = 4096
"""How much of a file is read to recognise it."""
HTML_MARK = b'<meta name="generator" content="acptrace'
"""In the head of report.html."""
MARKDOWN_MARK = b"<!-- acptrace report"
"""The first line of report.md (an HTML comment: invisible in the rendered comment)."""
JSON_MARK = f'"kind": "{KIND}"'.encode()
"""Near the top of report.json (as `dumps` indents it)."""


def written_by_report(path: str) -> bool:
    """Whether the file is a report that `acptrace report` wrote (False when unreadable:
    reading it as a transcript then says what is wrong). Only a regular file is looked into:
    a FIFO is read once, by the analysis (opening it here too would wait for ever)."""
    if path == "-" or not os.path.isfile(path):
        return False
    try:
        with open(path, "rb") as file:
            head = file.read(HEAD_BYTES)
    except OSError:
        return False
    start = head.lstrip()
    if start.startswith(b"{"):
        return JSON_MARK in head
    return start.startswith(MARKDOWN_MARK) or (start.startswith(b"<!DOCTYPE") and HTML_MARK in head)


def split_own_files(
    paths: Iterable[str], outputs: Sequence[str] = ()
) -> tuple[list[str], list[str]]:
    """The paths that are transcripts, and those that are the report's own files (an `-o`
    target, or a report written earlier), each in the order given."""
    targets = {_resolved(output) for output in outputs if output != "-"}
    kept: list[str] = []
    own: list[str] = []
    for path in paths:
        if path != "-" and (_resolved(path) in targets or written_by_report(path)):
            own.append(path)
        else:
            kept.append(path)
    return kept, own


def _resolved(path: str) -> Path:
    return Path(path).resolve()
