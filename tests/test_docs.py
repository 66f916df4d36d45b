"""The README and `acptrace rules` cannot drift from the rule registry or the spec's catalogue."""

from __future__ import annotations

import re

import pytest
from typer.testing import CliRunner

from acptrace.cli import app
from acptrace.judge.rules import RULES
from acptrace.judge.rules.registry import REGISTRY
from acptrace.read.formats import FORMATS
from acptrace.render.rules_view import rules_markdown
from tests.golden import ROOT, check_block
from tests.shared import SPEC

SPEC_RULES = SPEC / "rules.md"
README = ROOT / "README.md"


@pytest.mark.shared
def test_registry_holds_exactly_the_catalogue_of_rules_md() -> None:
    spec_ids = re.findall(r"^\| ((?:RC|LC|CX|CAP|JR|TR)-[A-Z-]+) \|", SPEC_RULES.read_text(), re.M)
    assert [rule.id for rule in RULES] == spec_ids
    assert set(REGISTRY) == set(spec_ids)


@pytest.mark.shared
def test_registry_levels_match_the_catalogue() -> None:
    rows = re.findall(
        r"^\| ((?:RC|LC|CX|CAP|JR|TR)-[A-Z-]+) \| (\S+)[^|]* \|", SPEC_RULES.read_text(), re.M
    )
    expected = dict(rows)
    assert {r.id: (r.severity.value if r.severity else "—") for r in RULES} == expected


def test_every_rule_has_help_and_source() -> None:
    for rule in RULES:
        assert rule.help, rule.id
        assert rule.source, rule.id
        assert rule.family, rule.id
        assert (rule.check is None) == (rule.id == "RC-INFLIGHT")


def test_readme_rule_table_is_the_registry(regen: bool) -> None:
    check_block(README, "rules", rules_markdown(RULES), regen)


def test_every_command_has_help_and_is_in_the_readme() -> None:
    runner = CliRunner()
    readme = README.read_text()
    for command in app.registered_commands:
        name = command.name or ""
        result = runner.invoke(app, [name, "--help"])
        assert result.exit_code == 0, name
        assert len(result.output) > 100, name
        assert f"`acptrace {name}" in readme, name


def test_readme_quick_start_shows_real_output(regen: bool) -> None:
    sample = "sample_traces/rules-history.jsonl"
    result = CliRunner().invoke(app, ["analyze", sample], env={"COLUMNS": "110"})
    assert result.exit_code == 1
    text = "\n".join(line.rstrip() for line in result.stdout.splitlines()).strip()
    block = f"```console\n$ acptrace analyze {sample}\n{text}\n$ echo $?\n1\n```\n"
    check_block(README, "quickstart", block, regen)


def test_readme_format_table_is_the_registry(regen: bool) -> None:
    rows = ["| name | what writes it |", "|---|---|"]
    rows += [f"| `{known.name}` | {known.summary} |" for known in FORMATS]
    check_block(README, "formats", "\n".join(rows) + "\n", regen)
