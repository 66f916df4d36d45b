"""Every console example in the README and docs/ is the output of a real run, checked here.

Each ```console block is preceded by a marker that says how it was made:

    <!-- console: cwd=repo width=110 -->
    <!-- console: cwd=scratch width=100 vary=times -->

followed by a caption the reader sees (written by this module), then the block. The `$ `
lines of the block are the commands; they run in one bash (so `$ echo $?` works), stderr
merged into stdout as a terminal shows it, with `COLUMNS` set to the width and this
checkout's `acptrace` and `python` first on `PATH`. `cwd=repo` runs in the repository's
root; `cwd=scratch` in a fresh folder per page (the examples of a page share it, in order)
holding links to `sample_traces/` and `tests/`, for commands that write files (`-o runs`).
`vary=times`: durations, rates, histogram bars and which replay was slowest come from the
clock, `vary=ids`: the session ids the mock makes up are new on every run, and `vary=lines`:
a live Agent's updates and answers race, so their line numbers (and the rules under a table
as wide as they make it) move by one; all are compared as placeholders (the caption says
so); everything else must match. The test compares; with `--regen` it rewrites each example
from a new run:

    .venv/bin/pytest tests/test_console_examples.py --regen -p no:randomly

(run it after any change to what a command prints; docs/README.md says the same).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.golden import ROOT

PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

EXAMPLE = re.compile(
    r"^<!-- console: (?P<settings>[^>]*?) -->\n(?:\*[^\n]*\*\n)?```console\n(?P<body>.*?)^```\n",
    re.M | re.S,
)
"""A marker, the caption under it, and the console block it describes."""

SENTINEL = "@@acptrace-console-example@@"
"""Printed before each command, to cut the bash's output into the commands' outputs."""

VARYING = {
    "times": re.compile(
        r"\d[\d,]*(?:\.\d+)?\s?(?:ms|µs|s)\b|\d[\d,]*/s|[\u2581-\u258f]+|\b\d+-replay\.jsonl"
    ),
    "ids": re.compile(r"sess_mock_[0-9a-f]+|sess_moc…[0-9a-f]+"),
    "lines": re.compile(r"(?<=\.jsonl:)\d+|─+"),
}
"""What each `vary=` kind compares as a placeholder. times: durations, rates, histogram bars,
and the replay files named in the slowest list (which replay is slowest is the clock's choice);
ids: the session ids `acptrace mock` makes up for `session/new`."""

BIN_COUNT = re.compile(r"^# to #(?: #)? \d+$")
"""A histogram row once its times are masked: its count is the clock's too."""

IDLE_ROW = re.compile(r"# \d+ of (\d+) [\d,]+$")
"""An idle timer's row once its timeout is masked: how many replays it cut short depends on
the gaps the clock measured."""

SAYS = {
    "times": "durations, histograms and idle timers",
    "ids": "made-up session ids",
    "lines": "the line numbers of a live Agent's messages (its updates and answers race)",
}
"""How the caption names what varies."""


@dataclass(frozen=True)
class Example:
    """One console example of a page: how it is run, and the commands it shows."""

    cwd: str
    width: int
    vary: tuple[str, ...]
    commands: tuple[str, ...]
    start: int
    end: int

    def caption(self) -> str:
        where = "the repository's root" if self.cwd == "repo" else "a clone of the repository"
        varying = " and ".join(SAYS[kind] for kind in self.vary)
        note = f"; {varying} vary from run to run" if varying else ""
        return f"*Output at {self.width} columns, run from {where}{note}.*\n"


def examples(text: str) -> list[Example]:
    """The marked console examples of a page, in order."""
    found = []
    for match in EXAMPLE.finditer(text):
        settings = dict(item.split("=", 1) for item in match["settings"].split())
        assert set(settings) <= {"cwd", "width", "vary"}, settings
        assert settings["cwd"] in ("repo", "scratch"), settings
        vary = tuple(settings["vary"].split(",")) if "vary" in settings else ()
        assert set(vary) <= set(VARYING), settings
        commands = tuple(line[2:] for line in match["body"].splitlines() if line.startswith("$ "))
        assert commands, match["body"]
        found.append(
            Example(
                settings["cwd"],
                int(settings["width"]),
                vary,
                commands,
                match.start(),
                match.end(),
            )
        )
    return found


def run(example: Example, scratch: Path) -> str:
    """The block as a terminal shows it: each command, then what it printed."""
    script = "exec 2>&1\n" + "".join(  # (the sentinel keeps `$?` for `$ echo $?`)
        f"s=$?; printf '%s\\n' '{SENTINEL}'; (exit $s)\n{command}\n" for command in example.commands
    )
    bin_dir = str(Path(sys.executable).parent)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ACPTRACE", "FORCE_COLOR"))}
    env |= {"COLUMNS": str(example.width), "PATH": f"{bin_dir}:{env.get('PATH', '')}"}
    env |= {"TZ": "UTC", "NO_COLOR": "1", "TERM": "dumb"}
    cwd = ROOT if example.cwd == "repo" else scratch
    done = subprocess.run(
        ["bash", "-c", script], cwd=cwd, env=env, capture_output=True, text=True, check=False
    )
    outputs = done.stdout.split(f"{SENTINEL}\n")[1:]
    assert len(outputs) == len(example.commands), done.stdout + done.stderr
    lines = []
    for command, output in zip(example.commands, outputs, strict=True):
        lines.append(f"$ {command}")
        lines += [line.rstrip() for line in output.rstrip().splitlines()]
    return "\n".join(lines) + "\n"


def comparable(body: str, vary: tuple[str, ...]) -> list[str]:
    """The block's lines as compared: with `vary=`, what varies as `#` and the spaces that
    align it as one."""
    lines = body.splitlines()
    for kind in vary:
        lines = [" ".join(VARYING[kind].sub("#", line).split()) for line in lines]
    if "times" in vary:  # (how many replays fell in a bin, or an idle timer cut short)
        lines = [IDLE_ROW.sub(r"# # of \1 #", BIN_COUNT.sub("# to # #", line)) for line in lines]
    return lines


def scratch_folder(tmp_path: Path) -> Path:
    """A fresh folder that looks like a clone to the commands run in it."""
    for name in ("sample_traces", "tests"):
        (tmp_path / name).symlink_to(ROOT / name)
    return tmp_path


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.relative_to(ROOT).as_posix())
def test_console_examples_are_real_output(page: Path, tmp_path: Path, regen: bool) -> None:
    text = page.read_text(encoding="utf-8")
    found = examples(text)
    scratch = scratch_folder(tmp_path)
    pieces, done = [], 0
    for example in found:
        body = run(example, scratch)
        current = EXAMPLE.match(text, example.start)
        assert current is not None
        if not regen:
            where = f"{page.name}: `$ {example.commands[0]}`"
            assert comparable(current["body"], example.vary) == comparable(body, example.vary), (
                f"{where} is stale: run the --regen command in {__name__}'s docstring"
            )
            assert current.group(0).splitlines()[1] + "\n" == example.caption(), where
        marker = text[example.start : text.index("\n", example.start) + 1]
        pieces += [text[done : example.start], marker, example.caption()]
        pieces += ["```console\n", body, "```\n"]
        done = example.end
    if regen and found:
        page.write_text("".join(pieces) + text[done:], encoding="utf-8")


def test_every_console_block_is_a_marked_example() -> None:
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        blocks = text.count("```console\n")
        assert blocks == len(examples(text)), f"{page.name}: a ```console block without a marker"


def test_vary_leaves_out_only_what_varies() -> None:
    shown = "claude-agent-acp  runs/02-replay.jsonl:4  complete   5   810.9 ms  1.20 s  106/s ▄ █"
    assert comparable(shown, ("times",)) == ["claude-agent-acp runs/#:4 complete 5 # # # # #"]
    assert comparable("5 (100.0%) 6 transcripts", ("times",)) == ["5 (100.0%) 6 transcripts"]
    assert comparable("4   sess_moc…c1c1   truncated", ("ids",)) == ["4 # truncated"]
    assert comparable("  1.0 ms to 1.2 ms ██▏  4", ("times",)) == ["# to # #"]
    assert comparable("  1.0 ms to 1.2 ms      0", ("times",)) == ["# to # #"]
    assert comparable(" ok   50 ms   1 of 5   3", ("times",)) == ["ok # # of 5 #"]
    assert comparable("a  b  1.0 ms", ()) == ["a  b  1.0 ms"]
    assert comparable("agent  00-new.jsonl:13  edit  ───────", ("lines",)) == [
        "agent 00-new.jsonl:# edit #"
    ]
    assert comparable("agent  00-new.jsonl:13", ()) == ["agent  00-new.jsonl:13"]
