"""Property tests: hostile bytes, mutated transcripts and cut-off files never break the analysis.

CI runs the `ci` profile (fixed seed, bounded examples). A longer fuzz run:
`HYPOTHESIS_PROFILE=fuzz .venv/bin/pytest tests/test_properties.py` (see docs/formats.md).
"""

from __future__ import annotations

import io
from pathlib import Path

import orjson
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import acptrace
from acptrace import Issue, Options, Outcome, Step
from acptrace.read.envelopes import RecorderEvent
from tests.golden import ROOT
from tests.shared import REAL_WORLD
from tests.transcript import options_and_execution

SAMPLES = sorted((ROOT / "sample_traces").glob("*.jsonl"))
CORPORA = [
    pytest.param([path.read_bytes() for path in SAMPLES], id="samples"),
    pytest.param(
        [path.read_bytes() for path in sorted(REAL_WORLD.glob("*.jsonl"))],
        id="real-world",
        marks=pytest.mark.shared,
    ),
]
"""The files the mutation tests start from; a `mutation` picks one by its index modulo the count."""
SMALL_LINE_LIMIT = 4096


def walk(data: bytes, **options: object) -> tuple[acptrace.Analysis, list[object]]:
    judged, run = options_and_execution(**options)
    with acptrace.open_walk(io.BytesIO(data), judged, execution=run) as walker:
        items: list[object] = list(walker)
    return walker.analysis, items


def line_count(data: bytes) -> int:
    return data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)


BOM = b"\xef\xbb\xbf"
"""A byte-order mark at the start of a file is skipped (input-formats.md): not part of line 1."""


def opens_multiline_array(data: bytes) -> bool:
    """The input is one datum over many lines, its records at the lines they start on: a Zed
    array, or a `.traffic` list (the format claims a first line that opens a list or is a
    Lisp `;` comment, which is white space to the reader, as a blank line is here)."""
    first = next((line for line in data.removeprefix(BOM).split(b"\n") if line.strip()), b"")
    return first.lstrip().startswith((b"[", b"(", b";"))


def accounted_lines(analysis: acptrace.Analysis, items: list[object]) -> set[int]:
    """Lines with a message, a recorder event, an issue, or a JSON-RPC finding about an object
    that could not become a message (JR-INVALID, TR-EMPTY-BATCH)."""
    lines = {f.line for f in analysis.findings if f.rule in ("JR-INVALID", "TR-EMPTY-BATCH")}
    for item in items:
        if isinstance(item, Step):
            lines.add(item.message.line)
        elif isinstance(item, RecorderEvent | Issue):
            lines.add(item.line)
    return lines


def blank_lines(data: bytes) -> set[int]:
    return {n for n, line in enumerate(data.removeprefix(BOM).split(b"\n"), 1) if not line.strip()}


@given(st.binary(max_size=2000))
def test_arbitrary_bytes_never_raise_and_every_line_counts(data: bytes) -> None:
    analysis, items = walk(data, max_line_bytes=SMALL_LINE_LIMIT)
    assert analysis.source.lines == line_count(data)
    if not opens_multiline_array(data):
        every = set(range(1, analysis.source.lines + 1))
        assert accounted_lines(analysis, items) | (blank_lines(data) & every) == every


json_lines = st.lists(
    st.one_of(
        st.recursive(
            st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1) | st.text(max_size=8),
            lambda children: (
                st.lists(children, max_size=3)
                | st.dictionaries(
                    st.sampled_from(
                        [
                            "jsonrpc",
                            "id",
                            "method",
                            "params",
                            "result",
                            "error",
                            "sessionId",
                            "update",
                            "sessionUpdate",
                            "dir",
                            "msg",
                            "ts",
                        ]
                    ),
                    children,
                    max_size=4,
                )
            ),
            max_leaves=8,
        ).map(lambda value: orjson.dumps(value)),
        st.binary(max_size=30),
    ),
    max_size=30,
)


@given(json_lines)
def test_json_shaped_noise_never_raises_and_every_line_counts(chunks: list[bytes]) -> None:
    data = b"\n".join(chunk.replace(b"\n", b" ") for chunk in chunks)
    analysis, items = walk(data)
    assert analysis.source.lines == line_count(data)
    if not opens_multiline_array(data):
        every = set(range(1, analysis.source.lines + 1))
        assert accounted_lines(analysis, items) | (blank_lines(data) & every) == every


mutation = st.tuples(
    st.integers(0, 1000),
    st.lists(
        st.tuples(
            st.sampled_from(["flip", "delete", "insert", "duplicate"]),
            st.integers(0, 10**6),
            st.binary(min_size=1, max_size=20),
        ),
        min_size=1,
        max_size=6,
    ),
)


def mutate(data: bytes, edits: list[tuple[str, int, bytes]]) -> bytes:
    buffer = bytearray(data)
    for kind, position, blob in edits:
        at = position % (len(buffer) + 1)
        if kind == "flip" and buffer:
            buffer[at % len(buffer)] ^= blob[0] or 0xFF
        elif kind == "delete":
            del buffer[at : at + len(blob)]
        elif kind == "insert":
            buffer[at:at] = blob
        else:
            buffer[at:at] = buffer[at : at + 200]
    return bytes(buffer)


@pytest.mark.parametrize("corpus", CORPORA)
@given(mutation)
@settings(suppress_health_check=[HealthCheck.too_slow])
def test_mutated_transcripts_never_raise(
    corpus: list[bytes], case: tuple[int, list[tuple[str, int, bytes]]]
) -> None:
    index, edits = case
    data = mutate(corpus[index % len(corpus)], edits)
    analysis, _ = walk(data)
    assert analysis.source.lines == line_count(data)
    for row in analysis.resumes:
        assert row.outcome in Outcome


COMPLETE = (ROOT / "sample_traces" / "outcome-complete.jsonl").read_bytes()
_LINE_ENDS = [i for i, byte in enumerate(COMPLETE) if byte == ord("\n")]


def _whole(line: int, offset: int) -> bool:
    """A cut at `offset` keeps all of `line` (its newline may be gone: the JSON is complete)."""
    return offset >= _LINE_ENDS[line - 1]


@given(st.integers(0, len(COMPLETE)))
def test_a_transcript_cut_at_any_byte_leaves_its_open_resume_unknown(offset: int) -> None:
    full = acptrace.analyze(io.BytesIO(COMPLETE))
    (row,) = full.resumes
    assert row.response_line is not None
    cut = COMPLETE[:offset]
    assume(_whole(row.request_line, offset) and not _whole(row.response_line, offset))
    analysis = acptrace.analyze(io.BytesIO(cut))
    (open_row,) = analysis.resumes
    assert open_row.outcome is Outcome.UNKNOWN
    assert open_row.end.value == "trace_end"
    closed = acptrace.analyze(io.BytesIO(cut), Options(assume_closed=True))
    marked = row.marker_line is not None and _whole(row.marker_line, offset)
    expected = Outcome.COMPLETE_FAILED if marked else Outcome.TRUNCATED
    assert closed.resumes[0].outcome is expected


requests_and_responses = st.lists(
    st.tuples(
        st.sampled_from(["c2a", "a2c"]),
        st.booleans(),
        st.one_of(st.integers(0, 3), st.sampled_from(["0", "1", "x"])),
    ),
    max_size=40,
)


@given(requests_and_responses)
def test_pairing_never_matches_a_request_twice(events: list[tuple[str, bool, object]]) -> None:
    lines = []
    for direction, is_request, request_id in events:
        message: dict[str, object] = {"jsonrpc": "2.0", "id": request_id}
        if is_request:
            message["method"] = "session/list"
        else:
            message["result"] = {}
        lines.append(orjson.dumps({"dir": direction, "msg": message}))
    _, items = walk(b"\n".join(lines))
    matched = [id(item.request) for item in items if isinstance(item, Step) and item.request]
    assert len(matched) == len(set(matched))
    for item in items:
        if isinstance(item, Step) and item.request is not None:
            assert item.request.id == item.message.id
            assert type(item.request.id) is type(item.message.id)
            assert item.request.direction is not item.message.direction
            assert item.request.line < item.message.line


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.name)
def test_every_sample_line_is_accounted_for(path: Path) -> None:
    data = path.read_bytes()
    analysis, items = walk(data)
    every = set(range(1, analysis.source.lines + 1))
    assert accounted_lines(analysis, items) | blank_lines(data) >= every


@given(json_lines)
def test_a_byte_order_mark_before_any_input_changes_nothing_but_itself(chunks: list[bytes]) -> None:
    data = b"\n".join(chunk.replace(b"\n", b" ") for chunk in chunks)
    if not data or data.startswith(BOM):
        return  # (a mark alone is one blank line, nothing is none; a second mark is data)
    plain, _ = walk(data)
    marked, _ = walk(BOM + data)
    assert (marked.source.lines, marked.source.messages) == (
        plain.source.lines,
        plain.source.messages,
    )
    assert [(i.line, i.kind) for i in marked.issues] == [(i.line, i.kind) for i in plain.issues]
