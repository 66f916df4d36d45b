"""Schema conformance (rules.md §12): every request, response and notification type of both
ACP schemas, from examples made of the schemas' own definitions (tests/schema_examples.py),
and the three SCHEMA rules, each with a transcript that triggers it and one that must not."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from typer.testing import CliRunner

import acptrace
from acptrace.cli import app
from acptrace.decode.stream import read_records
from acptrace.judge.schema.catalogue import schema
from acptrace.judge.schema.compiler import INVALID, UNKNOWN, Break, Compiler
from acptrace.model.domain import Analysis, Direction, MessageKind, UpdateRun
from acptrace.model.options import Execution, Options, SchemaDepth
from acptrace.model.tags import TagPolicy
from acptrace.read.formats import ReadSettings
from acptrace.read.records import ReadStats
from acptrace.read.source import iter_blocks
from acptrace.report import build_report
from tests.schema_examples import example, first_required, message_types, valid
from tests.shared import REAL_WORLD
from tests.test_fastpath import padded
from tests.transcript import SESSION, Transcript, findings

TYPES = [(version, kind[0]) for version in (1, 2) for kind in message_types(version)]
"""(version, definition) of every request, response and notification type of both schemas."""
SCHEMA_ONLY: dict[str, Any] = {"select": ("SCHEMA-",), "schema_rules": True}
"""The schema rules alone (the examples break others: sessions nobody created, …)."""


def breaks_of(version: int, name: str, value: Any, part: str = "params") -> list[Break]:
    found: list[Break] = []
    schema(version).check(name)(value, part, found)
    return found


def oracle(version: int, name: str, value: Any) -> list[str]:
    """What the `jsonschema` package says of a value (the reference the checks are held to)."""
    document = {"$defs": dict(schema(version).defs), "$ref": f"#/$defs/{name}"}
    return [error.message for error in jsonschema.Draft202012Validator(document).iter_errors(value)]


def broken(version: int, name: str) -> tuple[Any, str]:
    """An invalid value of a definition, and the path (below its part) that names the break:
    its first required member left out, or (requiring none) not an object at all."""
    value = valid(version, name)
    member = first_required(schema(version), name)
    if member is None:
        return "not an object", ""
    return {k: v for k, v in value.items() if k != member}, f".{member}"


@pytest.mark.parametrize(("version", "name"), TYPES, ids=[f"v{v}-{n}" for v, n in TYPES])
def test_each_type_has_a_valid_example_both_checks_accept_and_a_broken_one_they_refuse(
    version: int, name: str
) -> None:
    value = valid(version, name)
    assert breaks_of(version, name, value) == []
    assert oracle(version, name, value) == []
    wrong, below = broken(version, name)
    found = breaks_of(version, name, wrong)
    assert {(b.kind, b.path) for b in found} == {(INVALID, "params" + below)}
    assert oracle(version, name, wrong)


def every_update_tag(version: int) -> list[Any]:
    union = schema(version).defs["SessionUpdate"]
    branches = union.get("anyOf") or union["oneOf"]
    return [example(version, branch) for branch in branches if "not" not in branch]


@pytest.mark.parametrize("version", [1, 2])
def test_every_update_tag_has_a_valid_example(version: int) -> None:
    updates = every_update_tag(version)
    assert len(updates) > 10
    for update in updates:
        assert breaks_of(version, "SessionUpdate", update, "params.update") == [], update
        assert oracle(version, "SessionUpdate", update) == [], update


# -- whole transcripts ----------------------------------------------------------------------


def connection(version: int) -> Transcript:
    """A connection that negotiates `version` with `initialize` messages valid in its schema."""
    t = Transcript()
    t.open()
    request = {**valid(version, "InitializeRequest"), "protocolVersion": version}
    result = {**valid(version, "InitializeResponse"), "protocolVersion": version}
    t.request("initialize", request, id=0)
    t.result(0, result)
    return t


def send(t: Transcript, version: int, kind: MessageKind, method: str, direction: Direction,
         part: Any, id: int) -> int:  # fmt: skip
    """One message of a type, with `part` as its params or result (a response after a valid
    request of its method)."""
    msg: dict[str, Any] = {"jsonrpc": "2.0", "method": method, "params": part}
    if kind is MessageKind.REQUEST:
        msg["id"] = id
    if kind is MessageKind.RESPONSE:
        asked = schema(version).calls.get((method, MessageKind.REQUEST, direction.opposite()))
        params = valid(version, asked) if asked else {}
        ask = {"jsonrpc": "2.0", "id": id, "method": method, "params": params}
        (t.c2a if direction is Direction.A2C else t.a2c)(ask)
        msg = {"jsonrpc": "2.0", "id": id, "result": part}
    return (t.c2a if direction is Direction.C2A else t.a2c)(msg)


SAID = re.compile(r"^(?P<label>.+?): (?P<path>\S+) breaks the ACP v\d schema")


def said(analysis: Analysis) -> set[tuple[str, str, str]]:
    """(rule, label, path) of each schema finding."""
    found = set()
    for finding in analysis.findings:
        match = SAID.match(finding.message)
        assert match is not None, finding.message
        found.add((finding.rule, match["label"], match["path"]))
    return found


@pytest.mark.parametrize("version", [1, 2])
def test_every_valid_example_passes_and_every_broken_one_is_reported_at_its_path(
    version: int,
) -> None:
    t, expected = connection(version), set()
    for number, (name, method, kind, direction) in enumerate(message_types(version)):
        if method == "initialize":
            continue  # (the connection's own: a broken one would change the version)
        part = "result" if kind is MessageKind.RESPONSE else "params"
        send(t, version, kind, method, direction, valid(version, name), 1000 + number)
        wrong, below = broken(version, name)
        send(t, version, kind, method, direction, wrong, 2000 + number)
        label = f"{method} (result)" if kind is MessageKind.RESPONSE else method
        if method == "session/update":
            label += f" {valid(version, name)['update']['sessionUpdate']}"
        expected.add(("SCHEMA-INVALID", label, part + below))
    for update in every_update_tag(version):
        t.notify("session/update", {"sessionId": SESSION, "update": update})
    assert len(expected) > 20
    assert said(t.analyze(schema="full", **SCHEMA_ONLY)) == expected


def test_initialize_is_checked_too() -> None:
    t = Transcript()
    t.request("initialize", {**valid(2, "InitializeRequest"), "protocolVersion": 2}, id=0)
    t.result(0, {"protocolVersion": 2, "info": {"name": "a"}})  # (no version in info)
    analysis = t.analyze(**SCHEMA_ONLY)
    assert said(analysis) == {("SCHEMA-INVALID", "initialize (result)", "result.info.version")}


# -- the rules --------------------------------------------------------------------------------


def v2() -> Transcript:
    return connection(2)


def tool_update(t: Transcript, status: Any) -> int:
    update = {"sessionUpdate": "tool_call_update", "toolCallId": "c1", "status": status}
    return t.notify("session/update", {"sessionId": SESSION, "update": update})


def test_schema_invalid_once_per_path_with_the_count_and_the_first_line() -> None:
    t = v2()
    first = t.request("session/prompt", {"sessionId": SESSION, "prompt": "hello"})
    t.request("session/prompt", {"sessionId": SESSION, "prompt": "again"})
    analysis = t.analyze(**SCHEMA_ONLY)
    assert findings(analysis) == [("SCHEMA-INVALID", "error", first)]
    assert analysis.findings[0].message == (
        "session/prompt: params.prompt breaks the ACP v2 schema: it wants type array, and "
        '"hello" (string) came (2 messages, the first here)'
    )


def test_schema_invalid_says_a_least_count_of_one_in_the_singular() -> None:
    # v2 `session/prompt` wants a non-empty `prompt` (minItems 1): "at least 1 items" read wrong
    t = v2()
    t.request("session/prompt", {"sessionId": SESSION, "prompt": []})
    (finding,) = t.analyze(**SCHEMA_ONLY).findings
    assert finding.message == (
        "session/prompt: params.prompt breaks the ACP v2 schema: it wants at least 1 item, and "
        "0 came"
    )


def test_schema_invalid_names_the_branch_of_a_tagged_union() -> None:
    t = v2()
    update = {"sessionUpdate": "agent_message_chunk", "messageId": "m",
              "content": {"type": "text", "text": 5}}  # fmt: skip
    line = t.notify("session/update", {"sessionId": SESSION, "update": update})
    (finding,) = t.analyze(**SCHEMA_ONLY).findings
    assert (finding.line, finding.session_id) == (line, SESSION)
    assert finding.message.startswith(
        "session/update agent_message_chunk: params.update.content.text breaks the ACP v2 "
        "schema: it wants type string, and 5 came"
    )


def test_schema_invalid_not_for_open_enums_extensions_and_meta() -> None:
    t = v2()
    tool_update(t, "a_future_status")  # (v2 leaves the status open)
    t.request("_zed/anything", {"whatever": 1})
    t.request("session/prompt", {"sessionId": SESSION, "prompt": [{"type": "text", "text": "a"}],
                                 "_meta": {"prompt": 5}})  # fmt: skip
    update = {"sessionUpdate": "replay_complete"}  # (known on v2, as the spec's README says)
    t.notify("session/update", {"sessionId": SESSION, "update": update})
    assert findings(t.analyze(**SCHEMA_ONLY)) == []


def test_schema_invalid_closed_enum_on_v1() -> None:
    t = connection(1)
    line = tool_update(t, "a_future_status")
    (finding,) = t.analyze(**SCHEMA_ONLY).findings
    assert finding.line == line
    assert "params.update.status breaks the ACP v1 schema: it wants one of " in finding.message


def test_schema_invalid_response_by_the_method_it_answers() -> None:
    t = v2()
    t.request("session/new", {"cwd": "/", "mcpServers": []}, id=7)
    line = t.result(7, {"sessionId": 42})
    (finding,) = t.analyze(**SCHEMA_ONLY).findings
    assert (finding.rule, finding.line, finding.request_id) == ("SCHEMA-INVALID", line, 7)
    assert finding.message.startswith("session/new (result): result.sessionId breaks")


def test_a_response_without_a_result_leaves_the_next_one_checked() -> None:
    t = v2()
    t.request("session/new", {"cwd": "/", "mcpServers": []}, id=6)
    t.a2c({"jsonrpc": "2.0", "id": 6, "error": None})  # (neither a result nor an error)
    t.request("session/new", {"cwd": "/", "mcpServers": []}, id=7)
    line = t.result(7, {"sessionId": 42})
    assert [(f.rule, f.line) for f in t.analyze(**SCHEMA_ONLY).findings] == [
        ("SCHEMA-INVALID", line)
    ]


def test_the_default_checks_each_update_tag_once_and_full_every_update() -> None:
    t = v2()
    first = tool_update(t, 1)
    for _ in range(5):
        tool_update(t, 2)
    default = t.analyze(**SCHEMA_ONLY)
    assert findings(default) == [("SCHEMA-INVALID", "error", first)]
    assert "messages" not in default.findings[0].message
    full = t.analyze(schema="full", **SCHEMA_ONLY)
    assert findings(full) == [("SCHEMA-INVALID", "error", first)]
    assert full.findings[0].message.endswith("(6 messages, the first here)")


def test_schema_unknown_member_where_the_schema_closes_the_object() -> None:
    # the ACP schemas close no object (2.4.0): the check is held to a schema that does
    closed = {"type": "object", "properties": {"a": {}}, "additionalProperties": False}
    found: list[Break] = []
    Compiler({}).compile(closed)({"a": 1, "b": 2, "_ext": 3}, "params", found)
    assert [(b.kind, b.path) for b in found] == [(UNKNOWN, "params.b")]


def test_schema_unknown_member_rule_is_a_note_and_not_for_open_objects() -> None:
    t = v2()
    t.request("session/prompt", {"sessionId": SESSION, "prompt": [], "extra": 1})
    assert "SCHEMA-UNKNOWN-MEMBER" not in {f.rule for f in t.analyze(**SCHEMA_ONLY).findings}


def fast_agent_initialize(version: int) -> tuple[Transcript, int]:
    """fast-agent-mcp 0.10.48's answer to a v2 Client: `protocolVersion` as asked, the rest v1."""
    t = Transcript()
    t.open()
    t.request("initialize", {**valid(version, "InitializeRequest"), "protocolVersion": version},
              id=0)  # fmt: skip
    line = t.result(0, {"protocolVersion": version, "agentCapabilities": {"loadSession": True},
                        "agentInfo": {"name": "fast-agent", "version": "0.10.48"}})  # fmt: skip
    return t, line


def test_schema_version_shape_v1_result_on_a_v2_connection() -> None:
    t, line = fast_agent_initialize(2)
    analysis = t.analyze(**SCHEMA_ONLY)
    assert findings(analysis) == [("SCHEMA-VERSION-SHAPE", "error", line)]
    assert analysis.findings[0].message == (
        "initialize (result) is shaped for ACP v1 on a v2 connection: it carries "
        "agentCapabilities, agentInfo, which only v1 defines, and meets the v1 schema; v2 "
        "wants a required member at result.info, and nothing came"
    )


def test_schema_version_shape_once_per_method() -> None:
    t, line = fast_agent_initialize(2)
    t.request("session/prompt", {"sessionId": SESSION, "prompt": [{"type": "text", "text": "a"}]},
              id=5)  # fmt: skip
    prompt = t.result(5, {"stopReason": "end_turn"})
    t.request("session/prompt", {"sessionId": SESSION, "prompt": [{"type": "text", "text": "b"}]},
              id=6)  # fmt: skip
    t.result(6, {"stopReason": "end_turn"})
    assert findings(t.analyze(**SCHEMA_ONLY)) == [
        ("SCHEMA-VERSION-SHAPE", "error", line),
        ("SCHEMA-VERSION-SHAPE", "error", prompt),
    ]


def test_schema_version_shape_not_for_the_version_it_is_shaped_for() -> None:
    t, _ = fast_agent_initialize(1)
    assert findings(t.analyze(**SCHEMA_ONLY)) == []


def test_schema_version_shape_not_where_nothing_shows_the_version() -> None:
    t = Transcript()
    t.request("session/prompt", {"sessionId": SESSION, "prompt": [{"type": "text", "text": "a"}]},
              id=5)  # fmt: skip
    t.result(5, {"stopReason": "end_turn"})  # (v1-shaped; v2 only as the inference's default)
    analysis = t.analyze(**SCHEMA_ONLY)
    assert not analysis.connection.protocol_shown
    assert findings(analysis) == []


def test_a_message_before_initialize_is_judged_by_the_version_negotiated_later() -> None:
    t = Transcript()
    line = tool_update(t, "a_future_status")  # (open on v2, closed on v1)
    t.request("initialize", {"protocolVersion": 1, "clientCapabilities": {}}, id=0)
    t.result(0, {"protocolVersion": 1})
    assert findings(t.analyze(**SCHEMA_ONLY)) == [("SCHEMA-INVALID", "error", line)]


def test_no_schema_rule_wanted_checks_nothing() -> None:
    t, _ = fast_agent_initialize(2)
    assert t.analyze(schema_rules=True, ignore=("SCHEMA-",)).findings == ()


# -- everywhere findings go ---------------------------------------------------------------------


@pytest.fixture
def broken_file(tmp_path: Path) -> str:
    """A v2 connection whose Agent answers `initialize` v1-shaped and a prompt with a string."""
    t, _ = fast_agent_initialize(2)
    t.request("session/prompt", {"sessionId": SESSION, "prompt": "hello"}, id=4)
    path = tmp_path / "agent.jsonl"
    path.write_bytes(t.text())
    return str(path)


def cli(*args: str) -> str:
    result = CliRunner().invoke(app, [*args, "--no-config", "--select", "SCHEMA-"])
    assert result.exit_code in (0, 1), result.output
    return result.stdout


def test_schema_findings_reach_every_output_format(broken_file: str) -> None:
    sarif = json.loads(cli("analyze", broken_file, "-f", "sarif"))
    run = sarif["runs"][0]
    messages = {r["ruleId"]: r["message"]["text"] for r in run["results"]}
    assert set(messages) == {"SCHEMA-VERSION-SHAPE", "SCHEMA-INVALID"}
    assert "params.prompt" in messages["SCHEMA-INVALID"]  # (the JSON path in the message)
    described = {rule["id"] for rule in run["tool"]["driver"]["rules"]}
    assert {"SCHEMA-INVALID", "SCHEMA-UNKNOWN-MEMBER", "SCHEMA-VERSION-SHAPE"} <= described
    junit = cli("analyze", broken_file, "-f", "junit")
    assert "SCHEMA-INVALID" in junit
    assert "params.prompt" in junit
    github = cli("analyze", broken_file, "-f", "github").splitlines()
    assert [line.split("title=")[1].split(" ")[0] for line in github] == [
        "SCHEMA-VERSION-SHAPE",
        "SCHEMA-INVALID",
    ]
    terminal = cli("analyze", broken_file)
    assert "SCHEMA-INVALID" in terminal
    document = json.loads(cli("analyze", broken_file, "-f", "json"))
    assert [f["rule"] for f in document["findings"]] == ["SCHEMA-VERSION-SHAPE", "SCHEMA-INVALID"]
    assert "SCHEMA-INVALID" in cli("analyze", broken_file, "-f", "markdown")


def test_the_report_counts_schema_findings_per_agent(broken_file: str) -> None:
    report = build_report([broken_file], Options(select=("SCHEMA-",)), jobs=1)
    (group,) = report.groups
    assert group.name == "fast-agent"
    assert {(c.rule, c.count) for c in group.findings} == {
        ("SCHEMA-VERSION-SHAPE", 1),
        ("SCHEMA-INVALID", 1),
    }


def test_the_rules_command_lists_the_schema_rules() -> None:
    listed = CliRunner().invoke(app, ["rules"]).stdout
    for rule in ("SCHEMA-INVALID", "SCHEMA-UNKNOWN-MEMBER", "SCHEMA-VERSION-SHAPE"):
        assert rule in listed


# -- the real recordings ------------------------------------------------------------------------

JUDGED = {
    # the spec's own examples lag its schema: `null` where v1 wants an object, a v2 prompt
    # answered without the messageId v2 requires
    ("acp-spec-docs__v1-load-replay-transcript.jsonl", "session/load (result)", "result"),
    ("acp-spec-docs__v1-session-setup.jsonl", "session/load (result)", "result"),
    ("acp-spec-docs__v2-prompt-lifecycle.jsonl", "session/prompt (result)", "result.messageId"),
    # a Client that sends its prompt as a string, and a session/new without mcpServers (v1)
    ("acplazybridge__invalid_params.jsonl", "session/prompt", "params.prompt"),
    ("acplazybridge__prompt_and_cancel.jsonl", "session/new", "params.mcpServers"),
    ("acplazybridge__prompt_and_cancel.jsonl", "session/prompt", "params.prompt"),
    ("acplazybridge__tool_calls.jsonl", "session/prompt", "params.prompt"),
    # the Python SDK's echo Agent on v2: an initialize result without info, v1 prompt results
    *(
        (f"agents-2026-12/pysdk-echo-v2/0{n}-{kind}.jsonl", "initialize (result)", "result.info")
        for n, kind in enumerate(("new", "replay", "replay", "replay"))
    ),
    ("agents-2026-12/pysdk-echo-v2/00-new.jsonl", "session/prompt (result)", "result.messageId"),
    ("agents-2026-12/pysdk_example_agent_v1_load.jsonl", "session/list (result)", "result"),
    # the TS SDK's own dual-version example answers a v2 prompt with null
    (
        "agents-2026-12b/ts-sdk-2.4.0-dual-version-example_v2_live.jsonl",
        "session/prompt (result)",
        "result",
    ),
    # MCP over ACP (`type: acp`), which the v1 schema does not have
    ("rust-sdk-conductor__trace_mcp_tool_call.jsons.jsonl", "session/new", "params.mcpServers[]"),
}
"""Every schema finding on ../shared/real-world, each judged a real break (the issue's notes)."""

FULL_ONLY = {("acp-inspector-fsharp__demo-session.jsonl", "session/update tool_call",
              "params.update.kind")}  # fmt: skip
"""Found by `--schema full` only: a v1 tool_call of kind `write` after a valid tool_call."""

WHERE = re.compile(r"^(?P<label>.+?)(?:: (?P<path>\S+) breaks| is shaped for .* at (?P<at>\S+),)")


@pytest.mark.shared
@pytest.mark.parametrize("depth", ["default", "full"])
def test_the_real_recordings_break_the_schema_where_judged(depth: str) -> None:
    found = set()
    for path in sorted(REAL_WORLD.rglob("*.json*")):
        options = Options(select=("SCHEMA-",), schema=SchemaDepth(depth))
        for analysis in acptrace.analyze_file(path, options):
            for finding in analysis.findings:
                match = WHERE.match(finding.message)
                assert match is not None, finding.message
                where = match["path"] or match["at"]
                found.add((str(path.relative_to(REAL_WORLD)), match["label"], where))
    assert found == (JUDGED | FULL_ONLY if depth == "full" else JUDGED)


def test_full_checks_every_update_of_a_run_each_at_its_own_line() -> None:
    """`--schema full` reads every line of a run of updates, whatever their tags, each as the
    message of its own line (the first break's line is the first broken update's)."""
    t = v2()
    broken = []
    for _ in range(3):
        t.update("agent_message_chunk", content={"type": "text", "text": "hi"})
        broken.append(tool_update(t, 2))
    t.update("agent_message_chunk", content={"type": "text", "text": "bye"})
    assert findings(t.analyze(**SCHEMA_ONLY)) == [("SCHEMA-INVALID", "error", broken[0])]
    full = t.analyze(schema="full", **SCHEMA_ONLY)
    assert findings(full) == [("SCHEMA-INVALID", "error", broken[0])]
    assert full.findings[0].message.endswith("(3 messages, the first here)")


def test_an_update_sampled_in_a_run_with_a_long_integer_is_an_issue_not_a_crash() -> None:
    t = padded()
    t.initialize()
    t.new_session()
    t.update("agent_message_chunk")
    odd = t.update("agent_thought_chunk")  # (inside the run, the first of its tag: sampled)
    t.update("agent_message_chunk")
    t.lines[odd - 1] = t.lines[odd - 1].replace(
        b'"sessionUpdate"', b'"_meta":9' + b"9" * 5000 + b',"sessionUpdate"', 1
    )
    general = acptrace.analyze(io.BytesIO(t.text()), execution=Execution(fast=False))
    assert [(issue.line, issue.kind.value) for issue in general.issues] == [(odd, "not_json")]
    hot = acptrace.analyze(io.BytesIO(t.text()))
    assert [(issue.line, issue.kind.value) for issue in hot.issues] == [(odd, "not_json")]


@pytest.mark.parametrize("depth", [SchemaDepth.DEFAULT, SchemaDepth.FULL])
def test_a_run_s_sampled_updates_carry_the_tag_the_run_loop_read(depth: SchemaDepth) -> None:
    # (the check leaves an update of a tag it checked before unparsed: a split file's pieces
    # each keep the first update of each tag they hold; its tag is the one decoded, escapes
    # and all, not one read again from the line; under `full` every update is kept, unread)
    t = padded()  # (the hot path reads the lines after those that settle the format)
    t.initialize()
    t.new_session()
    t.update("agent_message_chunk")
    tool = tool_update(t, "pending")
    tool_update(t, "completed")  # (a tag sampled before: not again)
    update = {"sessionUpdate": "tool_call", "toolCallId": "c2", "title": "ls", "kind": "read"}
    escaped = t.notify("session/update", {"sessionId": SESSION, "update": update})
    t.lines[escaped - 1] = t.lines[escaped - 1].replace(b'"tool_call"', b'"tool\\u005fcall"')
    t.update("plan", entries=[])
    stats, settings = ReadStats(), ReadSettings(runs_for=TagPolicy(), sampled=depth)
    reads = read_records(iter_blocks(io.BytesIO(t.text())), stats, settings=settings)
    runs = [read for read in reads if isinstance(read, UpdateRun)]
    assert len(runs) == 1
    sampled = runs[0].sampled
    assert [line for line, _, _ in sampled] == (
        list(range(runs[0].first.line, escaped + 2))
        if depth is SchemaDepth.FULL
        else [runs[0].first.line, tool, escaped, escaped + 1]
    )
    for line, tag, data in sampled:
        assert data == t.lines[line - 1] + b"\n"
        decoded = json.loads(data)["msg"]["params"]["update"]["sessionUpdate"]
        assert tag == (None if depth is SchemaDepth.FULL else decoded)


@pytest.mark.parametrize(
    "execution",
    [
        Execution(),
        Execution(fast=False),
        Execution(split=2, split_min_bytes=1, split_piece_bytes=300),
    ],
    ids=["hot-path", "general-path", "split"],
)
def test_an_unknown_tag_inside_a_run_is_checked_on_every_path(execution: Execution) -> None:
    # (a fuzz test found the run loop counting it silently: SCHEMA-INVALID on the general path
    # only; an unknown tag now joins no run, and the check reads each, as one message; the v1
    # schema closes the tags, v2's leaves them open)
    t = padded()
    t.initialize(1)
    t.new_session()
    for _ in range(20):
        t.update("agent_message_chunk")
    odd = t.update("ageont_message_chunk")
    for _ in range(5):
        t.update("agent_message_chunk")
    analysis = acptrace.analyze(io.BytesIO(t.text()), execution=execution)
    tags = [f.line for f in analysis.findings if "params.update.sessionUpdate" in f.message]
    assert tags == [odd]
