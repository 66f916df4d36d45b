"""gitleaks' rule set, vendored (issue #39.1): its RE2 patterns said exactly in Python's `re`,
applied as gitleaks applies them, and every rule left out named in docs/redaction.md."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from acptrace.record.gitleaks.rules import GITLEAKS_VERSION, entropy, rule_set
from acptrace.record.gitleaks.translate import Untranslatable, compiled, translated
from acptrace.record.redact import RedactionPolicy, redact_message, redact_string
from acptrace.record.spans import Reading

ROOT = Path(__file__).resolve().parent.parent
POLICY = RedactionPolicy.build()


@pytest.mark.parametrize(
    ("re2", "python"),
    [
        (r"\b((?i)dop_v1_[a-f0-9]{64})", r"\b((?i:dop_v1_[a-f0-9]{64}))"),  # flags mid-pattern
        (r"(?i)abc$", r"(?i:abc\Z)"),  # `$` is the end of the text, `(?i)` for the rest
        (r"a\z", r"a\Z"),
        (r"a\sb[\s'\x60]", "a[\\t\\n\\f\\r ]b[\\t\\n\\f\\r '\\x60]"),  # RE2's \s has no \v
        (r"(?<name>x)", r"(?P<name>x)"),
        (r"[a|b&&c~~d[e]", r"[a\|b\&\&c\~\~d\[e]"),  # Python's set operations, one day
        (r"pat[[:alnum:]]{14}", r"pat[0-9A-Za-z]{14}"),
        (r"x[\S]{3}", "x[^\\t\\n\\f\\r ]{3}"),
        (r"[\s\S-]{2}", "(?:[^\\t\\n\\f\\r ]|[\\t\\n\\f\\r -]){2}"),
        (r"[$]x(?-i:A)", r"[$]x(?-i:A)"),
    ],
)
def test_re2_patterns_are_said_the_same_in_python(re2: str, python: str) -> None:
    assert translated(re2) == python
    compiled(re2)


@pytest.mark.parametrize(
    "re2", [r"\p{L}+", r"\Qa.b\E", r"a{,3}", r"(?m)^a$", r"[^\S]", r"[[:punct:]]", r"\1"]
)
def test_what_python_cannot_say_exactly_is_refused(re2: str) -> None:
    with pytest.raises(Untranslatable):
        compiled(re2)


def test_dollar_is_the_end_of_the_text_not_before_a_last_newline() -> None:
    pattern = compiled(r"key=(\w+)$")
    assert pattern.search("key=abc\n") is None  # (Python's `$` matched here; RE2's does not)
    assert pattern.search("key=abc") is not None


def test_the_rules_left_out_are_those_docs_redaction_md_lists() -> None:
    docs = (ROOT / "docs" / "redaction.md").read_text(encoding="utf-8")
    section = docs.split("### gitleaks' rules left out", 1)[1].split("\n## ", 1)[0]
    listed = set(re.findall(r"^\| `([\w-]+)` \|", section, re.MULTILINE))
    assert listed == set(rule_set().dropped)
    assert len(rule_set().kept) + len(rule_set().dropped) == 222
    assert GITLEAKS_VERSION.split()[0] in docs


TOKENS = {
    "notion-api-token": "ntn_12345678901" + "aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1dE3fG",
    "pulumi-api-token": "pul-" + "0f3a9b2c7d1e8f4a6b5c3d2e1f0a9b8c7d6e5f4a",
    "doppler-api-token": "dp.pt." + "k3j5h7g9f1d3s5a7q9w1e3r5t7y9u1i3o5p7l9k1m3n",
    "postman-api-token": "PMAK-" + "0a1b2c3d4e5f6a7b8c9d0e1f-a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8",
    "sentry-user-token": "sntryu_"
    + "3f9a1c7e5b2d8f4a6c0e9b1d7f3a5c8e2b4d6f0a9c1e7b3d5f8a2c4e6b0d9f1a",
}


@pytest.mark.parametrize(("rule", "token"), sorted(TOKENS.items()))
def test_a_format_only_gitleaks_knows_is_redacted_in_a_file(rule: str, token: str) -> None:
    """Tokens of services redaction's own shapes do not know, in a string of several lines
    (what files and terminal output are), under a name that is not secret-like."""
    assert rule in {r.id for r in rule_set().kept}
    text = f"deploy log\n12:00 using {token} for the sync\n"
    redacted, count = redact_string(text, POLICY, Reading.LINES)
    assert token not in redacted, redacted
    assert count == 1
    before, _ = redact_string(text, RedactionPolicy.build(defaults=False), Reading.LINES)
    assert token in before  # (nothing else would have caught it)


def test_gitleaks_rules_apply_to_strings_of_several_lines_only() -> None:
    """One-line values and streamed messages get redaction's own shapes: gitleaks' rules are
    written for files, and searching every short string for 200 more keywords would cost
    more than the shapes do (docs/redaction.md, Speed)."""
    token = TOKENS["pulumi-api-token"]
    redacted, _ = redact_message({"params": {"note": f"using {token} now"}}, POLICY)
    assert token in redacted["params"]["note"]
    redacted, _ = redact_message({"params": {"note": f"log\nusing {token} now\n"}}, POLICY)
    assert token not in redacted["params"]["note"]


def test_a_secret_of_low_entropy_is_left_as_gitleaks_leaves_it() -> None:
    """`pulumi-api-token` asks for entropy above 2: forty zeros are a placeholder."""
    low = "pul-" + "0" * 40
    assert entropy(low[4:]) == 0.0
    redacted, count = redact_string(f"a\nusing {low} now\n", POLICY, Reading.LINES)
    assert low in redacted
    assert count == 0


def test_the_global_allowlist_keeps_what_gitleaks_keeps() -> None:
    """gitleaks' global stop words: the alphabet is an example, not a secret."""
    text = "a\nsk_test_abcdefghijklmnopqrstuvwxyz\n"
    rules = {rule.id: rule for rule in rule_set().kept}
    stripe = rules["stripe-access-token"]
    assert [*stripe.spans(text, [text.index("sk_test_")])] == []
    text = "a\nsk_test_Qw3rTy9Uk2Lm5Np8Zx4C\n"
    assert [*stripe.spans(text, [text.index("sk_test_")])] == [(2, len(text) - 1)]


def test_a_file_seen_again_is_not_searched_again_and_what_is_remembered_is_bounded(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A tool call's content comes in each of its updates: its spans are remembered (4 M
    characters of strings at most), and the same spans come back."""
    from acptrace.record import spans

    policy = RedactionPolicy.build()
    searched: list[int] = []
    shape_spans = spans._shape_spans

    def counting(text: str, *args: object) -> object:
        searched.append(len(text))
        return shape_spans(text, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(spans, "_shape_spans", counting)
    text = f"deploy log\nusing {TOKENS['pulumi-api-token']} now\n"
    first = redact_string(text, policy, Reading.LINES)
    assert redact_string(text, policy, Reading.LINES) == first
    assert searched == [len(text)]
    big = "a\n" * (1 << 20)  # (2 M characters)
    for n in range(4):
        redact_string(big + str(n), policy, Reading.LINES)
    assert policy.recent_chars[0] == sum(map(len, policy.recent_files)) <= 1 << 22
