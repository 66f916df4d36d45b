"""Where each definition of a shipped schema lies in its file, with its method and side.

A run that checks a message needs a few of a schema's two hundred definitions, and which
definition checks which method (`x-method`, `x-side`). Finding them by decoding the schema
(341 KB for v2) and reading each definition's head cost ~7M instructions at the start of every
analysis that checks a message, a tenth of acptrace's own share of start-up. So the index of
each schema, made from it once by `build`, ships beside it (`schema-v2.index.json`): a run
reads the index and slices each definition out of the file when it first needs it.

`tests/test_schema_index.py` holds the shipped indexes to what `build` makes of the schemas
(`python -m acptrace.judge.schema.index` writes them again). At run time only the size is
compared: a schema whose size is not its index's is indexed afresh (`definitions`), which
catches a schema replaced without its index; an edit that keeps the size is the test's to
catch (a checksum of the file would cost ~2M instructions of every start-up).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec
import orjson

HERE = Path(__file__).parent

Located = tuple[int, int, str | None, str | None]
"""A definition's (start, end) in its schema's bytes, its `x-method` and its `x-side`."""


class _Head(msgspec.Struct):
    """What the index reads of a definition: its method and side (the rest of its text
    skipped, no Python object made of it)."""

    method: str | None = msgspec.field(default=None, name="x-method")
    side: str | None = msgspec.field(default=None, name="x-side")


class _Document(msgspec.Struct):
    defs: dict[str, msgspec.Raw] = msgspec.field(name="$defs")


def schema_path(version: int) -> Path:
    """The shipped schema of a protocol version (1 or 2)."""
    return HERE / f"schema-v{version}.json"


def index_path(version: int) -> Path:
    """The shipped index of that schema."""
    return HERE / f"schema-v{version}.index.json"


def build(text: bytes) -> dict[str, Any]:
    """The index of a schema's text: its size, and each definition's place, method and side,
    in the order of the file."""
    document = msgspec.json.decode(text, type=_Document)
    head = msgspec.json.Decoder(_Head).decode
    defs: dict[str, list[Any]] = {}
    at = 0
    for name, raw in document.defs.items():
        data = bytes(raw)  # (the definition's own bytes, as the file has them)
        start = text.index(data, at)
        at = start + len(data)
        found = head(data)
        defs[name] = [start, at, found.method, found.side]
    return {"size": len(text), "defs": defs}


def definitions(version: int) -> tuple[bytes, dict[str, Located]]:
    """A shipped schema's text and where each of its definitions lies (`Located`), from its
    index when that is the schema's, else indexed now."""
    text = schema_path(version).read_bytes()
    try:
        index = orjson.loads(index_path(version).read_bytes())
    except (OSError, orjson.JSONDecodeError):
        index = None
    if not isinstance(index, dict) or index.get("size") != len(text):
        index = build(text)
    located: dict[str, Located] = {name: tuple(entry) for name, entry in index["defs"].items()}
    return text, located


def text_of(index: dict[str, Any]) -> bytes:
    """An index as its file holds it: JSON, a definition a line (a change of the schema shows
    as the lines of the definitions it moved)."""
    lines = [b"%s:%s" % (orjson.dumps(name), orjson.dumps(entry)) for name, entry in
             index["defs"].items()]  # fmt: skip
    return b'{"size":%d,"defs":{\n%s\n}}\n' % (index["size"], b",\n".join(lines))


def write(version: int) -> None:
    """Write the index of a shipped schema beside it."""
    index_path(version).write_bytes(text_of(build(schema_path(version).read_bytes())))


if __name__ == "__main__":
    for shipped in (1, 2):
        write(shipped)
