"""Derive `real_mix.json`, the line sizes and update kinds of real recordings, once.

    python benchmarks/derive_mix.py [FOLDER ...]     # default ../shared/real-world

Reads every canonical line (one with a `msg` object) of every `*.jsonl` under the folders, and
writes `benchmarks/real_mix.json`: for each `sessionUpdate` kind, how many lines had it and the
quantiles (every 5 %) of their sizes in bytes, newline included; the same for the other
messages (requests, notifications, responses) as one group; and the share of those lines that
hold bytes other than ASCII. `generate.py --corpus realistic`
(its default) draws from this table, so it runs without the recordings; the table is committed
and this script re-derives it when the recordings change.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

import orjson

HERE = Path(__file__).resolve().parent
TABLE = HERE / "real_mix.json"
DEFAULT_FOLDER = HERE.parent.parent / "shared" / "real-world"
QUANTILES = 21
"""Quantiles kept per group: 0 %, 5 %, ..., 100 %."""


def quantiles(sizes: list[int]) -> list[int]:
    """`QUANTILES` evenly spaced quantiles of the sizes (nearest rank)."""
    ordered = sorted(sizes)
    last = len(ordered) - 1
    return [ordered[round(last * step / (QUANTILES - 1))] for step in range(QUANTILES)]


def line_groups(
    folders: list[Path],
) -> tuple[dict[str, list[int]], list[int], int, list[str]]:
    """Sizes of update lines by kind, of the other message lines, how many of all those lines
    hold bytes that are not ASCII, and the files read."""
    updates: dict[str, list[int]] = defaultdict(list)
    others: list[int] = []
    non_ascii = 0
    files = sorted({path for folder in folders for path in folder.rglob("*.jsonl")})
    for path in files:
        for line in path.read_bytes().splitlines(keepends=True):
            try:
                record = orjson.loads(line)
            except orjson.JSONDecodeError:
                continue
            message = record.get("msg") if isinstance(record, dict) else None
            if not isinstance(message, dict):
                continue
            non_ascii += not line.isascii()
            params = message.get("params")
            update = params.get("update") if isinstance(params, dict) else None
            kind = update.get("sessionUpdate") if isinstance(update, dict) else None
            if message.get("method") == "session/update" and isinstance(kind, str):
                updates[kind].append(len(line))
            else:
                others.append(len(line))
    return updates, others, non_ascii, [str(p.relative_to(p.parents[1])) for p in files]


def _dumps(table: dict[str, Any]) -> str:
    """The table as JSON, a kind to a line (small diffs when it is derived again)."""
    entries = table["update_kinds"].items()
    kinds = ",\n".join(f"  {json.dumps(kind)}: {json.dumps(entry)}" for kind, entry in entries)
    head = {key: value for key, value in table.items() if key != "update_kinds"}
    lines = [f" {json.dumps(key)}: {json.dumps(value)}," for key, value in head.items()]
    return "{\n" + "\n".join(lines) + '\n "update_kinds": {\n' + kinds + "\n }\n}\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folders", nargs="*", type=Path, default=[DEFAULT_FOLDER])
    parser.add_argument("-o", "--output", type=Path, default=TABLE)
    args = parser.parse_args(argv)
    updates, others, non_ascii, files = line_groups(args.folders)
    if not updates or not others:
        print("no canonical recordings found", file=sys.stderr)
        return 2
    counted = sum(len(s) for s in updates.values()) + len(others)
    table = {
        "derived_by": "benchmarks/derive_mix.py",
        "files": len(files),
        "non_ascii_share": round(non_ascii / counted, 4),
        "update_kinds": {
            kind: {"lines": len(sizes), "sizes": quantiles(sizes)}
            for kind, sizes in sorted(updates.items(), key=lambda item: -len(item[1]))
        },
        "other_messages": {"lines": len(others), "sizes": quantiles(others)},
    }
    args.output.write_text(_dumps(table))
    print(f"{args.output.name}: {counted} lines of {len(files)} files", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
