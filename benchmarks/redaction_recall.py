"""Recall and false positives of redaction on the planted corpus (`redaction_corpus.py`).

Three runs over the same plants:

- ``redact``: the corpus as a canonical transcript recorded with `--no-redact`, through
  `acptrace redact` (`redact_transcript`);
- ``zed``: the corpus as Zed's "Copy All Messages" dump pasted twice (a documented input),
  through `acptrace redact`;
- ``record``: the corpus replayed by an Agent and a Client through a real `acptrace record`
  (the Agent's command line carries secrets too; each streamed chunk is its own write).

A secret survives when half of it (at least 8 characters in a row) is still in the output,
in any string of any record, in the text of a streamed message joined from its chunks, or in
the Agent's command line; a look-alike is removed when it is not there whole.

Command line::

    python benchmarks/redaction_recall.py            # the table, per run, place and kind
    python benchmarks/redaction_recall.py --json     # the figures as JSON
    python benchmarks/redaction_recall.py --runs redact,zed --list   # every survivor
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import io
import json
import os
import subprocess
import sys
import tempfile
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from acptrace.record.events import (  # noqa: E402
    Captured,
    Closed,
    CloseReason,
    Line,
    Opened,
    Stream,
)
from acptrace.record.redact import RedactionPolicy  # noqa: E402
from acptrace.record.rewrite import redact_transcript  # noqa: E402
from acptrace.record.transcript import encode  # noqa: E402
from benchmarks.redaction_corpus import Corpus, Plant, build  # noqa: E402

RUNS = ("redact", "zed", "record")
REPLAY_AGENT = r"""
import os, sys, time, orjson
lines = orjson.loads(open(sys.argv[1], "rb").read())
for direction, data in lines:
    data = data.encode() + b"\n"
    os.write(1 if direction == "a2c" else 2, data)
    if b"_chunk" in data:
        time.sleep(0.002)  # streamed: each chunk its own write, a model's pace
while os.read(0, 65536):
    pass
"""


@dataclass(frozen=True, slots=True)
class Outcome:
    """What one run left of the plants."""

    run: str
    survived: list[Plant]
    """Secrets still (half or more) in the output."""
    removed: list[Plant]
    """Look-alikes no longer in the output whole."""
    secrets: int
    lookalikes: int


def canonical(corpus: Corpus) -> bytes:
    """The corpus as `acptrace record --no-redact` writes it."""
    streams = {"c2a": Stream.C2A, "a2c": Stream.A2C, "stderr": Stream.STDERR}
    opened = Opened(("agent", *corpus.argv), "/home/dev/shop", 4242, "0", False, 10**18, 0)
    items: list[Any] = [opened]
    for n, (direction, data) in enumerate(corpus.lines, start=1):
        items.append(Captured(streams[direction], Line(data), 10**18 + n * 1000, n * 1000))
    items.append(Closed(CloseReason.CLIENT_CLOSED, 0, None, None, {}, 0, 2 * 10**18, 10**9))
    return b"".join(encode(item, None) for item in items)


def zed_dump(corpus: Corpus) -> bytes:
    """The corpus as Zed's Copy All Messages, pasted twice."""
    entries: list[dict[str, Any]] = []
    for direction, data in corpus.lines:
        if direction == "stderr":
            entries.append({"_direction": "stderr", "_type": "stderr", "id": None,
                            "method": "stderr", "params": data.decode()})  # fmt: skip
            continue
        try:
            message = orjson.loads(data)
        except orjson.JSONDecodeError:
            continue
        outgoing = direction == "c2a"
        kind = (
            "response"
            if "method" not in message
            else "request"
            if "id" in message
            else ("notification")
        )
        params = message.get("params", message.get("result", message.get("error")))
        entries.append({"_direction": "outgoing" if outgoing else "incoming", "_type": kind,
                        "id": message.get("id"), "method": message.get("method"),
                        "params": params})  # fmt: skip
    dump = orjson.dumps(entries, option=orjson.OPT_INDENT_2)
    return dump + b"\n" + dump + b"\n"


def run_redact(data: bytes) -> bytes:
    sink = io.BytesIO()
    redact_transcript(io.BytesIO(data), sink, RedactionPolicy.build())
    return sink.getvalue()


def run_record(corpus: Corpus) -> bytes:
    """The corpus through a real `acptrace record`: what it wrote."""
    with tempfile.TemporaryDirectory() as folder:
        lines = Path(folder) / "lines.json"
        pairs = [(d, x.decode()) for d, x in corpus.lines if d != "c2a"]
        lines.write_bytes(orjson.dumps(pairs))
        agent = Path(folder) / "agent.py"
        agent.write_text(REPLAY_AGENT)
        out = Path(folder) / "t.jsonl"
        command = [sys.executable, "-m", "acptrace", "record", "-o", str(out), "--",
                   sys.executable, str(agent), str(lines), *corpus.argv]  # fmt: skip
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        sent = b"".join(data + b"\n" for direction, data in corpus.lines if direction == "c2a")
        subprocess.run(command, input=sent, capture_output=True, env=env, timeout=120, check=True)
        return out.read_bytes()


def views(output: bytes) -> list[str]:
    """Every string of every record (or document) in the output, the text of each stream of
    chunks joined, and the output's lines as text (for what did not parse)."""
    found: list[str] = []
    chunks: dict[tuple[str, str], list[str]] = defaultdict(list)
    for document in _documents(output):
        for record in document if isinstance(document, list) else [document]:
            _strings(record, found)
            _chunk_text(record, chunks)
    found.extend("".join(texts) for texts in chunks.values())
    text = output.decode("utf-8", "replace")
    found.append(text.replace("\\n", "\n").replace('\\"', '"'))
    return found


def _documents(output: bytes) -> Iterator[Any]:
    decoder = json.JSONDecoder()
    text = output.decode("utf-8", "replace")
    at = 0
    while at < len(text):
        while at < len(text) and text[at] in " \t\r\n":
            at += 1
        if at >= len(text):
            return
        try:
            value, at = decoder.raw_decode(text, at)
        except json.JSONDecodeError:
            end = text.find("\n", at)
            at = len(text) if end < 0 else end + 1
            continue
        yield value


def _strings(value: Any, into: list[str]) -> None:
    if isinstance(value, str):
        into.append(value)
        if len(value) % 4 == 0 and value and " " not in value:
            with contextlib.suppress(ValueError):
                into.append(base64.b64decode(value, validate=True).decode("utf-8", "replace"))
    elif isinstance(value, dict):
        for item in value.values():
            _strings(item, into)
    elif isinstance(value, list):
        for item in value:
            _strings(item, into)


def _chunk_text(record: Any, chunks: dict[tuple[str, str], list[str]]) -> None:
    if not isinstance(record, dict):
        return
    message = record.get("msg", record)
    params = message.get("params") if isinstance(message, dict) else None
    update = params.get("update") if isinstance(params, dict) else None
    if not isinstance(update, dict) or not str(update.get("sessionUpdate", "")).endswith("_chunk"):
        return
    content = update.get("content")
    if (
        isinstance(params, dict)
        and isinstance(content, dict)
        and isinstance(content.get("text"), str)
    ):
        chunks[(str(params.get("sessionId")), update["sessionUpdate"])].append(content["text"])


def leaked(plant: Plant, seen: list[str]) -> bool:
    """Whether half the secret (8 characters at least) is still there in a row."""
    needle = plant.needle
    width = min(len(needle), max(8, len(needle) // 2))
    windows = {needle[i : i + width] for i in range(len(needle) - width + 1)}
    return any(window in text for text in seen for window in windows)


def judge(run: str, corpus: Corpus, output: bytes) -> Outcome:
    seen = views(output)
    survived = [plant for plant in corpus.secrets if leaked(plant, seen)]
    removed = [plant for plant in corpus.lookalikes if not any(plant.needle in s for s in seen)]
    return Outcome(run, survived, removed, len(corpus.secrets), len(corpus.lookalikes))


def measure(runs: tuple[str, ...] = RUNS, seed: int = 39) -> list[Outcome]:
    corpus = build(seed)
    outcomes = []
    for run in runs:
        if run == "redact":
            output = run_redact(canonical(corpus))
        elif run == "zed":
            output = run_redact(zed_dump(corpus))
        else:
            output = run_record(corpus)
        if run == "zed":  # Zed's dump has no command line
            corpus_here = Corpus(corpus.lines, [], [p for p in corpus.plants if p.place != "argv"])
        else:
            corpus_here = corpus
        outcomes.append(judge(run, corpus_here, output))
    return outcomes


def _table(outcome: Outcome, corpus: Corpus, by: str) -> list[str]:
    planted: dict[str, int] = defaultdict(int)
    left: dict[str, int] = defaultdict(int)
    for plant in corpus.secrets:
        planted[getattr(plant, by)] += 1
    for plant in outcome.survived:
        left[getattr(plant, by)] += 1
    rows = [f"| {by} | secrets | survived |", "|---|---:|---:|"]
    rows += [f"| `{key}` | {planted[key]} | {left[key]} |" for key in sorted(planted)]
    return rows


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", default=",".join(RUNS))
    parser.add_argument("--seed", type=int, default=39)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--list", action="store_true", help="name every survivor")
    parser.add_argument("--by", choices=("place", "kind"), help="a table of survivors by this")
    args = parser.parse_args(argv)
    runs = tuple(name for name in args.runs.split(",") if name)
    outcomes = measure(runs, args.seed)
    if args.json:
        print(json.dumps([{
            "run": o.run, "secrets": o.secrets, "survived": len(o.survived),
            "lookalikes": o.lookalikes, "removed": len(o.removed),
            "survivors": [[p.place, p.kind] for p in o.survived],
            "removed_lookalikes": [[p.place, p.kind] for p in o.removed],
        } for o in outcomes], indent=2))  # fmt: skip
        return
    print("| run | secrets | survived | recall | look-alikes | removed |")
    print("|---|---:|---:|---:|---:|---:|")
    for o in outcomes:
        recall = 1 - len(o.survived) / o.secrets
        print(f"| {o.run} | {o.secrets} | {len(o.survived)} | {recall:.1%} | "
              f"{o.lookalikes} | {len(o.removed)} |")  # fmt: skip
    corpus = build(args.seed)
    for o in outcomes:
        if args.by:
            print(f"\n{o.run}:")
            print("\n".join(_table(o, corpus, args.by)))
        if args.list:
            print(f"\n{o.run}: survivors")
            for p in o.survived:
                print(f"  secret    {p.place:26} {p.kind}")
            for p in o.removed:
                print(f"  removed   {p.place:26} {p.kind}")


if __name__ == "__main__":
    main()
