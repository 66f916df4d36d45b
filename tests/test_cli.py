"""The `acptrace` command through typer's runner: output formats, exit codes, errors."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from acptrace.cli import app
from acptrace.judge.rules import RULES
from tests.transcript import Transcript, complete_connection

runner = CliRunner()


def write(tmp_path: Path, name: str, t: Transcript) -> str:
    path = tmp_path / name
    path.write_bytes(t.text())
    return str(path)


def complete(t: Transcript) -> Transcript:
    return complete_connection(t)


def unmarked(t: Transcript) -> Transcript:
    t.open()
    t.initialize()
    t.resume(id=3)
    t.history()
    t.update("state_update")
    t.result(3)
    t.close()
    return t


def test_analyze_clean_transcript_exits_0_and_prints_a_summary(tmp_path: Path) -> None:
    path = write(tmp_path, "ok.jsonl", complete(Transcript()))
    result = runner.invoke(app, ["analyze", path])
    assert result.exit_code == 0, result.output
    assert "complete" in result.output
    assert "test-agent" in result.output
    assert "No findings." in result.output


def test_analyze_error_finding_exits_1(tmp_path: Path) -> None:
    path = write(tmp_path, "bad.jsonl", unmarked(Transcript()))
    result = runner.invoke(app, ["analyze", path])
    assert result.exit_code == 1
    assert "RC-MISSING" in result.output
    assert "unmarked_success" in result.output


@pytest.mark.parametrize(
    ("fail_on", "code"), [("error", 0), ("warning", 1), ("note", 1), ("never", 0)]
)
def test_fail_on_threshold(tmp_path: Path, fail_on: str, code: int) -> None:
    t = Transcript()
    t.open()
    t.initialize()
    t.resume(replay=None, id=3)
    t.result(3)  # RC-NO-SNAPSHOT: a warning
    t.close()
    path = write(tmp_path, "warn.jsonl", t)
    assert runner.invoke(app, ["analyze", path, "--fail-on", fail_on]).exit_code == code


def test_json_output_follows_the_contract(tmp_path: Path) -> None:
    path = write(tmp_path, "bad.jsonl", unmarked(Transcript()))
    result = runner.invoke(app, ["analyze", path, "--format", "json"])
    document = json.loads(result.stdout)
    assert document["schema_version"] == 2  # (outcome `refused`, 2026-12-07)
    assert set(document) >= {"source", "connection", "resumes", "findings", "issues"}
    assert document["source"]["format"] == "acptrace"
    assert document["source"]["connection_end"] == "recorded"
    assert document["connection"]["protocol_source"] == "initialize"
    assert document["connection"]["agent"] == {"name": "test-agent", "version": "9.9"}
    (row,) = document["resumes"]
    assert row["outcome"] == "unmarked_success"
    assert row["replay_from"] == {"type": "start"}
    contract = {
        "request_id", "session_id", "role", "parent_session_id", "method", "replay_from",
        "outcome", "end", "error_code", "cancelled", "marker_count", "replayed_updates",
        "held_updates", "request_line", "marker_line", "response_line",
        "request_to_first_update_ms", "request_to_marker_ms", "marker_to_response_ms",
        "request_to_response_ms",
    }  # fmt: skip
    assert set(row) >= contract
    finding = document["findings"][0]
    assert set(finding) >= {"rule", "severity", "line", "session_id", "request_id", "message"}
    assert finding["rule"] == "RC-MISSING"


def test_several_files_give_an_array_and_the_worst_exit_code(tmp_path: Path) -> None:
    good = write(tmp_path, "good.jsonl", complete(Transcript()))
    bad = write(tmp_path, "bad.jsonl", unmarked(Transcript()))
    result = runner.invoke(app, ["analyze", good, bad, "--format", "json"])
    assert result.exit_code == 1
    documents = json.loads(result.stdout)
    assert [Path(d["source"]["path"]).name for d in documents] == ["good.jsonl", "bad.jsonl"]


def test_unreadable_file_is_one_clear_error_and_exit_2(tmp_path: Path) -> None:
    good = write(tmp_path, "good.jsonl", complete(Transcript()))
    result = runner.invoke(app, ["analyze", str(tmp_path / "missing.jsonl"), good])
    assert result.exit_code == 2
    assert "missing.jsonl: no such file" in result.stderr
    assert "Traceback" not in result.output
    assert "good.jsonl" in result.stdout


def test_unknown_input_format_is_a_usage_error(tmp_path: Path) -> None:
    path = write(tmp_path, "ok.jsonl", complete(Transcript()))
    result = runner.invoke(app, ["analyze", path, "--input-format", "nope"])
    assert result.exit_code == 2
    assert "unknown input format" in result.stderr


def test_strict_fails_on_issues(tmp_path: Path) -> None:
    t = complete(Transcript())
    t.raw(b"not json")
    path = write(tmp_path, "issue.jsonl", t)
    assert runner.invoke(app, ["analyze", path]).exit_code == 0
    assert runner.invoke(app, ["analyze", path, "--strict"]).exit_code == 1


def test_stdin_is_read_with_dash() -> None:
    t = unmarked(Transcript())
    result = runner.invoke(app, ["analyze", "-", "--format", "json"], input=t.text())
    assert result.exit_code == 1
    assert json.loads(result.stdout)["source"]["path"] == "-"


def test_output_file_gets_the_data_and_stdout_stays_empty(tmp_path: Path) -> None:
    path = write(tmp_path, "bad.jsonl", unmarked(Transcript()))
    out = tmp_path / "report.json"
    result = runner.invoke(app, ["analyze", path, "--format", "json", "-o", str(out)])
    assert result.exit_code == 1
    assert result.stdout == ""
    assert json.loads(out.read_text())["resumes"][0]["outcome"] == "unmarked_success"


def test_options_reach_the_analysis(tmp_path: Path) -> None:
    t = Transcript()
    t.initialize()
    t.resume(id=3)
    t.history()
    path = write(tmp_path, "cut.jsonl", t)
    plain = json.loads(runner.invoke(app, ["analyze", path, "-f", "json"]).stdout)
    assert plain["resumes"][0]["outcome"] == "unknown"
    closed = json.loads(
        runner.invoke(app, ["analyze", path, "-f", "json", "--assume-closed"]).stdout
    )
    assert closed["resumes"][0]["outcome"] == "truncated"
    assert closed["source"]["connection_end"] == "assumed"


def test_hostile_text_is_shown_inertly(tmp_path: Path) -> None:
    t = Transcript()
    t.open()
    t.initialize()
    t.resume("[bold red]x\x1b[2J", id=3)
    t.result(3)
    path = write(tmp_path, "hostile.jsonl", t)
    result = runner.invoke(app, ["analyze", path])
    assert "\x1b" not in result.output
    assert "[bold red]x\\x1b[2J" in result.output


def test_rules_command_lists_every_rule() -> None:
    result = runner.invoke(app, ["rules", "--format", "json"])
    rules = json.loads(result.stdout)
    assert [r["id"] for r in rules] == [r.id for r in RULES]  # the catalogue, in its order
    assert len(rules) == 37  # rules.md §1-§5, §4b, §12; TR-BATCH-LIFECYCLE retired among them
    assert [r["id"] for r in rules if r["family"] == "schema"] == [
        "SCHEMA-INVALID",
        "SCHEMA-UNKNOWN-MEMBER",
        "SCHEMA-VERSION-SHAPE",
    ]
    retired = {r["id"]: r["retired"] for r in rules if r["retired"]}
    assert list(retired) == ["TR-BATCH-LIFECYCLE"]
    assert next(r for r in rules if r["id"] == "TR-BATCH-LIFECYCLE")["severity"] is None
    assert rules[0]["id"] == "RC-DUPLICATE"
    table = runner.invoke(app, ["rules"])
    assert "TR-EMPTY-BATCH" in table.output


def test_rules_explains_every_abbreviation_their_sources_use() -> None:
    from acptrace.judge.rules import SOURCE_LEGEND

    legend = dict(SOURCE_LEGEND)
    quoted = re.compile(r'"[^"]*"')  # the RFD's own words (MUST NOT …) are no abbreviation
    for rule in RULES:
        words = re.findall(r"JSON-RPC 2\.0|\b[A-Z]{2,}\b", quoted.sub("", rule.source))
        assert words, rule.id
        assert set(words) <= set(legend), (rule.id, rule.source)
    table = runner.invoke(app, ["rules"], env={"COLUMNS": "80"})
    assert "Sources:" in table.output
    for short, meaning in SOURCE_LEGEND:
        assert short in table.output
        assert meaning.split()[-1] in table.output


@pytest.mark.parametrize("width", [60, 80, 120])
def test_rules_read_at_narrow_widths_as_a_list(width: int) -> None:
    """Below 150 columns, each rule is its ID, level and family on a line, its help wrapped
    under it, never cut, then its source."""
    result = runner.invoke(app, ["rules"], env={"COLUMNS": str(width)})
    lines = result.stdout.splitlines()
    assert all(len(line) <= width for line in lines)
    listed = result.stdout.split("\nSources:")[0]
    for rule in RULES:
        (start,) = [i for i, line in enumerate(lines) if line.startswith(f"{rule.id} ")]
        assert rule.family in lines[start]
        assert lines[start + 1].startswith("    ")
    for rule in RULES:
        assert " ".join(rule.help.split()) in " ".join(listed.split())  # (whole help)
    assert len(lines) < 5 * len(RULES) + 20


def test_rules_are_a_table_on_a_wide_terminal() -> None:
    result = runner.invoke(app, ["rules"], env={"COLUMNS": "160"})
    heading = next(line for line in result.stdout.splitlines() if line.split()[:1] == ["ID"])
    assert heading.split() == ["ID", "level", "family", "source", "help"]


def test_formats_command_lists_the_formats() -> None:
    result = runner.invoke(app, ["formats"])
    assert "acptrace:" in result.stdout
    assert "jsonrpc:" in result.stdout


def test_version() -> None:
    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0
    assert result.stdout.startswith("acptrace ")


def test_directories_and_globs_expand_to_their_transcripts(tmp_path: Path) -> None:
    (tmp_path / "nested").mkdir()
    write(tmp_path, "a.jsonl", complete(Transcript()))
    write(tmp_path / "nested", "b.jsonl", complete(Transcript()))
    (tmp_path / "notes.md").write_text("not a transcript")
    by_dir = runner.invoke(app, ["analyze", str(tmp_path), "-f", "json"])
    names = [Path(d["source"]["path"]).name for d in json.loads(by_dir.stdout)]
    assert names == ["a.jsonl", "b.jsonl"]
    by_glob = runner.invoke(app, ["analyze", str(tmp_path / "**" / "*.jsonl"), "-f", "json"])
    assert len(json.loads(by_glob.stdout)) == 2


def test_empty_directory_and_unmatched_glob_are_exit_2(tmp_path: Path) -> None:
    result = runner.invoke(app, ["analyze", str(tmp_path)])
    assert result.exit_code == 2
    assert "no transcript files" in result.stderr
    result = runner.invoke(app, ["analyze", str(tmp_path / "*.jsonl")])
    assert result.exit_code == 2
    assert "no file matches" in result.stderr


def test_jobs_give_the_same_result_in_the_same_order(tmp_path: Path) -> None:
    paths = [
        write(tmp_path, f"{n}.jsonl", (complete, unmarked)[n % 2](Transcript())) for n in range(4)
    ]
    missing = str(tmp_path / "missing.jsonl")
    one = runner.invoke(app, ["analyze", *paths, missing, "-f", "json", "--jobs", "1"])
    two = runner.invoke(app, ["analyze", *paths, missing, "-f", "json", "--jobs", "2"])
    assert one.exit_code == two.exit_code == 2
    assert one.stdout == two.stdout
    assert [Path(d["source"]["path"]).name for d in json.loads(two.stdout)] == [
        "0.jsonl", "1.jsonl", "2.jsonl", "3.jsonl",
    ]  # fmt: skip


def test_output_files_follow_the_umask_not_0600(tmp_path: Path) -> None:
    path = write(tmp_path, "ok.jsonl", complete(Transcript()))
    out = tmp_path / "report.json"
    previous = os.umask(0o022)
    try:
        runner.invoke(app, ["analyze", path, "-f", "json", "-o", str(out)])
    finally:
        os.umask(previous)
    assert out.stat().st_mode & 0o777 == 0o644


def test_the_console_entry_registers_only_the_command_it_runs() -> None:
    from acptrace.cli import _command

    assert _command(["--version", "analyze", "x.jsonl"]) == "analyze"
    assert _command(["redact", "-o", "out"]) == "redact"
    assert _command(["analyz", "x.jsonl"]) is None  # unknown: every command, for the message
    assert _command(["--help"]) is None
    probe = (
        "import sys; from acptrace.cli import main; sys.argv = ['acptrace', 'rules', '-f', "
        "'json']; main()\n"
    )
    loaded = (
        "import sys; print(sorted(m for m in sys.modules if m.startswith('acptrace.cli.')), "
        "file=sys.stderr)"
    )
    script = f"import atexit; atexit.register(lambda: exec({loaded!r}))\n{probe}"
    run = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    assert '"RC-MISSING"' in run.stdout
    modules = run.stderr.strip()
    assert "acptrace.cli.catalogue_command" in modules
    assert "acptrace.cli.report_command" not in modules
    assert "acptrace.cli.record_command" not in modules
    everything = subprocess.run(
        [sys.executable, "-m", "acptrace", "--help"], capture_output=True, text=True, check=False
    )
    for command in ("analyze", "rules", "formats", "export", "record", "redact", "report"):
        assert command in everything.stdout


def test_usage_lines_name_arguments_plainly() -> None:
    # typer writes required arguments in braces (`{files}...`); a usage line reads `FILE...`
    from acptrace.cli import MODULES

    for command in sorted(set(MODULES)):
        usage = runner.invoke(app, [command, "--help"]).output.splitlines()[0]
        assert usage.startswith(f"Usage: acptrace {command} [OPTIONS]"), usage
        assert not {"{", "}"} & set(usage), usage
    analyze = runner.invoke(app, ["analyze", "--help"]).output.splitlines()[0]
    assert analyze.endswith(" FILE...")


def test_h_is_help_and_capital_v_the_version_everywhere() -> None:
    from acptrace.cli import MODULES

    assert runner.invoke(app, ["-h"]).output == runner.invoke(app, ["--help"]).output
    for command in MODULES:
        short = runner.invoke(app, [command, "-h"])
        assert short.exit_code == 0, command
        assert short.output == runner.invoke(app, [command, "--help"]).output
    version = runner.invoke(app, ["-V"])
    assert version.exit_code == 0
    assert re.fullmatch(r"acptrace \S+\n", version.output)


def test_help_fills_the_terminal_up_to_120_columns() -> None:
    # (click caps help at 80 columns whatever the terminal, and its test runner forces 80:
    # the real command, then; `analyze --help` has lines longer than 120 columns to wrap)
    for columns, widest in ((60, 60), (80, 80), (120, 120), (200, 120)):
        environment = {**os.environ, "COLUMNS": str(columns)}
        shown = subprocess.run(
            [sys.executable, "-m", "acptrace", "analyze", "--help"],
            capture_output=True, text=True, env=environment, check=True,
        )  # fmt: skip
        longest = max(len(line) for line in shown.stdout.splitlines())
        assert widest - 5 <= longest <= widest, columns


def test_the_console_script_answers_v_without_registering_a_command() -> None:
    from acptrace.cli import _version_only

    assert _version_only(["-V"])
    assert _version_only(["--version"])
    assert not _version_only(["-V", "-h"])


@pytest.mark.parametrize(
    ("command", "argument"),
    [
        ("record", "AGENT_CMD..."),
        ("drive", "AGENT_CMD..."),
        ("mock", "FILE"),
        ("analyze", "FILE..."),
    ],
)
def test_a_missing_argument_is_the_usual_short_error(command: str, argument: str) -> None:
    result = runner.invoke(app, [command])
    assert result.exit_code == 2
    lines = result.output.splitlines()
    assert lines[0].startswith(f"Usage: acptrace {command} [OPTIONS]")
    assert f"Try 'acptrace {command} -h' for help." in lines
    assert lines[-1] == f"acptrace: error: missing argument '{argument}'"
    assert "Options:" not in result.output  # (not the whole help)


@pytest.mark.parametrize(
    ("args", "error"),
    [
        (["analyze", "--bogus", "x"], "no such option: --bogus"),
        (["analyze", "--fail-on", "x", "x"], "invalid value for '--fail-on': 'x' is not one of"),
        (["analyze", "-j", "-1", "x"], "invalid value for '--jobs'"),
        (["nonsense"], "no such command 'nonsense'"),
    ],
)
def test_click_usage_errors_end_in_the_one_error_line_on_stderr(
    args: list[str], error: str
) -> None:
    """click said `Error: …` where every other error is `acptrace: error: …`."""
    result = runner.invoke(app, args)
    assert result.exit_code == 2
    assert result.stdout == ""
    *usage, last = result.stderr.splitlines()
    assert last.startswith(f"acptrace: error: {error}"), result.stderr
    assert usage[0].startswith("Usage: acptrace"), usage
    assert usage[1].startswith("Try 'acptrace"), usage


def test_commands_are_listed_in_the_order_a_user_meets_them_and_whole() -> None:
    from acptrace.cli import MODULES

    listing = runner.invoke(app, ["--help"], env={"COLUMNS": "80"}).output
    commands = listing.split("\nCommands:\n", 1)[1].splitlines()
    names = [line.split()[0] for line in commands if line.startswith("  ") and line[2] != " "]
    assert names == list(MODULES)
    assert names[:3] == ["analyze", "timeline", "fidelity"]
    assert "..." not in "\n".join(commands)
    assert all(len(line) <= 80 for line in commands)
    assert len(commands) == len(names)  # (one line each: nothing wrapped)


def test_report_q_without_o_is_a_usage_error_before_any_work(tmp_path: Path) -> None:
    path = write(tmp_path, "ok.jsonl", complete(Transcript()))
    result = runner.invoke(app, ["report", path, "-q"])
    assert result.exit_code == 2
    assert "-q without -o writes nothing" in result.output
    written = tmp_path / "r.json"
    quiet = runner.invoke(app, ["report", path, "-q", "-o", str(written)])
    assert quiet.exit_code == 0, quiet.output
    assert quiet.stdout == ""
    assert json.loads(written.read_text())["files"]


def test_report_q_with_a_data_format_keeps_the_report_on_stdout(tmp_path: Path) -> None:
    """`report DIR -f json -q | jq`: -q silences the progress and the notes, not the data."""
    path = write(tmp_path, "ok.jsonl", complete(Transcript()))
    quiet = runner.invoke(app, ["report", path, "-f", "json", "-q"])
    assert quiet.exit_code == 0, quiet.output
    assert json.loads(quiet.stdout)["files"]["analysed"] == 1
    assert quiet.stderr == ""
    markdown = runner.invoke(app, ["report", path, "-f", "markdown", "-q"])
    assert markdown.exit_code == 0
    assert "## acptrace latency report" in markdown.stdout


def test_q_help_speaks_of_the_command_it_is_on() -> None:
    """Only `report -q` drops stdout too; the other commands' help does not mention report."""
    for command in ["analyze", "timeline", "fidelity", "export", "record", "redact", "drive"]:
        shown = " ".join(runner.invoke(app, [command, "-h"], env={"COLUMNS": "80"}).output.split())
        assert "-q, --quiet Nothing but the output and errors" in shown, command
        assert "report" not in shown.split("-q, --quiet", 1)[1].split(" -", 1)[0], command
    report = " ".join(runner.invoke(app, ["report", "-h"], env={"COLUMNS": "80"}).output.split())
    assert "no summary on stdout either, so it needs -o" in report


def test_q_leaves_out_the_notes_of_export_and_redact(tmp_path: Path) -> None:
    path = write(tmp_path, "ok.jsonl", complete(Transcript()))
    trace = str(tmp_path / "t.json")
    loud = runner.invoke(app, ["export", path, "-f", "trace-event", "-o", trace])
    quiet = runner.invoke(app, ["export", path, "-f", "trace-event", "-o", trace, "-q"])
    assert "wrote" in loud.stderr
    assert (quiet.exit_code, quiet.stderr) == (0, "")
    tables = runner.invoke(app, ["export", path, "-o", str(tmp_path / "tables"), "-q"])
    assert (tables.exit_code, tables.stderr) == (0, "")
    assert list((tmp_path / "tables").iterdir())
    redacted = runner.invoke(app, ["redact", path, "-o", str(tmp_path / "r.jsonl"), "-q"])
    assert (redacted.exit_code, redacted.stderr) == (0, "")
    timeline = runner.invoke(app, ["timeline", path, "-q"])
    assert (timeline.exit_code, timeline.stderr) == (0, "")
    assert "result" in timeline.stdout


def test_shell_completion_completes_command_names(tmp_path: Path) -> None:
    import subprocess
    import sys

    env = {
        **os.environ,
        "_ACPTRACE_COMPLETE": "complete_zsh",
        "_TYPER_COMPLETE_ARGS": "acptrace ti",
    }
    script = Path(sys.executable).with_name("acptrace")  # (the name the shell completes)
    run = subprocess.run(
        [str(script)], capture_output=True, text=True, check=False, env=env, cwd=tmp_path
    )
    assert run.returncode == 0, run.stderr
    assert "timeline" in run.stdout
    assert "analyze" not in run.stdout
    listing = runner.invoke(app, ["--help"]).output
    assert "--install-completion" in listing
    assert "--show-completion" in listing


def test_counts_of_one_are_singular(tmp_path: Path) -> None:
    sample = str(Path(__file__).parent.parent / "sample_traces" / "clean.jsonl")
    args = ["export", "--format", "trace-event", sample, "-o", str(tmp_path / "t.json")]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert " of 1 file to " in result.stderr
    lines = Transcript()
    lines.open()
    path = tmp_path / "one-line.jsonl"
    path.write_bytes(lines.text())
    markdown = runner.invoke(app, ["analyze", str(path), "--format", "markdown"]).stdout
    assert " · 1 line · " in markdown


@pytest.mark.parametrize(
    ("orphans", "said"),
    [(6, "1 more JR-ORPHAN-RESPONSE finding "), (7, "2 more JR-ORPHAN-RESPONSE findings ")],
)
def test_findings_left_unlisted_are_counted_in_words(
    tmp_path: Path, orphans: int, said: str
) -> None:
    t = Transcript()
    t.open()
    t.initialize()
    for index in range(orphans):
        t.result(100 + index)  # (answers no request: JR-ORPHAN-RESPONSE)
    path = tmp_path / "orphans.jsonl"
    path.write_bytes(t.text())
    assert (
        f"… and {said}(--format json lists all)"
        in runner.invoke(app, ["analyze", str(path)]).stdout
    )


def test_formats_wraps_its_descriptions_and_keeps_each_example_whole(tmp_path: Path) -> None:
    from acptrace.read.formats import FORMATS

    result = runner.invoke(app, ["formats"], env={"COLUMNS": "60"})
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    examples = {f"    {known.example}" for known in FORMATS}
    assert examples <= set(lines)  # (whole: an example is copied, not read)
    assert all(len(line) <= 60 for line in lines if line not in examples)
    written = tmp_path / "formats.txt"
    assert runner.invoke(app, ["formats", "-o", str(written)]).exit_code == 0
    assert written.read_text() == runner.invoke(app, ["formats"]).stdout
