"""The hot path and the general path agree: same analysis for every input."""

from __future__ import annotations

import io
from pathlib import Path

import orjson
from hypothesis import given
from hypothesis import strategies as st

import acptrace
from acptrace import Options
from tests.golden import ROOT
from tests.test_properties import CORPUS, mutate, mutation

FILES = sorted((ROOT / "sample_traces").glob("*.jsonl")) + sorted(
    (ROOT.parent / "shared" / "real-world").glob("*.jsonl")
)


def both(data: bytes) -> tuple[acptrace.Analysis, acptrace.Analysis]:
    fast = acptrace.analyze(io.BytesIO(data), Options(fast=True))
    general = acptrace.analyze(io.BytesIO(data), Options(fast=False))
    return fast, general


def test_both_paths_agree_on_every_corpus_file() -> None:
    for path in FILES:
        fast, general = both(Path(path).read_bytes())
        assert fast == general, path.name


def test_both_paths_agree_on_a_generated_transcript() -> None:
    from benchmarks.generate import generate

    out = io.BytesIO()
    generate(out, mb=None, sessions=6, seed=3, faults=0.3)
    fast, general = both(out.getvalue())
    assert fast == general
    assert fast.resumes


values = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**63), 2**63 - 1),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from(["2.0", "1.0", "session/update", "session/resume", "session/new",
                     "initialize", "$/cancel_request", "replay_complete", "s1", "start",
                     "2026-12-02T10:00:00.123456Z", "2026-12-02T10:00:61.123456Z", "c2a",
                     "a2c", "meta"]),
)  # fmt: skip
keys = st.sampled_from(["jsonrpc", "id", "method", "params", "result", "error", "sessionId",
                        "update", "sessionUpdate", "replayFrom", "requestId", "code",
                        "sessions", "protocolVersion", "dir", "msg", "ts", "mono_ns",
                        "timestamp"])  # fmt: skip
json_values = st.recursive(
    values, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(keys, inner, max_size=5),
    max_leaves=12,
)  # fmt: skip
canonical_lines = st.fixed_dictionaries(
    {"dir": st.sampled_from(["c2a", "a2c"]), "msg": json_values},
    optional={"ts": values, "mono_ns": values, "timestamp": values},
)
first_line = b'{"dir": "meta", "event": "open", "argv": []}'


@given(st.lists(canonical_lines, max_size=25))
def test_both_paths_agree_on_canonical_noise(records: list[dict[str, object]]) -> None:
    data = b"\n".join([first_line] * 17 + [orjson.dumps(record) for record in records])
    fast, general = both(data)
    assert fast == general


@given(st.lists(json_values, max_size=25))
def test_both_paths_agree_on_bare_noise(records: list[object]) -> None:
    head = [b'{"jsonrpc": "2.0", "method": "session/cancel", "params": {}}'] * 17
    data = b"\n".join(head + [orjson.dumps(record) for record in records])
    fast, general = both(data)
    assert fast == general


@given(mutation)
def test_both_paths_agree_on_mutated_transcripts(
    case: tuple[int, list[tuple[str, int, bytes]]],
) -> None:
    index, edits = case
    fast, general = both(mutate(CORPUS[index], edits))
    assert fast == general


def test_invalid_utf8_inside_a_skipped_payload_is_not_utf8_on_both_paths() -> None:
    head = [b'{"dir": "meta", "event": "open"}'] * 17
    line = b'{"dir": "a2c", "msg": {"jsonrpc": "2.0", "method": "session/update", "params": '
    line += (
        b'{"sessionId": "s", "update": {"sessionUpdate": "agent_message_chunk", "text": "\xff"}}}}'
    )
    fast, general = both(b"\n".join([*head, line, b""]))
    assert fast == general
    assert [i.kind for i in fast.issues] == ["not_utf8"]


def test_numbers_beyond_a_double_are_json_on_both_paths() -> None:
    head = [b'{"dir": "meta", "event": "open"}'] * 17
    line = b'{"dir": "a2c", "msg": {"jsonrpc": "2.0", "method": "session/update", "params": '
    line += b'{"sessionId": "s", "update": {"sessionUpdate": "usage_update", "tokens": 1e400}}}}'
    fast, general = both(b"\n".join([*head, line]))
    assert fast == general
    assert fast.source.messages == 1
    assert fast.issues == ()
