"""rules.md §10: a payload the input cut off is not the Agent's fault.

A message whose text an acp-tck report cut (`...[truncated N byte(s)]...`, issue
`truncated_payload`) takes part in no JR rule unless its method, id and result/error survived
the cut; where it cannot be read it is a lost message for the §9 demotions. JR-INVALID is never
reported for a cut message. Each decision: a report that triggers it and one that must not.
"""

from __future__ import annotations

import io
from typing import Any

import orjson
from typer.testing import CliRunner

import acptrace
from acptrace.cli import app
from acptrace.model.domain import Analysis
from tests.test_connections import (
    EXCHANGE,
    HISTORY,
    MARKER,
    RESUME,
    RESUME_OK,
    STATE,
    entries,
    report,
    tck_test,
)
from tests.transcript import NO_SCHEMA, findings


def cut(message: dict[str, Any] | str, keep: int) -> str:
    """The message's text cut after `keep` characters, the way acp-tck reports cut it."""
    text = message if isinstance(message, str) else orjson.dumps(message).decode()
    return text[:keep] + f"...[truncated {len(text) - keep} byte(s)]..."


def analysed(messages: list[tuple[str, Any]]) -> Analysis:
    (analysis,) = acptrace.analyze_file(io.BytesIO(tck(messages)), NO_SCHEMA)
    return analysis


def tck(messages: list[tuple[str, Any]]) -> bytes:
    return report(("ACP-R", [tck_test("t.py::test_cut", entries(messages))]))


def line_of(analysis: Analysis, kind: str = "truncated_payload") -> int:
    return next(i.line for i in analysis.issues if i.kind == kind)


# -- JR-INVALID is never reported for a cut message ----------------------------------------------

PROMPT_TEXT = [{"type": "text", "text": "x" * 60}]
OLD_JSONRPC = {"jsonrpc": "1.0", "id": 7, "method": "session/prompt",
               "params": {"sessionId": "s1", "prompt": PROMPT_TEXT}}  # fmt: skip


def test_jr_invalid_not_for_a_cut_message() -> None:
    analysis = analysed([*EXCHANGE, ("c2a", cut(OLD_JSONRPC, 100)), ("a2c", RESUME_OK | {"id": 7})])
    assert "JR-INVALID" not in {f.rule for f in analysis.findings}
    assert analysis.source.messages == 6  # (the cut request is read: method and id survived)


def test_jr_invalid_for_the_same_message_uncut() -> None:
    analysis = analysed([*EXCHANGE, ("c2a", OLD_JSONRPC), ("a2c", RESUME_OK | {"id": 7})])
    assert "JR-INVALID" in {f.rule for f in analysis.findings}


def test_a_value_the_cut_went_through_is_not_read_as_written() -> None:
    # `"jsonrpc":"2.` closed would read as "2.", a JR-INVALID the report made up.
    analysis = analysed([*EXCHANGE, ("a2c", '{"jsonrpc":"2.' + "...[truncated 99 byte(s)]...")])
    assert findings(analysis) == []


# -- a cut message whose JSON-RPC envelope did not survive is lost --------------------------------

PROMPT_ID_LAST = ('{"jsonrpc":"2.0","method":"session/prompt","params":{"sessionId":"s1",'
                  '"prompt":[{"type":"text","text":"' + "y" * 60 + '"}]},"id":7}')  # fmt: skip


def test_a_cut_request_that_lost_its_id_is_lost_and_its_response_no_error() -> None:
    # codex-acp writes `id` last: the cut took it, so the Agent's answer pairs with nothing
    # the report kept. The orphan rests on what the report lost: a warning, not an error.
    messages = [*EXCHANGE, ("c2a", cut(PROMPT_ID_LAST, 80)), ("a2c", RESUME_OK | {"id": 7})]
    analysis = analysed(messages)
    assert analysis.source.messages == 5
    ((rule, severity, _),) = findings(analysis)
    assert (rule, severity) == ("JR-ORPHAN-RESPONSE", "warning")
    assert f"a cut payload at line {line_of(analysis)} could not be read" in (
        analysis.findings[0].message
    )
    result = CliRunner().invoke(
        app, ["analyze", "-", "-f", "json", "--ignore", "SCHEMA-"], input=tck(messages)
    )
    assert result.exit_code == 0, result.output  # (the exit code follows the demotion)


def test_a_cut_request_that_kept_method_and_id_is_paired() -> None:
    analysis = analysed([*EXCHANGE, ("c2a", cut(OLD_JSONRPC | {"jsonrpc": "2.0"}, 100)),
                         ("a2c", RESUME_OK | {"id": 7})])  # fmt: skip
    assert findings(analysis) == []


def test_a_marker_whose_method_was_cut_is_lost_and_rc_missing_is_demoted() -> None:
    marker = orjson.dumps(MARKER).decode()
    at = marker.index("session/update") + len("session/up")
    messages = [*EXCHANGE, ("c2a", RESUME), ("a2c", cut(marker, at)), ("a2c", STATE),
                ("a2c", RESUME_OK)]  # fmt: skip
    analysis = analysed(messages)
    assert [(f.rule, f.severity.value) for f in analysis.findings] == [("RC-MISSING", "warning")]
    assert "could not be read" in analysis.findings[0].message
    assert {i.kind for i in analysis.issues} == {"truncated_payload"}  # no method "session/up"
    result = CliRunner().invoke(app, ["analyze", "-", "--ignore", "SCHEMA-"], input=tck(messages))
    assert result.exit_code == 0, result.output


def test_rc_missing_stays_an_error_when_the_cut_update_was_read() -> None:
    history = orjson.dumps(HISTORY).decode()
    messages = [*EXCHANGE, ("c2a", RESUME), ("a2c", cut(history, len(history) - 25)),
                ("a2c", STATE), ("a2c", RESUME_OK)]  # fmt: skip
    analysis = analysed(messages)
    assert [(f.rule, f.severity.value) for f in analysis.findings] == [("RC-MISSING", "error")]
    assert [r.replayed_updates for r in analysis.resumes] == [2]


def test_a_cut_response_that_lost_its_result_is_lost() -> None:
    answer = '{"jsonrpc":"2.0","id":2,"result":{"modes":"' + "z" * 40 + '"}}'
    messages = [*EXCHANGE, ("c2a", RESUME), ("a2c", MARKER), ("a2c", STATE),
                ("a2c", cut(answer, len('{"jsonrpc":"2.0","id":2,"res')))]  # fmt: skip
    analysis = analysed(messages)
    assert [(f.rule, f.severity.value) for f in analysis.findings] == [("JR-UNANSWERED", "note")]
    assert [r.outcome.value for r in analysis.resumes] == ["complete_failed"]


def test_an_update_whose_tag_was_cut_is_lost_it_may_have_been_the_marker() -> None:
    marker = orjson.dumps(MARKER).decode()
    at = marker.index("replay_complete") + len("replay_")
    messages = [*EXCHANGE, ("c2a", RESUME), ("a2c", cut(marker, at)), ("a2c", STATE),
                ("a2c", RESUME_OK)]  # fmt: skip
    analysis = analysed(messages)
    assert [(f.rule, f.severity.value) for f in analysis.findings] == [("RC-MISSING", "warning")]
    assert analysis.source.messages == 7


CANCEL = {"jsonrpc": "2.0", "method": "session/cancel",
          "params": {"sessionId": "s1", "reason": "z" * 60}}  # fmt: skip


def test_a_cut_notification_of_a_notification_only_method_is_read_and_loses_nothing() -> None:
    # `session/cancel` is only ever a notification: no `id` can have been cut off, so what is
    # left of it is a message, and the unanswered resume after it stays a warning.
    text = orjson.dumps(CANCEL).decode()
    analysis = analysed([*EXCHANGE, ("c2a", cut(text, text.index("reason"))), ("c2a", RESUME)])
    assert analysis.source.messages == 6
    assert [(f.rule, f.severity.value) for f in analysis.findings] == [("JR-UNANSWERED", "warning")]
    assert "demoted" not in analysis.findings[0].message


def test_the_same_cut_of_a_method_that_may_carry_an_id_is_lost() -> None:
    prompt = orjson.dumps(CANCEL | {"method": "session/prompt"}).decode()
    analysis = analysed([*EXCHANGE, ("c2a", cut(prompt, prompt.index("reason"))), ("c2a", RESUME)])
    assert analysis.source.messages == 5
    assert [(f.rule, f.severity.value) for f in analysis.findings] == [("JR-UNANSWERED", "note")]


# -- rules.md §11: a cut so early that not even the method survived is a lost message too ------


def test_a_payload_cut_before_its_method_is_lost_in_a_one_line_report() -> None:
    # The outside audit's case: a cut right after `{"jsonrpc":"2.0","met` inside a resume
    # window, in a report written on one line (every entry on line 1: a line that holds other
    # messages did not make the lost one count).
    marker = orjson.dumps(MARKER).decode()
    at = len('{"jsonrpc":"2.0","met')
    messages = [*EXCHANGE, ("c2a", RESUME), ("a2c", cut(marker, at)), ("a2c", STATE),
                ("a2c", RESUME_OK)]  # fmt: skip
    one_line = orjson.dumps(orjson.loads(tck(messages))) + b"\n"
    (analysis,) = acptrace.analyze_file(io.BytesIO(one_line), NO_SCHEMA)
    assert [(f.rule, f.severity.value) for f in analysis.findings] == [("RC-MISSING", "warning")]
    assert "a cut payload at line 1 could not be read" in analysis.findings[0].message


def test_a_payload_cut_to_nothing_readable_is_lost() -> None:
    messages = [*EXCHANGE, ("c2a", RESUME), ("a2c", cut(orjson.dumps(MARKER).decode(), 3)),
                ("a2c", STATE), ("a2c", RESUME_OK)]  # fmt: skip
    analysis = analysed(messages)
    assert [(f.rule, f.severity.value) for f in analysis.findings] == [("RC-MISSING", "warning")]
