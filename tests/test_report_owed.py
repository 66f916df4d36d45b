"""`acptrace report` over real Agents (rules.md §11, "report: shares over what owes the thing
shared"): "first at" is in time order."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from acptrace.cli import app
from acptrace.report import build_report
from tests.transcript import Transcript

runner = CliRunner()


def v1_agent(name: str, offset_ms: float = 0.0, timed: bool = True) -> Transcript:
    """A v1 connection to an Agent of this name, starting `offset_ms` after the others."""
    t = Transcript(timed=timed, now_ms=offset_ms)
    t.open()
    t.initialize(version=1)
    t.lines.pop()  # (the result names the Agent: test-agent; this one is `name`)
    info = {"name": name, "version": "1.0"}
    t.result(0, {"protocolVersion": 1, "agentCapabilities": {}, "info": info})  # (CAP-UNADVERTISED)
    return t


def load(t: Transcript, session: str, request: int, updates: int, at_ms: float) -> None:
    """A `session/load` of `session` and some replayed history, unanswered (yet)."""
    t.request("session/load", {"sessionId": session, "cwd": "/", "mcpServers": []}, id=request,
              at_ms=at_ms)  # fmt: skip
    for index in range(updates):
        kind = ("user_message_chunk", "agent_message_chunk")[index % 2]
        t.update(kind, session, at_ms=at_ms + 1 + index, content={"type": "text", "text": "hi"})


def v1_loads(name: str = "old-acp", offset_ms: float = 0.0, timed: bool = True) -> Transcript:
    """Every way a v1 load ends: answered (two, 300 and 900 ms), refused (an error before any
    update), truncated (updates, then an error) and unknown (pending where the file stops)."""
    t = v1_agent(name, offset_ms, timed)
    at = offset_ms
    load(t, "s1", 10, 3, at_ms=at + 1_000)
    t.result(10, at_ms=at + 1_300)
    load(t, "s2", 11, 2, at_ms=at + 2_000)
    t.result(11, at_ms=at + 2_900)
    load(t, "s3", 12, 0, at_ms=at + 3_000)
    t.error(12, -32002, at_ms=at + 3_005)
    load(t, "s4", 13, 2, at_ms=at + 4_000)
    t.error(13, -32603, at_ms=at + 4_050)
    load(t, "s5", 14, 1, at_ms=at + 5_000)  # (no response, no recorded end: unknown)
    return t


def test_first_at_orders_by_time_not_path(tmp_path: Path) -> None:
    """`a.jsonl` sorts first but was recorded an hour after `b.jsonl`: the first place of a rule
    is b's, in the report over the transcripts and over their export alike."""
    (tmp_path / "a.jsonl").write_bytes(v1_loads(offset_ms=3_600_000).text())
    (tmp_path / "b.jsonl").write_bytes(v1_loads().text())
    (tmp_path / "0-untimed.jsonl").write_bytes(v1_loads(timed=False).text())
    report = build_report([str(tmp_path)], jobs=1)
    (group,) = report.groups
    first = {count.rule: [Path(p).name for p, _ in count.first] for count in group.findings}
    assert first, "the loads break some rule"
    for places in first.values():
        assert places == ["b.jsonl", "a.jsonl", "0-untimed.jsonl"][: len(places)]
    exported = tmp_path.parent / f"{tmp_path.name}-export"
    result = runner.invoke(app, ["export", str(tmp_path), "-o", str(exported)])
    assert result.exit_code in (0, 1), result.output
    over_tables = build_report([str(exported)], jobs=1)
    assert over_tables.groups[0].findings == group.findings
