"""A lone UTF-16 surrogate escape (`"Done \\ud83d"`: what JavaScript's `JSON.stringify` writes for a
string cut inside an emoji) is valid JSON by RFC 8259: the line is read, the surrogate replaced by
U+FFFD, and one `lone_surrogate` issue says so. It was `not_json`, and a resume's response lost
that way turned a complete replay into `complete_failed` with a false JR-UNANSWERED."""

from __future__ import annotations

import io
import json

import pytest

import acptrace
from acptrace.model.options import Execution
from acptrace.read.jsontext import JSONDecodeError, Mended, mend_surrogates, parsed
from tests.transcript import Transcript

LONE = "Done \\ud83d"
"""The JSON text of a string cut after an emoji's first half."""


def replayed_resume(note: str) -> Transcript:
    """A v2 resume replayed and marked, its success response carrying `note` (JSON text)."""
    t = Transcript()
    t.open()
    t.initialize()
    t.new_session()
    t.resume(id=3)
    t.history(count=20)  # (enough lines for the hot path)
    t.marker()
    t.result(3, {"_meta": {"note": "PLACEHOLDER"}})
    t.lines[-1] = t.lines[-1].replace(b'"PLACEHOLDER"', f'"{note}"'.encode())
    t.close()
    return t


@pytest.mark.parametrize("fast", [True, False])
def test_a_resume_response_with_a_lone_surrogate_stays_complete(fast: bool) -> None:
    t = replayed_resume(LONE)
    analysis = acptrace.analyze(io.BytesIO(t.text()), execution=Execution(fast=fast))
    assert [row.outcome for row in analysis.resumes] == ["complete"]
    plain = acptrace.analyze(io.BytesIO(replayed_resume("Done").text()))
    assert analysis.findings == plain.findings  # (no JR-UNANSWERED)
    response_line = len(t.lines) - 1
    assert [(i.line, i.kind) for i in analysis.issues] == [(response_line, "lone_surrogate")]
    assert "1 lone UTF-16 surrogate escape " in analysis.issues[0].message


def test_a_whole_pair_is_no_issue() -> None:
    analysis = acptrace.analyze(io.BytesIO(replayed_resume("Done \\ud83d\\ude00").text()))
    assert [row.outcome for row in analysis.resumes] == ["complete"]
    assert analysis.issues == ()


@pytest.mark.parametrize(
    ("text", "value", "count"),
    [
        (r'"a \ud83d"', "a \ufffd", 1),  # a high half at the end
        (r'"\ude00 x"', "\ufffd x", 1),  # a low half alone
        (r'"\ud83d\u0041"', "\ufffdA", 1),  # a high half before no low one
        (r'"\uD83D\uD83D\uDE00"', "\ufffd\U0001f600", 1),  # a lone half, then a pair
        (r'["\ud83d", "\udfff"]', ["\ufffd", "\ufffd"], 2),
        (r'"\\ud83d \\\ud83d"', "\\ud83d \\\ufffd", 1),  # escaped backslashes are no escape
    ],
)
def test_each_lone_surrogate_is_read_as_the_replacement_character(
    text: str, value: object, count: int
) -> None:
    assert json.loads(text)  # valid JSON, as RFC 8259 says
    result = parsed(7, text.encode())
    assert isinstance(result, Mended)
    assert (result.number, result.value) == (7, value)
    assert mend_surrogates(text.encode())[1] == count
    assert result.issue.line == 7


@pytest.mark.parametrize("text", [r'"\ud83d\ude00"', r'"\\ud83d"', r'{"a": 1}'])
def test_text_without_a_lone_surrogate_is_read_as_it_is(text: str) -> None:
    assert parsed(1, text.encode()) == (1, json.loads(text))


def test_text_that_is_broken_otherwise_stays_not_json() -> None:
    with pytest.raises(JSONDecodeError):
        parsed(1, rb'{"a": "\ud83d", ')  # a lone half and a cut-off object
    analysis = acptrace.analyze(io.BytesIO(replayed_resume('\\ud83d", ').text()))
    assert "not_json" in [issue.kind for issue in analysis.issues]
