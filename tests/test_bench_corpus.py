"""The benchmark corpus (`benchmarks/generate.py`): the realistic mix draws update kinds and
line sizes from the committed table of real recordings, and stays a clean transcript."""

from __future__ import annotations

import io
import json
import statistics
from collections import Counter
from pathlib import Path

import orjson
import pytest

from acptrace import analyze_file
from acptrace.model.options import Options, SchemaDepth
from benchmarks.derive_mix import main as derive_mix
from benchmarks.generate import REAL_MIX, STRUCTURAL_TAGS, generate
from tests.shared import SHARED

TABLE = json.loads(Path(REAL_MIX).read_text())


def corpus(tmp_path: Path, kind: str) -> Path:
    out = io.BytesIO()
    generate(out, mb=None, sessions=12, seed=4, corpus=kind)
    path = tmp_path / f"{kind}.jsonl"
    path.write_bytes(out.getvalue())
    return path


def update_kinds(path: Path) -> Counter[str]:
    kinds: Counter[str] = Counter()
    for line in path.read_bytes().splitlines():
        message = orjson.loads(line).get("msg") or {}
        update = (message.get("params") or {}).get("update")
        if isinstance(update, dict):
            kinds[update["sessionUpdate"]] += 1
    return kinds


def test_the_realistic_corpus_has_the_kinds_and_sizes_of_real_recordings(tmp_path: Path) -> None:
    realistic, large = corpus(tmp_path, "realistic"), corpus(tmp_path, "large")
    real = set(TABLE["update_kinds"])
    drawn = {kind for kind, count in update_kinds(realistic).items() if count >= 20}
    placed = STRUCTURAL_TAGS | {"user_message"}  # (markers, snapshots, each prompt's echo)
    assert drawn - placed <= real  # the frequent kinds are those of the table
    assert not {"plan_update"} & drawn  # (the large mix makes its own, not in the table)
    assert "plan_update" in update_kinds(large)
    sizes = [len(line) for line in realistic.read_bytes().splitlines(keepends=True)]
    chunks = TABLE["update_kinds"]["agent_message_chunk"]["sizes"]
    assert chunks[0] - 60 <= statistics.median(sizes) <= chunks[-1] + 60
    large_sizes = [len(line) for line in large.read_bytes().splitlines(keepends=True)]
    assert statistics.mean(sizes) < statistics.mean(large_sizes)
    share = TABLE["non_ascii_share"]
    assert 0 < non_ascii_share(realistic) < 2 * share < non_ascii_share(large)


def non_ascii_share(path: Path) -> float:
    lines = path.read_bytes().splitlines()
    return sum(not line.isascii() for line in lines) / len(lines)


@pytest.mark.parametrize("kind", ["realistic", "large"])
def test_either_corpus_is_a_clean_transcript(tmp_path: Path, kind: str) -> None:
    """Clean by every rule, the schema's too, on every message (`--schema full`): real v2
    Agents' updates have the v2 shapes, so the benchmarks measure what they cost."""
    (analysis,) = analyze_file(str(corpus(tmp_path, kind)), Options(schema=SchemaDepth.FULL))
    assert analysis.issues == ()
    assert analysis.findings == ()
    assert len(analysis.resumes) > 3


@pytest.mark.shared
def test_the_committed_table_is_what_the_recordings_give(tmp_path: Path) -> None:
    derived = tmp_path / "mix.json"
    assert derive_mix([str(SHARED / "real-world"), "-o", str(derived)]) == 0
    assert json.loads(derived.read_text()) == TABLE
