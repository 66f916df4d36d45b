"""report.html in a real headless browser (Debian's chromium, driven over the DevTools protocol
on a pipe): it renders without console errors or network requests, shows every group and chart,
and is screenshotted into the test artifacts (test-artifacts/report.png)."""

from __future__ import annotations

import base64
import contextlib
import json
import os
import select
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from acptrace.cli import app
from tests.golden import ROOT
from tests.test_report import ALPHA_1, BETA_1, complete, transcript, write_corpus

ARTIFACTS = ROOT / "test-artifacts"
"""Where screenshots go for a person to look at (ignored by git)."""
TIMEOUT_S = 60.0
"""The longest one DevTools command may take."""
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
    "--remote-debugging-pipe",
)


def chromium() -> str:
    """The browser's path, or skip with how to get it."""
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None:
        pytest.skip(
            "Debian's chromium is not installed (.ci/run installs it with "
            "`apt-get install -y chromium`; it could not here), so report.html was not opened "
            "in a browser"
        )
    return found


EXEC_ON_FDS_3_AND_4 = """
import os, sys
reading, writing = int(sys.argv[1]), int(sys.argv[2])
os.dup2(reading, 3)
os.dup2(writing, 4)
for fd in {reading, writing} - {3, 4}:
    os.close(fd)
os.execv(sys.argv[3], sys.argv[3:])
"""
"""Moves the pipe ends to fds 3 and 4, where chromium expects them, then becomes chromium."""


class Browser:
    """A headless chromium driven over `--remote-debugging-pipe` (fd 3 in, fd 4 out; each
    message JSON followed by a NUL byte): no port, no extra package."""

    def __init__(self, executable: str, profile: Path, width: int, height: int) -> None:
        to_browser, self._write = os.pipe()
        self._read, from_browser = os.pipe()
        command = [executable, *FLAGS, f"--user-data-dir={profile}"]
        command += [f"--window-size={width},{height}", "about:blank"]
        self._log = (profile.parent / "chromium.log").open("wb")
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-c",
                EXEC_ON_FDS_3_AND_4,
                str(to_browser),
                str(from_browser),
                *command,
            ],
            pass_fds=(to_browser, from_browser),
            stdin=subprocess.DEVNULL,
            stdout=self._log,
            stderr=subprocess.STDOUT,
        )
        os.close(to_browser)
        os.close(from_browser)
        self._buffer = b""
        self._next_id = 0
        self.events: list[dict[str, Any]] = []

    def send(self, method: str, params: dict[str, Any] | None = None, session: str = "") -> Any:
        """Send one command and wait for its result (events that arrive meanwhile are kept)."""
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self._write, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + TIMEOUT_S
        while True:
            reply = self._receive(deadline)
            if reply.get("id") == self._next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self.events.append(reply)

    def wait_for(self, method: str) -> dict[str, Any]:
        """The first event of this kind (already received or still to come)."""
        deadline = time.monotonic() + TIMEOUT_S
        while True:
            for event in self.events:
                if event.get("method") == method:
                    return event
            self.events.append(self._receive(deadline))

    def _receive(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            remaining = deadline - time.monotonic()
            ready, _, _ = select.select([self._read], [], [], max(remaining, 0))
            if not ready:
                raise TimeoutError("chromium did not answer in time")
            chunk = os.read(self._read, 1 << 20)
            if not chunk:
                raise RuntimeError("chromium closed the DevTools pipe")
            self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        parsed: dict[str, Any] = json.loads(message)
        return parsed

    def close(self) -> None:
        """Ask the browser to quit; end it (this process only) if it does not."""
        with contextlib.suppress(RuntimeError, TimeoutError, OSError):
            self.send("Browser.close")
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        os.close(self._read)
        os.close(self._write)
        self._log.close()


def open_page(
    url: str,
    screenshot: Path,
    profile: Path,
    width: int = 1280,
    height: int = 2000,
    full: bool = True,
) -> dict[str, Any]:
    """Load the page, collect its errors, requests and what it shows, and save a PNG."""
    browser = Browser(chromium(), profile, width, height)
    try:
        target = browser.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = browser.send("Target.attachToTarget", {"targetId": target, "flatten": True})[
            "sessionId"
        ]
        for domain in ("Page", "Runtime", "Log", "Network"):
            browser.send(f"{domain}.enable", session=session)
        browser.send(
            "Emulation.setDeviceMetricsOverride",
            {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
            session=session,
        )
        browser.events.clear()
        browser.send("Page.navigate", {"url": url}, session=session)
        browser.wait_for("Page.loadEventFired")
        shown = browser.send(
            "Runtime.evaluate",
            {"expression": PAGE_FACTS, "returnByValue": True, "awaitPromise": True},
            session=session,
        )["result"]["value"]
        if full:
            size = browser.send("Page.getLayoutMetrics", session=session)["cssContentSize"]
            height = int(size["height"])
            browser.send(
                "Emulation.setDeviceMetricsOverride",
                {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
                session=session,
            )
        png = browser.send("Page.captureScreenshot", {"format": "png"}, session=session)
        screenshot.write_bytes(base64.b64decode(png["data"]))
        return {"shown": shown, "events": list(browser.events)}
    finally:
        browser.close()


PAGE_FACTS = """
(async () => {
  const images = [...document.querySelectorAll("figure img")];
  await Promise.all(images.map((img) => img.decode().catch(() => null)));
  return {
    title: document.title,
    groups: [...document.querySelectorAll("section.group h2")].map((h) => h.textContent),
    charts: images.length,
    drawn: images.filter((img) => img.complete && img.naturalWidth > 0).length,
    wide: images.filter((img) => img.getBoundingClientRect().width > 300).length,
    tables: document.querySelectorAll("table").length,
    note: document.querySelector(".note") !== null,
  };
})()
"""


def problems(events: list[dict[str, Any]]) -> list[str]:
    """Console errors, uncaught exceptions, and requests for anything but the page itself."""
    found = []
    for event in events:
        method, params = event.get("method"), event.get("params", {})
        if method == "Runtime.exceptionThrown":
            found.append(f"exception: {params['exceptionDetails'].get('text')}")
        elif method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "warning"):
            found.append(f"console.{params['type']}: {params.get('args')}")
        elif method == "Log.entryAdded" and params["entry"]["level"] in ("error", "warning"):
            found.append(f"log {params['entry']['level']}: {params['entry']['text']}")
        elif method == "Network.requestWillBeSent":
            url = params["request"]["url"]
            if not url.startswith(("file://", "data:")):
                found.append(f"network request: {url}")
    return found


def test_report_html_renders_in_chromium(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib", reason="the charts need the report extra (matplotlib)")
    chromium()  # or skip, before any work
    corpus = write_corpus(tmp_path / "runs", ALPHA_1, BETA_1)
    page = tmp_path / "report.html"
    result = CliRunner().invoke(app, ["report", str(corpus), "-o", str(page), "-q"])
    assert result.exit_code == 0, result.output
    screenshot = tmp_path / "report.png"

    seen = open_page(page.as_uri(), screenshot, tmp_path / "profile")

    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / ".gitignore").write_text("*\n")
    shutil.copy(screenshot, ARTIFACTS / "report.png")
    shutil.copy(page, ARTIFACTS / "report.html")
    assert problems(seen["events"]) == []
    assert seen["shown"] == {
        "title": "acptrace latency report",
        "groups": ["alpha-acp", "beta-acp"],
        "charts": 4,  # ECDF, outcome bars, one histogram per group
        "drawn": 4,
        "wide": 4,
        "tables": 11,  # the overview; latency, idle timers, outcomes, slowest, failed per group
        "note": False,
    }
    assert screenshot.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
    assert screenshot.stat().st_size > 50_000  # charts and tables, not a blank page


MANY_GROUPS = 36
"""More groups than a navigation line can list (`report --by file` over a folder of runs)."""

LAYOUT_FACTS = """
(() => {
  const overview = document.querySelector("#overview table");
  const heads = [...overview.querySelectorAll("th")];
  return {
    meta: document.querySelector("p.meta").textContent,
    navLinks: document.querySelectorAll("nav a").length,
    overviewLinks: [...overview.querySelectorAll("a")].map((a) => a.getAttribute("href")),
    firstName: overview.querySelector("tbody td a").textContent,
    tableWidth: overview.scrollWidth,
    boxWidth: overview.parentElement.clientWidth,
    lastHeadRight: heads[heads.length - 1].getBoundingClientRect().right,
    lastHead: heads[heads.length - 1].textContent,
    viewport: window.innerWidth,
    sections: document.querySelectorAll("section.group").length,
    backLinks: document.querySelectorAll("section.group h2 a.up").length,
  };
})()
"""


def test_report_html_with_many_long_named_groups_stays_readable(tmp_path: Path) -> None:
    """35+ groups of long paths: the overview fits 1280 px with its last column, the
    navigation is not a wall of paths (the overview's group column links every group, and each
    group links back), and the folder all the names share is said once."""
    chromium()
    runs = tmp_path / "fleet-recordings" / "nightly-2026-12-04" / "claude-agent-acp"
    runs.mkdir(parents=True)
    for index in range(MANY_GROUPS):
        resumes = complete(700 + 40 * index, 900 + 35 * index)
        name = f"connection-{index:02d}-with-a-rather-long-descriptive-recording-name.jsonl"
        (runs / name).write_bytes(transcript("alpha-acp", "1.0", resumes).text())
    page = tmp_path / "report.html"
    result = CliRunner().invoke(
        app, ["report", str(tmp_path), "--by", "file", "-o", str(page), "-q"]
    )
    assert result.exit_code == 0, result.output
    browser = Browser(chromium(), tmp_path / "profile", 1280, 900)
    try:
        target = browser.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = browser.send("Target.attachToTarget", {"targetId": target, "flatten": True})[
            "sessionId"
        ]
        browser.send("Page.enable", session=session)
        browser.send(
            "Emulation.setDeviceMetricsOverride",
            {"width": 1280, "height": 900, "deviceScaleFactor": 1, "mobile": False},
            session=session,
        )
        browser.send("Page.navigate", {"url": page.as_uri()}, session=session)
        browser.wait_for("Page.loadEventFired")
        facts = browser.send(
            "Runtime.evaluate",
            {"expression": LAYOUT_FACTS, "returnByValue": True},
            session=session,
        )["result"]["value"]
    finally:
        browser.close()
    assert facts["tableWidth"] <= facts["boxWidth"], facts  # no sideways scrolling
    assert facts["lastHead"] == "throughput"
    assert facts["lastHeadRight"] <= facts["viewport"], facts
    assert facts["navLinks"] == 1  # Overview; the groups are linked from its table
    assert facts["overviewLinks"] == [f"#group-{i}" for i in range(MANY_GROUPS)]
    assert facts["sections"] == facts["backLinks"] == MANY_GROUPS
    assert f"in {runs}/" in facts["meta"]
    assert facts["firstName"].startswith("connection-00-")
