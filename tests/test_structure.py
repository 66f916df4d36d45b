"""The shape of the package holds (issue #35): imports point down the pipeline only, nothing
above the decode stage reaches into its hot path or the formats' envelope fields, and the
functions of the read, decode and pipeline stages stay short enough to read."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.golden import ROOT

PACKAGE = ROOT / "acptrace"
STAGES = ("model", "read", "decode", "correlate", "judge", "pipeline", "tables", "fidelity",
          "render", "export", "report", "cli")  # fmt: skip
"""The stage packages, lowest first (`pipeline` drives the stages below it for the ones above;
`record`, `mock` and `drive` stand beside them)."""
DECODE_INSIDES = ("acptrace.decode.fastpath", "acptrace.decode.runs",
                  "acptrace.read.formats.envelope_fields")  # fmt: skip
"""What only the read and decode stages may import: the hot path, and the field names of
the formats' envelopes (views get `acptrace.decode.views`, `RecorderEvent.said`)."""
LONGEST_FUNCTION = 60
"""Lines (its docstring included) a function of read, decode or pipeline may take."""


def imports(path: Path) -> Iterator[str]:
    """The acptrace modules a file imports (at any depth of its code)."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            yield node.module
            yield from (f"{node.module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)


def stage(path: Path) -> str:
    return path.relative_to(PACKAGE).parts[0].removesuffix(".py")


@pytest.mark.parametrize(
    "path", sorted(PACKAGE.rglob("*.py")), ids=lambda p: str(p.relative_to(ROOT))
)
def test_nothing_above_decode_imports_its_insides(path: Path) -> None:
    if stage(path) in ("read", "decode"):
        return
    reached = sorted(name for name in imports(path) if name.startswith(DECODE_INSIDES))
    assert reached == [], "use acptrace.decode.views, acptrace.decode.stream or RecorderEvent"


def test_the_stages_import_down_the_pipeline_only() -> None:
    floor = {name: index for index, name in enumerate(STAGES)}
    upward = []
    for path in PACKAGE.rglob("*.py"):
        own = floor.get(stage(path))
        if own is None:
            continue
        for name in imports(path):
            parts = name.split(".")
            other = floor.get(parts[1]) if parts[0] == "acptrace" and len(parts) > 1 else None
            if other is not None and other > own:
                upward.append(f"{path.relative_to(ROOT)} imports {name}")
    assert upward == []


def test_no_function_of_read_decode_or_pipeline_is_over_sixty_lines() -> None:
    long = []
    for folder in ("read", "decode", "pipeline"):
        for path in (PACKAGE / folder).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                    lines = (node.end_lineno or node.lineno) - node.lineno + 1
                    if lines > LONGEST_FUNCTION:
                        long.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name} {lines}")
    assert long == []
