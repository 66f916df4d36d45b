"""Inputs of a size users meet once: a million findings, a flood of blank lines.

The JSON and SARIF writers stream (a batch of items at a time, the same bytes as one dump),
the terminal lists a few findings per rule and counts the rest, and blank lines are counted
without a Python step per line.
"""

from __future__ import annotations

import io
import json
import random
from pathlib import Path
from typing import Any

import orjson
import pytest
from typer.testing import CliRunner

from acptrace.cli import app
from acptrace.model.domain import Analysis
from acptrace.read import source
from acptrace.read.source import BlankLines, RawLine, iter_blocks
from acptrace.render import json_report, jsonstream, sarif
from acptrace.render.jsonstream import Streamed, json_chunks
from acptrace.render.summary import FINDINGS_SHOWN
from tests.golden import ROOT
from tests.transcript import Transcript

runner = CliRunner()
SAMPLES = sorted((ROOT / "sample_traces").glob("*.jsonl"))


def orphans(count: int, first_id: int = 1) -> Transcript:
    """A transcript of `count` responses that answer no request: a JR-ORPHAN-RESPONSE each."""
    t = Transcript()
    for index in range(count):
        t.result(first_id + index)
    return t


def cli(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, [*args, "--no-config"])
    assert result.exit_code in (0, 1), result.output
    return result.exit_code, result.stdout


# -- the streaming writer -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "document",
    [
        {"a": [1, 2], "b": {"c": [{"d": []}, {}]}, "e": []},
        [{"x": [1]}, {"y": []}, []],
        {"deep": {"deeper": {"list": [{"k": "é\u2028\x1b\n"}] * 5}}},
        [],
        {},
    ],
)
def test_streamed_lists_give_the_bytes_of_one_indented_dump(document: Any) -> None:
    def streamed(value: Any) -> Any:
        if isinstance(value, dict):
            return {
                k: Streamed(iter(v)) if isinstance(v, list) else streamed(v)
                for k, v in value.items()
            }
        if isinstance(value, list):
            return [streamed(v) for v in value]
        return value

    expected = orjson.dumps(document, option=orjson.OPT_INDENT_2) + b"\n"
    assert b"".join(json_chunks(streamed(document))) == expected


def test_a_long_list_is_written_a_batch_at_a_time(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(jsonstream, "BATCH", 10)
    taken = []

    def items() -> Any:
        for index in range(95):
            taken.append(index)
            yield {"n": index}

    pieces = json_chunks({"head": 1, "items": Streamed(items()), "tail": 2})
    first = next(pieces)
    assert first.endswith(b'"items": ')
    assert not taken
    second = next(pieces)
    assert len(taken) == 10  # one batch made, not the whole list
    rest = list(pieces)
    assert len(rest) == 9 + 2  # the other batches, the list's end, the document's end
    expected = {"head": 1, "items": [{"n": n} for n in range(95)], "tail": 2}
    assert (
        first + second + b"".join(rest)
        == orjson.dumps(expected, option=orjson.OPT_INDENT_2) + b"\n"
    )


def test_json_report_of_many_findings_streams_the_same_document(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(jsonstream, "BATCH", 7)
    analyses = [orphans(50).analyze(), orphans(3, first_id=900).analyze()]
    for as_array in (False, True):
        documents = [json_report.report(a) for a in analyses]
        payload = documents if as_array else documents[0]
        expected = orjson.dumps(payload, option=orjson.OPT_INDENT_2) + b"\n"
        pieces = list(json_report.chunks(analyses[: 2 if as_array else 1], as_array=as_array))
        assert len(pieces) > 50 // 7
        assert b"".join(pieces) == expected
    assert len(json_report.report(analyses[0])["findings"]) == 50


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.name)
def test_sarif_streams_the_log_it_describes(path: Path) -> None:
    analysis = Transcript(lines=path.read_bytes().splitlines()).analyze()
    expected = orjson.dumps(sarif.sarif_log([analysis]), option=orjson.OPT_INDENT_2) + b"\n"
    assert sarif.sarif_bytes([analysis]) == expected


def test_cli_writes_streamed_json_and_sarif_to_a_file(tmp_path: Path) -> None:
    path = tmp_path / "orphans.jsonl"
    path.write_bytes(orphans(30).text())
    for fmt in ("json", "sarif"):
        target = tmp_path / f"out.{fmt}"
        code, stdout = cli("analyze", str(path), "-f", fmt, "-o", str(target))
        assert code == 1
        assert stdout == ""
        _, printed = cli("analyze", str(path), "-f", fmt)
        assert target.read_text() == printed
    log = json.loads((tmp_path / "out.sarif").read_text())
    assert len(log["runs"][0]["results"]) == 30
    assert len(json.loads((tmp_path / "out.json").read_text())["findings"]) == 30


# -- SARIF text ------------------------------------------------------------------------------------


def test_sarif_messages_show_control_characters_as_escapes(tmp_path: Path) -> None:
    t = Transcript()
    t.initialize()
    t.update("agent_message_chunk", "s\x1b[31mred\x07")  # an unknown session: a finding
    t.raw(b"not json \x1b]0;title\x07")
    path = tmp_path / "hostile.jsonl"
    path.write_bytes(t.text())
    log = json.loads(cli("analyze", str(path), "-f", "sarif")[1])
    run = log["runs"][0]
    texts = [r["message"]["text"] for r in run["results"]]
    texts += [n["message"]["text"] for n in run["invocations"][0]["toolExecutionNotifications"]]
    assert any("s\\x1b[31mred\\x07" in text for text in texts)
    assert all(text.isprintable() for text in texts)
    document = json.loads(cli("analyze", str(path), "-f", "json")[1])
    assert any("\x1b" in f["session_id"] for f in document["findings"])  # data stays as it was


# -- the terminal ----------------------------------------------------------------------------------


def test_terminal_lists_the_first_findings_of_each_rule_and_counts_the_rest(
    tmp_path: Path,
) -> None:
    t = orphans(FINDINGS_SHOWN + 12)
    t.update("agent_message_chunk", "nobody")  # another rule: fewer than the cut
    path = tmp_path / "many.jsonl"
    path.write_bytes(t.text())
    _, text = cli("analyze", str(path))
    rows = [line for line in text.splitlines() if "JR-ORPHAN-RESPONSE   response" in line]
    assert len(rows) == FINDINGS_SHOWN
    assert "… and 12 more JR-ORPHAN-RESPONSE findings (--format json lists all)" in text
    assert text.count("more ") == 1  # the rule under the cut says nothing more
    assert f"{FINDINGS_SHOWN + 12} errors" in text  # the title counts them all


def test_terminal_of_a_few_findings_lists_them_all() -> None:
    analysis: Analysis = orphans(FINDINGS_SHOWN).analyze()
    assert len(analysis.findings) == FINDINGS_SHOWN
    path = ROOT / "sample_traces" / "rules-marker.jsonl"
    _, text = cli("analyze", str(path))
    assert "more" not in text


# -- blank lines -----------------------------------------------------------------------------------


def _pieces_of(data: bytes) -> list[tuple[int, bytes]]:
    """Numbered lines as a plain split reads them (CR of a CRLF line end removed)."""
    lines = data.split(b"\n")
    if data.endswith(b"\n") or not data:
        lines.pop()
    return [(n, line.removesuffix(b"\r")) for n, line in enumerate(lines, 1)]


@pytest.mark.parametrize("read_block", [7, 64, 300, 4096])
def test_blank_runs_are_counted_apart_and_every_line_keeps_its_number(
    monkeypatch: pytest.MonkeyPatch, read_block: int
) -> None:
    monkeypatch.setattr(source, "READ_BLOCK", read_block)
    rng = random.Random(read_block)
    shapes = [b"\n", b" \t\n", b"\r\n", b'{"a":1}\n']
    for _ in range(300):
        data = b"".join(rng.choice(shapes) * rng.randint(0, 300) for _ in range(rng.randint(0, 8)))
        data += rng.choice([b"", b"xx", b"  "])
        got = []
        for item in iter_blocks(io.BytesIO(data)):
            raws = [item] if isinstance(item, RawLine) else list(item.raw_lines())
            got += [(raw.number, raw.data) for raw in raws]
        assert got == _pieces_of(data)


def test_a_flood_of_blank_lines_comes_in_a_few_counted_runs() -> None:
    data = b"\n" * 3_000_000 + b" \t\n" * 1_000_000
    items = list(iter_blocks(io.BytesIO(data)))
    assert len(items) < 30  # (a run and a line per read, not a line each)
    assert sum(i.count if isinstance(i, BlankLines) else 1 for i in items) == 4_000_000


def test_blank_lines_around_messages_are_counted_as_lines_and_nothing_else(
    tmp_path: Path,
) -> None:
    t = orphans(3)
    lines = t.lines
    flood = b"\n" * 1_500_000
    path = tmp_path / "flood.jsonl"
    path.write_bytes(flood + lines[0] + b"\n" + flood + b"  \n" * 70_000 + b"\n".join(lines[1:]))
    document = json.loads(cli("analyze", str(path), "-f", "json")[1])
    assert document["source"]["lines"] == 3_070_003
    assert document["source"]["messages"] == 3
    assert document["issues"] == []
    assert [f["line"] for f in document["findings"]] == [1_500_001, 3_070_002, 3_070_003]
