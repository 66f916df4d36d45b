"""The terminal report's names at 80 columns (#37 item 3): the folder every path shares is said
once and names are shown relative to it, a folder's group lists its files by name, a name is cut
one way in every table (its end kept: the part that tells rows apart), and piped output fits
every table in 160 columns."""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from acptrace.cli import app
from acptrace.report.relative import end_names
from tests.golden import ROOT
from tests.shared import REAL_WORLD
from tests.terminal import in_terminal, plain
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
    # (said once, not on every row; a long temporary path may wrap, as the line above allows)
    assert "".join(text.split()).count(str(top)) == 1
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


def test_by_file_a_name_is_cut_one_way_and_its_rows_name_the_file_alone(tmp_path: Path) -> None:
    """By file, the group column says the file, cut the same way in every table (the idle
    timers' too), keeping what tells the files apart (their folders: their names are alike);
    a `file:line` says the file relative to its folder, as a folder's group does."""
    top = _runs(tmp_path)
    text = _report([str(top), "--by", "file", "--jobs", "1"], 80)
    tables = ("Resumes by group", "Latency and throughput", "Idle timers", "Cut replays")
    names = set()
    for title in tables:
        rows = itertools.takewhile(str.strip, section(text, title)[4:])
        names |= {line.split()[0] for line in rows if not line.startswith("   ")}
    assert len(names) == len(RUNS), names
    assert sorted(name[:5] for name in names) == sorted(run[:5] for run in RUNS)
    places = re.findall(r"\S+\.jsonl:\d+", "\n".join(section(text, "Cut replays")))
    assert places == ["01-replay.jsonl:16"] * 3


def test_a_path_keeps_its_last_folders_whatever_the_room() -> None:
    names = ["@zed-industries/claude-agent-acp", "@zed-industries/codex-acp"]
    assert end_names(names, 24) == ["…/claude-agent-acp", "…/codex-acp"]
    assert end_names(names, 20) == end_names(names, 24)  # (one cut, not one per table)
    assert end_names(["a/b/long-run-1", "a/b/long-run-2"], 12) == ["…/long-run-1", "…/long-run-2"]


def test_a_name_that_is_no_path_keeps_its_end_too() -> None:
    """File names of one source share their start (`acp-inspector-fsharp__`): the end is what
    tells them apart, as a path's is, not the middle; no number is left cut at the start, and
    a name whose end would then lose more than a number's worth keeps its start too."""
    names = [
        "acp-inspector-fsharp__basic-session.jsonl",
        "acp-inspector-fsharp__demo-session.jsonl",
    ]
    assert end_names(names, 24) == ["…rp__basic-session.jsonl", "…arp__demo-session.jsonl"]
    assert end_names(["pysdk_example_agent_v1_load.jsonl"], 12) == ["…_load.jsonl"]
    assert end_names(["claude-agent-acp-0.101.0-drive"], 10) == ["claud…rive"]  # (not `…-drive`)
    assert end_names(["run-1234567.jsonl"], 8) == ["….jsonl"]


def test_names_that_would_read_alike_are_cut_again_alone() -> None:
    """Two that keep the same folders are cut again, keeping the end of the name, and two whose
    ends are alike too keep the start and the end of their file's name; the others keep
    their end (before, all of them were cut in the middle for two)."""
    names = [
        "agents/claude-drive/01-replay.jsonl",
        "agents/codex-drive/01-replay.jsonl",
        "agents/isaac.jsonl",
        "agents/claude_live_prompt_then_load.jsonl",
        "agents/codex_live_prompt_then_load.jsonl",
    ]
    shown = end_names(names, 26)
    assert shown[:3] == ["…ude-drive/01-replay.jsonl", "…dex-drive/01-replay.jsonl", names[2]]
    assert shown[3:] == ["claude_live_p…n_load.jsonl", "codex_live_pr…n_load.jsonl"]  # (ends alike)
    assert len(set(shown)) == len(names)


@pytest.mark.shared
@pytest.mark.parametrize("by", ["directory", "agent", "file"])
def test_piped_output_fits_every_table_in_160_columns(by: str) -> None:
    text = CliRunner().invoke(app, ["report", str(REAL_WORLD), "--by", by]).stdout
    assert "Left out at 160 columns" not in text
    assert all(len(line) <= 160 for line in text.splitlines())


@pytest.mark.parametrize("kind", ["md", "html"])
def test_every_page_names_folder_groups_relative_to_the_folder_they_share(
    tmp_path: Path, kind: str
) -> None:
    """report.md and report.html say the shared folder once, as the terminal does, and name
    each folder's group relative to it (the folder itself `./`)."""
    top = _runs(tmp_path)
    (top / "agents-2026-12" / "top.jsonl").write_bytes(
        transcript("top", "1.0", [*complete(700.0, 1234.5), TRUNCATED]).text()
    )
    page = tmp_path / f"report.{kind}"
    args = [str(top), "--by", "directory", "--jobs", "1", "-q", "-o", str(page)]
    CliRunner().invoke(app, ["report", *args])
    text = page.read_text()
    shared = f"{top}/agents-2026-12/"
    assert shared in text  # (said once, in the title)
    for name in (*RUNS, "./"):
        assert re.search(rf"(\| |>){re.escape(name)}( \||<)", text), name  # (a cell, a heading)
    for run in RUNS:
        assert not re.search(rf"{re.escape(shared + run)}( \||<)", text), run  # (not whole)


@pytest.mark.shared
def test_the_turn_tables_name_files_as_the_replay_tables_do() -> None:
    """By file, a `file:line` of the turn tables is the file's name (its folder: the group on
    the row), as in the tables of replays; before, it was the whole path, cut."""
    text = _report([str(REAL_WORLD), "--by", "file"], 200)
    for title in ("Slowest turns", "Slowest tool calls", "Slowest replays"):
        places = re.findall(r"(\S+\.jsonl?):\d+", "\n".join(section(text, title)))
        assert places, title
        assert not [place for place in places if "/" in place or "…" in place], title


@pytest.mark.parametrize("columns", [60, 80])
def test_a_file_line_is_cut_one_way_in_every_table(tmp_path: Path, columns: int) -> None:
    """By agent, a `file:line` says the file relative to the shared folder; the slowest and the
    cut replays list the same files, and each is cut the same way in both (before, each table
    cut its paths to its own room: `claude-agent…:10` above `claude-agent-acp-…:16`); in a
    real terminal."""
    top = _runs(tmp_path)
    args = ["report", str(top), "--by", "agent", "--jobs", "1"]
    text = plain(in_terminal(args, columns, ROOT))
    shown: dict[str, set[str]] = {run: set() for run in RUNS}
    for title in ("Slowest replays", "Cut replays"):
        for path in re.findall(r"(\S+):\d+ ", "\n".join(section(text, title))):
            starts = [run for run in RUNS if run.startswith(path.rstrip("…")[:6])]
            ends = [run for run in RUNS if f"{run}/01-replay.jsonl".endswith(path.lstrip("…"))]
            (run,) = set(starts + ends)  # (one file, told apart from the others)
            shown[run].add(path)
    assert all(len(paths) == 1 for paths in shown.values()), shown


@pytest.mark.parametrize("kind", ["md", "html"])
@pytest.mark.parametrize("by", ["agent", "directory"])
def test_every_page_says_a_file_line_relative_to_the_folder_said_once(
    tmp_path: Path, kind: str, by: str
) -> None:
    """report.md and report.html say the shared folder once and each `file:line` relative to
    it, as the terminal does (by directory, to the group's folder, which the group's name says);
    before, every `file:line` of the slowest and the cut replays was a whole path."""
    top = _runs(tmp_path)
    page = tmp_path / f"report.{kind}"
    args = [str(top), "--by", by, "--jobs", "1", "-q", "-o", str(page)]
    CliRunner().invoke(app, ["report", *args])
    text = page.read_text()
    assert text.count(str(top)) == 1, text  # (said once)
    places = re.findall(r"(?:\| |>)([^|<>\s]+\.jsonl):\d+", text)
    within = {"agent": [f"{run}/01-replay.jsonl" for run in RUNS], "directory": ["01-replay.jsonl"]}
    assert places, text
    assert set(places) == set(within[by])


def test_files_of_one_name_in_folders_alike_at_the_end_keep_their_folder_s_start() -> None:
    """`01-replay.jsonl` of `claude-agent-acp-drive/` and of `isaac-acp-drive/` end alike
    (`…cp-drive/01-replay.jsonl`): each keeps its folder's start and its name whole; before,
    they were cut in the middle, their folder lost (`…01-replay.jsonl`, a number cut)."""
    names = [
        "claude-agent-acp-drive/01-replay.jsonl",
        "isaac-acp-drive/01-replay.jsonl",
        "codex-drive-session/01-replay.jsonl",
    ]
    shown = end_names(names, 24)
    assert shown == [
        "claude-…/01-replay.jsonl",
        "isaac-a…/01-replay.jsonl",
        "…session/01-replay.jsonl",
    ]
    deeper = [f"agents-2026-12/{name}" for name in names[:2]]
    assert end_names(deeper, 24) == ["…/claud…/01-replay.jsonl", "…/isaac…/01-replay.jsonl"]


def test_files_whose_names_end_alike_keep_their_start_and_end() -> None:
    """A name whose end would lose its version (`…_v2_overlap.jsonl`, a number cut left out)
    keeps its start and its end, no number cut (before: `agents-2026-12b/openc…`, its end
    lost; a folder's group `…-drive-v2`, whose agent is in its start); a short name whose end
    its neighbours share keeps its start and extension (`01-repl….jsonl`, not
    `01-rep…y.jsonl`)."""
    names = [
        "agents-2026-12b/opencode-1.18.33_v2_overlap.jsonl",
        "agents-2026-12b/cline-3.0.65_v2_overlap.jsonl",
    ]
    assert end_names(names, 22) == ["opencode-…rlap.jsonl", "cline-…rlap.jsonl"]
    runs = ["12b/claude-agent-acp-0.101.0-drive-v2", "12b/codex-acp-2.6.0-drive-v1"]
    assert end_names(runs, 13) == ["claude…ive-v2", "codex-…ive-v1"]
    assert end_names(["01-replay.jsonl", "02-replay.jsonl"], 14) == [
        "01-repl….jsonl",
        "02-repl….jsonl",
    ]


def test_packages_of_one_name_in_two_scopes_keep_the_starts_of_both() -> None:
    # (their ends read alike; their starts alone, `@agentclient…` and `@zed-industr…`, kept
    # the scopes and lost which Agent each is)
    names = ["@agentclientprotocol/claude-agent-acp", "@zed-industries/claude-agent-acp"]
    assert end_names([*names, "@agentclientprotocol/codex-acp"], 13) == [
        "@age…/claude…",
        "@zed…/claude…",
        "…/codex-acp",
    ]
    assert end_names(names, 18) == ["@agen…/claude-age…", "@zed-…/claude-age…"]
    assert end_names(names, 24) == ["…otocol/claude-agent-acp", "…stries/claude-agent-acp"]


def test_names_no_cut_tells_apart_leave_the_others_their_own_cut() -> None:
    """Two names that differ only in a digit in their middle cannot be told apart in 17
    characters (the table widens for them); the others keep their ends; before, every name of
    the report was then cut in its middle (`claude_a…ad.jsonl`)."""
    names = [
        "acp-spec-docs__v1-session-setup.jsonl",
        "acp-spec-docs__v2-session-setup.jsonl",
        "claude_agent_acp_load_stdin_closed_mid_load.jsonl",
    ]
    assert end_names(names, 17)[2] == "…d_mid_load.jsonl"
