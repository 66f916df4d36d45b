"""`acptrace drive` against real Agents: the example agents of the ACP Python SDK
(`agent-client-protocol`, a dev dependency), which ship in its source distribution only.

The sdist of the installed version is fetched once with pip into pytest's cache folder; where
it cannot be had (no network, no index), these tests skip and say why. Neither example
advertises a way to replay a session (`examples/agent.py` answers v1 with `agentCapabilities:
{}` though it implements `session/load`; `examples/echo_agent.py` answers v2 with no
`capabilities`), so a replay run is refused before any replay starts, and a run that only
makes a session and prompts it goes through on v1. On v2 the echo agent's turn is v1's (no
`state_update` `idle`), which drive says.
"""

from __future__ import annotations

import importlib.metadata
import subprocess
import sys
import tarfile
from pathlib import Path
from typing import Any

import orjson
import pytest
from typer.testing import CliRunner

from acptrace.cli import app
from tests.processes import gone

PACKAGE = "agent-client-protocol"
FETCH_TIMEOUT_S = 300


def records(path: Path) -> list[dict[str, Any]]:
    return [orjson.loads(line) for line in path.read_bytes().splitlines()]


@pytest.fixture(scope="module")
def examples(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sdist's `examples/` folder (fetched once into pytest's cache; into a temporary
    folder when the cache is off, `-p no:cacheprovider`)."""
    version = importlib.metadata.version(PACKAGE)
    folder = f"acp-sdist-{version}"
    pytest_cache = getattr(request.config, "cache", None)
    cache = (
        Path(pytest_cache.mkdir(folder))
        if pytest_cache is not None
        else tmp_path_factory.mktemp(folder)
    )
    found = sorted(cache.glob("*/examples/agent.py"))
    if found:
        return found[0].parent
    fetch = [sys.executable, "-m", "pip", "download", "--no-binary", ":all:", "--no-deps"]
    fetch += ["--quiet", "--dest", str(cache), f"{PACKAGE}=={version}"]
    try:
        subprocess.run(fetch, capture_output=True, check=True, timeout=FETCH_TIMEOUT_S)
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as error:
        stderr = getattr(error, "stderr", b"") or b""
        why = stderr.decode(errors="replace").strip().splitlines()[-1:] or [str(error)]
        pytest.skip(f"the {PACKAGE} {version} sdist could not be fetched: {why[0]}")
    for archive in cache.glob("*.tar.gz"):
        with tarfile.open(archive) as tar:
            tar.extractall(cache, filter="data")
    found = sorted(cache.glob("*/examples/agent.py"))
    if not found:
        pytest.skip(f"the {PACKAGE} {version} sdist has no examples/agent.py")
    return found[0].parent


def drive_cli(runs: Path, *arguments: str) -> Any:
    return CliRunner().invoke(app, ["drive", "--timeout", "60", "-o", str(runs), *arguments])


def test_the_sdk_example_agent_without_load_session_is_not_replayed(
    examples: Path, tmp_path: Path
) -> None:
    runs = tmp_path / "runs"
    agent = [sys.executable, str(examples / "agent.py")]
    result = drive_cli(runs, "-n", "3", "--protocol", "1", "--", *agent)
    assert result.exit_code == 2, result.output
    assert "v1 Agent does not advertise agentCapabilities.loadSession" in result.stderr
    assert sorted(p.name for p in runs.iterdir()) == ["00-new.jsonl"]  # no replay started
    recording = records(runs / "00-new.jsonl")
    [answer] = [r["msg"] for r in recording if r["dir"] == "a2c"]
    assert answer["result"]["agentCapabilities"] == {}
    assert gone(recording[0]["pid"])


def test_ignore_capabilities_replays_the_sdk_example_agent_and_the_rule_says_so(
    examples: Path, tmp_path: Path
) -> None:
    """The example implements session/load without advertising it: driven anyway, it loads,
    each connection says it went on, and its recordings break CAP-UNADVERTISED."""
    runs = tmp_path / "runs"
    agent = [sys.executable, str(examples / "agent.py")]
    arguments = ["-n", "2", "--protocol", "1", "--ignore-capabilities", "--", *agent]
    result = drive_cli(runs, *arguments)
    assert result.exit_code == 0, result.output
    names = ["00-new.jsonl", "01-replay.jsonl", "02-replay.jsonl"]
    assert sorted(p.name for p in runs.iterdir()) == names
    assert (
        result.stderr.splitlines()
        == [  # (00-new.jsonl sends no session/load)
            f"acptrace: {runs / name}: the v1 Agent does not advertise agentCapabilities."
            "loadSession, which session/load needs: going on (--ignore-capabilities)"
            for name in names[1:]
        ]
    )
    assert "loaded" in result.stdout
    assert "CAP-UNADVERTISED" in result.stdout
    for name in names[1:]:
        sent = [r["msg"] for r in records(runs / name) if r["dir"] == "c2a"]
        assert [m["method"] for m in sent] == ["initialize", "session/load"]
        analysed = CliRunner().invoke(app, ["analyze", str(runs / name), "--format", "json"])
        findings = orjson.loads(analysed.stdout)["findings"]
        assert [f["rule"] for f in findings] == ["CAP-UNADVERTISED"]


@pytest.mark.parametrize("script", ["agent.py", "echo_agent.py"])
def test_the_sdk_example_agents_make_a_session_and_answer_a_prompt(
    examples: Path, tmp_path: Path, script: str
) -> None:
    runs = tmp_path / "runs"
    agent = [sys.executable, str(examples / script)]
    result = drive_cli(runs, "-n", "0", "--protocol", "1", "--prompt", "hello", "--", *agent)
    assert result.exit_code == 0, result.output
    assert result.stderr == ""
    recording = records(runs / "00-new.jsonl")
    assert (recording[0]["event"], recording[-1]["event"]) == ("open", "close")
    sent = [r["msg"] for r in recording if r["dir"] == "c2a"]
    assert [m["method"] for m in sent] == ["initialize", "session/new", "session/prompt"]
    received = [r["msg"] for r in recording if r["dir"] == "a2c"]
    texts = [
        m["params"]["update"]["content"].get("text")
        for m in received
        if m.get("method") == "session/update"
    ]
    assert "hello" in texts  # (both echo the prompt back)
    assert received[-1] == {"jsonrpc": "2.0", "id": 2, "result": {"stopReason": "end_turn"}}
    assert gone(recording[0]["pid"])


def test_the_sdk_echo_agent_on_v2_advertises_no_sessions(examples: Path, tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    agent = [sys.executable, str(examples / "echo_agent.py")]
    result = drive_cli(runs, "-n", "3", "--", *agent)
    assert result.exit_code == 2, result.output
    assert "v2 Agent does not advertise capabilities.session, which session/new" in result.stderr
    assert sorted(p.name for p in runs.iterdir()) == ["00-new.jsonl"]


def test_the_sdk_echo_agent_driven_on_v2_answers_the_prompt_as_on_v1(
    examples: Path, tmp_path: Path
) -> None:
    """It echoes the version asked for, but its turn is v1's: the prompt's response carries
    `stopReason`, no `messageId`, and no `state_update` `idle` ends the turn. drive waits for
    the idle, then says the turn did not end, and why it looks so."""
    runs = tmp_path / "runs"
    agent = [sys.executable, str(examples / "echo_agent.py")]
    arguments = ["drive", "-n", "0", "--prompt", "hello", "--ignore-capabilities"]
    # (--timeout bounds the answer to initialize too: the example's start-up, importing the
    # SDK, can take over a second on a loaded machine)
    arguments += ["--timeout", "3", "-o", str(runs), "--", *agent]
    result = CliRunner().invoke(app, arguments)
    assert result.exit_code == 1, result.output
    said = result.stderr.splitlines()
    assert len(said) == 2  # (the capability it does not advertise, then the turn)
    assert said[1].startswith(f"acptrace: {runs / '00-new.jsonl'}: the turn of session ")
    assert said[1].endswith(
        "did not end: no state_update idle within 3 s of the prompt (--timeout); the recording "
        'so far is kept; the prompt\'s response (result {"stopReason":"end_turn"}) has no '
        "messageId, as on v1"
    )
    recording = records(runs / "00-new.jsonl")
    received = [r["msg"] for r in recording if r["dir"] == "a2c"]
    assert received[-1] == {"jsonrpc": "2.0", "id": 2, "result": {"stopReason": "end_turn"}}
    assert gone(recording[0]["pid"])
