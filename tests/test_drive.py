"""`acptrace drive`: the scripted Client, end to end against `acptrace mock` (every row of the
fault table in docs/mock-and-drive.md), against the ACP SDK's example agent, and against
Agents that die, hang or send garbage. Mocks run with `--speed 0` and timeouts are small."""

from __future__ import annotations

import ast
import re
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import orjson
import pytest
from typer.testing import CliRunner

from acptrace.cli import app
from acptrace.drive import DriveRefused, DriveResult, DriveSettings, Permission, drive
from acptrace.drive.messages import (
    answer,
    can_load,
    initialize_params,
    negotiated_version,
    replay_request,
    session_state,
    turn_ends_with_idle,
)
from acptrace.mock import TURN_FAULTS, FaultName
from acptrace.model.domain import Outcome
from tests.golden import ROOT
from tests.processes import gone, pids_in
from tests.test_mock import CLEAN_TURN
from tests.test_timeline_memory import peak_rss_mb

SAMPLES = ROOT / "sample_traces"
DOC = ROOT / "docs" / "mock-and-drive.md"
PEERS = ROOT / "tests" / "acp_peers"
MOCK = [sys.executable, "-m", "acptrace", "mock", "--speed", "0"]
SDK_AGENT = [sys.executable, str(PEERS / "agent.py")]
FAST = DriveSettings(replays=1, timeout_s=20.0, linger_ms=50.0)
"""One replay; the timeout is only reached when something is broken."""
ARGUMENTS = {"N": 2, "MS": 300}
JITTER_MS = 50
"""How much earlier than the mock's delay the recorder may see it end: it stamps each line
when its thread reads it, and on a loaded machine the marker was once read 5 ms late (a
response 300 ms after it measured 295 ms). The delay itself is never shortened."""
"""The values the table's placeholders take in the round trip."""
OUTCOMES = "|".join(sorted((o.value for o in Outcome), key=len, reverse=True))


def records(path: Path) -> list[dict[str, Any]]:
    return [orjson.loads(line) for line in path.read_bytes().splitlines()]


def sent(path: Path, direction: str) -> list[dict[str, Any]]:
    """The messages of one direction of a recording."""
    return [r["msg"] for r in records(path) if r["dir"] == direction and "msg" in r]


def analysed(path: Path) -> dict[str, Any]:
    """`acptrace analyze PATH --format json`, parsed."""
    result = CliRunner().invoke(app, ["analyze", str(path), "--format", "json"])
    assert result.exit_code in (0, 1), result.output
    parsed: dict[str, Any] = orjson.loads(result.stdout)
    return parsed


# -- the fault table, round trip ------------------------------------------------------------


@dataclass(frozen=True)
class Row:
    """One row of the documented fault table."""

    fault: str
    """As written, with its placeholder (`truncate:N`)."""
    recording: str
    outcomes: frozenset[str]
    rules: frozenset[str]
    at_least_ms: tuple[tuple[str, int], ...]
    """Latency fields the row promises a lower bound for."""

    @property
    def argument(self) -> str:
        name, colon, placeholder = self.fault.partition(":")
        return f"{name}:{ARGUMENTS[placeholder]}" if colon else name


def table_cells(name: str) -> list[list[str]]:
    """The cells of each row of the doc's table between `<!-- NAME:start/end -->`."""
    text = DOC.read_text()
    table = text.split(f"<!-- {name}:start -->")[1].split(f"<!-- {name}:end -->")[0]
    rows = []
    for line in table.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) == 5 and cells[0].startswith("`"):
            rows.append(cells)
    return rows


def table_rows() -> list[Row]:
    rows = []
    for fault, _, recording, outcome, findings in table_cells("faults"):
        rows.append(
            Row(
                fault=fault.strip("`"),
                recording=recording.strip("`"),
                outcomes=frozenset(re.findall(rf"`({OUTCOMES})`", outcome)),
                rules=frozenset(re.findall(r"`([A-Z]{2,3}-[A-Z-]+)`", findings)),
                at_least_ms=tuple(
                    (field, ARGUMENTS[name])
                    for field, name in re.findall(r"`(\w+_ms)` ≥ (\w+)", outcome)
                ),
            )
        )
    return rows


@dataclass(frozen=True)
class TurnRow:
    """One row of the documented table of turn faults."""

    fault: str
    """As written, with its placeholder (`slow-turn:MS`)."""
    recording: str
    exit_code: int
    said: str | None
    """The line drive writes on stderr, after the recording's name (None: it writes none)."""

    @property
    def argument(self) -> str:
        name, colon, placeholder = self.fault.partition(":")
        return f"{name}:{ARGUMENTS[placeholder]}" if colon else name


def turn_table_rows() -> list[TurnRow]:
    rows = []
    for fault, _, recording, does, exit_code in table_cells("turn-faults"):
        said = re.search(r"`…: ([^`]+)`", does)
        rows.append(
            TurnRow(fault.strip("`"), recording.strip("`"), int(exit_code), said and said.group(1))
        )
    return rows


ROWS = table_rows()
TURN_ROWS = turn_table_rows()


def test_the_table_documents_every_fault_once() -> None:
    faults = [row.fault for row in ROWS] + [row.fault for row in TURN_ROWS]
    names = [fault.partition(":")[0] for fault in faults]
    assert sorted(names) == sorted(fault.value for fault in FaultName)
    assert all(row.outcomes for row in ROWS)
    assert {row.fault.partition(":")[0] for row in TURN_ROWS} == set(TURN_FAULTS)


@pytest.fixture(scope="module")
def fault_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[DriveResult, str]]:
    """Every row driven once (one replay of a given session), all at the same time."""
    base = tmp_path_factory.mktemp("faults")
    settings = replace(FAST, session_id="sess_driven")

    def run(row: Row) -> tuple[DriveResult, str]:
        notes: list[str] = []
        argv = [*MOCK, "--fault", row.argument, str(SAMPLES / row.recording)]
        result = drive(argv, base / row.fault.replace(":", "-"), settings, notes.append)
        return result, "\n".join(notes)

    with ThreadPoolExecutor(max_workers=len(ROWS)) as pool:
        return dict(zip((row.fault for row in ROWS), pool.map(run, ROWS), strict=True))


@pytest.mark.parametrize("row", ROWS, ids=[row.fault for row in ROWS])
def test_each_fault_gives_the_documented_outcome_and_rules(
    row: Row, fault_runs: dict[str, tuple[DriveResult, str]]
) -> None:
    result, notes = fault_runs[row.fault]
    assert [Path(path).name for path in result.transcripts] == ["01-replay.jsonl"], notes
    report = analysed(Path(result.transcripts[0]))
    assert {resume["outcome"] for resume in report["resumes"]} == row.outcomes
    assert {finding["rule"] for finding in report["findings"]} == row.rules
    requested = next(r for r in report["resumes"] if r["role"] == "requested")
    assert requested["session_id"] == "sess_driven"
    for field, bound in row.at_least_ms:
        assert requested[field] >= bound - JITTER_MS, field
    ends_early = row.fault.startswith("truncate")
    assert (result.failures == 1) is ends_early, notes


# -- the done-when run and the report ---------------------------------------------------------


def test_drive_prints_the_report_that_report_prints(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    env = {"COLUMNS": "120"}
    argv = ["drive", "-n", "2", "--linger", "20", "-o", str(runs), "--", *MOCK]
    result = CliRunner().invoke(app, [*argv, str(SAMPLES / "outcome-complete.jsonl")], env=env)
    assert result.exit_code == 0, result.output
    names = sorted(path.name for path in runs.iterdir())
    assert names == ["00-new.jsonl", "01-replay.jsonl", "02-replay.jsonl"]
    report = CliRunner().invoke(app, ["report", str(runs)], env=env)
    assert result.stdout == report.stdout
    assert "2 (100.0%)" in result.stdout
    made = sent(runs / "00-new.jsonl", "a2c")[1]["result"]["sessionId"]
    assert made.startswith("sess_mock_")  # the mock's recording has no session/new
    for name in names[1:]:
        rows = analysed(runs / name)["resumes"]
        assert [(r["outcome"], r["session_id"]) for r in rows] == [("complete", made)]


def test_every_connection_is_a_canonical_recording(tmp_path: Path) -> None:
    result = drive([*MOCK, str(SAMPLES / "outcome-complete.jsonl")], tmp_path, FAST, print)
    first, replay = (Path(path) for path in result.transcripts)
    for recording in (records(first), records(replay)):
        assert recording[0]["event"] == "open"
        assert recording[-1]["event"] == "close"
        clocks = [r["mono_ns"] for r in recording]
        assert clocks == sorted(clocks)
    assert [m.get("method") for m in sent(first, "c2a")] == ["initialize", "session/new"]
    resume = sent(replay, "c2a")[1]
    assert resume["method"] == "session/resume"
    assert resume["params"]["replayFrom"] == {"type": "start"}
    assert resume["params"]["sessionId"] == result.session_id


def test_a_v1_agent_is_replayed_with_session_load(tmp_path: Path) -> None:
    argv = [*MOCK, str(SAMPLES / "outcome-loaded-v1.jsonl")]
    result = drive(argv, tmp_path, replace(FAST, session_id="sess_kept"), print)
    assert [Path(path).name for path in result.transcripts] == ["01-replay.jsonl"]
    replay = Path(result.transcripts[0])
    assert [m.get("method") for m in sent(replay, "c2a")] == ["initialize", "session/load"]
    assert [r["outcome"] for r in analysed(replay)["resumes"]] == ["loaded"]


def test_a_prompt_turn_with_a_permission_request_is_denied_by_default(tmp_path: Path) -> None:
    settings = replace(FAST, replays=0, prompt="hi")
    result = drive([*MOCK, str(SAMPLES / "clean.jsonl")], tmp_path, settings, print)
    assert result.failures == 0
    first = Path(result.transcripts[0])
    prompt = [m for m in sent(first, "c2a") if m.get("method") == "session/prompt"]
    assert prompt[0]["params"]["sessionId"] == "sess_clean"  # the recorded session/new result
    answers = [m["result"] for m in sent(first, "c2a") if "result" in m]
    assert answers == [{"outcome": {"outcome": "selected", "optionId": "reject-once"}}]
    updates = [m for m in sent(first, "a2c") if m.get("method") == "session/update"]
    assert updates[-1]["params"]["update"]["sessionUpdate"] == "state_update"  # the whole turn


def test_a_real_agent_the_sdk_example(tmp_path: Path) -> None:
    settings = DriveSettings(
        replays=1, prompt="hello", permission=Permission.ALLOW, timeout_s=30.0, linger_ms=50.0
    )
    notes: list[str] = []
    result = drive(SDK_AGENT, tmp_path, settings, notes.append)
    assert notes == []
    first = Path(result.transcripts[0])
    answers = [m for m in sent(first, "c2a") if "result" in m]
    assert answers == [
        {
            "jsonrpc": "2.0",
            "id": 0,
            "result": {"outcome": {"outcome": "selected", "optionId": "allow"}},
        }
    ]
    prompt_reply = [m for m in sent(first, "a2c") if m.get("id") == 2]
    assert prompt_reply[0]["result"]["stopReason"] == "end_turn"
    replay = analysed(Path(result.transcripts[1]))
    assert replay["connection"]["protocol_version"] == 1
    assert [(r["method"], r["outcome"]) for r in replay["resumes"]] == [("session/load", "loaded")]
    assert replay["findings"] == []


# -- v2 turns: the prompt's response acknowledges, state_update idle ends the turn ------------


CLEAN = SAMPLES / "clean.jsonl"


def tag(message: dict[str, Any]) -> str:
    """A message as its update tag (`state_update:idle`), its method, or `response`."""
    update = message.get("params", {}).get("update")
    if isinstance(update, dict):
        state = f":{update['state']}" if "state" in update else ""
        return f"{update['sessionUpdate']}{state}"
    return str(message.get("method", "response"))


def turn_tags(path: Path) -> list[str]:
    """What the Agent sent after `session/new`'s response (id 1), each as its `tag`."""
    received = sent(path, "a2c")
    at = next(i for i, m in enumerate(received) if m.get("id") == 1 and "result" in m)
    return [tag(message) for message in received[at + 1 :]]


def read_at_s(path: Path, wanted: Any) -> float:
    """When the recorder read the first message that is `wanted`, in seconds."""
    read_ns: int = next(r["mono_ns"] for r in records(path) if "msg" in r and wanted(r["msg"]))
    return read_ns / 1e9


@pytest.mark.parametrize("row", TURN_ROWS, ids=[row.fault for row in TURN_ROWS])
def test_each_turn_fault_gives_the_documented_exit_and_line(tmp_path: Path, row: TurnRow) -> None:
    runs = tmp_path / "runs"
    argv = ["drive", "-n", "0", "--prompt", "hi", "--timeout", "1", "--linger", "50"]
    agent = [*MOCK, "--fault", row.argument, str(SAMPLES / row.recording)]
    result = CliRunner().invoke(app, [*argv, "-o", str(runs), "--", *agent])
    assert result.exit_code == row.exit_code, result.output
    first = runs / "00-new.jsonl"
    said = [] if row.said is None else [f"acptrace: {first}: {row.said}"]
    assert result.stderr.splitlines() == said
    assert "1 transcript" in result.stdout  # (the report, whatever the turn did)
    ended = row.exit_code == 0
    assert turn_tags(first) == (CLEAN_TURN if ended else CLEAN_TURN[:-1])
    assert records(first)[-1]["event"] == "close"  # (kept whole when the turn did not end)


def test_a_v2_turn_that_runs_on_after_the_response_is_recorded_up_to_idle(
    tmp_path: Path,
) -> None:
    """The Agent acknowledges the prompt at once and streams the turn for 0.8 s more. drive
    used to close the connection --linger after the acknowledgement (the Agent, still busy,
    was then stopped: a 0.1 s grace here), and the recording held only the user message."""
    settings = DriveSettings(replays=0, prompt="hi", timeout_s=10.0, linger_ms=0, exit_grace_s=0.1)
    notes: list[str] = []
    agent = [*MOCK, "--fault", "slow-turn:800", str(CLEAN)]
    result = drive(agent, tmp_path, settings, notes.append)
    assert (result.failures, notes) == (0, [])
    first = tmp_path / "00-new.jsonl"
    assert turn_tags(first) == CLEAN_TURN
    answered = [m for m in sent(first, "c2a") if "result" in m]  # (the permission, mid-turn)
    assert [m["result"]["outcome"]["optionId"] for m in answered] == ["reject-once"]
    acknowledged = read_at_s(first, lambda m: m.get("id") == 2)
    ended = read_at_s(first, lambda m: tag(m) == "state_update:idle")
    assert ended - acknowledged >= 0.8 - JITTER_MS / 1000
    assert records(first)[-1]["agent_signal"] is None  # (the mock was done: it exited itself)


def test_an_output_folder_that_holds_files_is_refused_unless_force(tmp_path: Path) -> None:
    """An earlier run's 02 and 03 stayed beside a later run's 00 and 01, and `report DIR`
    mixed the two runs."""
    runs = tmp_path / "runs"
    runs.mkdir()
    earlier = {name: f"earlier {name}" for name in ("00-new.jsonl", "03-replay.jsonl")}
    for name, text in earlier.items():
        (runs / name).write_text(text)
    agent = [*MOCK, str(SAMPLES / "outcome-complete.jsonl")]
    argv = ["drive", "-n", "1", "--linger", "0", "-o", str(runs)]
    refused = CliRunner().invoke(app, [*argv, "--", *agent])
    assert refused.exit_code == 2
    assert refused.stderr.splitlines() == [
        f"acptrace: error: -o {runs}: the folder is not empty (00-new.jsonl, 03-replay.jsonl); "
        "name a new one, or --force to record into it anyway"
    ]
    assert {path.name: path.read_text() for path in runs.iterdir()} == earlier
    forced = CliRunner().invoke(app, [*argv, "--force", "--", *agent])
    assert forced.exit_code == 0, forced.output
    names = sorted(path.name for path in runs.iterdir())
    assert names == ["00-new.jsonl", "01-replay.jsonl", "03-replay.jsonl"]
    assert (runs / "00-new.jsonl").read_text() != earlier["00-new.jsonl"]


def test_a_turn_that_never_ends_is_named_and_the_run_goes_on(tmp_path: Path) -> None:
    """The session exists, so it is still replayed; the run exits 1 and says why, once."""
    runs = tmp_path / "runs"
    argv = ["drive", "-n", "1", "--prompt", "hi", "--timeout", "0.5", "-o", str(runs), "--"]
    result = CliRunner().invoke(app, [*argv, *MOCK, "--fault", "no-idle", str(CLEAN)])
    assert result.exit_code == 1, result.output
    assert result.stderr.splitlines() == [
        f"acptrace: {runs / '00-new.jsonl'}: the turn of session sess_clean did not end: no "
        "state_update idle within 0.5 s of the prompt (--timeout); the recording so far is kept"
    ]
    assert sorted(p.name for p in runs.iterdir()) == ["00-new.jsonl", "01-replay.jsonl"]
    assert [r["outcome"] for r in analysed(runs / "01-replay.jsonl")["resumes"]] == ["complete"]


def state(session: str, value: str) -> dict[str, Any]:
    update = {"sessionUpdate": "state_update", "state": value}
    return {"method": "session/update", "params": {"sessionId": session, "update": update}}


def v2_turn_recording(path: Path, *turn: dict[str, Any]) -> Path:
    """A v2 recording (no envelopes) whose session s1 has one prompt turn: these messages."""
    prompt = {"sessionId": "s1", "prompt": []}
    path.write_bytes(
        jsonrpc_lines(
            {"id": 0, "method": "initialize", "params": {"protocolVersion": 2}},
            {"id": 0, "result": {"protocolVersion": 2, "capabilities": {"session": {}}}},
            {"id": 1, "method": "session/new", "params": {"cwd": "/"}},
            {"id": 1, "result": {"sessionId": "s1"}},
            {"id": 2, "method": "session/prompt", "params": prompt},
            *turn,
        )
    )
    return path


ACKNOWLEDGED = {"id": 2, "result": {"messageId": "m1"}}
CHUNK = {"sessionId": "s1", "update": {"sessionUpdate": "agent_message_chunk", "messageId": "a1"}}


@pytest.mark.parametrize(
    ("name", "before", "tags"),
    [
        # another session's idle is not this turn's end
        ("other", [ACKNOWLEDGED, state("s_other", "idle")], ["response", "state_update:idle"]),
        # an idle read before both the acknowledgement and any `running` may have been sent
        # before the Agent read the prompt (a snapshot of the new session): not the turn's end
        ("stale", [state("s1", "idle"), ACKNOWLEDGED], ["state_update:idle", "response"]),
    ],
)
def test_an_idle_that_is_not_the_turns_does_not_end_it(
    tmp_path: Path, name: str, before: list[dict[str, Any]], tags: list[str]
) -> None:
    recording = v2_turn_recording(
        tmp_path / f"{name}.jsonl",
        *before,
        {"method": "session/update", "params": CHUNK},
        state("s1", "idle"),
    )
    settings = DriveSettings(replays=0, prompt="hi", timeout_s=10.0, linger_ms=0, exit_grace_s=0.1)
    agent = [*MOCK, "--fault", "slow-turn:600", str(recording)]
    result = drive(agent, tmp_path / "runs", settings, print)
    assert result.failures == 0
    turn = turn_tags(tmp_path / "runs" / "00-new.jsonl")
    assert turn == [*tags, "agent_message_chunk", "state_update:idle"]


def test_an_idle_before_the_acknowledgement_ends_the_turn_once_it_ran(tmp_path: Path) -> None:
    """rules.md §11: the first idle since the prompt was sent, wherever the response falls
    (here the turn ran, `running`, then ended before the acknowledgement)."""
    recording = v2_turn_recording(
        tmp_path / "early.jsonl", state("s1", "running"), state("s1", "idle"), ACKNOWLEDGED
    )
    settings = DriveSettings(replays=0, prompt="hi", timeout_s=3.0, linger_ms=0)
    notes: list[str] = []
    result = drive([*MOCK, str(recording)], tmp_path / "runs", settings, notes.append)
    assert (result.failures, notes) == (0, [])


def test_a_v2_turn_answered_as_on_v1_is_unended_and_the_line_says_why(tmp_path: Path) -> None:
    """An Agent that says v2 but answers the prompt with v1's `stopReason` sends no idle."""
    answered = {"id": 2, "result": {"stopReason": "x"}}
    recording = v2_turn_recording(tmp_path / "v1-ish.jsonl", answered)
    settings = DriveSettings(replays=0, prompt="hi", timeout_s=0.3, linger_ms=0)
    notes: list[str] = []
    result = drive([*MOCK, str(recording)], tmp_path / "runs", settings, notes.append)
    assert result.failures == 1
    assert notes == [
        f"{tmp_path / 'runs' / '00-new.jsonl'}: the turn of session s1 did not end: no "
        "state_update idle within 0.3 s of the prompt (--timeout); the recording so far is kept; "
        'the prompt\'s response (result {"stopReason":"x"}) has no messageId, as on v1'
    ]


def test_a_v2_prompt_answered_with_an_error_ran_no_turn_to_wait_for(tmp_path: Path) -> None:
    settings = DriveSettings(replays=0, prompt="hi", timeout_s=3.0, linger_ms=0)
    notes: list[str] = []
    started = time.monotonic()
    agent = [*MOCK, str(SAMPLES / "outcome-complete.jsonl")]  # (it has no turn to play)
    result = drive(agent, tmp_path, settings, notes.append)
    assert time.monotonic() - started < settings.timeout_s
    assert result.failures == 0
    failed = "session/prompt failed: -32603 acptrace mock has no recording for session/prompt"
    assert notes == [f"{tmp_path / '00-new.jsonl'}: {failed}"]


# -- Agents that fail ---------------------------------------------------------------------


def python_agent(code: str) -> list[str]:
    return [sys.executable, "-c", code]


def test_an_agent_that_dies_ends_the_run_before_any_replay(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    argv = ["drive", "-o", str(runs), "--timeout", "5", "--", *python_agent("exit(3)")]
    result = CliRunner().invoke(app, argv)
    assert result.exit_code == 1
    assert "00-new.jsonl: the Agent ended the connection (exit status 3)" in result.stderr
    assert sorted(p.name for p in runs.iterdir()) == ["00-new.jsonl"]
    assert "1 transcript" in result.stdout


def test_an_agent_that_sends_garbage_is_named(tmp_path: Path) -> None:
    code = "import sys; print('Debug: starting', flush=True); sys.stdin.read()"
    notes: list[str] = []
    result = drive(python_agent(code), tmp_path, FAST, notes.append)
    assert result.session_id is None
    assert result.failures == 1
    assert notes == [f'{tmp_path / "00-new.jsonl"}: the Agent sent garbage: "Debug: starting"']


HANGS_ON_FIRST_REPLAY = """
import json, os, sys, time
flag = sys.argv[1]
for line in sys.stdin:
    message = json.loads(line)
    if message.get("method") == "session/resume":
        if not os.path.exists(flag):
            open(flag, "w").close()
            time.sleep(60)  # (and it ignores its stdin closing)
        update = {"sessionId": "s", "update": {"sessionUpdate": "replay_complete"}}
        marker = {"jsonrpc": "2.0", "method": "session/update", "params": update}
        print(json.dumps(marker), flush=True)
    result = {"protocolVersion": 2, "capabilities": {"session": {}}}
    print(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}), flush=True)
"""


def test_a_replay_that_hangs_past_the_timeout_is_cut_and_the_run_goes_on(tmp_path: Path) -> None:
    agent = [*python_agent(HANGS_ON_FIRST_REPLAY), str(tmp_path / "hung-once")]
    settings = DriveSettings(replays=2, timeout_s=1.5, linger_ms=0, session_id="s")
    notes: list[str] = []
    result = drive(agent, tmp_path / "runs", settings, notes.append)
    assert len(result.transcripts) == 2
    assert result.failures == 1
    assert len(notes) == 1
    assert notes[0].endswith("01-replay.jsonl: no answer to session/resume within 1.5 s")
    close = records(Path(result.transcripts[0]))[-1]  # it did not exit when its stdin closed:
    assert (close["event"], close["agent_signal"]) == ("close", "SIGTERM")  # stopped
    outcomes = [analysed(Path(path))["resumes"] for path in result.transcripts]
    assert [(r["outcome"], r["end"]) for rows in outcomes for r in rows] == [
        ("truncated", "disconnect"),
        ("complete", "success"),
    ]


def jsonrpc_lines(*messages: dict[str, Any]) -> bytes:
    return b"".join(orjson.dumps({"jsonrpc": "2.0", **m}) + b"\n" for m in messages)


def test_an_initialize_error_is_named(tmp_path: Path) -> None:
    recording = tmp_path / "recording.jsonl"
    messages: list[dict[str, Any]] = [{"id": 0, "method": "session/new", "params": {}}]
    messages.append({"id": 0, "result": {"sessionId": "s"}})
    recording.write_bytes(jsonrpc_lines(*messages))
    notes: list[str] = []
    result = drive(
        [*MOCK, str(recording)], tmp_path / "runs", replace(FAST, session_id="s"), notes.append
    )
    assert result.failures == 1
    failure = "initialize failed: -32603 acptrace mock has no recording for initialize"
    assert notes == [f"{tmp_path / 'runs' / '01-replay.jsonl'}: {failure}"]


STUBBORN = [sys.executable, str(PEERS / "stubborn_agent.py")]


@pytest.mark.parametrize(
    ("protocol", "capabilities", "needed"),
    [
        (2, "{}", "v2 Agent does not advertise capabilities.session, which session/new needs"),
        (2, '{"session": null}', "capabilities.session, which session/new needs"),
        (1, "{}", "v1 Agent does not advertise agentCapabilities.loadSession, which session/load"),
        (1, '{"loadSession": "yes"}', "agentCapabilities.loadSession, which session/load needs"),
    ],
)
def test_a_step_the_agent_does_not_advertise_stops_the_run_before_the_replays(
    tmp_path: Path, protocol: int, capabilities: str, needed: str
) -> None:
    runs = tmp_path / "runs"
    agent = [*STUBBORN, "--protocol", str(protocol), "--capabilities", capabilities]
    argv = ["drive", "-n", "3", "--protocol", str(protocol), "-o", str(runs), "--", *agent]
    result = CliRunner().invoke(app, argv)
    assert result.exit_code == 2, result.output
    assert needed in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert result.stdout == ""
    assert sorted(p.name for p in runs.iterdir()) == ["00-new.jsonl"]  # no replay started
    sent_methods = [m.get("method") for m in sent(runs / "00-new.jsonl", "c2a")]
    assert sent_methods == ["initialize"]  # (not even session/new)


@pytest.mark.parametrize(
    ("protocol", "capabilities"), [(2, '{"session": {}}'), (1, '{"loadSession": true}')]
)
def test_an_agent_that_advertises_the_steps_is_driven(
    tmp_path: Path, protocol: int, capabilities: str
) -> None:
    agent = [*STUBBORN, "--protocol", str(protocol), "--capabilities", capabilities]
    settings = replace(FAST, replays=2, protocol=protocol)
    result = drive(agent, tmp_path, settings, print)
    assert result.failures == 0
    assert [Path(p).name for p in result.transcripts] == [
        "00-new.jsonl",
        "01-replay.jsonl",
        "02-replay.jsonl",
    ]


@pytest.mark.parametrize(
    ("protocol", "capabilities", "replay"), [(2, "{}", "session/resume"), (1, "{}", "session/load")]
)
def test_ignore_capabilities_drives_an_agent_that_advertises_nothing(
    tmp_path: Path, protocol: int, capabilities: str, replay: str
) -> None:
    agent = [*STUBBORN, "--protocol", str(protocol), "--capabilities", capabilities]
    settings = replace(FAST, replays=2, protocol=protocol, check_capabilities=False)
    notes: list[str] = []
    result = drive(agent, tmp_path, settings, notes.append)
    assert result.failures == 0
    names = ["00-new.jsonl", "01-replay.jsonl", "02-replay.jsonl"]
    assert [Path(p).name for p in result.transcripts] == names
    missing = "capabilities.session" if protocol == 2 else "agentCapabilities.loadSession"
    said = [
        f"{tmp_path / name}: the v{protocol} Agent does not advertise {missing}, which {which}: "
        "going on (--ignore-capabilities)"
        for name, which in [
            *([("00-new.jsonl", "session/new needs")] if protocol == 2 else []),  # (v1: none)
            ("01-replay.jsonl", f"{replay} needs"),
            ("02-replay.jsonl", f"{replay} needs"),
        ]
    ]
    assert notes == said  # (only what each connection sends; once per capability)
    assert [m.get("method") for m in sent(tmp_path / "01-replay.jsonl", "c2a")] == [
        "initialize",
        replay,
    ]
    findings = analysed(tmp_path / "01-replay.jsonl")["findings"]
    assert [f["line"] for f in findings if f["rule"] == "CAP-UNADVERTISED"] == [4]  # (the replay)


def test_a_given_session_the_agent_cannot_replay_stops_after_one_connection(
    tmp_path: Path,
) -> None:
    agent = [*STUBBORN, "--protocol", "1", "--capabilities", "{}"]
    with pytest.raises(DriveRefused, match="loadSession, which session/load needs"):
        drive(agent, tmp_path, replace(FAST, replays=3, session_id="s"), print)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["01-replay.jsonl"]


@pytest.mark.parametrize(
    ("behaviour", "stopped_by"), [("--ignore-eof", "SIGTERM"), ("--stubborn", "SIGKILL")]
)
def test_an_agent_that_outlives_its_stdin_is_stopped_and_that_is_no_failure(
    tmp_path: Path, behaviour: str, stopped_by: str
) -> None:
    runs, children = tmp_path / "runs", tmp_path / "children.pid"
    agent = [*STUBBORN, behaviour, "--child", str(children)]
    argv = ["drive", "-n", "3", "--timeout", "60", "--linger", "0", "-o", str(runs), "--", *agent]
    result = CliRunner().invoke(app, argv)
    assert result.exit_code == 0, result.output
    assert result.stderr == ""
    names = sorted(p.name for p in runs.iterdir())
    assert names == ["00-new.jsonl", "01-replay.jsonl", "02-replay.jsonl", "03-replay.jsonl"]
    for name in names:
        recording = records(runs / name)
        close = recording[-1]
        assert (close["event"], close["reason"], close["agent_signal"]) == (
            "close",
            "client_closed",
            stopped_by,
        )
        waited_s = (close["mono_ns"] - recording[-2]["mono_ns"]) / 1e9
        assert waited_s < 30  # (sanity: the grace, never the --timeout of 60 s)
    assert all(gone(pid) for pid in pids_in(children, 4))  # each ignored SIGTERM


def test_an_interrupted_run_stops_its_agent(tmp_path: Path) -> None:
    children = tmp_path / "children.pid"
    agent = [*STUBBORN, "--stubborn", "--child", str(children)]
    argv = [sys.executable, "-m", "acptrace", "drive", "-o", str(tmp_path / "runs"), "--", *agent]
    run = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    [child] = pids_in(children)
    run.send_signal(signal.SIGTERM)
    run.wait(60)
    assert gone(child)
    agents = [int(r["pid"]) for r in records(tmp_path / "runs" / "00-new.jsonl")[:1]]
    assert all(gone(pid) for pid in agents)


SAYS_THEN = (
    "import sys, time; sys.stderr.write('fatal: no API key \\x1b[31m\\n'); sys.stderr.flush(); "
)


@pytest.mark.parametrize(
    ("then", "failure"),
    [
        ("sys.exit(4)", "the Agent ended the connection (exit status 4)"),
        ("time.sleep(60)", "no answer to initialize within 0.5 s"),
    ],
)
def test_a_failure_quotes_the_agents_last_stderr_line(
    tmp_path: Path, then: str, failure: str
) -> None:
    notes: list[str] = []
    settings = replace(FAST, timeout_s=0.5, session_id="s")
    drive(python_agent(SAYS_THEN + then), tmp_path, settings, notes.append)
    quoted = '"fatal: no API key \\x1b[31m"'  # (cut short and made printable)
    assert notes == [f"{tmp_path / '01-replay.jsonl'}: {failure}; its last stderr line: {quoted}"]


FLOOD_MB = (4, 36)
"""A small and a large flood of updates before the replay's response: 32 MB more took about
as much more memory when drive held what it had not handled yet."""
GROWTH_BOUND_MB = 12
"""What the larger flood may cost beyond the smaller one (a third of the difference)."""


def test_drives_memory_stays_flat_when_an_agent_floods(tmp_path: Path) -> None:
    peaks = []
    for mb in FLOOD_MB:
        runs = tmp_path / f"flood-{mb}"
        agent = [*STUBBORN, "--flood", str(mb * 1_000_000)]
        command = [sys.executable, "-m", "acptrace", "drive", "-n", "1", "--session", "s"]
        peaks.append(peak_rss_mb([*command, "--linger", "0", "-o", str(runs), "--", *agent]))
        close = records(runs / "01-replay.jsonl")[-1]
        assert (close["event"], close["dropped_lines"]) == ("close", 0)  # held back, not dropped
        assert close["bytes"]["a2c"] >= mb * 900_000
    assert peaks[1] - peaks[0] < GROWTH_BOUND_MB, peaks


SECRET = "sk-proj-S3CR3Tabcdefghijklmnop0123456789"


@pytest.mark.parametrize(("flags", "kept"), [([], False), (["--no-redact"], True)])
def test_no_redact_records_secrets_as_they_were(
    tmp_path: Path, flags: list[str], kept: bool
) -> None:
    runs = tmp_path / "runs"
    agent = [*STUBBORN, "--say", f"using key {SECRET}"]
    argv = ["drive", "-n", "1", "--linger", "0", *flags, "-o", str(runs), "--", *agent]
    result = CliRunner().invoke(app, argv)
    assert result.exit_code == 0, result.output
    for path in runs.iterdir():
        assert (SECRET in path.read_text()) is kept
        assert records(path)[0]["redacted"] is not kept


def test_prompt_and_session_together_are_a_usage_error(tmp_path: Path) -> None:
    argv = ["drive", "-o", str(tmp_path), "--session", "s", "--prompt", "hi", "--", "true"]
    result = CliRunner().invoke(app, argv)
    assert result.exit_code == 2
    assert "--prompt needs the first connection" in result.stderr
    assert list(tmp_path.iterdir()) == []


def test_an_agent_that_cannot_start_is_a_usage_error(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    argv = ["drive", "-o", str(runs), "--", str(tmp_path / "no-such-agent")]
    result = CliRunner().invoke(app, argv)
    assert result.exit_code == 2
    assert "exit status 127" in result.stderr
    assert "no connection was recorded" in result.stderr
    assert result.stdout == ""


# -- the scripted Client's messages -----------------------------------------------------------


OPTIONS = [
    {"optionId": "yes", "name": "Yes", "kind": "allow_once"},
    {"optionId": "no", "name": "No", "kind": "reject_once"},
]


@pytest.mark.parametrize(
    ("method", "options", "permission", "expected"),
    [
        (
            "session/request_permission",
            OPTIONS,
            Permission.ALLOW,
            {"outcome": "selected", "optionId": "yes"},
        ),
        (
            "session/request_permission",
            OPTIONS,
            Permission.DENY,
            {"outcome": "selected", "optionId": "no"},
        ),
        ("session/request_permission", OPTIONS[:1], Permission.DENY, {"outcome": "cancelled"}),
        ("session/request_permission", None, Permission.ALLOW, {"outcome": "cancelled"}),
    ],
)
def test_permission_answers(
    method: str, options: Any, permission: Permission, expected: dict[str, Any]
) -> None:
    assert answer(method, {"options": options}, permission) == {"result": {"outcome": expected}}


def test_other_agent_requests_get_an_error() -> None:
    reply = answer("fs/read_text_file", {"path": "/etc/passwd"}, Permission.ALLOW)
    assert reply["error"]["code"] == -32601


def test_requests_follow_the_negotiated_version() -> None:
    assert replay_request(2, "s", "/w") == (
        "session/resume",
        {"sessionId": "s", "cwd": "/w", "mcpServers": [], "replayFrom": {"type": "start"}},
    )
    assert replay_request(1, "s", "/w") == (
        "session/load",
        {"sessionId": "s", "cwd": "/w", "mcpServers": []},
    )
    assert "clientInfo" in initialize_params(1)
    assert "info" in initialize_params(2)
    assert negotiated_version({"protocolVersion": 1}, 2) == 1
    assert negotiated_version({"protocolVersion": True}, 2) == 2
    assert negotiated_version(None, 2) == 2
    assert can_load({"agentCapabilities": {"loadSession": True}})
    assert not can_load({"agentCapabilities": {}})


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        (state("s1", "idle"), "idle"),
        (state("s1", "running"), "running"),
        (state("s1", "requires_action"), "requires_action"),
        (state("s2", "idle"), None),
        ({**state("s1", "idle"), "method": "session/request_permission"}, None),
        ({"method": "session/update", "params": ["s1"]}, None),
        ({"method": "session/update", "params": {"sessionId": "s1"}}, None),
        ({"method": "session/update", "params": {"sessionId": "s1", "update": "idle"}}, None),
        ({"method": "session/update", "params": CHUNK}, None),
    ],
)
def test_the_state_of_a_session(message: dict[str, Any], expected: str | None) -> None:
    assert session_state(message, "s1") == expected


def test_only_v2_turns_end_with_idle() -> None:
    assert not turn_ends_with_idle(1)
    assert turn_ends_with_idle(2)


# -- layering --------------------------------------------------------------------------------


@pytest.mark.parametrize("package", ["mock", "drive"])
def test_the_packages_stay_below_the_cli(package: str) -> None:
    for path in (ROOT / "acptrace" / package).glob("*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Import | ast.ImportFrom):
                names = [node.module or ""] if isinstance(node, ast.ImportFrom) else []
                names += (
                    [alias.name for alias in node.names] if isinstance(node, ast.Import) else []
                )
                for name in names:
                    assert not name.startswith(("acptrace.cli", "typer", "rich")), (path, name)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                assert node.func.id != "print", path
            if isinstance(node, ast.Attribute) and node.attr == "exit":
                assert not (isinstance(node.value, ast.Name) and node.value.id == "sys"), path
