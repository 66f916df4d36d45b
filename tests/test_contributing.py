"""CONTRIBUTING.md walks through the files a change touches: every file it names exists, and
every name it places in a module (`NAME` in `path.py`, or a call it shows) is defined there."""

from __future__ import annotations

import ast
import re

import pytest

from tests.golden import ROOT

TEXT = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
PATH = re.compile(r"`((?:acptrace|tests|docs|sample_traces)/[^`\s<>]+)`")
PLACED = re.compile(r"`(\w+)`(?: \([^)]*\))? in `((?:acptrace|tests)/[^`\s]+\.py)`")
"""`NAME` in `path.py`: a name the text says a module defines."""
SHOWN = {
    "rule": "acptrace/judge/rules/registry.py",
    "applies_on": "acptrace/judge/rules/__init__.py",
    "Stateless": "acptrace/read/formats/base.py",
    "FORMATS": "acptrace/read/formats/__init__.py",
    "_c": "acptrace/tables/builder.py",
    "message_row": "acptrace/tables/builder.py",
    "request_row": "acptrace/tables/builder.py",
    "resume_row": "acptrace/tables/builder.py",
    "turn_row": "acptrace/tables/builder.py",
    "connection_row": "acptrace/tables/builder.py",
    "_fields": "acptrace/tables/builder.py",
    "TURNS": "acptrace/tables/builder.py",
    "TOOL_CALLS": "acptrace/tables/builder.py",
    "PERMISSIONS": "acptrace/tables/builder.py",
    "MESSAGES": "acptrace/tables/builder.py",
    "CONNECTIONS": "acptrace/tables/builder.py",
    "Transcript": "tests/transcript.py",
    "Part": "acptrace/read/envelopes.py",
    "Envelope": "acptrace/read/envelopes.py",
    "RecorderEvent": "acptrace/read/envelopes.py",
    "Option": "acptrace/cli/declare.py",
    "analysis_options": "acptrace/cli/typer_options.py",
    "run_analyze": "acptrace/cli/analyze_run.py",
}
"""Names the text uses by name with their module said elsewhere in its sentence."""


def defined(path: str) -> set[str]:
    """The names a module defines at its top level (functions, classes, assignments)."""
    tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.ClassDef | ast.AsyncFunctionDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names.update(t.id for t in targets if isinstance(t, ast.Name))
    return names


@pytest.mark.parametrize("path", sorted(set(PATH.findall(TEXT))))
def test_every_file_it_names_exists(path: str) -> None:
    assert (ROOT / path.rstrip(".,;:")).exists(), path


@pytest.mark.parametrize(("name", "path"), sorted(set(PLACED.findall(TEXT)) | set(SHOWN.items())))
def test_every_name_it_places_in_a_module_is_defined_there(name: str, path: str) -> None:
    assert name in TEXT
    assert name in defined(path), f"{name} is not defined in {path}"


def test_it_walks_through_a_rule_a_format_a_column_and_an_option() -> None:
    headings = re.findall(r"^## (.+)$", TEXT, re.M)
    assert headings == [
        "Add a rule",
        "Add an input format",
        "Add an export column",
        "Add an option",
    ]
