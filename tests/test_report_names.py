"""The terminal report's names at 80 columns (#37 item 3): the folder every path shares is said
once and names are shown relative to it, a folder's group lists its files by name, a name is cut
one way in every table (its end kept: the part that tells rows apart), and piped output fits
every table in 160 columns."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from acptrace.cli import app
from acptrace.render.text import cut_names
from acptrace.report.relative import end_names
from tests.shared import REAL_WORLD
from tests.test_report import TRUNCATED, complete, transcript
from tests.test_report_terminal import section

AGENTS = (
    "@zed-industries/claude-agent-acp-nightly",
    "@zed-industries/codex-acp-nightly-build",
    "@google/gemini-cli-acp-preview",
)
RUNS = ("claude-agent-acp-0.101.0-drive-v2", "codex-acp-2.6.0-drive-v1", "isaac-acp-drive")


def _runs(root: Path) -> Path:
    """Three folders under `root/nightly/agents-2026-12`, each holding `01-replay.jsonl`."""
    for index, run in enumerate(RUNS):
        folder = root / "nightly" / "agents-2026-12" / run
        folder.mkdir(parents=True)
        resumes = [*complete(700.0 + 100 * index, 1234.5), TRUNCATED]
        (folder / "01-replay.jsonl").write_bytes(transcript(run, "1.0", resumes).text())
    return root / "nightly"


def _report(args: list[str], columns: int) -> str:
    return CliRunner().invoke(app, ["report", *args], env={"COLUMNS": str(columns)}).stdout


def test_by_directory_says_the_shared_folder_once_and_each_file_by_name(tmp_path: Path) -> None:
    top = _runs(tmp_path)
    text = _report([str(top), "--by", "directory", "--jobs", "1"], 80)
    shared = f"{top}/agents-2026-12/"
    assert f"pathsrelativeto{shared}" in "".join(text.split())
    assert text.count(str(top)) == 1  # (said once, not on every row)
    cut = section(text, "Cut replays")
    places = re.findall(r"\S+\.jsonl:\d+", "\n".join(cut))
    assert places == ["01-replay.jsonl:16"] * 3  # (the group's name on the row says the folder)
    named = [line.split()[0] for line in cut[4:] if line.strip()]
    assert len(set(named)) == len(RUNS)


def test_a_name_is_cut_one_way_in_every_table(tmp_path: Path) -> None:
    for index, agent in enumerate(AGENTS):
        resumes = [*complete(700.0 + 100 * index, 1234.5), TRUNCATED]
        (tmp_path / f"{index}.jsonl").write_bytes(transcript(agent, "1.0", resumes).text())
    text = _report([str(tmp_path), "--by", "agent", "--jobs", "1"], 80)
    tables = ("Resumes by group", "Latency and throughput", "Slowest replays")
    for agent in AGENTS:
        shown = set()
        for title in tables:
            names = [line.split()[0] for line in section(text, title)[4:] if line.split()]
            shown |= {name for name in names if name.endswith(agent[-6:])}
        assert len(shown) == 1, shown  # (the end kept: `endswith` found it)


def test_a_path_keeps_its_last_folders_whatever_the_room() -> None:
    names = ["@zed-industries/claude-agent-acp", "@zed-industries/codex-acp"]
    assert end_names(names, 24) == ["…/claude-agent-acp", "…/codex-acp"]
    assert end_names(names, 20) == end_names(names, 24)  # (one cut, not one per table)
    assert end_names(["a/b/long-run-1", "a/b/long-run-2"], 12) == ["…/long-run-1", "…/long-run-2"]
    assert end_names(["no path here at all"], 10) == cut_names(["no path here at all"], 10)


@pytest.mark.shared
@pytest.mark.parametrize("by", ["directory", "agent"])
def test_piped_output_fits_every_table_in_160_columns(by: str) -> None:
    text = CliRunner().invoke(app, ["report", str(REAL_WORLD), "--by", by]).stdout
    assert "Left out at 160 columns" not in text
    assert all(len(line) <= 160 for line in text.splitlines())
