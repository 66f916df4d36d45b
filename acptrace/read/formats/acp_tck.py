"""acp-tck conformance reports: one JSON document, one connection per test transcript.

`{"tck_version", "requirements": [{"id", "tests": [{"nodeid", "status", "transcript": null |
[{"dir": "sent" | "received", "t": <monotonic seconds>, "raw": "<one JSON-RPC line>"}]}]}]}`.
`sent` is Client -> Agent. Each test's transcript is a fresh agent process that the test
stopped (a recorded end), named by the test's `nodeid`; a test listed under several
requirements is read once. A `raw` cut by the report (`...[truncated N byte(s)]...`) is an
issue `truncated_payload`, and what is left of it is read (the decoder judges whether enough
of it is left to be a message: rules.md §10).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import msgspec

from acptrace.model.domain import Direction, Issue, IssueKind
from acptrace.model.excerpt import excerpt
from acptrace.read.clocks import clocked
from acptrace.read.cutjson import read_cut
from acptrace.read.envelopes import Envelope, Part, Record, RecorderEvent
from acptrace.read.formats.base import Stateless
from acptrace.read.formats.envelope_fields import decode_payload
from acptrace.read.positions import Located, load_located
from acptrace.read.source import BOM
from acptrace.read.timestamps import seconds_ns

NAME = "acp-tck"
MARK = b'"tck_version"'
"""A key only a report has."""
_DIRECTIONS = {"sent": Direction.C2A, "received": Direction.A2C}
_ENVELOPE_KEYS = ("jsonrpc", "id", "method", "result", "error")
"""What makes what is left of a cut payload a message still (its envelope)."""
_CUT = re.compile(r"\.\.\.\[truncated (\d+) byte\(s\)\]\.\.\.")


class AcpTck(Stateless, frozen=True):
    """The report format; its connections are read by `read_report`, not record by record."""

    name: str = NAME
    summary: str = "acp-tck conformance report (one JSON document): one connection per test"
    producers: str = "acp-tck (`.agents/reports/<agent>.json` in CI)"
    example: str = (
        '{"tck_version": "0.1.0", "requirements": [{"id": "ACP-LOAD-002", "tests": [{"nodeid": '
        '"test_load.py::test_x", "status": "FAIL", "transcript": [{"dir": "sent", "t": 1.5, '
        '"raw": "{\\"jsonrpc\\": \\"2.0\\", ...}"}]}]}]}'
    )

    def detect(self, record: Any) -> bool:
        """A whole report (read on one line)."""
        return isinstance(record, dict) and "tck_version" in record and "requirements" in record

    def decode(self, record: Any, line: int) -> Iterator[Record]:  # noqa: ARG002 (the Decoder protocol)
        """Never asked for its connections here: a report met among other records is an issue."""
        yield Issue(line, IssueKind.UNKNOWN_ENVELOPE, "an acp-tck report inside another transcript")


FORMAT = AcpTck()


class Test(msgspec.Struct):
    """One test's transcript as read from a report."""

    nodeid: str
    status: str | None
    records: list[Record]
    requirements: list[str] = msgspec.field(default_factory=list)


def report_version(document: Located) -> int | None:
    """The `protocol_version` the report states for its tests (an integer), if any."""
    report = document.value
    version = report.get("protocol_version") if isinstance(report, dict) else None
    return version if type(version) is int else None


def read_report(document: Located) -> list[Test]:
    """Every test with a transcript, in report order, each once (an `unknown_envelope`-only
    list when the document is not a report)."""
    report = document.value
    tests: dict[str, Test] = {}
    requirements = report.get("requirements") if isinstance(report, dict) else None
    for requirement in requirements if isinstance(requirements, list) else ():
        if not isinstance(requirement, dict) or not isinstance(requirement.get("tests"), list):
            continue
        for test in requirement["tests"]:
            if not isinstance(test, dict) or not isinstance(test.get("transcript"), list):
                continue
            nodeid = _text(test.get("nodeid"))
            found = tests.get(nodeid)
            if found is None:
                status = None if test.get("status") is None else _text(test["status"])
                records = _transcript(test["transcript"], document, document.line(test))
                found = tests[nodeid] = Test(nodeid, status, records)
            requirement_id = requirement.get("id")
            if requirement_id is not None and _text(requirement_id) not in found.requirements:
                found.requirements.append(_text(requirement_id))
    return list(tests.values())


def _text(value: Any) -> str:
    """A name the report gives, as text: each lone UTF-16 surrogate its JSON escapes may
    hold (`"\\ud800"`, which the standard library reads as is) replaced by U+FFFD, as lines
    are read (`jsontext.parsed`), so that every output can write it."""
    return str(value).encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def _transcript(entries: list[Any], document: Located, test_line: int) -> list[Record]:
    """A transcript's records, ended by the test (a recorded close)."""
    records: list[Record] = []
    last_line = test_line
    for entry in entries:
        last_line = document.line(entry, last_line)
        records.extend(_entry(entry, last_line))
    records.append(RecorderEvent(last_line, "close", detail={"reason": "test_end"}))
    return records


def _entry(entry: Any, line: int) -> Iterator[Record]:
    if not isinstance(entry, dict):
        yield Issue(line, IssueKind.UNKNOWN_ENVELOPE, f"not a transcript entry: {excerpt(entry)}")
        return
    word = entry.get("dir")
    direction = _DIRECTIONS.get(word) if isinstance(word, str) else None
    if direction is None:
        yield Issue(line, IssueKind.UNKNOWN_DIRECTION, f"unknown dir {excerpt(word)}: inferred")
        direction = Direction.UNKNOWN
    mono_ns = seconds_ns(entry.get("t"))
    raw = entry.get("raw")
    if not isinstance(raw, str):
        yield Issue(line, IssueKind.UNKNOWN_ENVELOPE, "transcript entry has no raw JSON-RPC line")
        return
    cut = _CUT.search(raw)
    if cut is None:
        yield from decode_payload(raw, line, direction, None, mono_ns)
        return
    message = f"the report cut this payload ({cut.group(1)} byte(s) left out)"
    left = read_cut(raw[: cut.start()])
    readable = isinstance(left, dict) and any(key in left for key in _ENVELOPE_KEYS)
    said = "its start is read" if readable else "nothing readable is left"
    yield Issue(line, IssueKind.TRUNCATED_PAYLOAD, f"{message}; {said}")
    # (the decoder judges what is left, and counts a message it cannot read as lost)
    yield Envelope(line, direction, left if readable else None, None, mono_ns, cut=True)


def connections(data: bytes) -> list[Part]:
    """One part per test transcript of an acp-tck report."""
    data = data.removeprefix(BOM)
    lines = data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)
    try:
        document = load_located(data.decode("utf-8"))
    except UnicodeDecodeError as error:
        issue = Issue(
            data.count(b"\n", 0, error.start) + 1, IssueKind.NOT_UTF8, "report is not UTF-8"
        )
        return [Part("report", NAME, lines, [issue])]
    except (ValueError, RecursionError) as error:
        line = getattr(error, "lineno", 1)
        # (Python's words for a stack run out depend on where it ran out: not data)
        why = "nested too deeply to read" if isinstance(error, RecursionError) else error
        issue = Issue(line, IssueKind.NOT_JSON, f"not a complete acp-tck report: {why}")
        return [Part("report", NAME, lines, [issue])]
    version = report_version(document)
    return [
        Part(
            test.nodeid,
            NAME,
            lines,
            list(clocked(test.records)),
            tuple(test.requirements),
            test.status,
            version,
        )
        for test in read_report(document)
    ]
