"""The library's promises in docs/library.md that no other test holds."""

from __future__ import annotations

import dataclasses

import acptrace
from acptrace import Execution, Options
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
