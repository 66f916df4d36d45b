"""The shipped index of each ACP schema (`acptrace/judge/schema/index.py`): what `build` makes of
the schema beside it, and a schema that no longer matches its index is indexed afresh."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from acptrace.judge.schema import index
from acptrace.judge.schema.catalogue import schema
from acptrace.judge.schema.compiler import Break


@pytest.mark.parametrize("version", [1, 2])
def test_the_shipped_index_is_what_the_schema_gives(version: int) -> None:
    built = index.build(index.schema_path(version).read_bytes())
    assert index.index_path(version).read_bytes() == index.text_of(built), (
        "run `python -m acptrace.judge.schema.index` to write the indexes again"
    )


@pytest.mark.parametrize("version", [1, 2])
def test_each_definition_is_sliced_where_the_index_says(version: int) -> None:
    text, located = index.definitions(version)
    document = orjson.loads(text)["$defs"]
    assert list(located) == list(document)
    for name, (start, end, method, side) in located.items():
        assert orjson.loads(text[start:end]) == document[name]
        assert (method, side) == (document[name].get("x-method"), document[name].get("x-side"))


def test_a_schema_its_index_does_not_fit_is_indexed_afresh(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    schema_file, stale = tmp_path / "schema-v2.json", tmp_path / "schema-v2.index.json"
    text = b'{"$defs": {"A": {"x-method": "a/b", "x-side": "agent"}, "B": {"type": "string"}}}'
    schema_file.write_bytes(text)
    stale.write_bytes(index.index_path(2).read_bytes())  # (another schema's index)
    monkeypatch.setattr(index, "HERE", tmp_path)
    _, located = index.definitions(2)
    a, b = b'{"x-method": "a/b", "x-side": "agent"}', b'{"type": "string"}'
    at_a, at_b = text.index(a), text.index(b)
    assert located == {
        "A": (at_a, at_a + len(a), "a/b", "agent"),
        "B": (at_b, at_b + len(b), None, None),
    }
    stale.write_bytes(b"not json")
    assert index.definitions(2)[1] == located


def test_the_checks_read_the_definitions_through_the_index() -> None:
    v2 = schema(2)
    assert "PromptRequest" in v2.calls.values()
    assert v2.answers["session/prompt"] == "PromptResponse"
    found: list[Break] = []
    v2.check("PromptResponse")({"stopReason": "nope"}, "result", found)
    assert len(found) == 1
