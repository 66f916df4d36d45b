"""Redaction is linear (issue #39.2): a megabyte of one string, made of the worst inputs found
for every shape's keyword and every name rule, is redacted in well under a second.

Before issue #39 the `url-credentials` shape rescanned from every letter: 200 KB of hex and a
URL took 43 s (x4 per doubling). Times are CPU seconds of this process, which a busy machine
moves less than wall time; the bound is twice the slowest input measured on the 2-core VM.
"""

from __future__ import annotations

import time

import pytest

from acptrace.record.gitleaks.rules import GitleaksRule, rule_set
from acptrace.record.redact import RedactionPolicy, redact_message, redact_string
from acptrace.record.secret_shapes import SHAPES
from acptrace.record.spans import Reading
from benchmarks.gitleaks_rules import seconds as gitleaks_seconds
from benchmarks.gitleaks_rules import worst_inputs

POLICY = RedactionPolicy.build()
SIZE = 1_000_000
BOUND_S = 1.0


def fill(unit: str) -> str:
    return (unit * (SIZE // len(unit) + 1))[:SIZE]


WORST = {
    "hex-and-url": "0123456789abcdef" * (SIZE // 16) + " https://example.com/x",
    "name=value": fill("&key="),
    "name: value at line starts": fill("password: x1\n"),
    "name: value mid-line": fill("token: "),
    "name=value with values": fill("password=x "),
    "curl users": fill("-u a:b "),
    "url passwords": fill("://a:b@"),
    "jwt headers": fill("eyJ"),
    "pem markers": fill("-----BEGIN RSA PRIVATE KEY-----"),
    "bearer prose": fill("Bearer "),
    "telegram": fill("1234567890:AA"),
    "zero-width": fill("ghp_\u200b"),
    "separators": fill("a="),
    "dashes": fill("--"),
    "shapes and names interleaved": fill("ghp_" + "A1" * 18 + " password=x1 "),
    "shapes and flags interleaved": fill("sk-" + "a" * 20 + " --token t "),
    "a capital that lowers to two": fill("\u0130"),
}
"""The costliest inputs found (tried: every keyword alone, spaced, followed by a long run, and
each rule's separators, as a megabyte each, in each way of reading a string)."""

KEYWORDS = sorted({keyword for shape in SHAPES for keyword in shape.keywords})


def cpu_seconds(text: str, reading: Reading) -> float:
    start = time.process_time()
    redact_string(text, POLICY, reading)
    return time.process_time() - start


@pytest.mark.parametrize("reading", list(Reading))
@pytest.mark.parametrize("name", list(WORST))
def test_the_worst_inputs_found_take_well_under_a_second(name: str, reading: Reading) -> None:
    assert cpu_seconds(WORST[name], reading) < BOUND_S


@pytest.mark.parametrize("keyword", KEYWORDS)
def test_every_keyword_repeated_is_linear(keyword: str) -> None:
    """Each shape's keyword a megabyte over, alone, spaced and in capitals, and followed by a
    megabyte of what its token may hold."""
    for text in (fill(keyword), fill(keyword + " "), fill(keyword.upper() + "A1")):
        assert cpu_seconds(text, Reading.FREE) < BOUND_S, text[:40]
    assert cpu_seconds(keyword + "a" * SIZE, Reading.FREE) < BOUND_S


def test_a_megabyte_of_one_string_in_a_message_is_redacted_in_well_under_a_second() -> None:
    secret = "ghp_" + "S3CR3Tx" * 6
    message = {"params": {"text": WORST["hex-and-url"] + f" token {secret}"}}
    start = time.process_time()
    redacted, count = redact_message(message, POLICY)
    assert time.process_time() - start < BOUND_S / 4
    assert secret not in redacted["params"]["text"]
    assert count == 1


def test_twice_the_input_takes_about_twice_the_time() -> None:
    """Linear, not quadratic: doubling the worst input does not quadruple its time."""
    unit = "&key="
    small = min(cpu_seconds(fill(unit)[: SIZE // 2], Reading.FREE) for _ in range(3))
    large = min(cpu_seconds(fill(unit), Reading.FREE) for _ in range(3))
    assert large < 3 * small + 0.01


# -- gitleaks' rules (vendored): every kept rule stays linear on its worst inputs --------------


GITLEAKS_FAMILIES = ("over and over", "near misses")
"""The inputs of `benchmarks/gitleaks_rules.py` found worst. That benchmark tries them all (and
eleven runs after each keyword) on a megabyte: 0.25 s at most for any kept rule on
2026-12-07; the suite tries these on a quarter of a megabyte, held to a quarter second."""
GITLEAKS_SIZE = SIZE // 4


@pytest.mark.parametrize("rule", rule_set().kept, ids=lambda rule: rule.id)
def test_every_kept_gitleaks_rule_searches_its_worst_inputs_in_linear_time(
    rule: GitleaksRule,
) -> None:
    """Each worst input, every keyword in it a hit, at the rate of under a second a megabyte.
    Rules whose pattern nests repeats over one class (`[\\w.-]{0,50}?(?i:[\\w.-]{0,50}?…)`,
    10 s a megabyte) are kept: that prefix is not searched (`rules._without_name_prefix`)."""
    for what, text in worst_inputs(rule, GITLEAKS_SIZE):
        if any(family in what for family in GITLEAKS_FAMILIES):
            assert gitleaks_seconds(rule, text) < BOUND_S / 4, what


def test_gitleaks_rules_apply_to_a_megabyte_of_lines_in_well_under_a_second() -> None:
    """Through `redact_string` (every shape and rule): a file of a megabyte whose every line
    names a service a rule knows."""
    text = fill("okta = 00abc\njira: x\nsumo=1\nsk-\nxray ")
    assert cpu_seconds(text, Reading.LINES) < BOUND_S
