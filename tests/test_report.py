"""`acptrace report` over a corpus of two adapters with known latencies: the percentiles, the
outcome counts and the regression verdict, exactly; grouping, errors and the outputs."""

from __future__ import annotations

import gzip
import io
import json
from dataclasses import dataclass
from pathlib import Path

import pytest
from typer.testing import CliRunner

import acptrace
from acptrace.cli import app
from acptrace.model.domain import Outcome
from acptrace.model.options import Options
from acptrace.report import GroupBy, Metric, build_report
from acptrace.report.baseline import compare, load_baseline, parse_thresholds
from acptrace.report.collect import analyze_files, analyze_one
from acptrace.report.document import document
from acptrace.report.groups import metric_value
from acptrace.report.stats import Distribution
from acptrace.report.summaries import FileError, Group, Report
from tests.transcript import NO_SCHEMA, Transcript

runner = CliRunner()
GAP_MS = 20_000.0
"""Time between two resumes in a corpus transcript."""


@dataclass(frozen=True)
class Resume:
    """One resume of a corpus transcript: its timings decide its outcome."""

    to_marker_ms: float | None = 100.0
    """Request -> marker; None: no marker (the replay is cut short)."""
    to_response_ms: float = 1000.0
    """Marker -> response, or request -> response when there is no marker."""
    ok: bool = True
    """A success response (else an error)."""
    replay: bool = True
    """With `replayFrom`."""


def transcript(agent: str | None, version: str, resumes: list[Resume]) -> Transcript:
    """An adapter's recorded connection: `initialize` naming the agent, then the resumes, each
    replaying two updates, at known times."""
    t = Transcript()
    t.open()
    if agent is not None:
        info = {"name": "zed", "version": "1.0"}
        t.request("initialize", {"protocolVersion": 2, "info": info}, id=0)
        info = {"name": agent, "version": version}
        t.result(0, {"protocolVersion": 2, "info": info, "capabilities": {"session": {}}})
    for index, resume in enumerate(resumes):
        start = (index + 1) * GAP_MS
        session = f"sess_{index}"
        t.resume(session, replay=resume.replay, id=10 + index, at_ms=start)
        if not resume.replay:
            t.update("state_update", session, at_ms=start + 5)
            t.result(10 + index, at_ms=start + resume.to_response_ms)
            continue
        t.update("user_message", session, at_ms=start + 1, messageId="m1")
        t.update("agent_message", session, at_ms=start + 2, messageId="m2")
        end = start + resume.to_response_ms
        if resume.to_marker_ms is not None:
            t.marker(session, at_ms=start + resume.to_marker_ms)
            t.update("state_update", session, at_ms=start + resume.to_marker_ms + 1)
            end = start + resume.to_marker_ms + resume.to_response_ms
        if resume.ok:
            t.result(10 + index, at_ms=end)
        else:
            t.error(10 + index, -32603, at_ms=end)
    t.close(at_ms=(len(resumes) + 1) * GAP_MS)
    return t


def complete(*marker_to_response: float) -> list[Resume]:
    return [Resume(to_response_ms=ms) for ms in marker_to_response]


TRUNCATED = Resume(to_marker_ms=None, to_response_ms=250.0, ok=False)
"""No marker, then an error 250 ms after the request."""
FAILED = Resume(to_marker_ms=300.0, to_response_ms=50.0, ok=False)
"""A marker after 300 ms, then an error 50 ms later (complete_failed)."""
PLAIN = Resume(replay=False, to_response_ms=30.0)
"""A resume without replayFrom (no_replay)."""

# release 1: alpha answers 0.7-1.9 s after the marker ("idle"), beta 4-9 s ("cold start")
ALPHA_1 = [
    complete(700, 800, 900, 1000, 1100),
    [*complete(1200, 1300, 1400, 1500, 1900), TRUNCATED],
]
BETA_1 = [[*complete(4000, 4500, 5000, 6000, 9000), FAILED, PLAIN]]
# release 2: alpha 25 % slower after the marker; beta 10 % slower and one more truncated replay
ALPHA_2 = [
    complete(875, 1000, 1125, 1250, 1375),
    [*complete(1500, 1625, 1750, 1875, 2375), TRUNCATED],
]
BETA_2 = [[*complete(4400, 4950, 5500, 6600, 9900), FAILED, PLAIN, TRUNCATED]]


def test_a_marked_replay_of_nothing_has_no_throughput() -> None:
    # An Agent that answers an empty history at once replays at no rate, not at 0/s (which
    # would drag the percentiles, and a throughput gate, down).
    t = Transcript()
    t.open()
    for index, history in enumerate((0, 2)):
        session, start = f"sess_{index}", 1000.0 * (index + 1)
        t.resume(session, id=10 + index, at_ms=start)
        for step in range(history):
            t.update("user_message", session, at_ms=start + 10 + step, messageId=f"m{step}")
        t.marker(session, at_ms=start + 100)
        t.update("state_update", session, at_ms=start + 101)
        t.result(10 + index, at_ms=start + 150)
    empty, replayed = acptrace.analyze(io.BytesIO(t.text()), NO_SCHEMA).resumes
    assert (empty.replayed_updates, empty.marker_line is not None) == (0, True)
    assert metric_value(Metric.THROUGHPUT, empty) is None
    assert metric_value(Metric.THROUGHPUT, replayed) == 20.0  # (2 updates in 100 ms)


def write_corpus(root: Path, alpha: list[list[Resume]], beta: list[list[Resume]]) -> Path:
    """alpha-acp 1.0 and beta-acp 2.0 transcripts in `root`."""
    root.mkdir(parents=True, exist_ok=True)
    for index, resumes in enumerate(alpha):
        (root / f"alpha-{index}.jsonl").write_bytes(transcript("alpha-acp", "1.0", resumes).text())
    for index, resumes in enumerate(beta):
        (root / f"beta-{index}.jsonl").write_bytes(transcript("beta-acp", "2.0", resumes).text())
    return root


def group(report: Report, name: str) -> Group:
    return next(g for g in report.groups if g.name == name)


def outcomes(g: Group) -> dict[str, int]:
    return {o.value: n for o, n in g.outcomes.items() if n}


@pytest.fixture(scope="module")
def release_1(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_corpus(tmp_path_factory.mktemp("r1") / "runs", ALPHA_1, BETA_1)


@pytest.fixture(scope="module")
def release_2(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_corpus(tmp_path_factory.mktemp("r2") / "runs", ALPHA_2, BETA_2)


# -- the numbers ------------------------------------------------------------------------------


def test_percentiles_and_outcomes_of_two_adapters_are_exact(release_1: Path) -> None:
    report = build_report([str(release_1)], by=GroupBy.AGENT, jobs=2)
    assert [g.name for g in report.groups] == ["alpha-acp", "beta-acp"]
    assert report.files == 3
    assert report.errors == ()

    alpha = group(report, "alpha-acp")
    assert (alpha.connections, alpha.resumes, alpha.replaying) == (2, 11, 11)
    assert outcomes(alpha) == {"complete": 10, "truncated": 1}
    assert alpha.rate(Outcome.COMPLETE) == 10 / 11
    assert alpha.metrics[Metric.MARKER_TO_RESPONSE] == Distribution(
        count=10, min=700.0, p50=1150.0, p90=1540.0, p99=1864.0, max=1900.0, mean=1180.0
    )
    assert alpha.metrics[Metric.REQUEST_TO_MARKER] == Distribution(
        count=10, min=100.0, p50=100.0, p90=100.0, p99=100.0, max=100.0, mean=100.0
    )
    # the truncated replay has a response time but no marker
    assert alpha.metrics[Metric.REQUEST_TO_RESPONSE] == Distribution(
        count=11, min=250.0, p50=1200.0, p90=1600.0, p99=1960.0, max=2000.0, mean=1186.363636
    )
    # 2 replayed updates in 100 ms
    assert alpha.metrics[Metric.THROUGHPUT] == Distribution(10, 20.0, 20.0, 20.0, 20.0, 20.0, 20.0)
    assert [(Path(r.path).name, r.line, r.outcome.value) for r in alpha.cut] == [
        ("alpha-1.jsonl", 34, "truncated")
    ]
    assert alpha.headline is Metric.MARKER_TO_RESPONSE
    assert [r.marker_to_response_ms for r in alpha.slowest][:3] == [1900.0, 1500.0, 1400.0]

    beta = group(report, "beta-acp")
    assert (beta.connections, beta.resumes, beta.replaying) == (1, 7, 6)
    assert outcomes(beta) == {"complete": 5, "complete_failed": 1, "no_replay": 1}
    assert beta.rate(Outcome.COMPLETE) == 5 / 6
    assert beta.metrics[Metric.MARKER_TO_RESPONSE] == Distribution(
        count=6, min=50.0, p50=4750.0, p90=7500.0, p99=8850.0, max=9000.0, mean=4758.333333
    )
    assert [(f.rule, f.count) for f in beta.findings] == []


def test_rules_broken_are_counted_by_rule_id(tmp_path: Path) -> None:
    t = transcript("gamma-acp", "1", complete(500))
    t.lines.pop()  # reopen: traffic after the recorded close would not be analysed
    t.resume("sess_x", id=99, at_ms=GAP_MS * 3)
    t.update("user_message", "sess_x", at_ms=GAP_MS * 3 + 1)
    t.result(99, at_ms=GAP_MS * 3 + 10)  # no marker: RC-MISSING
    t.close(at_ms=GAP_MS * 4)
    (tmp_path / "g.jsonl").write_bytes(t.text())
    report = build_report([str(tmp_path)], jobs=1)
    gamma = report.groups[0]
    assert [(c.rule, c.severity.value, c.count) for c in gamma.findings] == [
        ("RC-MISSING", "error", 1),
        ("RC-NO-SNAPSHOT", "warning", 1),
    ]
    assert outcomes(gamma) == {"complete": 1, "unmarked_success": 1}


def unadvertised(version: int, method: str) -> Transcript:
    """One connection of `lone-acp` that advertises nothing and still sends `method`."""
    t = Transcript()
    t.open()
    t.request("initialize", {"protocolVersion": version}, id=0)
    info = {"name": "lone-acp", "version": "1"}
    t.result(0, {"protocolVersion": version, "info": info, "capabilities": {}})
    t.request(method, {"sessionId": "sess_1", "cwd": "/"}, id=1)
    t.error(1, -32002)
    t.close()
    return t


def test_a_rule_found_at_two_levels_is_counted_at_each(tmp_path: Path) -> None:
    """CAP-UNADVERTISED is an error for a v1 session/load, a warning otherwise: a group with
    both has a count for each level, each pointing at its own findings."""
    for name, version, method in [
        ("a", 2, "session/resume"),
        ("b", 2, "session/resume"),
        ("c", 1, "session/load"),
    ]:
        (tmp_path / f"{name}.jsonl").write_bytes(unadvertised(version, method).text())
    report = build_report([str(tmp_path)], NO_SCHEMA, jobs=1)
    [lone] = report.groups
    assert [(c.rule, c.severity.value, c.count) for c in lone.findings] == [
        ("CAP-UNADVERTISED", "error", 1),
        ("CAP-UNADVERTISED", "warning", 2),
    ]
    assert [[path for path, _ in c.first] for c in lone.findings] == [
        [str(tmp_path / "c.jsonl")],
        [str(tmp_path / "a.jsonl"), str(tmp_path / "b.jsonl")],
    ]
    [group] = document(report)["groups"]
    assert group["findings"] == {"CAP-UNADVERTISED": 3}
    assert group["findings_by_severity"] == {"error": 1, "warning": 2, "note": 0}


def test_the_regression_verdict_is_exact(release_1: Path, release_2: Path, tmp_path: Path) -> None:
    old = tmp_path / "old.json"
    assert runner.invoke(app, ["report", str(release_1), "-o", str(old), "-q"]).exit_code == 0
    new = build_report([str(release_2)], jobs=1)
    limits = parse_thresholds(["p90=20%,complete=5pp", "request_to_response.p50=400ms"])
    comparison = compare(new, load_baseline(str(old)), limits)
    judged = {
        (d.group, d.measure): (d.old, d.new, d.change, d.change_pct, d.regressed)
        for d in comparison.deltas
        if d.threshold is not None
    }
    assert judged == {
        ("alpha-acp", "marker_to_response_ms.p90"): (1540.0, 1925.0, 385.0, 25.0, True),
        ("alpha-acp", "rate.complete"): (10 / 11, 10 / 11, 0.0, None, False),
        ("alpha-acp", "request_to_response_ms.p50"): (1200.0, 1475.0, 275.0, 22.916667, False),
        ("beta-acp", "marker_to_response_ms.p90"): (7500.0, 8250.0, 750.0, 10.0, False),
        ("beta-acp", "rate.complete"): (5 / 6, 5 / 7, -11.904762, None, True),
        ("beta-acp", "request_to_response_ms.p50"): (4850.0, 5050.0, 200.0, 4.123711, False),
    }
    assert [(d.group, d.measure) for d in comparison.regressions] == [
        ("alpha-acp", "marker_to_response_ms.p90"),
        ("beta-acp", "rate.complete"),
    ]
    # a limit the change meets exactly is not exceeded
    at_limit = compare(new, load_baseline(str(old)), parse_thresholds(["p90=25%", "complete=12pp"]))
    assert at_limit.regressions == ()


def test_cli_exits_1_on_a_regression_and_0_within_the_limits(
    release_1: Path, release_2: Path, tmp_path: Path
) -> None:
    old = tmp_path / "old.json"
    runner.invoke(app, ["report", str(release_1), "-o", str(old), "-q"])
    args = ["report", str(release_2), "--baseline", str(old), "-o", str(tmp_path / "new.json")]
    failing = runner.invoke(app, [*args, "--max-regression", "p90=20%"])
    assert failing.exit_code == 1, failing.output
    assert "1 regression beyond the limits." in failing.stdout
    verdict = json.loads((tmp_path / "new.json").read_text())["comparison"]
    assert verdict["passed"] is False
    assert [(d["group"], d["measure"]) for d in verdict["deltas"] if d["regressed"]] == [
        ("alpha-acp", "marker_to_response_ms.p90")
    ]
    passing = runner.invoke(
        app, [*args, "--max-regression", "p90=30%", "--max-regression", "p99=30%"]
    )
    assert passing.exit_code == 0, passing.output
    assert "No regression beyond the limits." in passing.stdout
    assert "checked nothing" not in passing.output
    assert json.loads((tmp_path / "new.json").read_text())["comparison"]["unchecked"] == []
    deltas_only = runner.invoke(app, [*args])
    assert deltas_only.exit_code == 0
    assert "deltas only" in deltas_only.stdout


def test_a_gate_that_checks_nothing_fails_everywhere(tmp_path: Path) -> None:
    """rules.md §11: replays without a marker have no marker -> response, so a limit on it
    checks nothing; the gate then fails (exit 2) with one line naming the limit and the measure
    that does have values, and every output says it failed instead of passing quietly."""
    unmarked = [[TRUNCATED, TRUNCATED]], [[TRUNCATED]]
    old_runs = write_corpus(tmp_path / "old", *unmarked)
    new_runs = write_corpus(tmp_path / "new", *unmarked)
    old = tmp_path / "old.json"
    assert runner.invoke(app, ["report", str(old_runs), "-o", str(old), "-q"]).exit_code == 0
    limits = parse_thresholds(["p90=20%", "request_to_response.p90=20%"])
    comparison = compare(build_report([str(new_runs)], jobs=1), load_baseline(str(old)), limits)
    assert [limit.text for limit in comparison.unchecked] == ["p90=20%"]
    assert not comparison.passed
    assert comparison.unchecked_note(comparison.unchecked[0]) == (
        "p90=20% checked nothing: no group has marker → response p90 in both reports; "
        "request → response p90 has values (request_to_response.p90=20% checks it)"
    )
    elsewhere = tmp_path / "gamma.jsonl"  # a group the baseline does not have
    elsewhere.write_bytes(transcript("gamma-acp", "1", [TRUNCATED]).text())
    lone = compare(
        build_report([str(elsewhere)], jobs=1),
        load_baseline(str(old)),
        parse_thresholds(["request_to_response.p90=20%"]),
    )
    assert [lone.unchecked_note(limit) for limit in lone.unchecked] == [
        "request_to_response.p90=20% checked nothing: no group is in both reports"
    ]

    outputs = [tmp_path / name for name in ("new.json", "new.md", "new.html")]
    args = ["report", str(new_runs), "--baseline", str(old), "--max-regression", "p90=20%"]
    quiet = runner.invoke(app, [*args, "-q", *(f"-o{path}" for path in outputs)])
    assert quiet.exit_code == 2, quiet.output
    assert quiet.stdout == ""
    assert quiet.stderr.splitlines() == [
        "acptrace: error: --max-regression p90=20% checked nothing: no group has marker → "
        "response p90 in both reports; request → response p90 has values "
        "(request_to_response.p90=20% would check it)"
    ]
    verdict = json.loads(outputs[0].read_text())["comparison"]
    assert (verdict["unchecked"], verdict["passed"], verdict["regressions"]) == (
        ["p90=20%"],
        False,
        0,
    )
    markdown = outputs[1].read_text()
    assert markdown.splitlines()[1] == "## ❌ acptrace: 1 limit checked nothing"
    assert "❌ p90=20% checked nothing: no group has" in markdown
    page = outputs[2].read_text()
    assert '<p class="verdict fail">✗ p90=20% checked nothing' in page
    assert "verdict pass" not in page
    shown = runner.invoke(app, args, env={"COLUMNS": "200"})
    assert shown.exit_code == 2
    assert "p90=20% checked nothing: no group has marker → response p90" in shown.stdout
    assert "1 limit checked nothing." in shown.stdout
    assert "No regression beyond the limits." not in shown.stdout
    # the limit that can be checked passes again
    fixed = runner.invoke(app, [*args[:-1], "request_to_response.p90=20%", "-q", f"-o{outputs[0]}"])
    assert fixed.exit_code == 0, fixed.output
    assert json.loads(outputs[0].read_text())["comparison"]["passed"] is True


# -- grouping, errors, parallelism ------------------------------------------------------------


def test_grouping_by_version_client_file_and_directory(tmp_path: Path) -> None:
    write_corpus(tmp_path / "a", ALPHA_1[:1], [])
    write_corpus(tmp_path / "b", [], BETA_1)
    (tmp_path / "b" / "anon.jsonl").write_bytes(transcript(None, "", complete(1000)).text())
    args = [str(tmp_path)]
    names = {by: [g.name for g in build_report(args, by=by, jobs=1).groups] for by in GroupBy}
    assert names == {
        GroupBy.AGENT: ["alpha-acp", "beta-acp", "unknown"],
        GroupBy.AGENT_VERSION: ["alpha-acp 1.0", "beta-acp 2.0", "unknown"],
        GroupBy.CLIENT: ["zed", "unknown"],
        GroupBy.FILE: [
            str(tmp_path / "a" / "alpha-0.jsonl"),
            str(tmp_path / "b" / "anon.jsonl"),
            str(tmp_path / "b" / "beta-0.jsonl"),
        ],
        GroupBy.DIRECTORY: [str(tmp_path / "a"), str(tmp_path / "b")],
    }


def test_a_bad_file_is_reported_and_skipped(tmp_path: Path) -> None:
    write_corpus(tmp_path, ALPHA_1, [])
    (tmp_path / "broken.jsonl.gz").write_bytes(b"\x1f\x8b\x08\x00garbage-not-deflate")
    missing = str(tmp_path / "missing.jsonl")
    report = build_report([str(tmp_path), missing, str(tmp_path / "*.nothing")], jobs=2)
    assert [g.name for g in report.groups] == ["alpha-acp"]
    assert report.files == 2
    assert [(Path(e.path).name, e.message.split(":")[0]) for e in report.errors] == [
        ("*.nothing", "no file matches this pattern"),
        ("broken.jsonl.gz", "reading stopped after line 0"),
        ("missing.jsonl", "no such file"),
    ]
    result = runner.invoke(app, ["report", str(tmp_path), "-o", str(tmp_path / "r.json")])
    assert result.exit_code == 2
    assert "broken.jsonl.gz: reading stopped" in result.stderr
    written = json.loads((tmp_path / "r.json").read_text())
    assert written["files"] == {"analysed": 2, "failed": 1}
    assert written["errors"][0]["path"].endswith("broken.jsonl.gz")


def test_an_analysis_that_crashes_is_a_file_error(monkeypatch: pytest.MonkeyPatch) -> None:
    def explode(path: str, options: Options, **_: object) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr("acptrace.report.collect.open_walks", explode)
    assert analyze_one("x.jsonl", Options()) == FileError(
        "x.jsonl", "analysis failed: RuntimeError: boom"
    )


def test_parallel_and_serial_analysis_agree(release_1: Path) -> None:
    files = sorted(str(p) for p in release_1.iterdir())
    done: list[str] = []
    parallel = analyze_files(files, Options(), jobs=2, progress=lambda path, _: done.append(path))
    serial = analyze_files(files, Options(), jobs=1)
    assert parallel == serial
    assert [s.path for s in parallel.summaries] == files
    assert sorted(done) == files


def test_nothing_readable_writes_nothing_and_exits_2(tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    result = runner.invoke(app, ["report", str(tmp_path / "missing.jsonl"), "-o", str(out)])
    assert result.exit_code == 2
    assert "no transcript could be analysed" in result.stderr
    assert not out.exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["-o", "r.txt"], "-o r.txt: the suffix must be one of"),
        (["--max-regression", "p90=20%"], "--max-regression needs --baseline"),
        (["--input-format", "nope"], "unknown input format 'nope'"),
        (["--baseline", "missing.json"], "cannot read baseline missing.json"),
    ],
)
def test_usage_errors_exit_2_before_any_analysis(
    release_1: Path, args: list[str], message: str
) -> None:
    result = runner.invoke(app, ["report", str(release_1), *args])
    assert result.exit_code == 2
    assert message in result.stderr


def test_two_limits_on_one_measure_are_refused_before_any_analysis(
    release_1: Path, tmp_path: Path
) -> None:
    old = tmp_path / "old.json"
    runner.invoke(app, ["report", str(release_1), "-o", str(old), "-q"])
    limits = ["--max-regression", "p90=1%", "--max-regression", "marker_to_response.p90=5000%"]
    result = runner.invoke(app, ["report", str(release_1), "--baseline", str(old), *limits])
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [
        "acptrace: error: --max-regression 'marker_to_response.p90=5000%': a second limit on "
        "marker_to_response_ms.p90 (after 'p90=1%'): give one"
    ]
    assert result.stdout == ""


def test_a_baseline_grouped_otherwise_is_refused(release_1: Path, tmp_path: Path) -> None:
    old = tmp_path / "old.json"
    runner.invoke(app, ["report", str(release_1), "--by", "file", "-o", str(old), "-q"])
    result = runner.invoke(app, ["report", str(release_1), "--baseline", str(old)])
    assert result.exit_code == 2
    assert "groups by file, this report by agent: use --by file" in result.stderr


def test_a_baseline_of_schema_version_1_is_read_and_said_to_count_shares_otherwise(
    release_1: Path, tmp_path: Path
) -> None:
    old = tmp_path / "old.json"
    runner.invoke(app, ["report", str(release_1), "-o", str(old), "-q"])
    data = json.loads(old.read_text())
    data["schema_version"] = 1
    old.write_text(json.dumps(data))
    new = tmp_path / "new.json"
    args = ["report", str(release_1), "--baseline", str(old), "-q", "-o", str(new)]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert result.stderr.splitlines() == [
        f"acptrace: baseline {old} is report.json schema_version 1: its shares were counted "
        "over every replay, not over what owes them (rules.md §11); make it again with this "
        "acptrace to compare shares"
    ]
    same = runner.invoke(app, ["report", str(release_1), "--baseline", str(old.with_name("x"))])
    assert same.exit_code == 2  # (a baseline that cannot be read is still an error)


# -- outputs ----------------------------------------------------------------------------------


def test_outputs_by_suffix_and_the_terminal_summary(release_1: Path, tmp_path: Path) -> None:
    outs = [tmp_path / name for name in ("r.json", "r.md", "r.html")]
    args = ["report", str(release_1)] + [a for out in outs for a in ("-o", str(out))]
    result = runner.invoke(app, args, env={"COLUMNS": "120"})
    assert result.exit_code == 0, result.output
    assert "3 transcripts · 2 groups by agent" in result.stdout
    assert "alpha-acp" in result.stdout
    data = json.loads(outs[0].read_text())
    assert data["kind"] == "acptrace-report"
    assert data["schema_version"] == 2  # (rules.md §11: shares over what owes them, `refused`)
    assert outs[1].read_text().splitlines()[1] == "## acptrace latency report"
    assert outs[2].read_text().startswith("<!DOCTYPE html>")
    quiet = runner.invoke(app, ["report", str(release_1), "-q"])
    assert quiet.stdout == ""


def test_report_json_holds_the_documented_fields(release_1: Path) -> None:
    data = document(build_report([str(release_1)], jobs=1))
    assert list(data) == [
        "schema_version",
        "kind",
        "generator",
        "group_by",
        "percentile_method",
        "files",
        "groups",
        "errors",
        "comparison",
    ]
    alpha = data["groups"][0]
    assert list(alpha) == [
        "name",
        "connections",
        "issues",
        "resumes",
        "replaying",
        "expecting_marker",
        "loads",
        "headline",
        "outcomes",
        "load_outcomes",
        "rates",
        "child_outcomes",
        "findings",
        "findings_by_severity",
        "findings_detail",
        "metrics",
        "slowest",
        "incomplete",
        "incomplete_total",
        "idle_timers",
        "turns",
        "tool_calls",
        "permission_requests",
        "left_out",
        "tool_call_kinds",
        "slowest_first_output",
        "longest_turns",
        "slowest_tool_calls",
        "longest_permission_waits",
    ]
    assert list(alpha["metrics"]) == [m.value for m in Metric]
    assert alpha["metrics"]["marker_to_response_ms"] == {
        "count": 10,
        "min": 700.0,
        "p50": 1150.0,
        "p90": 1540.0,
        "p99": 1864.0,
        "max": 1900.0,
        "mean": 1180.0,
        "few_samples": True,
    }
    assert alpha["outcomes"]["truncated"] == 1
    assert alpha["rates"]["truncated"] == 1 / 11
    assert alpha["incomplete"][0]["line"] == 34
    assert data["percentile_method"] == "linear"


def test_gzipped_transcripts_and_globs_are_read(tmp_path: Path) -> None:
    write_corpus(tmp_path, [], BETA_1)
    plain = tmp_path / "beta-0.jsonl"
    (tmp_path / "beta-0.jsonl.gz").write_bytes(gzip.compress(plain.read_bytes()))
    plain.unlink()
    report = build_report([str(tmp_path / "*.gz")], jobs=1)
    assert [(g.name, g.connections, g.resumes) for g in report.groups] == [("beta-acp", 1, 7)]


def test_report_reads_the_rule_selection_from_flags_and_config(tmp_path: Path) -> None:
    t = transcript("gamma-acp", "1", complete(500))
    t.lines.pop()
    t.resume("sess_x", id=99, at_ms=GAP_MS * 3)
    t.result(99, at_ms=GAP_MS * 3 + 10)  # RC-MISSING and RC-NO-SNAPSHOT
    t.close(at_ms=GAP_MS * 4)
    (tmp_path / "g.jsonl").write_bytes(t.text())
    out = tmp_path / "r.json"
    result = runner.invoke(
        app, ["report", str(tmp_path / "g.jsonl"), "--ignore", "RC-NO", "-q", "-o", str(out)]
    )
    assert result.exit_code == 0, result.output
    assert "RC-NO-SNAPSHOT" not in out.read_text()
    assert "RC-MISSING" in out.read_text()
