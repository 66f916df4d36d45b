"""Real agents recorded by acptrace (../shared/real-world/agents-2026-12 and agents-2026-12b, see
their SOURCES.md): every view and format runs on every file with the documented exit code, and
the verdicts of `analyze --format json` are pinned per folder in `tests/golden/<folder>.json`
(`pytest --regen` rewrites them; read the diff before committing it).

The verdicts were checked against the traffic, line by line, before they were pinned.

agents-2026-12b (2026-12-07, the first real v2 Agents; rules.md §7 and §11):

- claude-agent-acp 0.101.0 and codex-acp 2.6.0 negotiate v2 (`capabilities.session`), resume
  with `replayFrom: start`, send every message update with a `messageId` (no LC-NO-MESSAGE-ID)
  and never `replay_complete`: each successful replaying resume is `unmarked_success` with
  RC-MISSING (claude `_v2_reattach` 14 replayed, codex 20; the `_v2_cancelreq` resume, cancelled
  with `$/cancel_request` at line 5, still succeeds with 18). An unknown cursor
  (`_fromMessage`) is answered -32602 before any update: `refused`, with RC-UNKNOWN-CURSOR
  (note); the resume of the unknown session 000…0 is `refused` too (claude -32002, codex
  -32603). The `session/resume` without `replayFrom` is `no_replay` and replays nothing (no
  RC-REPLAY-WITHOUT-CURSOR: its held updates are `session_info_update`s and a `state_update`,
  no user message).
- claude's `_v2_overlap`: two replaying resumes (lines 6, 7) pending together; every update
  from line 14 to 63 comes while both are pending and counts in neither row; id 3 is answered
  first (line 64), the two updates after it (69, 70) are id 2's: rows `ambiguous` with 2 and 0
  replayed, RC-CONCURRENT once (line 7), no max gap for the row with none of its own.
- v1 overlapping loads (codex `_v1_overlap`, cline, opencode): the updates that come while both
  loads are pending count in neither, those after the first answer in the other's row (codex
  0/10, cline 0/11, opencode 9/0): `ambiguous`, RC-CONCURRENT at the second load. qwen-code
  answers the second load -32602 ("already active") before any update: nothing came in the
  overlap, so the rows keep their own outcomes, `loaded` (16 replayed) and `refused`, with
  RC-CONCURRENT all the same.
- The TypeScript SDK's dual-version example advertises `capabilities.session` but answers
  `session/resume` and `session/close` -32601: CAP-NOT-HONOURED once per method (resume: 4
  times); its replaying resumes are `refused`, the one without `replayFrom` `no_replay`. On v1
  it answers `session/load` -32601 without `loadSession` (CAP-UNADVERTISED error, `refused`).
- `claude-agent-acp-0.101.0-drive-v2/`: each replay holds 4 updates, the user message (a
  `user_message` and its chunk) then `session_info_update` and `state_update`: nothing of the
  agent's answer, since the drive closed the connection before the v2 turn ran (the bug
  SOURCES.md names);
  `codex-acp-2.6.0-drive-v1/`: three `loaded` rows of 8.
- cline and qwen-code use `session/close` without `sessionCapabilities.close` on v1
  (CAP-UNADVERTISED, warning); opencode's and the live files have no finding.

agents-2026-12 (2026-12-04):

- isaac-acp 0.4.0 (`isaac-acp-drive/`): `00-new` sends `available_commands_update` for the new
  session (line 5) before the `session/new` response that names it (line 6): LC-UNKNOWN-SESSION
  (warning; rules.md §10), whose message names line 6. Each later `session/load` replays one
  more `available_commands_update` (2, 3, 4): `loaded` rows with 2, 3 and 4 replayed updates; no
  RC rule on v1, so never-history tags in a load are no finding.
- codex-acp 0.16.0: `codex_acp_prompt_without_load_and_overlapping_loads` sends two loads of one
  session back to back (lines 6 and 7): RC-CONCURRENT (warning) at line 7 on this v1 connection,
  both rows `ambiguous` (rules.md §10). The second fails at line 12 before any update, so the 9
  replayed updates (lines 13-21) came while only the first was pending and count in its row.
  The prompt before any load (line 4) and the one crossing the loads (line 8) are answered
  -32002: no LC finding (the session was not Active; an error is no LC-PROMPT-INACTIVE, and
  LC-ACTIVE-REJECTED needs an Active session). `codex_acp_resume_close_load`: a v1 resume
  without replay (`no_replay`), a prompt after `session/close` answered -32002 (right), a load
  of an unknown id answered -32002 (`truncated`) and a load that replays 9 updates (`loaded`).
  The live `codex_acp_live_prompt_then_load` has no `tool_call` live although its replay has
  one: a fidelity matter, no rule.
- claude-agent-acp 0.23.1: every load is `loaded`, including the load of the session that is
  active on the same connection; `claude-agent-acp-drive` asks for v2 and gets v1, so the
  rules of v1 apply. `claude_agent_acp_resume_fork_close`: the prompt after `session/close` is
  answered -32603 (no rule names the code for a closed session), the load of an unknown id
  -32002 (`truncated`). No CAP finding: `loadSession` and `sessionCapabilities` advertise what
  is used.
- python SDK examples 0.12.1: `pysdk_example_agent_v1_load` loads without `loadSession`
  advertised (CAP-UNADVERTISED, error on v1: the v1 docs' MUST NOT; once, counting both loads)
  and lists without `sessionCapabilities.list` (warning); both loads succeed (`loaded`, nothing
  replayed). The echo agent answers v2 without `capabilities`: CAP-UNADVERTISED (warning) for
  `session/new`, `session/prompt` and `session/resume`; its resume answers -32601
  (`truncated`; no CAP-NOT-HONOURED, since nothing was advertised).
- TypeScript SDK example 0.12.0: `session/load` with `loadSession: false` is CAP-UNADVERTISED
  (error on v1), answered -32601 (`truncated`); the cancelled prompt is answered
  `stopReason: cancelled` (right: `session/cancel` is a notification, no CX rule).

Files of that run kept back from this folder (claude-code-acp's double `tool_call` for one
`toolCallId`, claude's two overlapping loads answered in reverse order, gemini's failing loads)
are covered by unit tests of the same shapes in `tests/test_rules.py` where a rule is concerned;
a double `tool_call` breaks no rule.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest
from typer.testing import CliRunner

from acptrace.cli import app
from acptrace.tables.builder import TABLES
from tests.golden import ROOT
from tests.shared import REAL_WORLD

pytestmark = pytest.mark.shared

FOLDERS = ("agents-2026-12", "agents-2026-12b")
FILES = sorted(path for folder in FOLDERS for path in (REAL_WORLD / folder).rglob("*.jsonl"))
ANALYZE_FORMATS = ("rich", "json", "junit", "sarif", "github", "markdown")
TABLE_FORMATS = ("parquet", "csv", "ndjson", "json")


def name(path: Path) -> str:
    return path.relative_to(REAL_WORLD).as_posix()


def run(*args: str) -> Any:
    result = CliRunner().invoke(app, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    assert "Traceback" not in result.output
    return result


def analysed(path: Path) -> dict[str, Any]:
    document: dict[str, Any] = orjson.loads(run("analyze", str(path), "-f", "json").stdout)
    return document


def expected_exit(path: Path) -> int:
    """The documented exit code (json-output.md): 1 with a finding at `error`, else 0."""
    return int(any(f["severity"] == "error" for f in analysed(path)["findings"]))


def verdicts(document: dict[str, Any]) -> dict[str, Any]:
    """What is pinned of an analysis: protocol, outcome rows, findings, issues, and the turn,
    tool-call and permission rows."""
    row_fields = ("request_id", "session_id", "role", "method", "outcome", "end", "error_code",
                  "marker_count", "replayed_updates", "held_updates", "request_line",
                  "response_line")  # fmt: skip
    finding_fields = ("rule", "severity", "line", "session_id", "request_id")
    connection = document["connection"]
    return {
        "protocol": [connection["protocol_version"], connection["protocol_source"]],
        "connection_end": document["source"]["connection_end"],
        "resumes": [{k: row[k] for k in row_fields} for row in document["resumes"]],
        "findings": [{k: f[k] for k in finding_fields} for f in document["findings"]],
        "issues": [[issue["line"], issue["kind"]] for issue in document["issues"]],
        # (every field of the turn rows: docs/turns.md; test_turns.py holds them to the raw
        # messages with an independent oracle, this pins what was checked)
        "turns": document["turns"],
        "tool_calls": document["tool_calls"],
        "permissions": document["permissions"],
    }


@pytest.mark.parametrize(("folder", "at_least"), [("agents-2026-12", 30), ("agents-2026-12b", 24)])
def test_the_folder_is_there(folder: str, at_least: int) -> None:
    found = list((REAL_WORLD / folder).rglob("*.jsonl"))
    assert len(found) >= at_least, f"expected the recordings of real agents at {folder}"


@pytest.mark.parametrize("folder", FOLDERS)
def test_the_verdicts_are_the_checked_ones(folder: str, regen: bool) -> None:
    golden = ROOT / "tests" / "golden" / f"{folder}.json"
    paths = sorted((REAL_WORLD / folder).rglob("*.jsonl"))
    found = {p.relative_to(REAL_WORLD / folder).as_posix(): verdicts(analysed(p)) for p in paths}
    text = orjson.dumps(found, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS).decode() + "\n"
    if regen:
        golden.write_text(text, encoding="utf-8")
        return
    assert orjson.loads(golden.read_text(encoding="utf-8")) == found, (
        f"{golden.name} differs: check the traffic, then run pytest --regen"
    )


@pytest.mark.parametrize("path", FILES, ids=name)
def test_every_analyze_format_runs_with_the_documented_exit_code(path: Path) -> None:
    code = expected_exit(path)
    for output_format in ANALYZE_FORMATS:
        result = run("analyze", str(path), "-f", output_format)
        assert result.exit_code == code, (output_format, result.output)
        if output_format != "github":  # (annotations only: none without findings or issues)
            assert result.stdout.strip(), output_format


@pytest.mark.parametrize("path", FILES, ids=name)
def test_the_timeline_runs_with_the_documented_exit_code(path: Path) -> None:
    result = run("timeline", str(path))
    assert result.exit_code == expected_exit(path), result.output
    assert result.stdout.strip()


@pytest.mark.parametrize("path", FILES, ids=name)
def test_every_export_format_writes_its_tables(path: Path, tmp_path: Path) -> None:
    for table_format in TABLE_FORMATS:
        folder = tmp_path / table_format
        result = run("export", str(path), "-j", "1", "-f", table_format, "-o", str(folder))
        assert result.exit_code == 0, (table_format, result.output)
        written = sorted(path.name.partition(".")[0] for path in folder.iterdir())
        assert written == sorted(table.name for table in TABLES), table_format
    trace = tmp_path / "trace.json"
    result = run("export", str(path), "-f", "trace-event", "-o", str(trace))
    assert result.exit_code == 0, result.output
    assert orjson.loads(trace.read_bytes())


@pytest.mark.parametrize("path", FILES, ids=name)
def test_fidelity_runs_on_every_file(path: Path) -> None:
    for output_format in ("rich", "json"):
        result = run("fidelity", str(path), "-f", output_format)
        assert result.exit_code == 0, (output_format, result.output)  # (no --fail-under)


def test_a_report_over_the_folders_writes_every_kind(tmp_path: Path) -> None:
    outputs = [tmp_path / f"report.{suffix}" for suffix in ("json", "md", "html")]
    args = ["report", *(str(REAL_WORLD / folder) for folder in FOLDERS), "-j", "1"]
    for output in outputs:
        args += ["-o", str(output)]
    result = run(*args)
    assert result.exit_code == 0, result.output
    assert all(output.stat().st_size > 0 for output in outputs)
    document = orjson.loads(outputs[0].read_bytes())
    assert document["files"] == {"analysed": len(FILES), "failed": 0}
