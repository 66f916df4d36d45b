"""Policy from `acptrace.toml` / `[tool.acptrace]`, found upward; flags override the file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from acptrace.cli import app
from acptrace.cli.settings import AnalysisFlags
from acptrace.judge.policy import (
    FailOn,
    Policy,
    Settings,
    find_config,
    load_config,
    settings_from_table,
)
from acptrace.model.domain import Severity
from acptrace.model.errors import UsageError
from tests.transcript import Transcript

runner = CliRunner()


@pytest.mark.parametrize(
    ("fail_on", "fails"),
    [
        (FailOn.ERROR, {Severity.ERROR}),
        (FailOn.WARNING, {Severity.ERROR, Severity.WARNING}),
        (FailOn.NOTE, set(Severity)),
        (FailOn.NEVER, set()),
    ],
)
def test_fail_on_truth_table(fail_on: FailOn, fails: set[Severity]) -> None:
    assert {s for s in Severity if fail_on.fails(s)} == fails


def test_acptrace_toml_wins_over_pyproject_in_the_same_directory(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.acptrace]\nfail-on = "note"\n')
    (tmp_path / "acptrace.toml").write_text('fail-on = "warning"\n')
    assert find_config(tmp_path) == tmp_path / "acptrace.toml"
    assert load_config(tmp_path / "acptrace.toml").fail_on is FailOn.WARNING


def test_search_goes_upward_past_a_pyproject_without_the_table(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.acptrace]\nignore = ["JR-"]\n')
    inner = tmp_path / "pkg" / "deep"
    inner.mkdir(parents=True)
    (tmp_path / "pkg" / "pyproject.toml").write_text('[project]\nname = "x"\n')
    assert find_config(inner) == tmp_path / "pyproject.toml"
    assert load_config(tmp_path / "pyproject.toml").ignore == ("JR-",)


@pytest.mark.parametrize(
    "text",
    [
        '[tool.acptrace]\nignore = ["JR-"]\n',
        '[tool]\nacptrace = { ignore = ["JR-"] }\n',
        '[tool."acp\\u0074race"]\nignore = ["JR-"]\n',  # (a quoted key with an escape)
        '[tool."acp\\U00000074race"]\nignore = ["JR-"]\n',
    ],
)
def test_a_pyproject_table_is_found_however_its_key_is_spelled(tmp_path: Path, text: str) -> None:
    (tmp_path / "pyproject.toml").write_text(text)
    assert find_config(tmp_path) == tmp_path / "pyproject.toml"
    assert load_config(tmp_path / "pyproject.toml").ignore == ("JR-",)


def test_a_pyproject_that_never_names_acptrace_is_passed_over_even_broken(tmp_path: Path) -> None:
    """Not acptrace's file: its TOML is not read (start-up), so its errors are not ours."""
    (tmp_path / "acptrace.toml").write_text("strict = true\n")
    inner = tmp_path / "project"
    inner.mkdir()
    (inner / "pyproject.toml").write_text("[project\nname = ")
    assert find_config(inner) == tmp_path / "acptrace.toml"
    (inner / "pyproject.toml").write_text("[tool.acptrace\nstrict = ")  # (ours, and broken)
    with pytest.raises(UsageError, match=r"pyproject\.toml: invalid TOML"):
        find_config(inner)


def test_a_pyproject_named_with_config_is_always_read(tmp_path: Path) -> None:
    """`--config FILE` is read whatever it holds: a broken one is an error."""
    (tmp_path / "pyproject.toml").write_text("[project\nname = ")
    with pytest.raises(UsageError, match=r"pyproject\.toml: invalid TOML"):
        load_config(tmp_path / "pyproject.toml")


def test_the_nearest_config_wins(tmp_path: Path) -> None:
    (tmp_path / "acptrace.toml").write_text("strict = true\n")
    inner = tmp_path / "inner"
    inner.mkdir()
    (inner / "acptrace.toml").write_text("[tool.acptrace]\nstrict = false\n")
    assert find_config(inner) == inner / "acptrace.toml"
    assert load_config(inner / "acptrace.toml").strict is False


def test_every_key() -> None:
    settings = settings_from_table(
        {
            "select": ["RC-"],
            "ignore": "RC-NO-SNAPSHOT",
            "fail-on": "warning",
            "strict": True,
            "assume-closed": True,
            "child-rules": False,
            "protocol": 2,
            "marker-tag": "done",
            "history-tags": ["usage_update"],
            "live-tags": ["my_tag"],
            "schema": "full",
        },
        "test",
    )
    policy = settings.policy()
    options = policy.options
    assert (policy.fail_on, policy.strict) == (FailOn.WARNING, True)
    assert (options.select, options.ignore) == (("RC-",), ("RC-NO-SNAPSHOT",))
    assert (options.assume_closed, options.child_rules, options.protocol) == (True, False, 2)
    assert (options.marker_tag, options.history_tags, options.live_tags) == (
        "done",
        ("usage_update",),
        ("my_tag",),
    )
    assert options.schema == "full"


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ({"fail_on": "error"}, "unknown key 'fail_on'"),
        ({"fail-on": "fatal"}, "fail-on: expected one of error, warning, note, never"),
        ({"strict": "yes"}, "strict: expected true or false"),
        ({"select": [1]}, "select: expected a string or a list of strings"),
        ({"protocol": 3}, "protocol: expected 1 or 2"),
    ],
)
def test_bad_settings_say_what_is_wrong(table: dict[str, object], message: str) -> None:
    with pytest.raises(UsageError, match=message):
        settings_from_table(table, "acptrace.toml")


def test_a_rule_pattern_that_matches_nothing_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="ignore: 'RC-MISING' matches no rule"):
        Settings(ignore=("RC-MISING",)).policy()


@pytest.mark.parametrize("name", ["select", "ignore"])
def test_an_empty_rule_pattern_is_a_usage_error(name: str) -> None:
    """`--ignore ""` (a variable left unset) matched every rule: a run with findings passed."""
    with pytest.raises(UsageError, match=f"{name}: an empty rule ID or prefix would match"):
        Settings(select=("",)).policy() if name == "select" else Settings(ignore=("",)).policy()


def test_an_empty_ignore_on_the_command_line_fails_the_run(tmp_path: Path) -> None:
    path = unmarked(tmp_path)
    result = runner.invoke(app, ["analyze", path, "--ignore", ""])
    assert result.exit_code == 2
    assert "ignore: an empty rule ID or prefix would match every rule" in result.stderr
    assert result.stdout == ""


@pytest.mark.parametrize("command", ["analyze", "timeline", "report", "fidelity"])
def test_an_empty_input_format_is_refused_not_read_as_detect(command: str, tmp_path: Path) -> None:
    """`--input-format "$FORMAT"` with the variable unset detected the format instead."""
    result = runner.invoke(app, [command, unmarked(tmp_path), "--input-format", ""])
    assert result.exit_code == 2
    assert "--input-format: an empty name" in result.stderr
    assert result.stdout == ""


def test_flags_override_the_file() -> None:
    file = Settings(select=("RC-",), fail_on=FailOn.NOTE, assume_closed=True)
    flags = Settings(select=("JR-",), assume_closed=False)
    merged = flags.over(file)
    assert merged.select == ("JR-",)
    assert merged.fail_on is FailOn.NOTE
    assert merged.assume_closed is False


# -- through the command line ---------------------------------------------------------------------


def unmarked(tmp_path: Path) -> str:
    """A resume answered without a marker (RC-MISSING) or a snapshot (RC-NO-SNAPSHOT)."""
    t = Transcript()
    t.open()
    t.initialize()
    t.resume(id=3)
    t.history()
    t.result(3)
    path = tmp_path / "run.jsonl"
    path.write_bytes(t.text())
    return str(path)


def rules(result_stdout: str) -> list[str]:
    return [f["rule"] for f in json.loads(result_stdout)["findings"]]


def test_cli_reads_the_config_found_upward(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = unmarked(tmp_path)
    (tmp_path / "pyproject.toml").write_text(
        '[tool.acptrace]\nignore = ["RC-MISSING"]\nfail-on = "warning"\nassume-closed = true\n'
    )
    work = tmp_path / "ci" / "job"
    work.mkdir(parents=True)
    monkeypatch.chdir(work)
    result = runner.invoke(app, ["analyze", path, "-f", "json"])
    assert result.exit_code == 1  # RC-NO-SNAPSHOT is a warning, and fail-on says warning
    assert rules(result.stdout) == ["RC-NO-SNAPSHOT"]
    assert json.loads(result.stdout)["source"]["connection_end"] == "assumed"

    overridden = runner.invoke(
        app, ["analyze", path, "-f", "json", "--fail-on", "error", "--ignore", "RC-NO-SNAPSHOT"]
    )
    assert overridden.exit_code == 1  # the flag replaced the file's ignore list: RC-MISSING
    assert rules(overridden.stdout) == ["RC-MISSING"]
    reopened = runner.invoke(app, ["analyze", path, "--no-assume-closed", "-f", "json"])
    assert json.loads(reopened.stdout)["source"]["connection_end"] == "unknown"

    ignored = runner.invoke(app, ["analyze", path, "-f", "json", "--no-config"])
    assert rules(ignored.stdout) == ["RC-MISSING", "RC-NO-SNAPSHOT"]


def test_cli_config_option_and_errors(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = unmarked(tmp_path)
    monkeypatch.chdir(tmp_path)
    policy = tmp_path / "policy.toml"
    policy.write_text('select = ["RC-NO-SNAPSHOT"]\n')
    result = runner.invoke(app, ["analyze", path, "-f", "json", "--config", str(policy)])
    assert result.exit_code == 0
    assert rules(result.stdout) == ["RC-NO-SNAPSHOT"]

    (tmp_path / "acptrace.toml").write_text("fail-on = [")
    broken = runner.invoke(app, ["analyze", path])
    assert broken.exit_code == 2
    assert "acptrace.toml: invalid TOML" in broken.stderr

    (tmp_path / "acptrace.toml").write_text('select = ["NOPE"]\n')
    unknown = runner.invoke(app, ["timeline", path])
    assert unknown.exit_code == 2
    assert "acptrace.toml: select: 'NOPE' matches no rule" in unknown.stderr  # (names the file)


# -- through the analysis options' one declaration ----------------------------------------------


def test_flags_over_the_file_over_defaults_through_analysis_flags(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`AnalysisFlags.policy`: a flag replaces the file's value (a list too), the file's value
    stays where no flag is given, the defaults where neither says; `--config` names another
    file, `--no-config` reads none."""
    (tmp_path / "acptrace.toml").write_text(
        'select = ["RC-"]\nfail-on = "note"\nassume-closed = true\nmarker-tag = "done"\n'
    )
    other = tmp_path / "other.toml"
    other.write_text('fail-on = "never"\n')
    monkeypatch.chdir(tmp_path)

    policy = AnalysisFlags(select=["JR-"], assume_closed=False, strict=True).policy()
    options = policy.options
    assert (options.select, options.assume_closed, policy.strict) == (("JR-",), False, True)
    assert (policy.fail_on, options.marker_tag) == (FailOn.NOTE, "done")  # (the file's)
    assert (options.child_rules, options.ignore) == (True, ())  # (the defaults)

    named = AnalysisFlags(config=other, select=["JR-"]).policy()
    assert (named.fail_on, named.options.select, named.options.marker_tag) == (
        FailOn.NEVER,
        ("JR-",),
        "replay_complete",
    )
    unread = AnalysisFlags(no_config=True).policy()
    assert (unread.fail_on, unread.options.select, unread.options.assume_closed) == (
        FailOn.ERROR,
        (),
        False,
    )


@pytest.mark.parametrize("command", ["analyze", "timeline", "export", "report", "fidelity"])
def test_a_flag_and_the_config_file_reach_every_analysing_command(
    command: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """From the command line to the policy: the file found upward and a flag, combined."""
    (tmp_path / "acptrace.toml").write_text('marker-tag = "done"\nlive-tags = ["mine"]\n')
    work = tmp_path / "ci"
    work.mkdir()
    monkeypatch.chdir(work)
    seen: list[Policy] = []
    policy = AnalysisFlags.policy

    def stop_at_the_policy(flags: AnalysisFlags, **said: bool) -> Policy:
        seen.append(policy(flags, **said))
        raise typer.Exit(0)

    monkeypatch.setattr(AnalysisFlags, "policy", stop_at_the_policy)
    result = runner.invoke(app, [command, "run.jsonl", "--live-tag", "other", "--link", "agent"])
    assert result.exit_code == 0, result.output
    [options] = [found.options for found in seen]
    assert (options.marker_tag, options.live_tags, options.link) == ("done", ("other",), "agent")

    seen.clear()
    runner.invoke(app, [command, "run.jsonl", "--no-config", "--marker-tag", "end"])
    [options] = [found.options for found in seen]
    assert (options.marker_tag, options.live_tags, options.link) == ("end", (), None)


def test_the_config_file_and_a_flag_set_the_exit_code_of_timeline(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As `analyze` (above): the file's fail-on and ignore list, and flags that replace them."""
    path = unmarked(tmp_path)
    (tmp_path / "acptrace.toml").write_text('ignore = ["RC-MISSING"]\nfail-on = "warning"\n')
    monkeypatch.chdir(tmp_path)
    timeline = ["timeline", path]
    assert runner.invoke(app, [*timeline, "--fail-on", "error"]).exit_code == 0  # (file: ignore)
    assert runner.invoke(app, [*timeline, "--ignore", "RC-MISSING"]).exit_code == 1  # (fail-on)
    assert runner.invoke(app, [*timeline, "--ignore", "RC-MISSING", "--no-config"]).exit_code == 0
    replaced = runner.invoke(app, [*timeline, "--fail-on", "error", "--ignore", "RC-NO-SNAPSHOT"])
    assert replaced.exit_code == 1  # (the flag replaced the file's list: RC-MISSING is back)


@pytest.mark.parametrize(
    "dependency",
    [
        'dependencies = ["acptrace>=0.1"]',
        'dev = ["acptrace[report]", "pytest"]',
        '[project]\nname = "my-acptrace-plugin"\ndescription = "for acptrace users"',
    ],
)
def test_a_pyproject_that_only_depends_on_acptrace_is_passed_over(
    tmp_path: Path, dependency: str
) -> None:
    """Naming acptrace as a dependency is no acptrace table: not parsed (start-up), and its
    errors are not ours."""
    (tmp_path / "acptrace.toml").write_text("strict = true\n")
    inner = tmp_path / "project"
    inner.mkdir()
    (inner / "pyproject.toml").write_text(f"[project\n{dependency}\n")  # (broken TOML)
    assert find_config(inner) == tmp_path / "acptrace.toml"
