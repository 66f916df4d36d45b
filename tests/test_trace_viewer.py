"""The trace-event export opened in a real viewer: speedscope (the npm package, a static web
app that reads Chrome trace-event JSON) in headless Chromium, for every sample transcript.

speedscope turns each track (pid, tid) into a profile of its own and rebuilds each one's call
stack from the complete events, so it notices what a format check does not: a slice that ends
after its neighbour begins once the times are added up in floating point, or one that does not
nest. The test loads each export the way speedscope's own command line does
(`index.html#localProfilePath=F.js`, where `F.js` calls `speedscope.loadFileFromBase64`), steps
through every profile with its `n` key, and checks that each track appears by name and that
speedscope printed no error and no import warning.

It needs Chromium (Debian's `chromium`) and speedscope (`npm install --prefix .ci/viewers
speedscope@1.25.0`); `.ci/run` installs both, and each test skips with that reason where one is
missing. `ACPTRACE_SPEEDSCOPE` may name another speedscope package folder."""

from __future__ import annotations

import base64
import json
import os
import re
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from acptrace.cli import app
from tests import shared
from tests.golden import ROOT
from tests.test_report_browser import ARTIFACTS, Browser, chromium

SAMPLES = sorted((ROOT / "sample_traces").glob("*.jsonl"))
AGENTS = sorted((shared.REAL_WORLD / "agents-2026-12").glob("**/*.jsonl"))
"""The recordings of real Agents, where `../shared` is there."""
SPEEDSCOPE_VERSION = "1.25.0"
INSTALLED = ROOT / ".ci" / "viewers" / "node_modules" / "speedscope"
"""Where `.ci/run` installs speedscope (ignored by git)."""
LOAD_TIMEOUT_S = 30.0
"""The longest speedscope may take to show a profile."""
IMPORT_WARNINGS = re.compile(r"Tried to end|still open|stack was empty|unknown event", re.I)
"""What speedscope's trace-event importer says when slices do not nest as it needs."""
runner = CliRunner()


def speedscope() -> Path:
    """speedscope's `index.html`, or skip with how to get it."""
    folder = Path(os.environ.get("ACPTRACE_SPEEDSCOPE") or INSTALLED)
    page = folder / "dist" / "release" / "index.html"
    if not page.is_file():
        how = (
            "node and npm are not installed"
            if shutil.which("npm") is None
            else f"run `npm install --prefix .ci/viewers speedscope@{SPEEDSCOPE_VERSION}`"
        )
        pytest.skip(f"speedscope is not installed at {folder} ({how}; .ci/run installs it)")
    return page


@pytest.fixture(scope="module")
def viewer(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Browser, str]]:
    """One headless Chromium for the module (a page per export), attached to a blank tab."""
    executable, _ = chromium(), speedscope()
    profile = tmp_path_factory.mktemp("speedscope-profile")
    browser = Browser(executable, profile, 1280, 800)
    try:
        target = browser.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = browser.send("Target.attachToTarget", {"targetId": target, "flatten": True})[
            "sessionId"
        ]
        for domain in ("Page", "Runtime", "Log"):
            browser.send(f"{domain}.enable", session=session)
        yield browser, session
    finally:
        browser.close()


def export(transcript: Path, folder: Path) -> tuple[Path, dict[str, Any]]:
    """The transcript's trace-event export, wrapped as speedscope's command line wraps a file."""
    trace = folder / f"{transcript.stem}.trace.json"
    result = runner.invoke(
        app, ["export", str(transcript), "--format", "trace-event", "-o", str(trace)]
    )
    assert result.exit_code == 0, result.output
    raw = trace.read_bytes()
    loader = folder / f"{transcript.stem}.js"
    name, body = json.dumps(trace.name), json.dumps(base64.b64encode(raw).decode("ascii"))
    loader.write_text(f"speedscope.loadFileFromBase64({name}, {body})\n", encoding="utf-8")
    return loader, json.loads(raw)


def track_names(document: dict[str, Any]) -> list[str]:
    """speedscope's name of each track that holds a slice or an instant, in its order: the
    process and thread names, as its importer spells them."""
    events = document["traceEvents"]
    processes = {e["pid"]: e["args"]["name"] for e in events if e["name"] == "process_name"}
    threads = {
        (e["pid"], e["tid"]): e["args"]["name"] for e in events if e["name"] == "thread_name"
    }
    used = {(e["pid"], e["tid"]) for e in events if e["ph"] in {"X", "B", "E"}}
    return sorted(
        f"{processes[pid]} (pid {pid}), {threads[pid, tid]} (tid {tid})" for pid, tid in used
    )


def evaluate(browser: Browser, session: str, expression: str) -> Any:
    """A JavaScript expression's value in the page."""
    reply = browser.send(
        "Runtime.evaluate", {"expression": expression, "returnByValue": True}, session=session
    )
    return reply["result"].get("value")


TOOLBAR = "document.querySelector('body') && document.body.innerText"
SHOWN = re.compile(r"^(?P<name>.+?)(?: \((?P<index>\d+)/(?P<count>\d+)\))?$")
"""The toolbar's line naming the profile on screen: `NAME (I/N)`, or `NAME` when it is the
only one."""


def wait_for_profile(browser: Browser, session: str, previous: str | None) -> re.Match[str]:
    """The toolbar's profile line once it shows one other than `previous`."""
    deadline = time.monotonic() + LOAD_TIMEOUT_S
    while time.monotonic() < deadline:
        text = evaluate(browser, session, TOOLBAR) or ""
        lines = text.splitlines()
        shown = SHOWN.match(lines[1]) if len(lines) == 3 and "(pid " in lines[1] else None
        if shown is not None and shown.group(0) != previous:
            return shown
        time.sleep(0.05)
    raise AssertionError(f"speedscope showed no new profile; the page says: {text[:300]!r}")


def press(browser: Browser, session: str, key: str) -> None:
    """Type one key into the page, as a person would."""
    for kind in ("keyDown", "keyUp"):
        browser.send(
            "Input.dispatchKeyEvent",
            {"type": kind, "key": key, "text": key if kind == "keyDown" else "", "code": ""},
            session=session,
        )


def complaints(events: list[dict[str, Any]]) -> list[str]:
    """Exceptions, console errors and speedscope's import warnings (not the GPU driver's
    messages about software WebGL, which say nothing of the file)."""
    found = []
    for event in events:
        method, params = event.get("method"), event.get("params", {})
        if method == "Runtime.exceptionThrown":
            found.append(f"exception: {params['exceptionDetails'].get('text')}")
        elif method == "Runtime.consoleAPICalled":
            text = " ".join(str(arg.get("value", "")) for arg in params.get("args", []))
            if params.get("type") == "error" or IMPORT_WARNINGS.search(text):
                found.append(f"console.{params.get('type')}: {text[:300]}")
        elif method == "Log.entryAdded" and params["entry"]["level"] == "error":
            found.append(f"log error: {params['entry']['text'][:300]}")
    return found


def open_in_speedscope(
    viewer: tuple[Browser, str], transcript: Path, folder: Path
) -> tuple[list[str], list[str], list[str]]:
    """(the tracks the export has, the profiles speedscope showed, its complaints)."""
    browser, session = viewer
    loader, document = export(transcript, folder)
    expected = track_names(document)
    browser.events.clear()
    url = f"{speedscope().as_uri()}#localProfilePath={loader}"
    browser.send("Page.navigate", {"url": "about:blank"}, session=session)
    browser.send("Page.navigate", {"url": url}, session=session)
    shown = wait_for_profile(browser, session, None)
    profiles = [shown.group("name")]
    for _ in range(int(shown.group("count") or 1) - 1):
        press(browser, session, "n")
        shown = wait_for_profile(browser, session, shown.group(0))
        profiles.append(shown.group("name"))
    png = browser.send("Page.captureScreenshot", {"format": "png"}, session=session)
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / ".gitignore").write_text("*\n")
    (ARTIFACTS / f"speedscope-{transcript.stem}.png").write_bytes(base64.b64decode(png["data"]))
    return expected, sorted(profiles), complaints(browser.events)


@pytest.mark.parametrize("transcript", SAMPLES, ids=lambda path: path.stem)
def test_every_sample_opens_in_speedscope(
    viewer: tuple[Browser, str], transcript: Path, tmp_path: Path
) -> None:
    expected, profiles, problems = open_in_speedscope(viewer, transcript, tmp_path)
    assert expected, "an export without a single track"
    assert profiles == expected
    assert problems == []


@pytest.mark.shared
@pytest.mark.parametrize(
    "transcript", AGENTS, ids=lambda path: str(path.relative_to(shared.REAL_WORLD))
)
def test_real_agent_recordings_open_in_speedscope(
    viewer: tuple[Browser, str], transcript: Path, tmp_path: Path
) -> None:
    expected, profiles, problems = open_in_speedscope(viewer, transcript, tmp_path)
    assert profiles == expected
    assert problems == []
