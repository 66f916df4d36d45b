"""What the tables' columns mean and what a rule checks, said in one place (#37 item 1): the
legend under each table, the "Columns" sections of the docs and `acptrace explain` all come
from `acptrace.model.columns` (and the rule registry), and cannot drift apart."""

from __future__ import annotations

import re
from enum import StrEnum
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from acptrace.cli import app
from acptrace.judge.rules import RULES
from acptrace.judge.rules.examples import EXAMPLES
from acptrace.model.columns import COLUMNS, PAGES, TABLES, columns_markdown, meaning
from acptrace.model.domain import WindowEnd
from acptrace.model.turns import TurnEnd
from acptrace.render import fitted
from tests.golden import ROOT, check_block
from tests.shared import REAL_WORLD
from tests.terminal import in_terminal, plain
from tests.test_directions import started
from tests.transcript import SESSION

SAMPLES = ROOT / "sample_traces"
RESUMES = SAMPLES / "outcome-complete.jsonl"


@pytest.mark.parametrize("page", sorted(PAGES))
def test_the_columns_sections_of_the_docs_are_the_definitions(page: str, regen: bool) -> None:
    check_block(ROOT / "docs" / f"{page}.md", "columns", columns_markdown(page), regen)


def test_every_column_of_every_table_analyze_report_and_fidelity_print_is_defined(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Each table made while analyze (over several files), report (a comparison included) and
    fidelity print names its legend table, and every heading of it has a definition there."""
    made: list[tuple[str | None, list[str]]] = []
    init = fitted.FittedTable.__init__

    def recording(self: fitted.FittedTable, columns: Any, *args: Any, **kwargs: Any) -> None:
        init(self, columns, *args, **kwargs)
        made.append((self.legend, [c.heading for c in self.columns]))

    monkeypatch.setattr(fitted.FittedTable, "__init__", recording)
    runner = CliRunner()
    every = [str(path) for path in sorted(SAMPLES.glob("*.jsonl"))]
    runner.invoke(app, ["analyze", *every])  # (and the summary across them)
    baseline = tmp_path / "base.json"
    assert runner.invoke(app, ["report", *every, "--by", "file", "-o", str(baseline)]).exit_code < 2
    runner.invoke(app, ["report", *every, "--by", "file", "--baseline", str(baseline)])
    runner.invoke(app, ["fidelity", str(SAMPLES / "mixed-session.jsonl")])
    assert {legend for legend, _ in made} == set(TABLES)
    for legend, headings in made:
        assert legend is not None
        assert [h for h in headings if meaning(legend, h) is None] == [], legend


def test_each_table_explains_the_columns_it_shows_under_itself() -> None:
    """mk, repl, held, →marker, marker→resp and max gap are said in words under the resumes
    table (piped: 160 columns, every column shown); self-evident ones are not."""
    result = CliRunner().invoke(app, ["analyze", str(RESUMES)])
    legend = _legend_under(result.stdout, "Resumes")
    assert legend.startswith("mk: markers (replay_complete) · repl: replayed updates · held:")
    for heading in ("mk", "repl", "held", "→marker", "marker→resp", "total", "max gap"):
        assert f"{heading}: " in legend
    for heading in ("line", "session", "kind", "outcome", "end"):
        assert f"{heading}: " not in legend


def test_a_column_left_out_at_60_columns_is_left_out_of_the_legend_too() -> None:
    """In a real terminal 60 columns wide: the legend explains only what is on screen, wraps
    between its items, and the note on the left-out columns follows it."""
    shown = plain(in_terminal(["analyze", str(RESUMES)], 60, ROOT))
    lines = [line.rstrip() for line in shown.splitlines()]
    legend = _legend_under("\n".join(lines), "Resumes")
    assert legend == "→marker: request to marker · marker→resp: marker to response"
    left_out = next(line for line in lines if line.startswith("Left out at 60 columns"))
    assert left_out.startswith("Left out at 60 columns: kind, end, mk, repl, held, total,")
    assert all(len(line) <= 60 for line in lines)
    idle = _legend_under("\n".join(lines), "Idle timers")
    assert idle.startswith("cut short: replays the timer ends early, of N with times")
    assert "updates lost: updates after it fired" in lines  # (a line of its own)


def test_the_idle_timer_table_says_what_of_n_counts() -> None:
    result = CliRunner().invoke(app, ["analyze", str(RESUMES)])
    legend = _legend_under(result.stdout, "Idle timers")
    assert "cut short: replays the timer ends early, of N with times (children's replays" in legend


def _legend_under(output: str, title: str) -> str:
    """The legend lines under the table of this title (after the blank line that ends the
    table), joined by spaces."""
    lines = output.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(title))
    end_of_table = lines.index("", start + 2)
    legend = []
    for line in lines[end_of_table + 1 :]:
        if not line or line.startswith("Left out at"):
            break
        legend.append(line.strip())
    return " ".join(legend)


def test_explain_a_rule_says_its_condition_level_source_and_an_example() -> None:
    result = CliRunner().invoke(app, ["explain", "rc-missing"], env={"COLUMNS": "100"})
    assert result.exit_code == 0
    lines = [line.strip() for line in result.stdout.splitlines()]
    rule = next(r for r in RULES if r.id == "RC-MISSING")
    assert lines[0] == "RC-MISSING  error · family marker"
    assert " ".join(lines[1:3]).startswith(rule.help)
    assert "Source: RFD Outcomes row 5" in lines
    assert "Example, from a sample in acptrace's repository (not installed):" in lines
    assert "sample_traces/outcome-unmarked-success.jsonl:9" in lines
    assert EXAMPLES["RC-MISSING"].message in lines


def test_explain_a_column_says_its_meaning_and_unit_in_each_table() -> None:
    result = CliRunner().invoke(app, ["explain", "MAX-GAP"], env={"COLUMNS": "200"})
    assert result.exit_code == 0
    assert result.stdout.splitlines()[:3] == [
        "max gap  column of Resumes (analyze)",
        "  The longest silence between two messages of the replay for the session: the wait an "
        "idle timer must outlast.",
        "  Unit: milliseconds (ms; s from 1 s on); —: not measured",
    ]
    ends = CliRunner().invoke(app, ["explain", "end"]).stdout
    assert (
        ends.count("column of") == 3
    )  # (a replay window's end; a turn's, as analyze and the report say it)
    assert "column of Resumes (analyze), Cut replays (report)" in ends
    arrow = CliRunner().invoke(app, ["explain", "marker->resp"]).stdout
    assert arrow.startswith("marker→resp  column of Resumes (analyze), Slowest replays (report)")


@pytest.mark.parametrize(("table", "ends"), [("resumes", WindowEnd), ("turns", TurnEnd)])
def test_the_end_column_names_the_values_its_cells_show(table: str, ends: type[StrEnum]) -> None:
    """`explain end` said `response` where every table prints `success`."""
    said = meaning(table, "end")
    assert said is not None
    for end in ends:
        if end in (TurnEnd.DISCONNECT, TurnEnd.TRACE_END) and table == "turns":
            continue  # (the turns table says these as `open (disconnect)`, `open (trace end)`)
        assert end.value in said.meaning, end


@pytest.mark.parametrize("typed", ["->marker", "marker->resp", "-q"])
def test_explain_takes_a_heading_typed_with_its_arrow_as_a_dash(typed: str) -> None:
    """The help says `→` may be typed `->`: a heading that then begins with `-` is a heading,
    not an option (`-q` is no heading: it is said so, as any unknown word is)."""
    result = CliRunner().invoke(app, ["explain", typed])
    if typed == "-q":
        assert result.exit_code == 2
        assert "neither a rule ID nor a column heading" in result.stderr
        return
    assert result.exit_code == 0, result.stderr
    assert "column of Resumes (analyze)" in result.stdout


def test_every_rule_condition_is_whole() -> None:
    """A condition is its check's first paragraph: a docstring's first line alone cut
    LC-NO-MESSAGE-ID's after "without a" in `acptrace rules`, `explain` and docs/rules.md."""
    for rule in RULES:
        assert rule.help.endswith((".", ")")), rule.id
        assert "\n" not in rule.help, rule.id


def test_explain_something_unknown_is_a_usage_error_that_suggests() -> None:
    result = CliRunner().invoke(app, ["explain", "RC-MISING"])
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr.startswith(
        "acptrace: error: explain: 'RC-MISING' is neither a rule ID nor a column heading; "
        "did you mean RC-MISSING"
    )


@pytest.mark.parametrize(
    ("typed", "offered"),
    [("RC-MI", ["RC-MISSING"]), ("ma", ["marker→resp", "max-gap", "max"]), ("zz", [])],
)
def test_the_shell_completes_rule_ids_and_column_headings(typed: str, offered: list[str]) -> None:
    environment = {
        "_ACPTRACE_COMPLETE": "complete_bash",
        "COMP_WORDS": f"acptrace explain {typed}",
        "COMP_CWORD": "2",
    }
    result = CliRunner().invoke(app, [], prog_name="acptrace", env=environment)
    assert result.stdout.split() == offered


def test_every_rule_that_makes_findings_has_an_example_and_nothing_else_has() -> None:
    judged = {r.id for r in RULES if r.severity is not None and r.retired is None}
    assert set(EXAMPLES) == judged


def test_an_example_from_a_real_recording_says_it_is_not_installed() -> None:
    """A user of an install has neither the samples nor `../shared`: the path alone read as a
    file to open."""
    result = CliRunner().invoke(app, ["explain", "CAP-NOT-HONOURED"], env={"COLUMNS": "120"})
    lines = [line.strip() for line in result.stdout.splitlines()]
    heading = lines.index("Example, from a real recording the tests read (not installed):")
    assert lines[heading + 1].startswith("../shared/real-world/agents-2026-12b/")


def _found_at(place: str) -> tuple[list[str], int]:
    path, _, line = place.rpartition(":")
    result = CliRunner().invoke(app, ["analyze", "--format", "json", str(ROOT / path)])
    messages = re.findall(r'"line": (\d+),\n\s*"message": "((?:[^"\\]|\\.)*)"', result.stdout)
    return [m for n, m in messages if int(n) == int(line)], int(line)


@pytest.mark.parametrize(
    "rule", sorted(r for r, e in EXAMPLES.items() if (e.place or "").startswith("sample_traces"))
)
def test_each_example_is_the_finding_its_sample_makes(rule: str) -> None:
    example = EXAMPLES[rule]
    assert example.place is not None
    found, _ = _found_at(example.place)
    assert example.message.replace('"', '\\"') in found


@pytest.mark.shared
@pytest.mark.parametrize(
    "rule", sorted(r for r, e in EXAMPLES.items() if (e.place or "").startswith("../shared"))
)
def test_each_example_from_a_real_recording_is_found_there(rule: str) -> None:
    example = EXAMPLES[rule]
    assert example.place is not None
    assert (ROOT / example.place.rpartition(":")[0]).resolve().is_relative_to(REAL_WORLD.resolve())
    found, _ = _found_at(example.place)
    assert example.message in found


def test_the_example_made_up_for_a_test_is_what_the_rule_says() -> None:
    """LC-WRONG-DIRECTION is in no recording: its example is an update sent by the Client."""
    t = started()
    t.new_session()
    t.notify("session/update", {"sessionId": SESSION, "update": {}}, agent=False)
    t.close()
    messages = [f.message for f in t.analyze().findings if f.rule == "LC-WRONG-DIRECTION"]
    assert messages == [EXAMPLES["LC-WRONG-DIRECTION"].message]


def test_every_column_definition_is_used_by_some_table() -> None:
    assert all(set(column.tables) <= set(TABLES) for column in COLUMNS)
    assert {t for page in PAGES.values() for t in page} == set(TABLES)
