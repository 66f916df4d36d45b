"""The library's promises in docs/library.md that no other test holds."""

from __future__ import annotations

import pickle

import msgspec
import pytest

import acptrace
from acptrace import Execution, Options
from acptrace.model.domain import Issue, IssueKind, ReplayPause
from acptrace.read.envelopes import RecorderEvent
from tests.golden import ROOT


def test_the_values_a_user_copies_are_frozen_structs() -> None:
    """`Options`, `Execution`, a walk's steps and the analysis records are frozen msgspec
    Structs: copied with a change by `msgspec.structs.replace`, never changed in place."""
    assert msgspec.structs.replace(Options(), protocol=1).protocol == 1
    assert msgspec.structs.replace(Execution(), split=3).split == 3
    with acptrace.open_walk(ROOT / "sample_traces" / "clean.jsonl") as walk:
        steps = list(walk)
    analysis = walk.analysis
    for value in (steps[0], analysis, analysis.source, analysis.connection, *analysis.resumes):
        assert isinstance(value, msgspec.Struct), type(value).__name__
        with pytest.raises(AttributeError):
            value.line = 0  # type: ignore[misc,union-attr]


def _hash_or_error(value: object) -> int | str:
    try:
        return hash(value)
    except TypeError as error:  # (a field holds a dict: a cursor, a recorder event's detail)
        return str(error)


def test_the_records_print_compare_hash_and_pickle_by_their_fields() -> None:
    """Two records of the same fields are equal and hash alike, a changed field makes another
    record, `repr` names the fields, and a record pickled (as a worker process sends it) comes
    back equal."""
    analysis = acptrace.analyze_file(ROOT / "sample_traces" / "outcome-child-complete.jsonl")[0]
    lifecycle = acptrace.analyze_file(ROOT / "sample_traces" / "rules-lifecycle.jsonl")[0]
    assert analysis.connection.agent is not None
    records: list[msgspec.Struct] = [
        *(analysis, analysis.source, analysis.connection, analysis.connection.agent),
        *(*analysis.resumes, *analysis.sessions, *lifecycle.findings, Options(), Execution()),
        Issue(3, IssueKind.NOT_JSON, "line 3 is not JSON: 'x'"),
        ReplayPause(gap_ms=1.5, updates_after=2),
        RecorderEvent(1, "open", ts_ns=5, detail={"argv": ["agent"]}),
    ]
    assert {type(r).__name__ for r in records} >= {"ResumeRow", "SessionInfo", "Finding"}
    for record in records:
        copy = msgspec.structs.replace(record)
        assert record == copy
        assert copy is not record
        assert pickle.loads(pickle.dumps(record, pickle.HIGHEST_PROTOCOL)) == record
        name = record.__struct_fields__[0]
        assert repr(record).startswith(f"{type(record).__name__}({name}=")
        assert _hash_or_error(record) == _hash_or_error(copy)
    assert ReplayPause(1.5, 2) != ReplayPause(1.5, 3)
    assert Issue(3, IssueKind.NOT_JSON, "x").__eq__(ReplayPause(1.5, 2)) is NotImplemented
    first = lifecycle.findings[0]
    assert first != msgspec.structs.replace(first, line=first.line + 1)
    assert len({first, msgspec.structs.replace(first), lifecycle.findings[1]}) == 2
