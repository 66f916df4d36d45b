"""The README and docs/ cannot drift from the code: the rule and format registries, `--help`,
real output, the package layout, and each other (every relative link resolves)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import typer.core
import typer.main
from typer.testing import CliRunner

from acptrace.cli import app
from acptrace.judge.rules import RULES
from acptrace.judge.rules.registry import REGISTRY
from acptrace.model.domain import (
    ConnectionEnd,
    IssueKind,
    Outcome,
    ProtocolSource,
    Role,
    WindowEnd,
)
from acptrace.read.formats import FORMATS
from acptrace.render.rules_view import rules_markdown
from tests.golden import ROOT, check_block
from tests.shared import SPEC
from tests.test_report import ALPHA_1, BETA_1, write_corpus
from tests.test_tables import turn_example
from tests.transcript import Transcript

SPEC_RULES = SPEC / "rules.md"
README = ROOT / "README.md"
DOCS = ROOT / "docs"
PAGES = [README, *sorted(DOCS.glob("*.md"))]
COMMAND_PAGES = {
    "analyze": "analyze.md",
    "rules": "rules.md",
    "formats": "formats.md",
    "explain": "analyze.md",
    "timeline": "timeline.md",
    "export": "tables.md",
    "report": "report.md",
    "record": "record.md",
    "redact": "record.md",
    "mock": "mock-and-drive.md",
    "drive": "mock-and-drive.md",
    "fidelity": "fidelity.md",
}
"""The docs/ page that documents each command's options."""

FENCE = re.compile(r"^```.*?^```", re.M | re.S)
CODE_SPAN = re.compile(r"`[^`\n]+`")
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")


@pytest.mark.shared
def test_registry_holds_exactly_the_catalogue_of_rules_md() -> None:
    spec_ids = re.findall(
        r"^\| ((?:RC|LC|CX|CAP|JR|TR|SCHEMA)-[A-Z-]+) \|", SPEC_RULES.read_text(), re.M
    )
    assert [rule.id for rule in RULES] == spec_ids
    assert set(REGISTRY) == set(spec_ids)


@pytest.mark.shared
def test_registry_levels_match_the_catalogue() -> None:
    rows = re.findall(
        r"^\| ((?:RC|LC|CX|CAP|JR|TR|SCHEMA)-[A-Z-]+) \| (\S+)[^|]* \|",
        SPEC_RULES.read_text(),
        re.M,
    )
    expected = dict(rows)
    assert {r.id: r.level for r in RULES} == expected


def test_every_rule_has_help_and_source() -> None:
    for rule in RULES:
        assert rule.help, rule.id
        assert rule.source, rule.id
        assert rule.family, rule.id
        assert (rule.check is None) == (rule.id == "RC-INFLIGHT" or rule.retired is not None)


def test_docs_rule_table_is_the_registry(regen: bool) -> None:
    check_block(DOCS / "rules.md", "rules", rules_markdown(RULES), regen)


def test_every_command_has_help_and_is_in_the_readme_command_list() -> None:
    runner = CliRunner()
    commands = section(README.read_text(), "Commands")
    for command in app.registered_commands:
        name = command.name or ""
        result = runner.invoke(app, [name, "--help"])
        assert result.exit_code == 0, name
        assert len(result.output) > 100, name
        assert f"| `acptrace {name}" in commands, name


@pytest.mark.parametrize("name", sorted(COMMAND_PAGES))
def test_every_option_of_a_command_is_in_its_docs_page(name: str) -> None:
    command = typer.main.get_command(app)
    assert isinstance(command, typer.core.TyperGroup)
    code = code_text((DOCS / COMMAND_PAGES[name]).read_text())
    for param in command.commands[name].params:
        if param.param_type_name == "option":
            names = [*param.opts, *param.secondary_opts]
            documented = [
                n for n in names if re.search(rf"(?<![\w-]){re.escape(n)}(?![\w-])", code)
            ]
            assert documented, f"{name} {'/'.join(names)} is not in docs/{COMMAND_PAGES[name]}"


def test_every_command_has_a_docs_page() -> None:
    assert {command.name for command in app.registered_commands} == set(COMMAND_PAGES)


def test_readme_set_up_commands_come_first() -> None:
    """A tool takes the first shell line with `acptrace` and `venv`, and the first with `pytest`."""
    lines = README.read_text().splitlines()
    install = next(i for i, line in enumerate(lines) if "acptrace" in line and "venv" in line)
    tests = next(i for i, line in enumerate(lines) if "pytest" in line)
    assert lines[install].startswith("python3 -m venv .venv && ")
    assert lines[tests].startswith("python3 -m venv .venv && ")
    assert lines[tests].endswith(".venv/bin/pytest")
    assert install < tests < lines.index("## Quick start")


def test_readme_says_how_to_install_and_what_the_tests_need() -> None:
    """No placeholder to fill in: how to install from a clone, where `../shared` comes from,
    how long the suite takes (#37 item 12)."""
    setup = section(README.read_text(), "Set up and run")
    assert "OWNER" not in setup
    assert "`pipx install .`" in setup
    assert "shared folder" in setup
    assert re.search(r"\d+-\d+ minutes", setup)


def test_readme_is_a_first_visit() -> None:
    """The references live in docs/; the README only links to them."""
    text = README.read_text()
    headings = re.findall(r"^## (.+)$", FENCE.sub("", text), re.M)
    assert headings == ["Set up and run", "Why", "Quick start", "Commands", "Documentation"]
    assert len(text) < 12_500  # (the quick start's real output carries its tables' legends)
    linked = {target.split("#")[0] for target in links(text)}
    assert {f"docs/{page.name}" for page in DOCS.glob("*.md")} <= linked


def test_every_docs_page_is_in_the_index() -> None:
    index = DOCS / "README.md"
    linked = {target.split("#")[0] for target in links(index.read_text())}
    assert {page.name for page in DOCS.glob("*.md")} - {index.name} <= linked


def test_docs_format_table_is_the_registry(regen: bool) -> None:
    rows = ["| name | what writes it |", "|---|---|"]
    rows += [f"| `{known.name}` | {known.summary} |" for known in FORMATS]
    check_block(DOCS / "formats.md", "formats", "\n".join(rows) + "\n", regen)


def test_json_example_has_exactly_the_fields_of_real_output(tmp_path: Path) -> None:
    """docs/json-output.md's example names every field `--format json` prints, and no other."""
    t = Transcript()
    t.initialize()
    resume = t.resume(id=3)
    t.history()
    t.update("available_commands_update")  # RC-NOT-HISTORY: a finding
    t.marker()
    t.result(3, {})
    prompt = t.prompt(id=4)  # a turn, with a tool call and its permission request
    t.tool("t1", kind="edit", title="Edit", status="pending")
    t.permission("t1", id=0)
    t.choose(0, "allow")
    t.tool("t1", status="completed")
    t.update("agent_message_chunk", content={"type": "text", "text": "done"})
    t.state("idle", stop_reason="end_turn")
    t.raw(b"not json")  # an issue
    path = tmp_path / "run.jsonl"
    path.write_bytes(t.text())
    result = CliRunner().invoke(app, ["analyze", "--format", "json", str(path)])
    assert result.exit_code == 1, result.output
    real = json.loads(result.stdout)
    assert real["resumes"][0]["request_line"] == resume
    assert real["findings"]
    assert real["issues"]
    assert real["sessions"]
    assert [turn["request_line"] for turn in real["turns"]] == [prompt]
    assert real["tool_calls"]
    assert real["permissions"]
    assert_same_fields(json_example(DOCS / "json-output.md"), real)


def test_report_json_example_has_exactly_the_fields_of_real_output(tmp_path: Path) -> None:
    """docs/report.md's report.json example: every field it shows exists, every one that exists
    is shown (where the example writes `"...": 0` or `[]`, what is inside is left open)."""
    runs = write_corpus(tmp_path / "runs", ALPHA_1, BETA_1)
    (runs / "broken.jsonl.gz").write_bytes(b"\x1f\x8b\x08\x00garbage-not-deflate")
    t = Transcript()
    t.initialize()
    t.resume(id=3)
    t.marker()
    t.marker()  # RC-DUPLICATE: a finding
    t.update("state_update", state="idle")
    t.result(3, {})
    (runs / "duplicate.jsonl").write_bytes(t.text())
    (runs / "turn.jsonl").write_bytes(turn_example().text())  # a turn, a tool call, a permission
    old, new = tmp_path / "old.json", tmp_path / "new.json"
    runner = CliRunner()
    builder = ["--ignore", "SCHEMA-"]  # (the builder writes minimal messages, not valid ones)
    runner.invoke(app, ["report", str(runs), "-q", "-o", str(old), *builder])
    limit = ["--baseline", str(old), "--max-regression", "p90=20%", *builder]
    runner.invoke(app, ["report", str(runs), "-q", "-o", str(new), *limit])
    real = json.loads(new.read_text())
    assert real["errors"]
    assert real["comparison"]["deltas"]
    assert any(group["findings_detail"] for group in real["groups"])
    assert any(group["longest_permission_waits"] for group in real["groups"])
    assert_same_fields(json_example(DOCS / "report.md"), real)


def test_json_output_names_every_value_of_the_closed_sets() -> None:
    text = (DOCS / "json-output.md").read_text()
    table = re.findall(r"^\| `([a-z_]+)` \|", section(text, "Outcomes"), re.M)
    assert table == [outcome.value for outcome in Outcome]
    for values in (WindowEnd, ConnectionEnd, ProtocolSource, Role):
        for value in values:
            assert f"`{value.value}`" in text, value


def json_example(page: Path) -> Any:
    """The first JSON block of a docs page."""
    return json.loads(page.read_text().split("```json\n", 1)[1].split("```", 1)[0])


def assert_same_fields(example: Any, real: Any) -> None:
    shown, open_ = fields(example)
    actual, _ = fields(real)
    assert shown - actual == set(), "documented but not in real output"
    hidden = {p for p in actual - shown if not any(p.startswith(o) for o in open_)}
    assert hidden == set(), "in real output but not documented"


def fields(document: Any, at: str = "") -> tuple[set[str], set[str]]:
    """Every field path of a JSON document (a list's items merged), and the paths left open: an
    object holding a `"..."` member or an empty list stands for fields it does not show."""
    paths: set[str] = set()
    open_: set[str] = set()
    items: list[tuple[str, Any]] = []
    if isinstance(document, list):
        if not document:
            open_.add(f"{at}[]")
        items = [(f"{at}[]", item) for item in document]
    elif isinstance(document, dict):
        if "..." in document:
            open_.add(f"{at}.")
        for key, value in document.items():
            if key != "...":
                paths.add(f"{at}.{key}")
                items.append((f"{at}.{key}", value))
    for path, value in items:
        more, more_open = fields(value, path)
        paths |= more
        open_ |= more_open
    return paths, open_


def test_architecture_lists_every_stage_package() -> None:
    text = (DOCS / "architecture.md").read_text()
    packages = sorted(p.parent.name for p in (ROOT / "acptrace").glob("*/__init__.py"))
    assert packages
    for package in packages:
        assert f"| `acptrace/{package}` |" in text, package


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.relative_to(ROOT).as_posix())
def test_every_relative_link_resolves(page: Path) -> None:
    for target in links(page.read_text()):
        if re.match(r"[a-z]+:", target):
            continue
        path, _, anchor = target.partition("#")
        resolved = (page.parent / path).resolve() if path else page
        assert resolved.exists(), f"{page.name}: {target}"
        if anchor and resolved.suffix == ".md":
            assert anchor in anchors(resolved.read_text()), f"{page.name}: {target}"


def test_link_checks_see_broken_links() -> None:
    assert links("[a](b.md) `[c](d.md)` ![e](f.png)\n```\n[g](h.md)\n```\n") == ["b.md", "f.png"]
    assert anchors("# A `b` (c)\n## JSON output (`--format json`, 1)\n## A b c\n") == {
        "a-b-c",
        "json-output---format-json-1",
        "a-b-c-1",
    }


def links(markdown: str) -> list[str]:
    """The link and image targets of a Markdown text, outside code."""
    return LINK.findall(CODE_SPAN.sub("", FENCE.sub("", markdown)))


def anchors(markdown: str) -> set[str]:
    """The anchors GitHub gives the headings of a Markdown text."""
    seen: dict[str, int] = {}
    result = set()
    for heading in re.findall(r"^#+ (.+)$", FENCE.sub("", markdown), re.M):
        slug = re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        result.add(f"{slug}-{count}" if count else slug)
    return result


def code_text(markdown: str) -> str:
    """Everything in code blocks and code spans, where options are written."""
    return "\n".join(FENCE.findall(markdown) + CODE_SPAN.findall(markdown))


def section(markdown: str, heading: str) -> str:
    """The text under a `## heading`, up to the next one."""
    return markdown.split(f"\n## {heading}\n", 1)[1].split("\n## ", 1)[0]


def test_every_issue_kind_is_documented() -> None:
    text = (DOCS / "formats.md").read_text()
    missing = [kind.value for kind in IssueKind if f"`{kind.value}`" not in text]
    assert missing == []


def test_no_page_says_acptrace_is_on_pypi() -> None:
    """It is installed from the repository (a clone, or `git+https://…`), not by name."""
    for page in PAGES:
        assert not re.search(r"pip install(?: -\S+)* acptrace\b", page.read_text()), page.name


def test_the_export_row_and_help_name_every_table() -> None:
    """README's commands table and `export -h` list the tables `export` writes, all of them."""
    from acptrace.tables import TABLES

    row = next(line for line in README.read_text().splitlines() if "`acptrace export" in line)
    shown = " ".join(CliRunner().invoke(app, ["export", "-h"]).output.split())
    for table in TABLES:
        assert f"`{table.name}`" in row, table.name
        assert table.name in shown.lower(), table.name
