"""The library's promises in docs/library.md that no other test holds."""

from __future__ import annotations

import dataclasses
from typing import Any

import acptrace
from acptrace import Execution, Options
from acptrace.model.domain import Issue, IssueKind, ReplayPause
from acptrace.model.records import FrozenRecord
from acptrace.read.envelopes import RecorderEvent
from tests.golden import ROOT


def test_the_values_a_user_copies_are_dataclasses() -> None:
    """`Options`, `Execution`, a walk's `Step` and the analysis records are dataclasses (copied
    with `dataclasses.replace`, read with `fields`), whatever the pipeline uses inside."""
    assert dataclasses.replace(Options(), protocol=1).protocol == 1
    assert dataclasses.replace(Execution(), split=3).split == 3
    with acptrace.open_walk(ROOT / "sample_traces" / "clean.jsonl") as walk:
        steps = list(walk)
    analysis = walk.analysis
    for value in (steps[0], analysis, analysis.source, analysis.connection, *analysis.resumes):
        assert dataclasses.is_dataclass(value), type(value).__name__


def _dataclass_twin(value: Any) -> Any:
    """The same values in a frozen dataclass that compiles its own `repr`, `==` and hash."""
    names = [f.name for f in dataclasses.fields(value)]
    twin = dataclasses.make_dataclass(type(value).__name__, names, frozen=True)
    twin.__qualname__ = type(value).__qualname__
    return twin(**{name: getattr(value, name) for name in names})


def _hash_or_error(value: object) -> int | str:
    try:
        return hash(value)
    except TypeError as error:  # (a field holds a dict)
        return str(error)


def test_the_records_print_compare_and_hash_as_their_dataclasses_would() -> None:
    """The public records take `repr`, `==` and hash from `FrozenRecord` (fewer methods
    compiled at start-up): the same as a frozen dataclass's own."""
    analysis = acptrace.analyze_file(ROOT / "sample_traces" / "outcome-child-complete.jsonl")[0]
    lifecycle = acptrace.analyze_file(ROOT / "sample_traces" / "rules-lifecycle.jsonl")[0]
    records = [
        *(analysis, analysis.source, analysis.connection, analysis.connection.agent),
        *(*analysis.resumes, *analysis.sessions, *lifecycle.findings, Options(), Execution()),
        Issue(3, IssueKind.NOT_JSON, "line 3 is not JSON: 'x'"),
        ReplayPause(gap_ms=1.5, updates_after=2),
        RecorderEvent(1, "open", ts_ns=5, detail={"argv": ["agent"]}),
    ]
    assert {type(r).__name__ for r in records} >= {"ResumeRow", "SessionInfo", "Finding"}
    for record in records:
        assert isinstance(record, FrozenRecord), type(record).__name__
        twin = _dataclass_twin(record)
        assert repr(record) == repr(twin)
        assert record == dataclasses.replace(record)
        assert record != twin
        assert record.__eq__(twin) is NotImplemented
        assert _hash_or_error(record) == _hash_or_error(twin)
    first = lifecycle.findings[0]
    assert first != dataclasses.replace(first, line=first.line + 1)
    assert len({first, dataclasses.replace(first), lifecycle.findings[1]}) == 2
