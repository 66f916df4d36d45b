"""The GitHub Action (action.yml): its shell steps run as a runner would run them.

A runner is not at hand here, so each `run:` step of the composite action is executed with
bash in a temporary workspace, with the inputs and `env:` the action gives it, `GITHUB_OUTPUT`
pointing at a file, and the `acptrace` of this checkout on PATH. The `uses:` steps (setting up
Python, uploading SARIF) are GitHub's own actions; the test checks they are wired to the inputs.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.golden import ROOT

ACTION = yaml.safe_load((ROOT / "action.yml").read_text())
STEPS: list[dict[str, Any]] = ACTION["runs"]["steps"]


def _expand(text: str, inputs: dict[str, str], action_path: Path, outputs: dict[str, str]) -> str:
    """`${{ inputs.x }}`, `${{ github.action_path }}` and step outputs, as a runner fills them."""

    def value(match: re.Match[str]) -> str:
        expression = match.group(1).strip()
        if expression.startswith("inputs."):
            return inputs[expression.removeprefix("inputs.")]
        if expression == "github.action_path":
            return str(action_path)
        if expression.startswith("steps."):
            return outputs.get(expression, "")
        raise AssertionError(f"an expression the test does not know: {expression}")

    return re.sub(r"\$\{\{(.*?)\}\}", value, text)


def run_action(workspace: Path, **given: str) -> tuple[int, str, dict[str, str]]:
    """Run the action's shell steps (install skipped: this checkout's acptrace is used)."""
    inputs = {name: str(spec.get("default", "")) for name, spec in ACTION["inputs"].items()}
    inputs.update({name.replace("_", "-"): value for name, value in given.items()})
    bin_dir = Path(sys.executable).parent
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"}
    outputs: dict[str, str] = {}
    printed = []
    code = 0
    for step in STEPS:
        if "run" not in step or step.get("name") == "Install acptrace":
            continue
        output_file = workspace / "github_output"
        output_file.write_text("")
        step_env = {k: _expand(str(v), inputs, ROOT, outputs) for k, v in step["env"].items()}
        result = subprocess.run(
            ["bash", "-e", "-c", step["run"]],
            cwd=workspace,
            env={**env, **step_env, "GITHUB_OUTPUT": str(output_file)},
            capture_output=True,
            text=True,
        )
        printed.append(result.stdout + result.stderr)
        for line in output_file.read_text().splitlines():
            key, _, value = line.partition("=")
            outputs[f"steps.{step['id']}.outputs.{key}"] = value
        code = result.returncode
        if code:
            break
    return code, "".join(printed), outputs


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    traces = tmp_path / "traces"
    traces.mkdir()
    for name in ("rules-marker.jsonl", "clean.jsonl"):
        shutil.copy(ROOT / "sample_traces" / name, traces / name)
    return tmp_path


def test_the_action_annotates_writes_sarif_and_fails_on_errors(workspace: Path) -> None:
    code, printed, outputs = run_action(workspace, paths="traces/*.jsonl")
    assert code == 1  # rules-marker.jsonl has error findings
    assert "::error" in printed
    sarif = workspace / "acptrace.sarif"
    assert outputs["steps.analyse.outputs.sarif"] == "acptrace.sarif"
    runs = yaml.safe_load(sarif.read_text())["runs"]  # (JSON is YAML)
    assert runs[0]["results"]


def test_the_action_passes_on_clean_transcripts_and_follows_fail_on(workspace: Path) -> None:
    assert run_action(workspace, paths="traces/clean.jsonl")[0] == 0
    assert run_action(workspace, paths="traces/rules-marker.jsonl", fail_on="never")[0] == 0


def test_the_action_without_sarif_writes_none(workspace: Path) -> None:
    code, _, outputs = run_action(workspace, paths="traces/clean.jsonl", sarif="")
    assert code == 0
    assert not (workspace / "acptrace.sarif").exists()
    assert "steps.analyse.outputs.sarif" not in outputs


def test_the_action_installs_from_its_own_folder_and_uploads_what_it_wrote() -> None:
    install = next(step for step in STEPS if step.get("name") == "Install acptrace")
    assert '"$ACTION_PATH"' in install["run"]
    assert install["env"]["ACTION_PATH"] == "${{ github.action_path }}"
    upload = next(s for s in STEPS if str(s.get("uses", "")).startswith("github/codeql-action"))
    assert upload["with"]["sarif_file"] == "${{ inputs.sarif }}"
    assert "always()" in upload["if"]  # findings fail the analysis step; upload them anyway
